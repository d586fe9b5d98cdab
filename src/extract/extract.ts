import type { EvidenceDocument, ExtractorId, SnapshotMeta, SourceSpec } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { canonicalJson } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { DocumentBuilder } from './document-builder.js';
import { decodeBytes } from './decode.js';
import { resolveFamily, type LoadedFamily } from './families.js';
import { extractHtml } from './html-extractor.js';
import { extractPlainText } from './text-extractor.js';
import { extractRfcText, looksLikeRfcText } from './rfc-text.js';
import { extractXml } from './xml-extractor.js';
import { extractPdf } from './pdf-extractor.js';
import { compareCodeUnits } from '../store/canonical-json.js';

export { validateDocument } from './validate.js';

/** Extraction options: integers, strings and booleans only (they enter the config hash). */
export interface ExtractOptions {
  /** Upper bound on the time spent parsing one PDF; past it the document gets a pdf-timeout error. */
  pdfTimeoutMs: number;
  /** PDFs with more pages are cut at this page (warning pdf-pages-truncated). */
  pdfMaxPages: number;
  /** Record links (text + resolved href) per block. */
  links: boolean;
}

export const DEFAULT_EXTRACT_OPTIONS: ExtractOptions = Object.freeze({ pdfTimeoutMs: 30_000, pdfMaxPages: 2_000, links: true });

/** Bump when a change to extraction logic changes output for the same bytes and rules. */
export const EXTRACT_RULE_VERSION = 1;

export interface ExtractInput {
  documentId: string;
  source: SourceSpec;
  snapshot: SnapshotMeta;
  body: Uint8Array;
  options: ExtractOptions;
}

const CONTENT_TYPE_EXTRACTORS: Record<string, ExtractorId> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'text/plain': 'text',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/rfc+xml': 'xml',
};

/** The media type without parameters, lower-cased. */
function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Explicit extractor, else by content type, else the family default. */
export function chooseExtractor(source: SourceSpec, snapshot: SnapshotMeta, family: LoadedFamily): ExtractorId {
  if (source.extractor !== undefined) return source.extractor;
  return CONTENT_TYPE_EXTRACTORS[mediaType(snapshot.contentType)] ?? family.rules.defaults.extractor;
}

