import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rig } from '../helpers/rig.js';
import { acquireWorkspaceLock } from '../../src/store/workspace-lock.js';

/**
 * One folder can be reached by two real paths: a bind mount, or a container volume mounted at another
 * path than on the host. Both paths are the same workspace, so a writer through one must exclude a
 * writer through the other: two builds at once raced each other's temp files and state log
 * (write-failed) when the lock was named after the path. Needs a bind mount (root on Linux).
 */
function bindMount(from: string, to: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  return spawnSync('mount', ['--bind', from, to]).status === 0;
}

test('a build through a second path to a workspace waits for the writer holding it through the first', async (t) => {
  const rig = new Rig();
  const mirror = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-mirror-'));
  let mounted = false;
  try {
    rig.write({
      'doc.html': '<html><head><title>Doc</title></head><body><h1>Doc</h1><p>text</p></body></html>',
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/doc', localPath: 'doc.html' }]),
    });
    assert.equal((await rig.exec(['pipeline', '--map', 'map.json', '--json'])).code, 0);
    mounted = bindMount(rig.dir, mirror);
    if (!mounted) {
      t.skip('a bind mount is not available here (Linux, as root)');
      return;
    }
    assert.notEqual(fs.realpathSync(mirror), fs.realpathSync(rig.dir), 'two real paths to one folder');

    const lock = await acquireWorkspaceLock(rig.dir, rig.path('.episteme'), { waitMs: 0, command: 'test: a writer' });
    try {
      rig.write({ 'doc.html': '<html><head><title>Doc</title></head><body><h1>Doc</h1><p>edited</p></body></html>' });
      const other = await rig.exec(['build', '--json', '--wait-lock', '0'], { cwd: mirror });
      assert.equal(other.code, 1, other.stdout + other.stderr);
      assert.equal(other.json?.error?.code, 'workspace-locked');
    } finally {
      await lock.release();
    }
    const after = await rig.exec(['build', '--json'], { cwd: mirror });
    assert.equal(after.code, 0, after.stdout + after.stderr);
  } finally {
    if (mounted) spawnSync('umount', [mirror]);
    fs.rmSync(mirror, { recursive: true, force: true });
    rig.cleanup();
  }
});
