import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CaptureMethod, SnapshotMeta } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { writeFailure } from '../store/write-failure.js';
import { canonicalJsonFile } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { writeFileAtomic } from '../store/atomic-file.js';
import { decideCharset, parseContentType, type CharsetSource } from './charset.js';
import { fetchRepresentation, type Observation, type Validators } from './fetch.js';
import type { CaptureRun } from './run.js';
import { snapshotFacts } from './snapshot-facts.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * One HTTP snapshot target: a conditional fetch, then the same kind of snapshot manual ingest records
 * (`records/<snapshotId>.json` beside `bodies/<sha256>`), with the HTTP observation added.
 *
 * The record is content-addressed: its bytes depend only on the representation and on the first
 * observation of it, written once. A later observation of the same representation (a 304, or the same
 * bytes, content type and charset) returns the recorded bytes unchanged, so the engine reports the
 * target `unchanged` and nothing downstream runs. Later observations go to the source's observation log
 * (`observations/<documentId>.json`) and the build state's facts, which nothing downstream reads.
 */

/** The record written for an HTTP snapshot: SnapshotMeta plus how its charset was chosen and its first observation. */
export interface HttpSnapshotRecord extends SnapshotMeta {
  captureMethod: 'http';
  charsetSource: CharsetSource;
  headerCharset: string | null;
  documentCharset: string | null;
  observation: Observation;
}

export interface HttpSnapshotContext {
  snapshotsDir: string;
  /** Absolute workspace root; only used to read and write files. */
  root: string;
  documentId: string;
  url: string;
  run: CaptureRun;
  /** The target's previous build record, when there is one. */
  previous: { output: string; sha256: string; facts?: Record<string, string> } | undefined;
  /** The snapshot id function both capture methods share (src/graph/rules.ts). */
  metaFor(sourceUrl: string, captureMethod: CaptureMethod, contentType: string, charset: string | null, body: Uint8Array): SnapshotMeta;
}

export interface HttpSnapshotResult {
  bytes: Buffer;
  output: string;
  facts: Record<string, string>;
}

const OBSERVATION_LOG_LENGTH = 100;

export async function captureHttpSnapshot(ctx: HttpSnapshotContext): Promise<HttpSnapshotResult> {
  const previous = usablePrevious(ctx);
  const validators: Validators | null =
    previous && (previous.facts.etag || previous.facts.lastModified)
      ? { etag: previous.facts.etag || null, lastModified: previous.facts.lastModified || null }
      : null;
  const outcome = await ctx.run.withFetchSlot(ctx.url, () =>
    fetchRepresentation({
      url: ctx.url,
      validators,
      bounds: ctx.run.bounds,
      tempDir: path.join(ctx.root, ctx.snapshotsDir, 'bodies'),
      onEvent: (event) => ctx.run.emit(ctx.documentId, event),
    }),
  );

  if (outcome.kind === 'not-modified') {
    const kept = previous!; // validators are only sent when a usable previous snapshot exists
    const observation = outcome.observation;
    logObservation(ctx, observation, kept.facts.snapshotId!, 'not-modified');
    return {
      bytes: kept.bytes,
      output: kept.output,
      facts: {
        ...kept.facts,
        observedAt: observation.observedAt,
        etag: observation.etag ?? kept.facts.etag ?? '',
        lastModified: observation.lastModified ?? kept.facts.lastModified ?? '',
      },
    };
  }

  const { observation, body } = outcome;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(body.tempPath);
  } catch (cause) {
    throw storeFailed(ctx, 'cannot read the downloaded body back', cause);
  }
  const contentType = parseContentType(observation.contentTypeHeader);
  const charset = decideCharset(body.head, contentType.mediaType, contentType.charset);
  const meta = ctx.metaFor(ctx.url, 'http', contentType.mediaType, charset.charset, bytes);
  // The file must hold exactly the bytes received (hashed as they arrived): anything else is the disk's
  // doing, and never a snapshot of the source.
  if (meta.sha256 !== body.sha256 || bytes.byteLength !== body.byteLength) {
    fs.rmSync(body.tempPath, { force: true });
    throw storeFailed(
      ctx,
      `the body file holds ${bytes.byteLength} bytes (SHA-256 ${meta.sha256.slice(0, 12)}), not the ${body.byteLength} received ` +
        `(${body.sha256.slice(0, 12)})`,
      null,
    );
  }
  const bodyPath = `${ctx.snapshotsDir}/bodies/${meta.sha256}`;
  commitBody(ctx, body.tempPath, path.join(ctx.root, bodyPath), bytes);

  const recordPath = `${ctx.snapshotsDir}/records/${meta.snapshotId}.json`;
  let recordBytes: Buffer;
  let outcomeLabel: 'same' | 'new';
  if (previous && previous.facts.snapshotId === meta.snapshotId) {
    recordBytes = previous.bytes;
    outcomeLabel = 'same';
  } else {
    const existing = readRecordOf(ctx, recordPath, meta);
    outcomeLabel = existing ? 'same' : 'new';
    recordBytes =
      existing ??
      Buffer.from(
        canonicalJsonFile({
          ...meta,
          captureMethod: 'http',
          charsetSource: charset.source,
          headerCharset: charset.headerCharset,
          documentCharset: charset.documentCharset,
          observation,
        } satisfies HttpSnapshotRecord),
        'utf8',
      );
  }
  logObservation(ctx, observation, meta.snapshotId, outcomeLabel);
  return {
    bytes: recordBytes,
    output: recordPath,
    facts: {
      ...snapshotFacts(meta, bodyPath),
      observedAt: observation.observedAt,
      etag: observation.etag ?? '',
      lastModified: observation.lastModified ?? '',
      finalUrl: observation.finalUrl,
    },
  };
}

