import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { canonicalJson, compareCodeUnits } from './canonical-json.js';
import { sha256Hex } from './hash.js';
import { artifactFileOfPayloadJson, parseArtifact } from './artifact.js';
import { parseArtifactUnverified, type Artifact, type ArtifactKind } from './artifact-header.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * The stage indexes (`snapshots/index.json`, `specs/index.json`, `chunks/index.json`, format 2): their
 * bytes, and the one reader every consumer uses (the build, the remote cache, diff, garbage collection).
 *
 * Up to SINGLE_FILE_MAX_DOCUMENTS entries an index is one artifact: payload {entries, missingSources}.
 * Above it, index.json is a small manifest, payload {missingSources, segments}, naming content-addressed
 * segment files beside it (`index.seg-<16 hex of their SHA-256>.json`, artifact `<kind>-segment`,
 * payload {entries}), each with its SHA-256, entry count and first and last document id. Entries are in
 * document-id order and cut where the search index cuts its documents (index-layout.ts planSegments),
 * so one edit rewrites the segment holding its document and the manifest, not the whole list.
 * Segments are written durably before the manifest that names them: index.json stays the commit point,
 * and a reader uses a segment only after checking it against the SHA-256 the manifest gives it.
 */

export type StageIndexKind = 'snapshot-index' | 'document-index' | 'chunk-index';

export interface StageIndexEntry {
  documentId: string;
  sourceUrl: string;
  file: string;
  sha256: string;
}

/** A single-file stage index's payload. */
export interface StageIndexPayload {
  entries: StageIndexEntry[];
  missingSources: string[];
}

/** What a manifest says of one segment: enough to find an entry's segment without opening the others. */
export interface StageSegmentRef {
  /** How many entries the segment holds. */
  entries: number;
  file: string;
  firstDocumentId: string;
  lastDocumentId: string;
  sha256: string;
}

export interface StageManifestPayload {
  missingSources: string[];
  segments: StageSegmentRef[];
}

export const STAGE_SEGMENT_FILE_NAME = /^index\.seg-[0-9a-f]{16}\.json$/;

export function stageSegmentFileName(sha256: string): string {
  return `index.seg-${sha256.slice(0, 16)}.json`;
}

export function segmentKindOf(kind: StageIndexKind): ArtifactKind {
  return `${kind}-segment`;
}

/** An envelope around a payload given as canonical JSON, fingerprinted as artifact.ts makeArtifact does. */
function envelope(kind: ArtifactKind, payloadJson: string): string {
  return artifactFileOfPayloadJson(kind, STAGE_INDEX_FORMAT_VERSION, payloadJson);
}

/**
 * The bytes artifactBytes(makeArtifact(kind, STAGE_INDEX_FORMAT_VERSION, {entries, missingSources}))
 * gives, assembled from the entries' canonical JSON (keys in code-unit order: artifact, fingerprint,
 * formatVersion, payload, producer; in the payload: entries, missingSources).
 */
export function stageIndexBytes(kind: ArtifactKind, entryTexts: readonly string[], missingSources: readonly string[]): string {
  return envelope(kind, `{"entries":[${entryTexts.join(',')}],"missingSources":${canonicalJson(missingSources)}}`);
}

/** A segment file's bytes: its entries' canonical JSON, in document-id order. */
export function stageSegmentBytes(kind: StageIndexKind, entryTexts: readonly string[]): string {
  return envelope(segmentKindOf(kind), `{"entries":[${entryTexts.join(',')}]}`);
}

/** A manifest's bytes: the segments in document-id order. */
export function stageManifestBytes(kind: StageIndexKind, segments: readonly StageSegmentRef[], missingSources: readonly string[]): string {
  return envelope(kind, canonicalJson({ missingSources, segments }));
}

/** A committed stage index as its index.json says: the entries of a single file, or a manifest's segments. */
export interface ParsedStageIndex {
  fingerprint: string;
  producer: Artifact['producer'];
  missingSources: string[];
  entries: StageIndexEntry[] | null;
  segments: StageSegmentRef[] | null;
}

