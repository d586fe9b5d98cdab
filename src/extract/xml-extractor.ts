import type { DocumentBuilder } from './document-builder.js';
import { extractPlainText } from './text-extractor.js';

export function extractXml(source: string, _baseUrl: string, builder: DocumentBuilder, _links: boolean): { title: string; confidence: number } {
  builder.warn('xml-structure-unsupported', 'XML structure is not extracted yet; text only.');
  return { title: extractPlainText(source.replace(/<[^>]*>/g, ' '), builder).title, confidence: 20 };
}