/** The previous snapshot of this source, if its record and body are still intact on disk. */
export function usablePrevious(
  ctx: Pick<HttpSnapshotContext, 'root' | 'url' | 'previous'>,
): { output: string; bytes: Buffer; facts: Record<string, string> } | null {
  const previous = ctx.previous;
  const facts = previous?.facts;
  if (
    !previous ||
    !facts ||
    facts.captureMethod !== 'http' ||
    facts.sourceUrl !== ctx.url ||
    !facts.snapshotId ||
    !facts.body ||
    !facts.sha256
  )
    return null;
  try {
    const bytes = readRegularFileSync(path.join(ctx.root, previous.output));
    if (sha256Hex(bytes) !== previous.sha256) return null;
    if (sha256Hex(readRegularFileSync(path.join(ctx.root, facts.body))) !== facts.sha256) return null;
    return { output: previous.output, bytes, facts };
  } catch {
    return null;
  }
}

/** An existing record of exactly this representation, captured over HTTP (e.g. content that came back). */
function readRecordOf(ctx: HttpSnapshotContext, recordPath: string, meta: SnapshotMeta): Buffer | null {
  try {
    const bytes = readRegularFileSync(path.join(ctx.root, recordPath));
    const parsed = JSON.parse(bytes.toString('utf8')) as Partial<HttpSnapshotRecord>;
    const same =
      parsed.snapshotId === meta.snapshotId &&
      parsed.sha256 === meta.sha256 &&
      parsed.captureMethod === 'http' &&
      parsed.contentType === meta.contentType &&
      parsed.charset === meta.charset &&
      parsed.sourceUrl === meta.sourceUrl &&
      parsed.byteLength === meta.byteLength &&
      typeof parsed.observation === 'object';
    return same ? bytes : null;
  } catch {
    return null;
  }
}

/** Moves the downloaded body to bodies/<sha256> (atomic rename), unless identical bytes are already there. */
function commitBody(ctx: HttpSnapshotContext, tempPath: string, finalPath: string, bytes: Buffer): void {
  try {
    let present = false;
    try {
      present = fs.statSync(finalPath).size === bytes.byteLength && Buffer.compare(readRegularFileSync(finalPath), bytes) === 0;
    } catch {
      present = false;
    }
    if (present) fs.rmSync(tempPath, { force: true });
    else fs.renameSync(tempPath, finalPath);
  } catch (cause) {
    fs.rmSync(tempPath, { force: true });
    const failure = writeFailure(cause, finalPath);
    if (failure instanceof EpistemeError) throw failure; // disk full, read-only: write-failed, naming the file
    throw storeFailed(ctx, `cannot store the body as ${path.basename(finalPath)}`, cause);
  }
}

function storeFailed(ctx: HttpSnapshotContext, message: string, cause: unknown): EpistemeError {
  return new EpistemeError('source-failed', `GET ${ctx.url} failed: store-failed: ${message}`, {
    details: { reason: 'store-failed', url: ctx.url },
    cause,
  });
}

interface LoggedObservation {
  observedAt: string;
  outcome: 'new' | 'same' | 'not-modified';
  snapshotId: string;
  status: number;
  finalUrl: string;
  etag: string | null;
  lastModified: string | null;
  receivedLength: number;
}

/**
 * Appends to `observations/<documentId>.json` (the last 100 observations, newest last), rewritten
 * atomically. A log that cannot be read is started again: it is a record for people, not an input.
 */
function logObservation(
  ctx: HttpSnapshotContext,
  observation: Observation,
  snapshotId: string,
  outcome: LoggedObservation['outcome'],
): void {
  const file = path.join(ctx.root, ctx.snapshotsDir, 'observations', `${ctx.documentId}.json`);
  let entries: LoggedObservation[] = [];
  try {
    const parsed = JSON.parse(readRegularFileSync(file, 'utf8')) as { sourceUrl?: unknown; observations?: unknown };
    if (parsed.sourceUrl === ctx.url && Array.isArray(parsed.observations)) entries = parsed.observations as LoggedObservation[];
  } catch {
    entries = [];
  }
  entries.push({
    observedAt: observation.observedAt,
    outcome,
    snapshotId,
    status: observation.status,
    finalUrl: observation.finalUrl,
    etag: observation.etag,
    lastModified: observation.lastModified,
    receivedLength: observation.receivedLength,
  });
  writeFileAtomic(file, canonicalJsonFile({ sourceUrl: ctx.url, observations: entries.slice(-OBSERVATION_LOG_LENGTH) }));
}
