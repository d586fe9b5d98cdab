import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * What a CI job restores between runs (README, "Continuous integration"): the build state `.episteme/`
 * together with the output folders. Restored into a fresh checkout (another folder, new inodes and
 * mtimes), that is a build with zero actions; the state alone names outputs that are not there, so
 * every rule reruns, which is why the guide says to restore both.
 */
describe('restoring a CI cache into a fresh checkout', () => {
  it('with .episteme/ and the output folders, the next build runs nothing', async () => {
    const first = new Rig('episteme-ci-');
    const fresh = new Rig('episteme-ci-');
    const stateOnly = new Rig('episteme-ci-');
    try {
      writeSmallWorkspace(first, 3);
      assert.equal((await first.exec(['build', '--json'])).code, 0);
      for (const rig of [fresh, stateOnly]) {
        writeSmallWorkspace(rig, 3);
        fs.cpSync(first.path('.episteme'), rig.path('.episteme'), { recursive: true });
      }
      for (const dir of ['snapshots', 'specs', 'chunks']) fs.cpSync(first.path(dir), fresh.path(dir), { recursive: true });
      const restored = await fresh.exec(['build', '--json']);
      assert.equal(restored.code, 0, restored.stdout);
      assert.equal(restored.json!.data.actions, 0, JSON.stringify(restored.json!.data.counts));
      assert.deepEqual(fresh.artifacts(), first.artifacts());

      const partial = await stateOnly.exec(['build', '--json']);
      assert.equal(partial.code, 0, partial.stdout);
      assert.ok(partial.json!.data.actions > 0, 'the state alone was enough: update the CI guide');
      assert.deepEqual(stateOnly.artifacts(), first.artifacts());
    } finally {
      for (const rig of [first, fresh, stateOnly]) rig.cleanup();
    }
  });
});
