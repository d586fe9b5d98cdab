import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { sampleHtml } from '../helpers/rig.js';
import { watchSmallWorkspace, type WatchLine } from '../helpers/watch-process.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * Watch settles a proof group as a whole while its last check held and no file event touched it since
 * (src/graph/settled-groups.ts): the memo of the on-disk no-op proof, fed by file events instead of
 * stats. Above 256 sources the corpus falls into several groups, so an edit of one leaves the others
 * settled. Each way a settled group's files can change must make a later cycle check it again: a saved
 * source, an output deleted or damaged while watch is idle, an output deleted and a source saved while a
 * cycle is building. Every wait is for an event or a file; nothing asserts on elapsed time.
 */

const DOCS = 257; // three proof groups (document ids example-test-doc0 ... doc256)

test('a settled proof group is checked again when one of its files changes, also during a build', { timeout: 900_000 }, async (t) => {
  const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-settled-', DOCS);

  // The groups follow the stage indexes' segments: each ends at its segment's last document id.
  const lastIds = (
    JSON.parse(rig.read('specs/index.json')) as { payload: { segments: { lastDocumentId: string }[] } }
  ).payload.segments.map((segment) => segment.lastDocumentId);
  assert.ok(lastIds.length >= 3, JSON.stringify(lastIds));
  const ids = Array.from({ length: DOCS }, (_, i) => i);
  const groupOf = (i: number): number => lastIds.findIndex((last) => `example-test-doc${i}` <= last);
  const inGroup = (g: number): number[] => ids.filter((i) => groupOf(i) === g);
  const a = inGroup(0)[0]!; // edited to start cycles
  const b = inGroup(lastIds.length - 1)[0]!; // in a group that stays settled between its edits
  const c = inGroup(1)[0]!;
  const settledTargetsOf = (g: number): number => inGroup(g).length * 3;

  let saves = 0;
  const save = async (i: number): Promise<WatchLine> => {
    const mark = watch.lines.length;
    saves += 1;
    fs.writeFileSync(rig.path(`src/doc${i}.html`), sampleHtml(i, ` Save ${saves} of document ${i}.`));
    const cycle = await watch.nextCycle(mark);
    assert.equal(cycle.ok, true, watch.dump());
    return cycle;
  };
  const ran = (cycle: WatchLine, stage: 'specs' | 'chunks', i: number): boolean => cycle.ran.includes(`${stage}/example-test-doc${i}.json`);
  /** Saves document a until a cycle settles at least the last two groups (a group is settled once a cycle found it up to date). */
  const settleOthers = async (): Promise<WatchLine> => {
    const wanted = settledTargetsOf(1) + settledTargetsOf(lastIds.length - 1);
    for (let k = 0; k < 4; k += 1) {
      const cycle = await save(a);
      assert.ok(ran(cycle, 'specs', a), JSON.stringify(cycle.ran));
      if (cycle.settled >= wanted) return cycle;
    }
    throw new Error(`the untouched groups were never settled; lines:\n${watch.dump()}`);
  };
  const outputOf = (stage: 'specs' | 'chunks', i: number): string => {
    const names = fs.readdirSync(rig.path(stage)).filter((name) => new RegExp(`^example-test-doc${i}\\.[0-9a-f]{16}\\.json$`).test(name));
    assert.equal(names.length, 1, JSON.stringify(names));
    return `${stage}/${names[0]}`;
  };

  // Settled: a save of a leaves b's group unchecked.
  let cycle = await settleOthers();
  assert.ok(!ran(cycle, 'specs', b), JSON.stringify(cycle.ran));

  // 1. A saved source of a settled group: its group is checked, the document rebuilt.
  cycle = await save(b);
  assert.ok(ran(cycle, 'specs', b) && ran(cycle, 'chunks', b), JSON.stringify(cycle.ran));
  assert.ok(cycle.settled < settledTargetsOf(1) + settledTargetsOf(lastIds.length - 1), JSON.stringify(cycle));

  // 2. Outputs of a settled group deleted and damaged while watch is idle: outputs start no cycle,
  // but their events void the group's memo, so the next cycle (a save of another group) checks it.
  await settleOthers();
  fs.rmSync(rig.path(outputOf('specs', b)));
  fs.appendFileSync(rig.path(outputOf('chunks', c)), ' ');
  cycle = await save(a);
  assert.deepEqual(cycle.changed, [`src/doc${a}.html`]);
  assert.ok(ran(cycle, 'specs', b), JSON.stringify(cycle.ran));
  assert.ok(ran(cycle, 'chunks', c), JSON.stringify(cycle.ran));

  // 3. While a cycle is building (every document of a's group saved at once): an output of a settled
  // group deleted and a source of another saved. Whether the build had checked them yet or not, the
  // output is rebuilt and the source's new bytes reach the index by the end of the next cycle.
  await settleOthers();
  const big = inGroup(0);
  const before = new Set(fs.readdirSync(rig.path('specs')));
  const mark = watch.lines.length;
  for (const i of big) fs.writeFileSync(rig.path(`src/doc${i}.html`), sampleHtml(i, ` Burst of document ${i}.`));
  // The build has begun once it wrote a new extracted document; most of the burst is still ahead.
  await waitUntil(() => fs.readdirSync(rig.path('specs')).some((name) => !before.has(name)), 'the burst build wrote its first output', {
    timeoutMs: 120_000,
  });
  const building = watch.lines.slice(mark).filter((line) => line.event === 'cycle').length === 0;
  const deleted = outputOf('specs', b);
  fs.rmSync(rig.path(deleted));
  fs.writeFileSync(rig.path(`src/doc${c}.html`), sampleHtml(c, ' A quokka smiles during the build.'));
  const burst = await watch.nextCycle(mark);
  assert.equal(burst.ok, true, watch.dump());
  // The save of c during the build is the next cycle's change; b's output is rebuilt by one of the two.
  const next = await watch.waitFor((line) => line.event === 'cycle' && line.changed.includes(`src/doc${c}.html`), mark);
  assert.equal(next.ok, true, watch.dump());
  assert.ok(ran(next, 'specs', c), JSON.stringify(next.ran));
  assert.ok(ran(burst, 'specs', b) || ran(next, 'specs', b), `${JSON.stringify(burst.ran)} ${JSON.stringify(next.ran)}`);
  assert.ok(fs.existsSync(rig.path(outputOf('specs', b))));
  t.diagnostic(`the deletion came while the burst was building: ${building}`);

  await watch.stop('SIGTERM');
  // The workspace is what a one-shot build leaves: it checks every target and finds nothing to do.
  const after = await rig.exec(['build', '--json']);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.equal(after.json!.data.actions, 0, JSON.stringify(after.json!.data.counts));
  const hits = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'quokka', '--json']);
  assert.match((hits.json!.data.hits as { chunkId: string }[])[0]!.chunkId, new RegExp(`doc${c}\\b`));
});
