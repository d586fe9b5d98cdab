import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { Rig, sampleHtml, writeSmallWorkspace } from '../helpers/rig.js';
import { WatchProcess } from '../helpers/watch-process.js';
import { scaled } from '../helpers/scale.js';

/**
 * Watch trusts what it remembers between cycles (targets its last build left current, each stage-index
 * entry's JSON, the chunk index it just built). A generated sequence of edits, reverts to earlier
 * bytes, two sources with the same bytes, sources leaving and rejoining the map and a source moving to
 * another URL: after every cycle the derived files equal a clean build of the same inputs. (Snapshot
 * records of sources that left the map are kept by design, so the snapshot index stands for them.)
 */

/**
 * Small workspaces, and one above 256 sources: its stage indexes are manifests naming segment files,
 * which a watch reuses while their entries are the ones it remembers (store/stage-index.ts). The two
 * small walks take every kind of step between them in their first seven (seed 7: edits, same bytes,
 * leave, rejoin, revert; seed 2026: leave, rejoin, move-url, same bytes, edits); the large one takes
 * same bytes, edits, leave and rejoin. EPISTEME_TEST_SCALE makes the walks longer.
 */
const RUNS: { seed: number; docs: number; steps: number }[] = [
  { seed: 7, docs: 5, steps: scaled(7) },
  { seed: 2026, docs: 5, steps: scaled(7) },
  { seed: 11, docs: 270, steps: scaled(6) },
];

interface Source {
  url: string;
  included: boolean;
  content: string;
  history: string[];
}

/** A small seeded generator (mulberry32): the sequence is the same on every run and every runtime. */
function generator(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

function mapJson(sources: Source[]): string {
  const entries = sources.flatMap((s, i) =>
    s.included ? [{ sourceUrl: s.url, localPath: `src/doc${i}.html`, contentType: 'text/html' }] : [],
  );
  return JSON.stringify(entries, null, 2);
}

function derivedFiles(rig: Rig): Map<string, string> {
  const files = rig.artifacts(['specs', 'chunks']);
  const snapshotIndex = crypto
    .createHash('sha256')
    .update(fs.readFileSync(rig.path('snapshots/index.json')))
    .digest('hex');
  files.set('snapshots/index.json', snapshotIndex);
  // A segmented snapshot index's segment files (and no others left behind).
  for (const name of fs.readdirSync(rig.path('snapshots')).filter((n) => /^index\.seg-/.test(n)))
    files.set(
      `snapshots/${name}`,
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(rig.path('snapshots', name)))
        .digest('hex'),
    );
  return files;
}