function invalid(message: string, file: string): EpistemeError {
  return new EpistemeError('artifact-invalid', message, { hint: 'Rebuild it with `episteme build`.', details: { file } });
}

/**
 * Parses index.json. `verified`: its bytes are known to be the ones the build hashed (their SHA-256 was
 * checked against the build record), so the fingerprint is not recomputed; otherwise it is.
 */
export function parseStageIndex(text: string, kind: StageIndexKind, label: string, verified: boolean): ParsedStageIndex {
  const parse = verified ? parseArtifactUnverified : parseArtifact;
  const artifact = parse<Partial<StageIndexPayload & StageManifestPayload>>(text, kind, STAGE_INDEX_FORMAT_VERSION, label);
  const payload = artifact.payload;
  if (typeof payload !== 'object' || payload === null || !Array.isArray(payload.missingSources))
    throw invalid(`${label} is not a ${kind} (no missingSources).`, label);
  const common = { fingerprint: artifact.fingerprint, producer: artifact.producer, missingSources: payload.missingSources };
  if (Array.isArray(payload.entries)) return { ...common, entries: payload.entries, segments: null };
  if (!Array.isArray(payload.segments)) throw invalid(`${label} is not a ${kind} (neither entries nor segments).`, label);
  let previous: string | null = null;
  for (const [i, ref] of payload.segments.entries()) {
    const ok =
      typeof ref === 'object' &&
      ref !== null &&
      typeof ref.file === 'string' &&
      STAGE_SEGMENT_FILE_NAME.test(ref.file) &&
      typeof ref.sha256 === 'string' &&
      /^[0-9a-f]{64}$/.test(ref.sha256) &&
      Number.isInteger(ref.entries) &&
      ref.entries > 0 &&
      typeof ref.firstDocumentId === 'string' &&
      typeof ref.lastDocumentId === 'string' &&
      (previous === null || compareCodeUnits(previous, ref.firstDocumentId) < 0);
    if (!ok) throw invalid(`${label} names a malformed segment (#${i + 1}).`, label);
    previous = ref.lastDocumentId;
  }
  return { ...common, entries: null, segments: payload.segments };
}

/** Reads a file a reader was told to read; a caller may bound it (diff reads within its byte budget). */
export type ReadFile = (absolutePath: string, label: string) => Buffer;

const readPlain: ReadFile = (file) => readRegularFileSync(file);

/**
 * Reads one segment a manifest names, checked against it: its SHA-256, kind, format, entry count and
 * document-id range, entries in ascending order. A missing, truncated, swapped or foreign file fails with
 * artifact-invalid naming it. `producer`: the producer its envelope names (for reuse decisions).
 */
export function readStageSegment(
  dir: string,
  dirLabel: string,
  kind: StageIndexKind,
  ref: StageSegmentRef,
  read: ReadFile = readPlain,
): { entries: StageIndexEntry[]; producer: Artifact['producer'] } {
  const label = `${dirLabel}/${ref.file}`;
  let bytes: Buffer;
  try {
    bytes = read(path.join(dir, ref.file), label);
  } catch (error) {
    if (error instanceof EpistemeError && error.code !== 'input-not-found') throw error;
    throw new EpistemeError('artifact-invalid', `${label}, a segment of ${dirLabel}/index.json, is missing.`, {
      hint: 'Rebuild with `episteme build`: it writes the segment again.',
      details: { file: label },
    });
  }
  if (sha256Hex(bytes) !== ref.sha256)
    throw new EpistemeError(
      'artifact-invalid',
      `${label} does not match the SHA-256 ${dirLabel}/index.json records for it (tampered, truncated or swapped).`,
      { hint: 'Rebuild with `episteme build`: it writes the segment again.', details: { file: label } },
    );
  // Its bytes are the ones the manifest's writer hashed: their fingerprint needs no second check.
  const artifact = parseArtifactUnverified<{ entries?: unknown }>(
    bytes.toString('utf8'),
    segmentKindOf(kind),
    STAGE_INDEX_FORMAT_VERSION,
    label,
  );
  const entries = artifact.payload?.entries;
  if (!Array.isArray(entries) || entries.length !== ref.entries || !inOrder(entries, ref))
    throw invalid(`${label} does not hold the entries ${dirLabel}/index.json says it does.`, label);
  return { entries: entries as StageIndexEntry[], producer: artifact.producer };
}

