import * as fs from 'node:fs';
import type { SnapshotMeta } from '../../document/types.js';
import { EpistemeError } from '../../failure.js';
import { canonicalJson, canonicalJsonFile } from '../../store/canonical-json.js';
import { sha256Hex } from '../../store/hash.js';
import { readBoundedFile } from '../../store/bounded-read.js';
import { writeFileAtomic, writeFileIfChanged } from '../../store/atomic-file.js';
import { snapshotFacts } from '../../capture/snapshot-facts.js';
import { namedOptions } from '../key.js';
import { statStamp } from '../state.js';
import type { SourceTarget, TargetNode } from '../graph.js';
import { abs, isIntact, readVerified, sourceFileHash } from './files.js';
import type { Rule, RuleEnv } from './types.js';
import { readRegularFileSync } from '../../regular-file.js';

/**
 * The snapshot of one source: a local file read (its bytes are the input), or an HTTP capture pinned by
 * its recorded body until a refresh is asked for. The only rule that is not a pure function of bytes.
 */
export const snapshotRule: Rule = {
  rule: 'snapshot',
  version: () => 1,
  dataFiles: (ws) => [
    [`${ws.outputs.snapshots}/records`, (name) => /^snap-[0-9a-f]{32}\.json$/.test(name)],
    [`${ws.outputs.snapshots}/bodies`, (name) => /^[0-9a-f]{64}$/.test(name)],
  ],
  options: (_env, node) => {
    const capture = src(node).capture;
    // HTTP: nothing but the URL shapes the key; the recorded snapshot pins it until a refresh is asked for.
    if (capture.method === 'http') return namedOptions('snapshot', { sourceUrl: src(node).spec.url, method: capture.method });
    return namedOptions('snapshot', {
      sourceUrl: src(node).spec.url,
      method: capture.method,
      contentType: capture.contentType,
      charset: capture.charset,
    });
  },
  sourceInputs: (env, node) => {
    const capture = src(node).capture;
    if (capture.method === 'http') return {};
    return { [capture.relativePath]: sourceFileHash(env, capture.relativePath, capture.absolutePath, capture.stat) };
  },
  refreshReason: (env, node, record) => {
    if (src(node).capture.method !== 'http') return null;
    const due = env.capture.refreshDue(record.facts?.observedAt);
    return due ? { reason: 'refresh-requested', ...due } : null;
  },
  run: async (env, node) => {
    const capture = src(node).capture;
    if (capture.method === 'http') {
      // A damaged body of a recorded HTTP snapshot cannot be recomputed, and a plain build does not
      // fetch what it has recorded: say exactly how to recapture it.
      const previous = env.state.targets.get(node.name);
      const body = previous?.facts?.body;
      if (
        previous &&
        body &&
        previous.facts?.sha256 &&
        !isIntact(abs(env.ws, body), previous.facts.sha256) &&
        !env.capture.refreshDue(previous.facts.observedAt)
      ) {
        throw new EpistemeError(
          'artifact-invalid',
          `${body}, the captured body of ${src(node).spec.url}, is missing or fails its SHA-256 (damaged); ` +
            'an HTTP capture cannot be rebuilt offline.',
          {
            hint: `Recapture it: episteme build --refresh ${node.name}`,
            details: { file: body, target: node.name, url: src(node).spec.url },
          },
        );
      }
      if (env.capture.request.offline) {
        // Offline, an intact recorded snapshot is kept as it is (its key may have moved with the
        // producer version); only a source never captured, or whose capture is gone, is an error.
        const { usablePrevious } = await import('../../capture/http-snapshot.js');
        const kept = usablePrevious({ root: env.ws.root, url: src(node).spec.url, previous });
        if (kept) return { bytes: kept.bytes, outputPath: () => kept.output, facts: kept.facts };
        throw new EpistemeError('snapshot-missing', `${src(node).spec.url} has no recorded snapshot, and this command runs offline.`, {
          hint: 'Capture it first with `episteme snapshot` (or `episteme build`, which captures what is missing, then extracts).',
          details: { url: src(node).spec.url, target: node.name },
        });
      }
      // Loaded on first use: got is not needed by builds that capture nothing over HTTP.
      const { captureHttpSnapshot } = await import('../../capture/http-snapshot.js');
      const captured = await captureHttpSnapshot({
        snapshotsDir: env.ws.outputs.snapshots,
        root: env.ws.root,
        documentId: src(node).documentId,
        url: src(node).spec.url,
        run: env.capture,
        previous: env.state.targets.get(node.name),
        metaFor: snapshotMetaFor,
      });
      return { bytes: captured.bytes, outputPath: () => captured.output, facts: captured.facts };
    }
    let body: Buffer;
    try {
      // The bytes this build read for the key, while the file is as it was then; else read (size and
      // kind checked on the opened descriptor before the first byte is read).
      body =
        env.memory.reads.takeSource(capture.absolutePath, statStamp(capture.absolutePath)) ??
        readBoundedFile(capture.absolutePath, { label: 'Source file', maxBytes: env.ws.limits.maxFileBytes });
    } catch (error) {
      if (!(error instanceof EpistemeError)) throw error;
      const details = {
        file: capture.relativePath,
        reason: error.code,
        ...(error.code === 'input-too-large' ? { size: error.details?.size, maxBytes: env.ws.limits.maxFileBytes } : {}),
      };
      if (error.code === 'input-too-large') {
        throw new EpistemeError(
          'source-failed',
          `${capture.relativePath} is ${String(error.details?.size)} bytes, over the ${env.ws.limits.maxFileBytes}-byte bound.`,
          {
            hint: 'Raise limits.maxFileBytes in the workspace config if the file is trusted.',
            details,
          },
        );
      }
      throw new EpistemeError(
        'source-failed',
        `Cannot read ${capture.relativePath}: it ${String(error.details?.problem ?? 'cannot be read')}.`,
        { details, cause: error },
      );
    }
    const meta = snapshotMetaFor(src(node).spec.url, capture.method, capture.contentType, capture.charset, body);
    const bodyPath = `${env.ws.outputs.snapshots}/bodies/${meta.sha256}`;
    // Content-addressed, so the file's bytes are known: a damaged or truncated body is rewritten.
    const existed = fs.existsSync(abs(env.ws, bodyPath));
    if (writeFileIfChanged(abs(env.ws, bodyPath), body) && existed) {
      env.warnings.push({
        code: 'snapshot-repaired',
        target: node.name,
        message: `${bodyPath} was damaged; rewritten from ${capture.relativePath}, which still has the recorded SHA-256.`,
      });
    }
    // The body file now holds these bytes, whose SHA-256 was just computed: the extract rule takes them.
    env.memory.reads.rememberBody(meta.sha256, body);
    return {
      bytes: canonicalJsonFile(meta),
      outputPath: () => `${env.ws.outputs.snapshots}/records/${meta.snapshotId}.json`,
      facts: snapshotFacts(meta, bodyPath),
    };
  },
};