for (const { seed, docs: DOCS, steps: STEPS } of RUNS) {
  test(`watch over a generated edit sequence (seed ${seed}, ${DOCS} sources) equals a clean build after every cycle`, {
    timeout: 900_000,
  }, async (t) => {
    const random = generator(seed);
    const rig = new Rig('episteme-watch-seq-');
    writeSmallWorkspace(rig, DOCS);
    // A byte bound a source can be grown past, so that its snapshot fails (the last steps do).
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: 4000 } }) });
    const sources: Source[] = Array.from({ length: DOCS }, (_, i) => ({
      url: `https://example.test/doc${i}/`,
      included: true,
      content: sampleHtml(i),
      history: [sampleHtml(i)],
    }));
    const watch = new WatchProcess(rig.dir);
    t.after(async () => {
      await watch.stop('SIGKILL');
      rig.cleanup();
    });
    assert.equal((await watch.nextCycle(0)).ok, true, watch.dump());
    if (DOCS > 256)
      for (const dir of ['snapshots', 'specs', 'chunks'])
        assert.ok((JSON.parse(rig.read(`${dir}/index.json`)) as { payload: { segments?: unknown[] } }).payload.segments!.length >= 2, dir);

    const steps: string[] = [];
    for (let step = 0; step < STEPS; step += 1) {
      const included = sources.map((s, i) => (s.included ? i : -1)).filter((i) => i >= 0);
      const i = included[random(included.length)]!;
      const source = sources[i]!;
      let kind = ['edit', 'revert', 'same-bytes-as-another', 'leave-or-rejoin', 'move-url'][random(5)]!;
      let content: string | null = null;
      if (kind === 'revert') content = source.history.find((earlier) => earlier !== source.content) ?? null;
      if (kind === 'same-bytes-as-another') {
        const other = sources.find((s, j) => j !== i && s.included && s.content !== source.content);
        content = other?.content ?? null;
      }
      if (kind === 'edit' || ((kind === 'revert' || kind === 'same-bytes-as-another') && content === null)) {
        kind = 'edit';
        content = sampleHtml(i, ` Step ${step} adds okapi${random(1000)}.`);
      }
      const mark = watch.lines.length;
      if (content !== null) {
        source.content = content;
        source.history.push(content);
        fs.writeFileSync(rig.path(`src/doc${i}.html`), content);
      } else {
        if (kind === 'move-url') source.url = `https://example.test/moved/doc${i}-${step}/`;
        else {
          // Leave the map (keeping at least two sources in it), or bring back one that left.
          const away = sources.findIndex((s) => !s.included);
          if (away >= 0) sources[away]!.included = true;
          else if (included.length > 2) source.included = false;
          else source.url = `https://example.test/moved/doc${i}-${step}/`;
        }
        fs.writeFileSync(rig.path('map.json'), mapJson(sources));
      }
      steps.push(`${kind} doc${i}`);
      const cycle = await watch.nextCycle(mark);
      assert.equal(cycle.ok, true, `${steps.join(', ')}\n${watch.dump()}`);
      await assertEqualsCleanBuild(rig, sources, DOCS, steps);
    }

    // Failed cycles, then recovery: one source grown past the byte bound (its snapshot fails, the indexes
    // are not built), another edited meanwhile (its chain is built and left current while the indexes'
    // records still name its old output), then the first restored: the indexes must take both changes.
    const included = sources.map((s, i) => (s.included ? i : -1)).filter((i) => i >= 0);
    const [gone, edited] = [included[0]!, included[included.length - 1]!];
    let mark = watch.lines.length;
    fs.writeFileSync(rig.path(`src/doc${gone}.html`), sampleHtml(gone, ' padding'.repeat(1000)));
    assert.equal((await watch.nextCycle(mark)).ok, false, watch.dump());
    // Two edits in two failed cycles: the first one's outputs are then vouched for by the watch.
    for (const [k, word] of [edited, included[1]!].entries()) {
      mark = watch.lines.length;
      sources[word]!.content = sampleHtml(word, ` Edited while another source was over its bound: quokka${k}.`);
      fs.writeFileSync(rig.path(`src/doc${word}.html`), sources[word]!.content);
      assert.equal((await watch.nextCycle(mark)).ok, false, watch.dump());
    }
    mark = watch.lines.length;
    fs.writeFileSync(rig.path(`src/doc${gone}.html`), sources[gone]!.content);
    assert.equal((await watch.nextCycle(mark)).ok, true, watch.dump());
    steps.push(`doc${gone} past the byte bound, edit doc${edited} and doc${included[1]}, restore doc${gone}`);
    await assertEqualsCleanBuild(rig, sources, DOCS, steps);
    // What watch recorded is what a one-shot build would: after it, such a build has nothing to do, even
    // without the no-op proof (which vouches by file stamps): every target's key is computed again.
    await watch.stop('SIGTERM');
    for (const proof of ['noop.json', 'noop.patch.json']) fs.rmSync(rig.path('.episteme', proof), { force: true });
    const after = await rig.exec(['build', '--json']);
    assert.equal(after.code, 0, after.stdout + after.stderr);
    const ran = (after.json!.data.targets as { target: string; status: string }[]).filter((row) => row.status !== 'up-to-date');
    assert.deepEqual(ran, [], `a build after watch reran targets: ${JSON.stringify(ran)}`);
  });
}

/** The derived files of the watched workspace are those of a clean build of the same inputs. */
async function assertEqualsCleanBuild(rig: Rig, sources: Source[], DOCS: number, steps: string[]): Promise<void> {
  const clean = new Rig('episteme-watch-seq-clean-');
  try {
    clean.write({ 'episteme.json': rig.read('episteme.json'), 'map.json': rig.read('map.json') });
    for (let j = 0; j < DOCS; j += 1) clean.write({ [`src/doc${j}.html`]: sources[j]!.content });
    const built = await clean.exec(['build']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    assert.deepEqual(derivedFiles(rig), derivedFiles(clean), `after: ${steps.join(', ')}`);
  } finally {
    clean.cleanup();
  }
}
