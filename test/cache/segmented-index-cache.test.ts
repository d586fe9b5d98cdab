import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Rig, writeSmallWorkspace, sampleHtml, type CliResult } from '../helpers/rig.js';
import { NGINX_SKIP, startNginx, type NginxCache } from '../helpers/nginx.js';
import { BuildState } from '../../src/graph/state.js';
import { initFastHash } from '../../src/store/hash.js';
import { actionKey } from '../../src/cache/remote-cache.js';
import { decodeActionResult, encodeActionResult, type OutputFile } from '../../src/cache/action-result.js';
import { planSegments } from '../../src/index/index-layout.js';
import { segmentFiles } from '../helpers/segment-files.js';

// BuildState.load checks state.json's xxh64 checksum.
await initFastHash();

/**
 * A segmented search index (above 256 documents: a manifest naming segment files) in the remote cache.
 * Segments are targets of their own, built from the per-document index parts the chunk entries carry
 * (a merge, no tokenising); the manifest's entry holds the manifest alone, checked against the segments
 * this workspace built before it is written. The restored workspace is recorded as if built here, so the
 * next edit rebuilds one segment. Against nginx with WebDAV on 127.0.0.1.
 */
const INDEX = 'chunks/search-index.json';

/** The smallest workspace (writeSmallWorkspace's ids) whose index is cut into at least three segments. */
function segmentedCount(): number {
  for (let n = 257; n < 2000; n++) {
    const ids = Array.from({ length: n }, (_, i) => `example-test-doc${i}`).sort();
    if (planSegments(ids).length >= 3) return n;
  }
  throw new Error('no small segmented workspace');
}

function indexRow(result: CliResult): { status: string; restored?: boolean } {
  return (result.json!.data.targets as { target: string; status: string; restored?: boolean }[]).find((t) => t.target === INDEX)!;
}

function rejections(result: CliResult): { target?: string; message: string }[] {
  return (result.json!.warnings as { code: string; target?: string; message: string }[]).filter(
    (w) => w.code === 'remote-cache-entry-rejected',
  );
}

describe('a segmented search index in the remote cache', { skip: NGINX_SKIP }, () => {
  let nginx: NginxCache;
  let count: number;
  let writer: Rig;
  let reference: Map<string, string>;
  let indexEntry: string;
  const rigs: Rig[] = [];
  const rig = (): Rig => {
    const made = new Rig('episteme-segcache-');
    writeSmallWorkspace(made, count);
    rigs.push(made);
    return made;
  };

  before(async () => {
    count = segmentedCount();
    nginx = await startNginx();
    writer = rig();
    const written = await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json']);
    assert.equal(written.code, 0, written.stdout);
    assert.equal(written.json!.data.remoteCache.uploaded, 2 * count + 1, JSON.stringify(written.json!.data.remoteCache));
    reference = writer.artifacts();
    const record = BuildState.load(writer.path('.episteme'), true).targets.get(INDEX)!;
    indexEntry = path.join(nginx.dataDir, 'ac', actionKey(record.components));
  });
  after(async () => {
    await nginx?.stop();
    for (const r of rigs) r.cleanup();
  });

  it('stores the manifest alone; a clone restores every per-document output and the manifest, and equals a local build', async () => {
    const outputs = decodeActionResult(fs.readFileSync(indexEntry));
    const segments = segmentFiles(writer);
    assert.ok(segments.length >= 3, JSON.stringify(segments));
    assert.deepEqual([...outputs.keys()], ['output']);

    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(restored.code, 0, restored.stdout);
    assert.equal(restored.json!.data.remoteCache.hits, 2 * count + 1);
    assert.equal(restored.json!.data.remoteCache.misses, 0);
    assert.equal(indexRow(restored).restored, true);
    assert.deepEqual(clone.artifacts(), reference, 'a build from the cache differs from a local build');
    // Recorded as if built here: a no-op next, and an edit rebuilds only the segment of the document it changed.
    const again = await clone.exec(['build', '--json']);
    assert.equal(again.json!.data.actions, 0, again.stdout);
    clone.write({ 'src/doc7.html': sampleHtml(7, ' An edited sentence about okapi7.') });
    const edited = await clone.exec(['build', '--json']);
    assert.equal(edited.code, 0, edited.stdout);
    assert.equal(indexRow(edited).status, 'built');
    const after = segmentFiles(clone);
    const written = after.filter((name) => !segments.includes(name));
    assert.equal(written.length, 1, `segments written by the edit: ${JSON.stringify(written)}`);
    const query = await clone.exec(['query', '--index', INDEX, '--term', 'okapi7', '--json']);
    assert.equal(query.code, 0, query.stdout);
    assert.equal(query.json!.data.hits[0].chunkId.startsWith('example-test-doc7#'), true, query.stdout);
  });

  /** Replaces the index entry for one build of a fresh clone, then puts the original back. */
  async function restoreWith(forge: (outputs: OutputFile[]) => OutputFile[], corrupt?: (blob: string) => void): Promise<CliResult> {
    const original = fs.readFileSync(indexEntry);
    const outputs = [...decodeActionResult(original)].map(([p, digest]) => ({ path: p, digest }));
    const blob = path.join(nginx.dataDir, 'cas', outputs[0]!.digest.hash);
    const saved = fs.readFileSync(blob);
    fs.writeFileSync(indexEntry, encodeActionResult(forge(outputs)));
    corrupt?.(blob);
    try {
      const clone = rig();
      const result = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
      assert.equal(result.code, 0, result.stdout);
      // Built locally instead: the same bytes, and the index is not the cached one.
      assert.notEqual(indexRow(result).restored, true);
      assert.deepEqual(clone.artifacts(), reference);
      const rejected = rejections(result);
      assert.deepEqual(
        rejected.map((w) => w.target),
        [INDEX],
        JSON.stringify(rejected),
      );
      return result;
    } finally {
      fs.writeFileSync(indexEntry, original);
      fs.writeFileSync(blob, saved);
    }
  }

  it('rejects a manifest blob whose bytes are not its SHA-256, and builds the index locally', async () => {
    const result = await restoreWith(
      (outputs) => outputs,
      (blob) => {
        const bytes = fs.readFileSync(blob);
        bytes[Math.floor(bytes.length / 2)] = bytes[Math.floor(bytes.length / 2)]! ^ 0x01;
        fs.writeFileSync(blob, bytes);
      },
    );
    assert.match(rejections(result)[0]!.message, /has SHA-256/);
  });

  it('rejects an entry whose output is a valid artifact of another kind (a segment, not a manifest)', async () => {
    const segment = fs.readFileSync(writer.path('chunks', segmentFiles(writer)[0]!));
    const hash = createHash('sha256').update(segment).digest('hex');
    fs.writeFileSync(path.join(nginx.dataDir, 'cas', hash), segment);
    const result = await restoreWith(() => [{ path: 'output', digest: { hash, sizeBytes: segment.length } }]);
    assert.match(rejections(result)[0]!.message, /is not this target's artifact/);
  });
});