/** The snapshot id is derived from the representation (URL, bytes, content type, charset), never the clock. */
export function snapshotMetaFor(
  sourceUrl: string,
  captureMethod: SnapshotMeta['captureMethod'],
  contentType: string,
  charset: string | null,
  body: Uint8Array,
): SnapshotMeta {
  const sha256 = sha256Hex(body);
  const snapshotId = 'snap-' + sha256Hex(canonicalJson({ sourceUrl, sha256, contentType, charset })).slice(0, 32);
  return { snapshotId, sourceUrl, captureMethod, contentType, charset, sha256, byteLength: body.byteLength };
}

/**
 * A snapshot's body, verified. A damaged body of a local source is repaired on the spot when the local
 * file still has the recorded SHA-256 (the snapshot is the same representation); otherwise the
 * snapshot's record is dropped so the next build captures the source again (a changed local file is
 * then a new snapshot; an HTTP source needs `--refresh`).
 */
export function readSnapshotBody(env: RuleEnv, node: TargetNode, snapshotTarget: string, bodyPath: string, sha256: string): Buffer {
  const capture = src(node).capture;
  // Written by this build's snapshot rule from these very bytes (build-reads.ts): no read back.
  const written = env.memory.reads.takeBody(sha256);
  if (written !== undefined) return written;
  try {
    return readVerified(env.ws, bodyPath, sha256);
  } catch (error) {
    if (capture.method !== 'http') {
      let local: Buffer | null = null;
      try {
        if (fs.statSync(capture.absolutePath).size <= env.ws.limits.maxFileBytes) local = readRegularFileSync(capture.absolutePath);
      } catch {
        local = null;
      }
      if (local !== null && sha256Hex(local) === sha256) {
        writeFileAtomic(abs(env.ws, bodyPath), local);
        env.warnings.push({
          code: 'snapshot-repaired',
          target: snapshotTarget,
          message: `${bodyPath} was damaged; rewritten from ${capture.relativePath}, which still has the recorded SHA-256.`,
        });
        return local;
      }
    }
    env.state.recordTarget(snapshotTarget, null);
    throw new EpistemeError(
      'artifact-invalid',
      `${bodyPath}, the captured body of ${src(node).spec.url}, is missing or fails its SHA-256 (damaged).`,
      {
        hint:
          capture.method === 'http'
            ? `Recapture it: episteme build --refresh ${snapshotTarget}`
            : 'Run `episteme build` again: the source is captured again from its local file.',
        details: { file: bodyPath, target: snapshotTarget, cause: error instanceof Error ? error.message : String(error) },
      },
    );
  }
}

/** The source of a per-document target (the graph gives every per-document rule one). */
export function src(node: TargetNode): SourceTarget['source'] {
  if (node.kind !== 'source') throw new Error(`${node.name} is not a per-document target`);
  return node.source;
}
