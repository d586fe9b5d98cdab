import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { readFileSync } from 'node:fs';
import { assignDocumentIds } from '../../src/config/source-url.js';
import { SEGMENT_CUT_ONE_IN } from '../../src/index/index-layout.js';
import { STAGE_SEGMENT_FILE_NAME, readStageIndex } from '../../src/store/stage-index.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { sha256Hex } from '../../src/store/hash.js';
import { assertNoStackTrace, Rig, sampleHtml } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';

/**
 * Stage indexes above 256 entries are manifests naming segment files (store/stage-index.ts). One-shot
 * builds over a sequence of edits, additions, removals, a renamed source, a moved URL and two sources
 * with the same bytes leave exactly the files of a clean build, rewrite only the segments whose entries
 * changed, and notice (and repair) a segment deleted, truncated or swapped behind their back.
 */

const url = (name: string) => `https://stage.test/${name}`;
const idOf = (name: string) => assignDocumentIds([url(name)]).get(url(name))!;
const isCut = (name: string) => zlib.crc32(idOf(name)) % SEGMENT_CUT_ONE_IN === 0;
const STAGES = ['snapshots', 'specs', 'chunks'] as const;
const KIND = { snapshots: 'snapshot-index', specs: 'document-index', chunks: 'chunk-index' } as const;

/** Names whose document id ends a segment (index-layout.ts planSegments), so every corpus has several. */
function cutNames(count: number): string[] {
  const names: string[] = [];
  for (let k = 0; names.length < count; k++) if (isCut(`cut${k}`)) names.push(`cut${k}`);
  return names;
}

interface Source {
  name: string;
  url: string;
  content: string;
}

function writeInputs(rig: Rig, sources: Source[]): void {
  fs.rmSync(rig.path('src'), { recursive: true, force: true });
  const files: Record<string, string> = {
    'map.json': JSON.stringify(sources.map((s) => ({ sourceUrl: s.url, localPath: `src/${s.name}.html`, contentType: 'text/html' }))),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
  };
  for (const s of sources) files[`src/${s.name}.html`] = s.content;
  rig.write(files);
}

