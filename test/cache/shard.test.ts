import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Rig, writeSmallWorkspace, sha256 } from '../helpers/rig.js';
import { NGINX_SKIP, startNginx, type NginxCache } from '../helpers/nginx.js';
import { inShard, parseShard } from '../../src/cache/shard.js';

/**
 * `build --shard I/N` on four machines (four folders), then one assembling build from the cache: no
 * extraction or chunking runs, and the tree equals a single-machine build byte for byte. Against nginx
 * when it is installed, otherwise against a file:// cache folder (the same protocol layout).
 */
const SOURCES = 12;

function treeChecksum(rig: Rig): string {
  return sha256([...rig.artifacts().entries()].map(([file, hash]) => `${hash}  ${file}\n`).join(''));
}

describe('sharded builds', () => {
  const rigs: Rig[] = [];
  let nginx: NginxCache | null = null;
  let folder: string | null = null;
  after(async () => {
    await nginx?.stop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    for (const r of rigs) r.cleanup();
  });
  const rig = (): Rig => {
    const made = new Rig('episteme-shard-');
    writeSmallWorkspace(made, SOURCES);
    rigs.push(made);
    return made;
  };

  it('4 shards, then an assembling build, equal a single build byte for byte, with zero extraction', async (t) => {
    let url: string;
    if (NGINX_SKIP) {
      t.diagnostic(`${NGINX_SKIP}; using a file:// cache folder`);
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-shard-cache-'));
      url = pathToFileURL(folder).href;
    } else {
      nginx = await startNginx();
      url = nginx.url;
    }
    const single = rig();
    assert.equal((await single.exec(['build', '--json'])).code, 0);

    const built = new Map<string, number>();
    for (let i = 1; i <= 4; i += 1) {
      const machine = rig();
      const result = await machine.exec(['build', '--shard', `${i}/4`, '--remote-cache', url, '--remote-cache-upload', '--json']);
      assert.equal(result.code, 0, result.stdout);
      assert.deepEqual(result.json!.data.shard, { index: i, count: 4 });
      const rules = (result.json!.data.targets as { target: string; rule: string }[]).map((row) => row.rule);
      assert.ok(!rules.some((rule) => rule.endsWith('-index')), 'a shard built an index');
      for (const row of result.json!.data.targets as { target: string; rule: string }[])
        if (row.rule === 'chunk') built.set(row.target, (built.get(row.target) ?? 0) + 1);
    }
    // Every source in exactly one shard.
    assert.equal(built.size, SOURCES);
    assert.ok([...built.values()].every((n) => n === 1));

    const assembler = rig();
    const assembled = await assembler.exec(['build', '--remote-cache', url, '--json']);
    assert.equal(assembled.code, 0, assembled.stdout);
    // Shards build no index: the assembler restores every document and chunk set, and builds the indexes.
    assert.equal(assembled.json!.data.remoteCache.hits, 2 * SOURCES);
    assert.equal(assembled.json!.data.remoteCache.misses, 1, 'only the search index is built');
    assert.equal(assembled.json!.data.actions, SOURCES + 4, 'only snapshots (file reads) and the four indexes run');
    assert.ok(
      (assembled.json!.data.targets as { rule: string; restored?: boolean }[]).every(
        (row) => (row.rule === 'extract' || row.rule === 'chunk') === (row.restored === true),
      ),
    );
    assert.deepEqual(assembler.artifacts(), single.artifacts());
    assert.equal(treeChecksum(assembler), treeChecksum(single));
  });

  it('partitions document ids deterministically and evenly enough', () => {
    assert.deepEqual(parseShard('3/4'), { index: 3, count: 4 });
    for (const bad of ['0/4', '5/4', '1/0', 'a/b', '1/4/2', '', '1/2000']) assert.equal(parseShard(bad), null, bad);
    const ids = Array.from({ length: 1000 }, (_, i) => `example-test-doc${i}`);
    const sizes = [1, 2, 3, 4].map((index) => ids.filter((id) => inShard(id, { index, count: 4 })).length);
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      1000,
    );
    assert.ok(
      sizes.every((n) => n > 200 && n < 300),
      `shard sizes ${sizes.join(', ')}`,
    );
  });
});
