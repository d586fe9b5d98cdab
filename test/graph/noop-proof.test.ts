import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace, sampleHtml } from '../helpers/rig.js';
import * as path from 'node:path';
import { tryCleanNoop } from '../../src/graph/clean-build.js';
import { heldGroups } from '../../src/graph/noop-proof.js';
import { buildGraph } from '../../src/graph/graph.js';
import { loadWorkspace } from '../../src/config/workspace.js';
import { initFastHash } from '../../src/store/hash.js';
import { EXTRACT_RULE_VERSION, PDF_EXTRACTOR_VERSION, RULE_VERSIONS } from '../../src/rule-versions.js';

// The state files carry an xxh64 checksum.
await initFastHash();

/**
 * The no-op proof (noop.json) is written by a complete, clean build and voided by any build that begins
 * changing things. Pinned here: after an edit the next no-op is proven again; a damaged, missing or
 * stale proof proves nothing (the full build decides, and a damaged one is reported).
 */

const NOOP = { waitMs: 0, command: 'build' };

/** Whether the fast path proves a no-op (not: runs the full build, with or without what it found). */
async function proves(rig: Rig): Promise<boolean> {
  const found = await tryCleanNoop(rig.dir, {}, NOOP);
  return found !== null && 'counts' in found;
}

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
    assert.ok(await proves(rig), 'a clean build leaves a proof');
    rig.write({ 'src/doc3.html': sampleHtml(3, ' An edit.') });
    assert.ok(!(await proves(rig)), 'an edited source voids it');
    const edited = await build(rig);
    assert.ok(edited.actions > 0);
    const proven = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(proven !== null && 'counts' in proven, 'the edit build ended clean and wrote the proof');
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
    assert.ok(await proves(rig));

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
    assert.ok(!(await proves(rig)));
    assert.deepEqual(await build(rig), { actions: 0, warnings: [] });

    // A stale proof put back after another edit: it names another state, so it proves nothing.
    for (let i = 0; i < 40; i += 1) rig.write({ [`src/doc${i}.html`]: sampleHtml(i, ' Second edit.') });
    await build(rig);
    assert.ok(await proves(rig));
    const current = fs.readFileSync(proofFile);
    fs.writeFileSync(proofFile, proofOfFirstEdit);
    assert.ok(!(await proves(rig)), 'a proof of an earlier state is not believed');
    assert.deepEqual(await build(rig), { actions: 0, warnings: [] });
    fs.writeFileSync(proofFile, current);
    assert.ok(await proves(rig), 'the proof of this state proves it again');
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});

/** Group files of the proof (.episteme/noop/), name -> inode. */
function groupFiles(rig: Rig): Map<string, number> {
  const folder = stateFile(rig, 'noop');
  return new Map(fs.readdirSync(folder).map((name) => [name, fs.statSync(path.join(folder, name)).ino]));
}

