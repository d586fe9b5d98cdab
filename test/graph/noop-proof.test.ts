import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace, sampleHtml } from '../helpers/rig.js';
import { tryCleanNoop } from '../../src/graph/clean-build.js';
import { initFastHash } from '../../src/store/hash.js';

// The state files carry an xxh64 checksum.
await initFastHash();

/**
 * The no-op proof (noop.json) is written by a complete, clean build and voided by any build that begins
 * changing things. Pinned here: after an edit the next no-op is proven again; a damaged, missing or
 * stale proof proves nothing (the full build decides, and a damaged one is reported).
 */

const NOOP = { waitMs: 0, command: 'build' };

async function build(rig: Rig): Promise<{ actions: number; warnings: string[] }> {
  const result = await rig.exec(['build', '--json']);
  assert.equal(result.code, 0, result.stderr);
  return { actions: result.json!.data.actions as number, warnings: result.json!.warnings.map((w: { code: string }) => w.code) };
}

function stateFile(rig: Rig, name: string): string {
  return rig.path('.episteme', name);
}

test('an edit voids the proof while it runs, and the build that ends clean writes it again: the next no-op is proven', async () => {
  const rig = new Rig('episteme-noop-proof-');
  try {
    writeSmallWorkspace(rig, 12);
    await build(rig);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null, 'a clean build leaves a proof');
    rig.write({ 'src/doc3.html': sampleHtml(3, ' An edit.') });
    assert.equal(await tryCleanNoop(rig.dir, {}, NOOP), null, 'an edited source voids it');
    const edited = await build(rig);
    assert.ok(edited.actions > 0);
    const proven = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(proven !== null && !('refusedProof' in proven), 'the edit build ended clean and wrote the proof');
    assert.equal(proven.counts['up-to-date'], proven.targets.length);
    assert.equal(proven.targets.length, 3 * 12 + 4);
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});

test('a damaged, missing or stale proof proves nothing: the full build decides, and reports damage', async () => {
  const rig = new Rig('episteme-noop-patch-');
  try {
    writeSmallWorkspace(rig, 40);
    await build(rig);
    const proofFile = stateFile(rig, 'noop.json');
    rig.write({ 'src/doc3.html': sampleHtml(3, ' First edit.') });
    await build(rig);
    const proofOfFirstEdit = fs.readFileSync(proofFile);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null);

    // A flipped byte: not used, reported, nothing rebuilt.
    const damaged = Buffer.from(proofOfFirstEdit);
    damaged[20] = damaged[20] === 0x61 ? 0x62 : 0x61;
    fs.writeFileSync(proofFile, damaged);
    const refused = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(refused !== null && 'refusedProof' in refused, 'a damaged proof is refused, with why');
    assert.match(refused.refusedProof.message, /fails its checksum/);
    const afterDamage = await build(rig);
    assert.deepEqual(afterDamage, { actions: 0, warnings: ['state-discarded'] });

    // Missing (a build that began changing things, or a crash).
    fs.rmSync(proofFile);
    assert.equal(await tryCleanNoop(rig.dir, {}, NOOP), null);
    assert.deepEqual(await build(rig), { actions: 0, warnings: [] });

    // A stale proof put back after another edit: it names another state, so it proves nothing.
    for (let i = 0; i < 40; i += 1) rig.write({ [`src/doc${i}.html`]: sampleHtml(i, ' Second edit.') });
    await build(rig);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null);
    const current = fs.readFileSync(proofFile);
    fs.writeFileSync(proofFile, proofOfFirstEdit);
    assert.equal(await tryCleanNoop(rig.dir, {}, NOOP), null, 'a proof of an earlier state is not believed');
    assert.deepEqual(await build(rig), { actions: 0, warnings: [] });
    fs.writeFileSync(proofFile, current);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null, 'the proof of this state proves it again');
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});
