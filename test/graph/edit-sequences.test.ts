import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, sampleHtml } from '../helpers/rig.js';
import { seededRandom } from '../helpers/random.js';
import { scaled } from '../helpers/scale.js';

/**
 * After any sequence of edits and builds, the workspace equals a clean build of the same inputs, byte
 * for byte. A seeded random walk over the edits a user makes (content edits, whitespace reflows that
 * change only the snapshot, a charset label, reverting to an earlier version, adding and removing
 * sources, a chunk option, touching files), with a clean build compared after every step.
 * EPISTEME_SEQUENCE_SEED=N reproduces or explores another walk.
 *
 * A build commits by appending to .episteme/state.log (folding it into state.json only once it has
 * grown) and trusts recorded options while the last clean build's record holds: so the walk also
 * checks that the cached index parts are exactly a clean build's, that the state a later build loads
 * (log and all) proves the next build a no-op on both paths, and that both commit paths were taken.
 */
type Source = { name: string; revision: number; reflow: boolean; charset: boolean };

interface Inputs {
  sources: Source[];
  maxChars: number;
}

function html(source: Source): string {
  const index = Number(source.name.slice(3));
  let text = sampleHtml(index, source.revision === 0 ? '' : ` Revision ${source.revision} adds words like okapi${source.revision}.`);
  // A space becomes a newline: new bytes, same text and source offsets, so only the snapshot changes.
  if (source.reflow) text = text.replace('paragraph of document', 'paragraph\nof document');
  return text;
}

function writeInputs(rig: Rig, inputs: Inputs): void {
  const map = inputs.sources.map((s) => ({
    sourceUrl: `https://example.test/${s.name}/`,
    localPath: `src/${s.name}.html`,
    contentType: 'text/html',
    ...(s.charset ? { charset: 'utf-8' } : {}),
  }));
  const files: Record<string, string> = {
    'map.json': JSON.stringify(map, null, 2),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: inputs.maxChars, overlapChars: 40 } } }),
  };
  for (const source of inputs.sources) files[`src/${source.name}.html`] = html(source);
  rig.write(files);
}

function cachedParts(rig: Rig): string[] {
  return fs.readdirSync(rig.path('.episteme/cache/index-parts')).sort();
}

/** Derived folders must match exactly; captured snapshots must include everything a clean build has. */
function assertEqualsCleanBuild(incremental: Map<string, string>, clean: Map<string, string>, step: string): void {
  const derived = (files: Map<string, string>) =>
    new Map([...files].filter(([file]) => !/^snapshots\/(records|bodies|observations)\//.test(file)));
  assert.deepEqual(derived(incremental), derived(clean), `derived artifacts differ from a clean build after ${step}`);
  for (const [file, hash] of clean) {
    if (/^snapshots\/(records|bodies)\//.test(file)) assert.equal(incremental.get(file), hash, `${file} after ${step}`);
  }
}

test('any sequence of edits and builds leaves the bytes of a clean build', async () => {
  const seed = Number(process.env['EPISTEME_SEQUENCE_SEED'] ?? 20261130);
  const random = seededRandom(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const inputs: Inputs = {
    sources: [0, 1, 2].map((i) => ({ name: `doc${i}`, revision: 0, reflow: false, charset: false })),
    maxChars: 1200,
  };
  let nextSource = 3;
  const rig = new Rig();
  try {
    writeInputs(rig, inputs);
    assert.equal((await rig.exec(['build'])).code, 0);
    const edits: Record<string, () => void> = {
      'content edit': () => {
        pick(inputs.sources).revision += 1;
      },
      'revert to the first version': () => {
        pick(inputs.sources).revision = 0;
      },
      'whitespace reflow (snapshot only)': () => {
        const source = pick(inputs.sources);
        source.reflow = !source.reflow;
      },
      'charset label (snapshot only)': () => {
        const source = pick(inputs.sources);
        source.charset = !source.charset;
      },
      'add a source': () => void inputs.sources.push({ name: `doc${nextSource++}`, revision: 0, reflow: false, charset: false }),
      'remove a source': () => {
        if (inputs.sources.length > 1) inputs.sources.splice(Math.floor(random() * inputs.sources.length), 1);
      },
      'chunk option': () => {
        inputs.maxChars = pick([300, 800, 1200]);
      },
      'touch everything': () => undefined,
    };
    const names = Object.keys(edits);
    const commits = { appended: 0, folded: 0 };
    // Every kind of edit at least once (in a seeded order), then a random walk of edits on top of those
    // (longer with EPISTEME_TEST_SCALE).
    const walk = [...names].sort(() => random() - 0.5).concat(Array.from({ length: scaled(2) }, () => pick(names)));
    for (const [index, edit] of walk.entries()) {
      const step = index + 1;
      edits[edit]!();
      for (const file of fs.readdirSync(rig.path('src')))
        if (!inputs.sources.some((s) => `${s.name}.html` === file)) fs.rmSync(rig.path('src', file));
      writeInputs(rig, inputs);
      const label = `step ${step} (${edit}; seed ${seed})`;
      const result = await rig.exec(['build', '--json']);
      assert.equal(result.code, 0, `${label}: ${result.stdout}${result.stderr}`);
      if (fs.existsSync(rig.path('.episteme/state.log'))) commits.appended += 1;
      else commits.folded += 1;
      const clean = new Rig();
      try {
        writeInputs(clean, inputs);
        const cleanBuild = await clean.exec(['build']);
        assert.equal(cleanBuild.code, 0, `clean build after ${label}: ${cleanBuild.stdout}${cleanBuild.stderr}`);
        assertEqualsCleanBuild(rig.artifacts(), clean.artifacts(), label);
        assert.deepEqual(cachedParts(rig), cachedParts(clean), `cached index parts differ from a clean build's after ${label}`);
      } finally {
        clean.cleanup();
      }
      // Through the proof (no --trace) and through the full path (--trace turns the proof off).
      const noop = await rig.exec(['build', '--json']);
      assert.equal(noop.json!.data.actions, 0, `${label}: the next build is a no-op`);
      const traced = await rig.exec(['build', '--json', '--trace', rig.path('trace.json')]);
      assert.equal(traced.json!.data.actions, 0, `${label}: the next full check finds nothing to do`);
      fs.rmSync(rig.path('trace.json'));
    }
    assert.ok(commits.appended > 0 && commits.folded > 0, `both commit paths were taken: ${JSON.stringify(commits)}`);
  } finally {
    rig.cleanup();
  }
});