/** Entries with document ids ascending from the manifest's first to its last id for this segment. */
function inOrder(entries: unknown[], ref: StageSegmentRef): boolean {
  let previous: string | null = null;
  for (const entry of entries) {
    const id = (entry as Partial<StageIndexEntry> | null)?.documentId;
    if (typeof id !== 'string' || (previous !== null && compareCodeUnits(previous, id) >= 0)) return false;
    previous = id;
  }
  return (entries[0] as StageIndexEntry).documentId === ref.firstDocumentId && previous === ref.lastDocumentId;
}

/** A stage index with every entry, each segment verified. */
export interface StageIndexContents {
  fingerprint: string;
  entries: StageIndexEntry[];
  missingSources: string[];
  /** The manifest's segments; null for a single-file index. */
  segments: StageSegmentRef[] | null;
}

/**
 * Reads the committed stage index of `kind` in `dir`: index.json (its fingerprint verified unless
 * `indexBytes` are given as verified), then each segment it names, verified against it. Errors are
 * artifact-invalid with a hint; no unverified byte is returned.
 */
export function readStageIndex(
  dir: string,
  kind: StageIndexKind,
  options: { dirLabel?: string; indexBytes?: Buffer; verified?: boolean; read?: ReadFile } = {},
): StageIndexContents {
  const dirLabel = options.dirLabel ?? dir;
  const read = options.read ?? readPlain;
  const indexLabel = `${dirLabel}/index.json`;
  const bytes = options.indexBytes ?? read(path.join(dir, 'index.json'), indexLabel);
  const parsed = parseStageIndex(bytes.toString('utf8'), kind, indexLabel, options.verified === true);
  if (parsed.entries !== null)
    return { fingerprint: parsed.fingerprint, entries: parsed.entries, missingSources: parsed.missingSources, segments: null };
  const entries: StageIndexEntry[] = [];
  for (const ref of parsed.segments!) for (const entry of readStageSegment(dir, dirLabel, kind, ref, read).entries) entries.push(entry);
  return { fingerprint: parsed.fingerprint, entries, missingSources: parsed.missingSources, segments: parsed.segments };
}

/**
 * The workspace-relative files a committed index names (its segments, and in every entry its file and
 * a snapshot's body), read leniently for garbage collection: what cannot be read names nothing (keeping
 * more is safe; the build that follows rebuilds a damaged index).
 */
export function namedByStageIndex(root: string, dir: string): string[] {
  const named: string[] = [];
  const parseLenient = (file: string): { payload?: { entries?: unknown; segments?: unknown } } | null => {
    try {
      return JSON.parse(readRegularFileSync(path.join(root, dir, file), 'utf8')) as { payload?: { entries?: unknown; segments?: unknown } };
    } catch {
      return null;
    }
  };
  const addEntries = (entries: unknown): void => {
    if (!Array.isArray(entries)) return;
    for (const entry of entries as { file?: unknown; body?: unknown }[]) {
      if (typeof entry?.file === 'string') named.push(`${dir}/${entry.file}`);
      if (typeof entry?.body === 'string') named.push(`${dir}/${entry.body}`);
    }
  };
  const index = parseLenient('index.json');
  addEntries(index?.payload?.entries);
  const segments = index?.payload?.segments;
  if (Array.isArray(segments)) {
    for (const ref of segments as { file?: unknown }[]) {
      if (typeof ref?.file !== 'string' || !STAGE_SEGMENT_FILE_NAME.test(ref.file)) continue;
      named.push(`${dir}/${ref.file}`);
      addEntries(parseLenient(ref.file)?.payload?.entries);
    }
  }
  return named;
}