test('the proof is kept per group of documents: an edit re-derives one group, a damaged or foreign group file is refused', {
  timeout: 600_000,
}, async () => {
  const rig = new Rig('episteme-noop-groups-');
  try {
    // Above 256 documents the indexes are segmented, and the proof has one group per segment.
    writeSmallWorkspace(rig, 300);
    await build(rig);
    const groups = groupFiles(rig);
    assert.ok(groups.size >= 2, `${groups.size} groups`);
    assert.ok(await proves(rig));
    const noop = await rig.exec(['build', '--json']);
    const full = await rig.exec(['build', '--json', '--trace', rig.path('trace.json')]);
    assert.deepEqual(
      noop.json!.data.targets.map((t: { target: string }) => t.target),
      full.json!.data.targets.map((t: { target: string }) => t.target),
      'a proven no-op reports the targets in the order a full build does',
    );

    // An edit: its group's file is written again, every other group's file is the one it was.
    rig.write({ 'src/doc7.html': sampleHtml(7, ' An edit.') });
    const found = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(found !== null && 'proofCheck' in found, 'the fast path hands what it found to the full build');
    assert.equal(found.proofCheck.held.size, groups.size - 1, 'every group but the edited one held');
    const edited = await build(rig);
    assert.ok(edited.actions > 0);
    const after = groupFiles(rig);
    assert.deepEqual([...after.keys()].sort(), [...groups.keys()].sort());
    assert.equal([...after].filter(([name, ino]) => groups.get(name) !== ino).length, 1, 'one group file re-derived');
    assert.ok(await proves(rig), 'the next no-op is proven');

    // A group file damaged: refused, reported once by the full build, which rebuilds nothing and
    // writes a whole proof again.
    const [victim] = [...after.keys()];
    const victimPath = path.join(stateFile(rig, 'noop'), victim!);
    const bytes = fs.readFileSync(victimPath);
    const damaged = Buffer.from(bytes);
    damaged[10] = damaged[10] === 0x61 ? 0x62 : 0x61;
    fs.writeFileSync(victimPath, damaged);
    const refused = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(refused !== null && 'refusedProof' in refused);
    assert.match(refused.refusedProof.message, /group file noop\/[0-9a-f]{16}\.json, which fails its checksum/);
    assert.deepEqual(await build(rig), { actions: 0, warnings: ['state-discarded'] });
    assert.ok(await proves(rig));

    // A group file of another build (valid on its own) put back: the root names another checksum.
    rig.write({ 'src/doc7.html': sampleHtml(7, ' A second edit.') });
    await build(rig);
    const edited7 = [...groupFiles(rig).keys()].find((name) => {
      const text = fs.readFileSync(path.join(stateFile(rig, 'noop'), name), 'utf8');
      return text.includes('"src/doc7.html"');
    });
    assert.ok(edited7 !== undefined);
    const current = fs.readFileSync(path.join(stateFile(rig, 'noop'), edited7));
    rig.write({ 'src/doc7.html': sampleHtml(7, ' A third edit.') });
    await build(rig);
    fs.writeFileSync(path.join(stateFile(rig, 'noop'), edited7), current);
    const foreign = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(foreign !== null && 'refusedProof' in foreign);
    assert.match(foreign.refusedProof.message, /which another build wrote/);
    assert.deepEqual(await build(rig), { actions: 0, warnings: ['state-discarded'] });
    assert.ok(await proves(rig));
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});

test('what the fast path found is not used once another build has changed the proof', {
  timeout: 600_000,
}, async () => {
  const rig = new Rig('episteme-noop-handoff-');
  try {
    writeSmallWorkspace(rig, 300);
    await build(rig);
    rig.write({ 'src/doc7.html': sampleHtml(7, ' An edit.') });
    const found = await tryCleanNoop(rig.dir, {}, NOOP);
    assert.ok(found !== null && 'proofCheck' in found);
    // Another build runs in between (and another document is edited before it).
    rig.write({ 'src/doc150.html': sampleHtml(150, ' Another edit.') });
    await build(rig);
    const ws = await loadWorkspace(rig.dir, {});
    const graph = buildGraph(ws);
    // A group vouches only for targets whose inputs are all its own: each segment in a group lists
    // only documents of that group.
    for (const group of graph.groups) {
      const own = new Set(group.targets);
      for (const name of group.targets) {
        const node = graph.nodes.get(name)!;
        if (node.kind === 'segment') for (const dep of node.deps) assert.ok(own.has(dep), `${name} depends on ${dep} outside its group`);
      }
    }
    assert.ok(
      graph.groups.some((group) => group.targets.some((name) => graph.nodes.get(name)!.kind === 'segment')),
      'segments are in groups',
    );
    const fresh = heldGroups(ws.root, ws.stateDir, graph);
    const handed = heldGroups(ws.root, ws.stateDir, graph, found.proofCheck);
    assert.equal(fresh.proven.size, graph.order.length - 4, 'after that build every group holds again (the indexes are not in groups)');
    assert.deepEqual(handed.kept, fresh.kept, 'the stale findings were not used');
    assert.deepEqual([...handed.proven.keys()], [...fresh.proven.keys()]);
  } finally {
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
});

test("the rule versions a no-op proof must match include the PDF extractor's: bumping it rebuilds PDFs", () => {
  // The no-op fast path answers before any key is computed: a version missing from RULE_VERSIONS left
  // every PDF of an existing workspace "up to date" after the extractor changed.
  assert.equal(RULE_VERSIONS['pdf-extract'], PDF_EXTRACTOR_VERSION);
  assert.equal(RULE_VERSIONS['extract'], EXTRACT_RULE_VERSION);
});
