import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rig, writeSmallWorkspace, sampleHtml } from '../helpers/rig.js';
import { tryCleanNoop } from '../../src/graph/clean-build.js';
import { openProof, readProofFiles } from '../../src/graph/noop-proof-files.js';
import { BuildState, STATE_FORMAT_VERSION, type CleanRecord, type TargetRecord } from '../../src/graph/state.js';
import { initFastHash } from '../../src/store/hash.js';

// The state files carry an xxh64 checksum.
await initFastHash();

/**
 * The no-op proof is a base (noop.json) and a patch (noop.patch.json) of the rows that changed since:
 * an edit rewrites the patch, not the base. Pinned here: the edit leaves the base's bytes alone and the
 * next no-op is still proven; a damaged, missing or foreign patch proves nothing (the full build
 * decides, and a damaged one is reported); a patch grown past an eighth of the base is folded into a
 * new base, and what base + patch say always equals the records.
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

test('an edit rewrites only the proof patch: the base keeps its bytes and inode, and the next no-op is proven from both', async () => {
  const rig = new Rig('episteme-noop-patch-');
  try {
    // Enough sources for one source's rows to be a small share of the proof.
    writeSmallWorkspace(rig, 40);
    assert.equal((await build(rig)).actions > 0, true);
    const base = stateFile(rig, 'noop.json');
    const before = { bytes: fs.readFileSync(base), ino: fs.statSync(base).ino };
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null, 'a fresh proof proves the no-op');

    rig.write({ 'src/doc7.html': sampleHtml(7, ' Edited.') });
    const edit = await build(rig);
    assert.ok(edit.actions >= 3, `the edited chain ran (${edit.actions} actions)`);
    assert.deepEqual(fs.readFileSync(base), before.bytes, 'the base is not rewritten by a one-source edit');
    assert.equal(fs.statSync(base).ino, before.ino);
    const opened = openProof(readProofFiles(rig.path('.episteme')), STATE_FORMAT_VERSION);
    assert.ok(opened !== null && opened !== 'damaged');
    const patch = JSON.parse(fs.readFileSync(stateFile(rig, 'noop.patch.json'), 'utf8').split('\nxxh64:')[0]!) as {
      targets: [string][];
      sources: [string][];
    };
    const patched = patch.targets.map((row) => row[0]).sort();
    assert.ok(patched.includes('chunks/example-test-doc7.json') && patched.includes('chunks/search-index.json'), patched.join(', '));
    assert.ok(!patched.some((name) => name.includes('doc8')), 'rows of untouched sources stay in the base');
    assert.deepEqual(
      patch.sources.map((row) => row[0]),
      ['src/doc7.html'],
    );

    const proven = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(proven !== null, 'base + patch prove the no-op after the edit');
    assert.ok(proven.targets.every((t) => t.status === 'up-to-date'));
    // The proof names the edited chain's new outputs: what a full no-op build reports.
    const full = await rig.exec(['build', '--json', '--trace', rig.path('trace.json')]);
    const outputs = (results: { target: string; output?: string }[]) => results.map((t) => `${t.target} ${t.output}`).sort();
    assert.deepEqual(outputs(proven.targets), outputs(full.json!.data.targets));
    assert.equal(full.json!.data.actions, 0);
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});

test('a damaged, missing or foreign proof patch proves nothing: the full build decides, and reports damage', async () => {
  const rig = new Rig('episteme-noop-patch-');
  try {
    writeSmallWorkspace(rig, 40);
    await build(rig);
    const patchFile = stateFile(rig, 'noop.patch.json');
    rig.write({ 'src/doc3.html': sampleHtml(3, ' First edit.') });
    await build(rig);
    const patchOnFirstBase = fs.readFileSync(patchFile);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null);

    // A flipped byte: not used, reported, nothing rebuilt.
    const damaged = Buffer.from(patchOnFirstBase);
    damaged[20] = damaged[20] === 0x61 ? 0x62 : 0x61;
    fs.writeFileSync(patchFile, damaged);
    assert.equal(await tryCleanNoop(rig.dir, {}, NOOP), null);
    const afterDamage = await build(rig);
    assert.deepEqual(afterDamage, { actions: 0, warnings: ['state-discarded'] });

    // Missing (a crash between a fold's base and its patch, or a build that began changing things).
    fs.rmSync(patchFile);
    assert.equal(await tryCleanNoop(rig.dir, {}, NOOP), null);
    assert.deepEqual(await build(rig), { actions: 0, warnings: [] });

    // A patch of another base: every source edited, so the patch outgrows the base and is folded.
    for (let i = 0; i < 40; i += 1) rig.write({ [`src/doc${i}.html`]: sampleHtml(i, ' Second edit.') });
    await build(rig);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null);
    const current = fs.readFileSync(patchFile);
    fs.writeFileSync(patchFile, patchOnFirstBase);
    assert.equal(await tryCleanNoop(rig.dir, {}, NOOP), null, 'a patch naming the old base is not applied to the new one');
    assert.deepEqual(await build(rig), { actions: 0, warnings: [] });
    fs.writeFileSync(patchFile, current);
    assert.ok((await tryCleanNoop(rig.dir, {}, NOOP)) !== null, 'the matching patch proves it again');
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});

function record(i: number, revision: number): TargetRecord {
  return {
    key: `k${i}.${revision}`,
    components: { rule: 'chunk', ruleVersion: 1, producerVersion: '0', options: {}, inputs: { [`specs/d${i}.json`]: 'a'.repeat(64) } },
    output: `chunks/d${i}.${String(revision).padStart(16, '0')}.json`,
    sha256: 'ab'.repeat(32),
    stamp: { size: revision, mtimeMs: String(revision), ctimeMs: String(revision), ino: i },
    facts:
      revision % 3 === 1
        ? { diagnosticErrors: '1', diagnosticWarnings: '0', diagnosticCodes: `code-${revision}` }
        : { chunksContentHash: `content-${i}` },
  };
}

test('edit after edit, base + patch always say what the records say; the patch is folded into the base once it outgrows an eighth', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-noop-patch-'));
  try {
    const names = Array.from({ length: 200 }, (_, i) => `chunks/d${i}.json`);
    const clean: CleanRecord = { invocation: 'i', producerVersion: '0', ruleVersions: {}, files: {}, order: names };
    const first = BuildState.load(dir);
    for (const [i, name] of names.entries()) first.recordTarget(name, record(i, 0));
    first.setClean(clean);
    first.compact();
    first.close();
    const revisions = names.map(() => 0);
    let baseWrites = 0;
    let lastBase = fs.readFileSync(path.join(dir, 'noop.json'));
    for (let edit = 1; edit <= 120; edit += 1) {
      const state = BuildState.load(dir);
      assert.ok(state.untouchedSinceCleanCommit(), `edit ${edit}: the proof vouches for the state`);
      state.setClean(null);
      // Mostly new targets each time (the patch grows), sometimes one edited before.
      const i = edit % 7 === 0 ? 5 : (edit * 37) % names.length;
      revisions[i] = edit;
      state.recordTarget(names[i]!, record(i, edit));
      state.setClean(clean);
      state.compact();
      state.close();
      const base = fs.readFileSync(path.join(dir, 'noop.json'));
      if (!base.equals(lastBase)) baseWrites += 1;
      lastBase = base;
      const patchBytes = fs.statSync(path.join(dir, 'noop.patch.json')).size;
      assert.ok(patchBytes * 8 < base.byteLength, `edit ${edit}: the patch (${patchBytes} bytes) stays under an eighth of the base`);
      const opened = openProof(readProofFiles(dir), STATE_FORMAT_VERSION);
      assert.ok(opened !== null && opened !== 'damaged');
      assert.deepEqual(
        opened.proof.targets.map((row) => [row[0], row[2], row[3]]),
        names.map((name, k) => [name, record(k, revisions[k]!).output, revisions[k]]),
        `edit ${edit}: every row is its record's`,
      );
      const expectedDiagnostics = Object.fromEntries(
        names.flatMap((name, k) => (revisions[k]! % 3 === 1 ? [[name, { ...record(k, revisions[k]!).facts }]] : [])),
      );
      assert.deepEqual(opened.proof.diagnostics, expectedDiagnostics, `edit ${edit}: diagnostics of patched and base rows`);
    }
    assert.ok(baseWrites >= 1 && baseWrites <= 20, `the base was folded ${baseWrites} times in 120 edits`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