function fragmentOf(url: string): string | null {
  const hash = url.indexOf('#');
  if (hash === -1 || hash === url.length - 1) return null;
  const raw = url.slice(hash + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function normalizedOptions(options: ExtractOptions): ExtractOptions {
  return {
    pdfTimeoutMs: options.pdfTimeoutMs ?? DEFAULT_EXTRACT_OPTIONS.pdfTimeoutMs,
    pdfMaxPages: options.pdfMaxPages ?? DEFAULT_EXTRACT_OPTIONS.pdfMaxPages,
    links: options.links ?? DEFAULT_EXTRACT_OPTIONS.links,
  };
}

/**
 * The canonical object whose SHA-256 is provenance.extractionConfigSha256: the family's rules in
 * effect, the extractor chosen, the fragment selection, the authority override and the options.
 * Editing one family's rules changes it only for that family's documents.
 */
export function extractionConfig(source: SourceSpec, snapshot: SnapshotMeta, options: ExtractOptions): Record<string, unknown> {
  const family = resolveFamily(source.url, source.family);
  const extractor = chooseExtractor(source, snapshot, family);
  const opts = normalizedOptions(options);
  // Only the options an extractor reads enter its config, so a PDF option never rebuilds HTML.
  const relevant: Record<string, unknown> = extractor === 'pdf' ? { ...opts } : { links: opts.links };
  return {
    ruleVersion: EXTRACT_RULE_VERSION,
    family: { id: family.rules.id, file: `rules/${family.file}`, rules: family.rules },
    extractor,
    fragment: fragmentOf(source.url),
    authority: source.authority ?? family.rules.defaults.authority,
    baseUrl: withoutFragment(source.url),
    options: relevant,
  };
}

/**
 * Pure extraction: the same input gives an identical document. Bad content yields a document with
 * error diagnostics (pdf-empty, pdf-encrypted, pdf-malformed, pdf-timeout, xml-malformed...);
 * an unknown family id throws EpistemeError('config-invalid').
 */
export async function extractDocument(input: ExtractInput): Promise<EvidenceDocument> {
  const { source, snapshot, body } = input;
  const options = normalizedOptions(input.options);
  const family = resolveFamily(source.url, source.family);
  const extractor = chooseExtractor(source, snapshot, family);
  const config = extractionConfig(source, snapshot, options);
  const authority = source.authority ?? family.rules.defaults.authority;
  const fragment = fragmentOf(source.url);
  const baseUrl = withoutFragment(source.url);
  const html = family.rules.html;
  const builder = new DocumentBuilder({
    authority,
    informativeSectionIds: new Set(html.informativeSectionIds),
    informativeHeadings: new Set(html.informativeHeadings.map((h) => h.toLowerCase())),
    keywordPatternFallback: true,
  });

  let title = '';
  let confidence = 50;
  const extra: Record<string, unknown> = {};
  switch (extractor) {
    case 'html': {
      const decoded = decodeBytes(body, snapshot.charset, true);
      if (decoded.unknownLabel !== undefined) builder.warn('charset-unknown', `Unknown charset "${decoded.unknownLabel}"; decoded as UTF-8.`);
      const result = extractHtml({ source: decoded.text, baseUrl, rules: html, builder, links: options.links });
      title = result.title;
      builder.limits.add('scripts-not-executed');
      builder.limits.add('html5-tree-building-approximate');
      if (result.headingCount === 0) {
        builder.warn('no-headings', 'The document has no headings; all blocks are outside any section.');
        confidence = 50;
      } else {
        confidence = result.idCount * 2 >= builder.sections.length ? 90 : 70;
      }
      break;
    }
    case 'text': {
      const decoded = decodeBytes(body, snapshot.charset, false);
      if (decoded.unknownLabel !== undefined) builder.warn('charset-unknown', `Unknown charset "${decoded.unknownLabel}"; decoded as UTF-8.`);
      if (family.rules.text.rfcLayout || looksLikeRfcText(decoded.text)) {
        const result = extractRfcText(decoded.text, builder);
        title = result.title;
        confidence = result.sectionCount > 0 ? 75 : 50;
      } else {
        title = extractPlainText(decoded.text, builder).title;
        confidence = 50;
      }
      builder.limits.add('text-layout-inferred');
      break;
    }
    case 'xml': {
      const decoded = decodeBytes(body, snapshot.charset, true);
      if (decoded.unknownLabel !== undefined) builder.warn('charset-unknown', `Unknown charset "${decoded.unknownLabel}"; decoded as UTF-8.`);
      const result = extractXml(decoded.text, baseUrl, builder, options.links);
      title = result.title;
      confidence = result.confidence;
      break;
    }
    case 'pdf': {
      const result = await extractPdf(body, builder, { timeoutMs: options.pdfTimeoutMs, maxPages: options.pdfMaxPages });
      title = result.title;
      confidence = result.confidence;
      extra['pageCount'] = result.pageCount;
      if (Object.keys(result.metadata).length > 0) extra['metadata'] = result.metadata;
      builder.limits.add('no-ocr');
      builder.limits.add('pdf-reading-order-inferred');
      break;
    }
  }

  builder.finishKeywords();
  let selected: string | null = null;
  if (fragment !== null) {
    if (builder.selectFragment(fragment)) selected = fragment;
    else builder.warn('fragment-not-found', `The URL selects #${fragment}, but no section has that id; the whole document was extracted.`);
  }
  if (title === '') title = builder.sections[0]?.heading ?? '';

  const document: EvidenceDocument = {
    documentId: input.documentId,
    sourceUrl: source.url,
    fragment: selected,
    title,
    family: family.rules.id,
    authority,
    documentType: family.rules.defaults.documentType,
    contentTrust: 'untrusted-source',
    confidence,
    ...extra,
    provenance: {
      producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION },
      extractor: { id: extractor, version: EXTRACT_RULE_VERSION },
      sourceSha256: snapshot.sha256,
      extractionConfigSha256: sha256Hex(canonicalJson(config)),
      snapshotId: snapshot.snapshotId,
      captureMethod: snapshot.captureMethod,
      contentType: snapshot.contentType,
    },
    sections: builder.sections,
    blocks: builder.blocks,
    diagnostics: builder.diagnostics,
    limits: [...builder.limits].sort(compareCodeUnits),
  };
  return document;
}

/** Thrown for inputs that yield nothing usable (never for merely bad content). */
export function sourceFailed(message: string, cause?: unknown): EpistemeError {
  return new EpistemeError('source-failed', message, { cause });
}
