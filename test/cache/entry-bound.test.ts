import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rig, writeSmallWorkspace, type CliResult } from '../helpers/rig.js';
import { HostileCache } from '../helpers/hostile-cache.js';
import { maxEntryBytes } from '../../src/cache/remote-cache.js';

/**
 * How large an entry the remote cache takes and stores: derived from limits.maxFileBytes with room for
 * what a build makes of a source (maxEntryBytes), the same bound on both sides, so what a writer
 * uploads a reader takes, and what a reader would refuse is never uploaded. Against a raw-socket
 * Bazel-protocol server on 127.0.0.1.
 */
function rejected(result: CliResult): { target?: string; message: string }[] {
  return (result.json!.warnings as { code: string; target?: string; message: string }[]).filter(
    (w) => w.code === 'remote-cache-entry-rejected',
  );
}

function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map((name) => path.join(dir, name)).filter((f) => fs.statSync(f).isFile());
}

describe('the size bound of a remote cache entry', () => {
  const rigs: Rig[] = [];
  const servers: HostileCache[] = [];
  const server = async (): Promise<HostileCache> => {
    const made = await new HostileCache().start();
    servers.push(made);
    return made;
  };
  after(async () => {
    for (const s of servers) await s.stop();
    for (const r of rigs) r.cleanup();
  });

  describe('with limits.maxFileBytes lowered below what a build makes of its sources', () => {
    const MAX_FILE_BYTES = 1024;
    const rig = (): Rig => {
      const made = new Rig('episteme-entry-bound-');
      writeSmallWorkspace(made, 3);
      made.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: MAX_FILE_BYTES } }) });
      rigs.push(made);
      return made;
    };
    let cache: HostileCache;
    let writer: Rig;
    before(async () => {
      cache = await server();
      writer = rig();
    });

    it('restores every entry the writer uploaded, none rejected', async () => {
      const written = await writer.exec(['build', '--remote-cache', cache.url(), '--remote-cache-upload', '--json']);
      assert.equal(written.code, 0, written.stdout);
      assert.equal(written.json!.data.remoteCache.uploaded, 7, written.stdout);
      // The case in point: artifacts larger than any source may be.
      const largest = Math.max(...filesUnder(writer.path('specs')).map((file) => fs.statSync(file).size));
      assert.ok(largest > MAX_FILE_BYTES, `the largest document is ${largest} bytes`);

      const clone = rig();
      const restored = await clone.exec(['build', '--remote-cache', cache.url(), '--json']);
      assert.equal(restored.code, 0, restored.stdout);
      assert.deepEqual(rejected(restored), []);
      assert.equal(restored.json!.data.remoteCache.hits, 7, JSON.stringify(restored.json!.data.remoteCache));
      assert.deepEqual(clone.artifacts(), writer.artifacts());
    });
  });

  describe('a document past the bound', () => {
    // Empty paragraphs: some 240 bytes of JSON per 3 bytes of source, so a 300 KB source makes a document
    // of some 24 MB, more than maxEntryBytes(300 KB) = 8 x 300 KB + 16 MiB; its chunks stay below it.
    const SOURCE = 'a\n\n'.repeat(100_000);
    const rig = (): Rig => {
      const made = new Rig('episteme-entry-bound-');
      made.write({
        'src/paragraphs.txt': SOURCE,
        'map.json': JSON.stringify([
          { sourceUrl: 'https://example.test/paragraphs', localPath: 'src/paragraphs.txt', contentType: 'text/plain' },
        ]),
        'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: SOURCE.length } }),
      });
      rigs.push(made);
      return made;
    };

    it('is not uploaded, since no reader would take it, and a reader builds it locally without a rejection', async () => {
      const cache = await server();
      const writer = rig();
      const written = await writer.exec(['build', '--remote-cache', cache.url(), '--remote-cache-upload', '--json']);
      assert.equal(written.code, 0, written.stdout);
      const [document] = filesUnder(writer.path('specs')).filter((file) => file.endsWith('.json') && !file.endsWith('index.json'));
      assert.ok(fs.statSync(document!).size > maxEntryBytes(SOURCE.length), `the document is ${fs.statSync(document!).size} bytes`);
      // The chunks and the search index; not the document.
      assert.equal(written.json!.data.remoteCache.uploaded, 2, JSON.stringify(written.json!.data.remoteCache));
      assert.ok(
        [...cache.store.values()].every((bytes) => bytes.length <= maxEntryBytes(SOURCE.length)),
        'an entry past the bound was stored',
      );

      const clone = rig();
      const restored = await clone.exec(['build', '--remote-cache', cache.url(), '--json']);
      assert.equal(restored.code, 0, restored.stdout);
      assert.deepEqual(rejected(restored), []);
      assert.equal(restored.json!.data.remoteCache.hits, 2, JSON.stringify(restored.json!.data.remoteCache));
      assert.equal(restored.json!.data.remoteCache.misses, 1);
      assert.deepEqual(clone.artifacts(), writer.artifacts());
    });
  });
});