/** Everything derived (captured snapshot records and bodies are kept by design when a source leaves). */
function derived(rig: Rig): Map<string, string> {
  return new Map([...rig.artifacts()].filter(([file]) => !/^snapshots\/(records|bodies|observations)\//.test(file)));
}

function stageSegments(rig: Rig, dir: string): string[] {
  return fs
    .readdirSync(rig.path(dir))
    .filter((name) => STAGE_SEGMENT_FILE_NAME.test(name))
    .sort();
}

async function build(rig: Rig): Promise<{ actions: number; targets: { target: string; status: string; reasons: { reason: string }[] }[] }> {
  const result = await rig.exec(['build', '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result.json!.data;
}

async function assertEqualsClean(rig: Rig, sources: Source[], step: string): Promise<Map<string, string>> {
  const clean = new Rig('episteme-stageseg-clean-');
  try {
    writeInputs(clean, sources);
    await build(clean);
    const expected = derived(clean);
    assert.deepEqual(derived(rig), expected, `derived files differ from a clean build after ${step}`);
    return expected;
  } finally {
    clean.cleanup();
  }
}

test('segmented stage indexes after edits, additions, removals, a rename, a moved URL and equal bytes equal a clean build', {
  timeout: 900_000,
}, async () => {
  const rig = new Rig('episteme-stageseg-');
  try {
    const sources: Source[] = [...Array.from({ length: 262 }, (_, i) => `doc${i}`), ...cutNames(2)].map((name, i) => ({
      name,
      url: url(name),
      content: sampleHtml(i),
    }));
    writeInputs(rig, sources);
    await build(rig);
    for (const dir of STAGES) {
      const index = readStageIndex(rig.path(dir), KIND[dir]);
      assert.ok((index.segments?.length ?? 0) >= 3, `${dir}/index.json is a manifest of several segments`);
      assert.equal(index.entries.length, sources.length);
      assert.deepEqual(stageSegments(rig, dir), index.segments!.map((s) => s.file).sort());
    }
    verifyCommittedGeneration(rig.dir);
    let clean = await assertEqualsClean(rig, sources, 'the first build');

    // One edit: in each stage folder one segment file is new; the others are the same files (same inode).
    const before = new Map(STAGES.flatMap((dir) => stageSegments(rig, dir).map((n) => [`${dir}/${n}`, fs.statSync(rig.path(dir, n)).ino])));
    sources[17]!.content = sampleHtml(17, ' An edited sentence about okapi.');
    writeInputs(rig, sources);
    await build(rig);
    clean = await assertEqualsClean(rig, sources, 'an edit');
    for (const dir of STAGES) {
      const now = stageSegments(rig, dir);
      assert.equal(now.filter((n) => !before.has(`${dir}/${n}`)).length, 1, `${dir}: one segment rewritten`);
      for (const n of now.filter((m) => before.has(`${dir}/${m}`)))
        assert.equal(fs.statSync(rig.path(dir, n)).ino, before.get(`${dir}/${n}`));
    }

    const steps: [string, () => void][] = [
      ['an addition', () => sources.push({ name: 'added', url: url('added'), content: sampleHtml(900) })],
      ['a removal', () => sources.splice(40, 1)],
      ['a rename', () => Object.assign(sources[50]!, { name: 'renamed', url: url('renamed') })],
      ['a moved URL', () => (sources[60]!.url = url('moved/elsewhere'))],
      ['two sources with the same bytes', () => (sources[70]!.content = sources[71]!.content)],
      ['a revert', () => (sources[17]!.content = sampleHtml(17))],
    ];
    for (const [step, change] of steps) {
      change();
      writeInputs(rig, sources);
      await build(rig);
      clean = await assertEqualsClean(rig, sources, step);
    }
    verifyCommittedGeneration(rig.dir);
    assert.equal((await build(rig)).actions, 0, 'then a no-op');

    // A segment deleted, truncated, or swapped with another (a copy of its bytes): the build notices,
    // rebuilds that segment (a target of its own, `<index>#<first document id>`), and the workspace
    // equals a clean build again.
    const specs = stageSegments(rig, 'specs');
    fs.rmSync(rig.path('specs', specs[0]!));
    const chunks = stageSegments(rig, 'chunks');
    fs.truncateSync(rig.path('chunks', chunks[1]!), 100);
    const snaps = stageSegments(rig, 'snapshots');
    fs.copyFileSync(rig.path('snapshots', snaps[0]!), rig.path('snapshots', snaps[1]!));
    const repair = await build(rig);
    for (const [target, reason] of [
      ['specs/index.json', 'output-missing'],
      ['chunks/index.json', 'output-modified'],
      ['snapshots/index.json', 'output-modified'],
    ] as const) {
      const rebuilt = repair.targets.filter((t) => t.target.startsWith(`${target}#`) && t.status !== 'up-to-date');
      assert.ok(
        rebuilt.some((t) => t.reasons.some((r) => r.reason === reason)),
        `${target}: ${JSON.stringify(rebuilt)}`,
      );
    }
    assert.deepEqual(derived(rig), clean, 'repaired');
    assert.equal((await build(rig)).actions, 0, 'then a no-op');

    // Segment files no committed manifest names (left by a crashed writer) are collected.
    for (const dir of STAGES) rig.write({ [`${dir}/index.seg-0123456789abcdef.json`]: '{}' });
    const pruned = await rig.exec(['build', '--prune-snapshots', '--json']);
    assert.equal(pruned.code, 0, pruned.stdout + pruned.stderr);
    assert.deepEqual(derived(rig), clean, 'stray segment files removed');
  } finally {
    rig.cleanup();
  }
});

test('readers of a segmented stage index: diff verifies every segment, an older format is refused, the schema holds', {
  timeout: 600_000,
}, async () => {
  const rig = new Rig('episteme-stageseg-read-');
  try {
    const sources: Source[] = [...Array.from({ length: 258 }, (_, i) => `doc${i}`), ...cutNames(2)].map((name, i) => ({
      name,
      url: url(name),
      content: sampleHtml(i),
    }));
    writeInputs(rig, sources);
    await build(rig);
    fs.cpSync(rig.path('specs'), rig.path('before'), { recursive: true });
    sources[3]!.content = sampleHtml(3, ' A changed sentence about okapi.');
    writeInputs(rig, sources);
    await build(rig);
    const diff = await rig.exec(['diff', '--before', 'before', '--out', '-', '--json']);
    assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    assert.match(JSON.stringify(diff.json!.data), new RegExp(idOf('doc3')));

    // The published schema describes the manifest and its segments.
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validate = ajv.compile(
      JSON.parse(readFileSync(new URL('../../../schema/stage-index.schema.json', import.meta.url), 'utf8')) as object,
    );
    for (const dir of STAGES) {
      const manifest = JSON.parse(rig.read(`${dir}/index.json`)) as { payload: { segments: { file: string }[] } };
      assert.ok(validate(manifest), `${dir}/index.json: ${JSON.stringify(validate.errors)}`);
      for (const segment of manifest.payload.segments)
        assert.ok(validate(JSON.parse(rig.read(`${dir}/${segment.file}`))), `${dir}/${segment.file}: ${JSON.stringify(validate.errors)}`);
    }

    // A segment of the before corpus missing, then damaged: a structured error with a hint, no stack.
    const segments = stageSegments(rig, 'before');
    const kept = fs.readFileSync(rig.path('before', segments[1]!));
    fs.rmSync(rig.path('before', segments[1]!));
    for (const damage of ['missing', 'damaged', 'swapped']) {
      if (damage === 'damaged') fs.writeFileSync(rig.path('before', segments[1]!), kept.subarray(0, kept.length - 40));
      if (damage === 'swapped') fs.copyFileSync(rig.path('before', segments[0]!), rig.path('before', segments[1]!));
      const failed = await rig.exec(['diff', '--before', 'before', '--out', '-', '--json']);
      assert.equal(failed.json?.ok, false, `${damage}: ${failed.stdout}`);
      assert.equal(failed.json!.error!.code, 'artifact-invalid', damage);
      assert.match(failed.json!.error!.message, new RegExp(segments[1]!.replace(/\./g, '\\.')), damage);
      assert.match(failed.json!.error!.hint ?? '', /build/, damage);
      assertNoStackTrace(failed);
    }

    // A format-1 index (what an older Episteme wrote) is refused, not misread; and format 2 by an older
    // reader is refused the same way, by the version in the envelope.
    const old = JSON.parse(rig.read('specs/index.json')) as Record<string, unknown>;
    const { fingerprint: _f, ...body } = { ...old, formatVersion: 1 } as Record<string, unknown>;
    fs.writeFileSync(
      rig.path('before', 'index.json'),
      canonicalJson({ ...body, fingerprint: 'sha256:' + sha256Hex(canonicalJson(body)) }) + '\n',
    );
    const refused = await rig.exec(['diff', '--before', 'before', '--out', '-', '--json']);
    assert.equal(refused.json!.error!.code, 'artifact-invalid');
    assert.match(refused.json!.error!.message, /format version 1; this Episteme reads version 2/);
    assertNoStackTrace(refused);
  } finally {
    rig.cleanup();
  }
});
