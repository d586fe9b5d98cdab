import type { DocumentBuilder } from './document-builder.js';

export interface PdfExtractResult {
  title: string;
  confidence: number;
  pageCount: number;
  metadata: Record<string, string>;
}

export async function extractPdf(body: Uint8Array, builder: DocumentBuilder, _limits: { timeoutMs: number; maxPages: number }): Promise<PdfExtractResult> {
  if (body.length === 0) builder.error('pdf-empty', 'The PDF has no bytes.');
  else builder.error('pdf-unsupported', 'PDF extraction is not available yet.');
  return { title: '', confidence: 0, pageCount: 0, metadata: {} };
}
