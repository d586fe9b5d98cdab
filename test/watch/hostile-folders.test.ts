import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sampleHtml } from '../helpers/rig.js';
import { watchSmallWorkspace } from '../helpers/watch-process.js';

/**
 * The folders around a watch's inputs and outputs replaced while it runs. Each attack is followed by
 * a save, and the cycle of that save is what the test reads: waits are for events, never for time.
 */

/** A folder outside the workspace, removed after the test. */
function outsideFolder(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-watch-outside-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const [folder, field] of [
  ['specs', 'outputs.specs'],
  ['.episteme', '.episteme'],
] as const) {
  test(`${folder} replaced by a symbolic link in a watch: refused as a one-shot build refuses it, nothing written there`, async (t) => {
    const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-outlink-', 3);
    const outside = outsideFolder(t);
    fs.rmSync(rig.path(folder), { recursive: true });
    fs.symlinkSync(outside, rig.path(folder));
    const mark = watch.lines.length;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Saved after the swap.'));
    const cycle = await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), mark);
    assert.equal(cycle.ok, false, watch.dump());
    assert.equal(cycle.error?.code, 'config-invalid', watch.dump());
    assert.equal(cycle.error?.details?.field, field, watch.dump());
    // The loader's own error, word for word: a one-shot build of the same workspace gives it.
    const oneShot = await rig.exec(['build', '--dry-run', '--json']);
    assert.equal(oneShot.code, 2, oneShot.stdout);
    assert.equal(cycle.error?.message, oneShot.json!.error!.message);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing is written outside the workspace');
    // Once the folder is a real folder again, the next save builds.
    fs.rmSync(rig.path(folder));
    const again = watch.lines.length;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Saved once the folder is back.'));
    const rebuilt = await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), again);
    assert.equal(rebuilt.ok, true, watch.dump());
    assert.deepEqual(fs.readdirSync(outside), []);
  });
}
