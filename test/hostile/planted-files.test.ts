import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { Rig, assertNoStackTrace } from '../helpers/rig.js';

/**
 * What a build reads back from its own workspace is not always what it wrote: a FIFO or a link to a
 * device can be planted there (by hand, or restored from a poisoned CI cache). A plain read of a FIFO
 * waits for a writer for ever and a read of /dev/zero never ends; the build must take such a file as
 * damaged, replace it and end equal to a clean build.
 */

const MKFIFO_SKIP = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'mkfifo is not available';
  }
})();

function workspace(): Rig {
  const rig = new Rig();
  rig.write({
    'caching.html': '<h1 id="caching">Caching</h1><p>A cached zebra response is fresh until its age exceeds its lifetime.</p>\n',
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/caching', localPath: 'caching.html', contentType: 'text/html' }]),
  });
  return rig;
}

/** The workspace files a build reads back, found in a built workspace (their names hold hashes). */
function plantable(rig: Rig): string[] {
  const one = (dir: string, test: (name: string) => boolean): string => {
    const name = fs.readdirSync(rig.path(dir)).find(test);
    assert.ok(name, `no file in ${dir}`);
    return `${dir}/${name}`;
  };
  return [
    one('snapshots/bodies', () => true),
    one('snapshots/records', (name) => name.endsWith('.json')),
    'snapshots/index.json',
    one('specs', (name) => name.startsWith('example-test-')),
    'specs/index.json',
    one('chunks', (name) => name.startsWith('example-test-')),
    'chunks/index.json',
    'chunks/search-index.json',
    one('.episteme/cache/index-parts', (name) => name.endsWith('.part')),
  ];
}

test('a FIFO or a link to /dev/zero planted where a build reads back its own output: rebuilt, never a hang', {
  skip: MKFIFO_SKIP,
}, async () => {
  const clean = workspace();
  try {
    const first = await clean.exec(['pipeline', '--map', 'map.json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const expected = clean.artifacts();
    const files = plantable(clean);
    for (const plant of ['fifo', 'device'] as const) {
      for (const file of files) {
        const rig = workspace();
        try {
          assert.equal((await rig.exec(['pipeline', '--map', 'map.json'])).code, 0);
          fs.rmSync(rig.path(file));
          if (plant === 'fifo') execFileSync('mkfifo', [rig.path(file)]);
          else fs.symlinkSync('/dev/zero', rig.path(file));
          // A cached index part is read when the search index is made again.
          if (file.startsWith('.episteme/')) fs.rmSync(rig.path('chunks/search-index.json'));
          const result = await rig.exec(['build'], { killAfterMs: 30_000 });
          assertNoStackTrace(result);
          assert.equal(result.code, 0, `${plant} at ${file}: exit ${result.code}\n${result.stdout}${result.stderr}`);
          assert.ok(fs.lstatSync(rig.path(file)).isFile(), `${plant} at ${file} is replaced by a regular file`);
          assert.deepEqual(rig.artifacts(), expected, `${plant} at ${file}: the build equals a clean one`);
          const query = await rig.exec(['query', 'zebra', '--json'], { killAfterMs: 30_000 });
          assert.equal(query.json!.data.total, 1, `${plant} at ${file}: the query answers`);
        } finally {
          rig.cleanup();
        }
      }
    }
  } finally {
    clean.cleanup();
  }
});
