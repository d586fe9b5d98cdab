import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { REPO_ROOT, Rig, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * What a CI job restores between runs (docs/ci.md, "What to keep between runs locally"): the build state `.episteme/`
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

describe('the GitHub Actions example', () => {
  it('uses only build flags that exist, uploads only from push jobs, and keeps the token in the environment', () => {
    const workflow = fs.readFileSync(`${REPO_ROOT}/examples/github-actions/episteme.yml`, 'utf8');
    const help = fs.readFileSync(`${REPO_ROOT}/test/fixtures/help/build.txt`, 'utf8');
    // Each `npx episteme build` command with its backslash-continued lines.
    const commands = [...workflow.matchAll(/npx episteme build(?:[^\n]*\\\n)*[^\n]*/g)].map((match) => match[0]);
    assert.ok(commands.length >= 3, 'expected the shard, assemble and pull-request builds');
    for (const command of commands)
      for (const flag of command.match(/--[a-z][a-z-]*/g) ?? [])
        assert.match(help, new RegExp(`^  ${flag}\\b`, 'm'), `${flag} is not a build option`);
    const pullRequest = workflow.slice(workflow.indexOf('pull-request:'));
    assert.doesNotMatch(pullRequest, /--remote-cache-upload/);
    assert.doesNotMatch(workflow, /--header|Bearer \$\{\{[^}]*\}\}.*npx/);
    assert.match(workflow, /EPISTEME_REMOTE_CACHE_HEADERS:/);
  });
});
