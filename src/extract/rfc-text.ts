import type { DocumentBuilder } from './document-builder.js';
import { extractPlainText } from './text-extractor.js';

export function looksLikeRfcText(_source: string): boolean {
  return false;
}

export function extractRfcText(source: string, builder: DocumentBuilder): { title: string; sectionCount: number } {
  return { title: extractPlainText(source, builder).title, sectionCount: 0 };
}
