import type { ExtractorId, SnapshotMeta, SourceSpec } from '../document/types.js';
import { contentFamilies, familyByUrl, genericFamily, siblingFamilies, type LoadedFamily } from './families.js';
export type { LoadedFamily } from './families.js';

/**
 * What shapes an extraction, without the extractors themselves: the build graph computes every
 * document's key from this module on every run, so it stays light (no parsers, no PDF engine).
 */
export {
  DEFAULT_EXTRACT_OPTIONS,
  EXTRACT_MS_PER_MIB,
  EXTRACT_OPTION_RANGES,
  validateExtractOptions,
  type ExtractOptions,
} from './options.js';
import { DEFAULT_EXTRACT_OPTIONS, EXTRACT_MS_PER_MIB, EXTRACT_OPTION_RANGES, type ExtractOptions } from './options.js';

/**
 * The wall-clock bound of extracting `bytes` bytes with `extractor`: the option (`pdfTimeoutMs` for a
 * PDF, `timeoutMs` otherwise) plus EXTRACT_MS_PER_MIB for each MiB, at most the option's range maximum.
 */
export function extractTimeoutMs(options: ExtractOptions, extractor: ExtractorId, bytes = 0): number {
  const base = extractor === 'pdf' ? options.pdfTimeoutMs : options.timeoutMs;
  const perMib = EXTRACT_MS_PER_MIB[extractor === 'pdf' ? 'pdf' : 'other'];
  return Math.min(EXTRACT_OPTION_RANGES.timeoutMs.max, base + Math.ceil((bytes / (1024 * 1024)) * perMib));
}

/** Bump when a change to extraction logic changes output for the same bytes and rules. */
export { EXTRACT_RULE_VERSION } from '../rule-versions.js';
import { EXTRACT_RULE_VERSION, PDF_EXTRACTOR_VERSION } from '../rule-versions.js';

/** A Map, not an object: a content type is the server's text (`constructor` must not name Object). */
const CONTENT_TYPE_EXTRACTORS = new Map<string, ExtractorId>([
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
  ['application/pdf', 'pdf'],
  ['text/plain', 'text'],
  ['text/markdown', 'markdown'],
  ['text/x-markdown', 'markdown'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
  ['application/rfc+xml', 'xml'],
]);

/** The media type without parameters, lower-cased. */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** A URL whose path names a Markdown file (`.md`, `.markdown`). */
const MARKDOWN_PATH = /\.(?:md|markdown)$/i;

/**
 * Explicit extractor, else by content type, else the family default. Plain text at a URL whose path
 * names a Markdown file is Markdown: raw.githubusercontent.com and most static hosts serve `.md` files
 * as text/plain.
 */
export function chooseExtractor(source: SourceSpec, snapshot: SnapshotMeta, family: LoadedFamily): ExtractorId {
  if (source.extractor !== undefined) return source.extractor;
  const byType = CONTENT_TYPE_EXTRACTORS.get(mediaType(snapshot.contentType));
  if (byType === 'text' && MARKDOWN_PATH.test(urlPath(source.url))) return 'markdown';
  return byType ?? family.rules.defaults.extractor;
}

/** The path of `url` ('' when it is not a URL). */
function urlPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

export function fragmentOf(url: string): string | null {
  const hash = url.indexOf('#');
  if (hash === -1 || hash === url.length - 1) return null;
  const raw = url.slice(hash + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

/**
 * The options that shape a document, defaults applied. The time and memory bounds are not among them:
 * tripping one is a failure, never a document, so they cannot change a document's bytes, and raising
 * one re-extracts nothing that succeeded (pdfTimeoutMs left PDF keys in 0.1.0's [Unreleased] changes).
 */
export type ShapingOptions = Pick<ExtractOptions, 'pdfMaxPages' | 'links'>;

export function normalizedOptions(options: ShapingOptions): ShapingOptions {
  return {
    pdfMaxPages: options.pdfMaxPages ?? DEFAULT_EXTRACT_OPTIONS.pdfMaxPages,
    links: options.links ?? DEFAULT_EXTRACT_OPTIONS.links,
  };
}

const NO_FAMILIES: readonly LoadedFamily[] = [];

/**
 * The families whose rules may shape a source's document: the one its entry or URL names; else, for
 * markup and text (whose bytes may declare the tool that made them), every family that lists generators
 * (`byContent`), with generic as the last resort. A PDF declares none Episteme reads: generic alone.
 */
export function familiesInEffect(
  source: SourceSpec,
  snapshot: SnapshotMeta,
  workspaceFamilies?: readonly LoadedFamily[],
): { family: LoadedFamily; extractor: ExtractorId; byContent: readonly LoadedFamily[]; byUrl: boolean } {
  const byUrl = familyByUrl(source.url, source.family, workspaceFamilies);
  const family = byUrl ?? genericFamily(workspaceFamilies);
  const extractor = chooseExtractor(source, snapshot, family);
  // A family the entry names is final; one the URL gives yields to a sibling whose document type the
  // document declares (siblingFamilies).
  const byContent =
    extractor === 'pdf' || source.family !== undefined
      ? NO_FAMILIES
      : byUrl === null
        ? contentFamilies(workspaceFamilies)
        : siblingFamilies(byUrl, workspaceFamilies);
  return { family, extractor, byContent, byUrl: byUrl !== null };
}

const familyEntries = new WeakMap<readonly LoadedFamily[], { id: string; file: string; rules: unknown }[]>();

/** A family as the config names it: its id, its file and its rules (a workspace family's file is workspace-relative). */
function familyEntry(family: LoadedFamily): { id: string; file: string; rules: unknown } {
  return { id: family.rules.id, file: family.workspaceFile ?? `rules/${family.file}`, rules: family.rules };
}

/**
 * The canonical object whose SHA-256 is provenance.extractionConfigSha256: the family's rules in
 * effect, the extractor chosen, the fragment selection, the authority override and the options.
 * Editing one family's rules changes it only for that family's documents, for the documents whose
 * URL names no family when that family lists generators, and for its siblings' documents (rfc and
 * ietf-draft, w3c and whatwg: `familiesByContent`, the families their content may select). Which
 * family the content selects is not here: it is read from the bytes, which the key holds already, and
 * the document records it (`family`).
 */
export function extractionConfig(
  source: SourceSpec,
  snapshot: SnapshotMeta,
  options: ShapingOptions,
  workspaceFamilies?: readonly LoadedFamily[],
): Record<string, unknown> {
  const { family, extractor, byContent } = familiesInEffect(source, snapshot, workspaceFamilies);
  let candidates = familyEntries.get(byContent);
  if (candidates === undefined) {
    candidates = byContent.map(familyEntry);
    familyEntries.set(byContent, candidates);
  }
  const opts = normalizedOptions(options);
  // Only the options an extractor reads enter its config, so a PDF option never rebuilds HTML.
  const relevant: Record<string, unknown> = extractor === 'pdf' ? { ...opts } : { links: opts.links };
  return {
    ruleVersion: EXTRACT_RULE_VERSION,
    // Only PDF documents carry the PDF extractor's version: bumping it rebuilds PDFs alone.
    ...(extractor === 'pdf' ? { pdfExtractorVersion: PDF_EXTRACTOR_VERSION } : {}),
    // A workspace family is hashed like a built-in one: its id, its file and its rules.
    family: familyEntry(family),
    ...(candidates.length > 0 ? { familiesByContent: candidates } : {}),
    extractor,
    fragment: fragmentOf(source.url),
    authority: source.authority ?? family.rules.defaults.authority,
    baseUrl: withoutFragment(source.url),
    options: relevant,
  };
}
