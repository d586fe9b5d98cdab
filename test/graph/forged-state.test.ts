import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rig, writeSmallWorkspace, assertNoStackTrace, type CliResult } from '../helpers/rig.js';
import { withChecksum, verifiedBody, type TargetRecord } from '../../src/graph/state.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { CHUNKS_FORMAT_VERSION } from '../../src/rule-versions.js';
import { initFastHash, sha256Hex } from '../../src/store/hash.js';
import { groupProofProblem, noopProofProblem, relativePathProblem, targetRecordProblem } from '../../src/graph/state-validation.js';

await initFastHash();

/**
 * The build state is checked, not trusted: its checksums stop damage, but whoever can write
 * .episteme/ can recompute them. Each forgery below (a record naming a file outside the workspace, a
 * missing field, a wrong type), written with a valid checksum into state.log or state.json, must end
 * in a discarded state or a dropped record and a rebuild equal to a clean build: never a file outside
 * the workspace read or served, never internal-error from build, explain, graph or query.
 */

const SECRET = 'outsidesecretword';

/** A state.log line as the state writes it: JSON, a tab, the first 16 hex digits of its SHA-256. */
const logLine = (entry: unknown): string => {
  const json = JSON.stringify(entry);
  return `${json}\t${sha256Hex(json).slice(0, 16)}\n`;
};

/** The records state.json holds, by target (the state as the last build committed it). */
function stateRecords(rig: Rig): Map<string, TargetRecord> {
  const body = verifiedBody(fs.readFileSync(rig.path('.episteme', 'state.json')))!;
  const records = new Map<string, TargetRecord>();
  for (const line of body.split('\n').slice(1)) {
    const tab = line.indexOf('\t');
    if (tab > 0) records.set(JSON.parse(line.slice(0, tab)) as string, JSON.parse(line.slice(tab + 1)) as TargetRecord);
  }
  return records;
}

function noInternalError(result: CliResult, what: string): void {
  assert.notEqual(result.json?.error?.code, 'internal-error', `${what}: ${result.stdout}${result.stderr}`);
  assertNoStackTrace(result);
}

describe('forged build state', () => {
  const rigs: Rig[] = [];
  let reference: Map<string, string>;
  /** A chunk artifact outside the workspace whose text holds SECRET. */
  let outside: Rig;
  let outsideBytes: string;

  before(async () => {
    const plain = new Rig('episteme-forged-ref-');
    rigs.push(plain);
    writeSmallWorkspace(plain, 3);
    assert.equal((await plain.exec(['build', '--json'])).code, 0);
    reference = plain.artifacts();
    const chunkFile = [...reference.keys()].find((file) => /^chunks\/example-test-doc0\.[0-9a-f]+\.json$/.test(file))!;
    const artifact = JSON.parse(plain.read(chunkFile)) as { payload: { documentId: string; chunks: { text: string }[] } };
    for (const chunk of artifact.payload.chunks) chunk.text = `${chunk.text} ${SECRET}`;
    outsideBytes = artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, artifact.payload));
    outside = new Rig('episteme-forged-outside-');
    rigs.push(outside);
    outside.write({ 'chunks.json': outsideBytes });
  });
  after(() => {
    for (const rig of rigs) rig.cleanup();
  });

  /** A built workspace, its state as committed. */
  async function built(): Promise<Rig> {
    const rig = new Rig('episteme-forged-');
    rigs.push(rig);
    writeSmallWorkspace(rig, 3);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    return rig;
  }

  /** Every command that reads the state ends without internal-error; build rebuilds to a clean build's bytes; nothing outside is served. */
  async function survives(rig: Rig, label: string, expectWarning: boolean): Promise<void> {
    for (const args of [
      ['explain', 'chunks/example-test-doc0.json', '--json'],
      ['graph', '--json'],
    ]) {
      noInternalError(await rig.exec(args), `${label}: ${args[0]}`);
    }
    const build = await rig.exec(['build', '--json']);
    noInternalError(build, `${label}: build`);
    assert.equal(build.code, 0, `${label}: ${build.stdout}`);
    if (expectWarning)
      assert.ok(
        build.json!.warnings.some((w: { code: string }) => w.code === 'state-discarded'),
        `${label}: ${JSON.stringify(build.json!.warnings)}`,
      );
    assert.deepEqual(rig.artifacts(), reference, `${label}: the rebuilt workspace equals a clean build`);
    const query = await rig.exec(['query', '--term', SECRET, '--index', 'chunks/search-index.json', '--json']);
    noInternalError(query, `${label}: query`);
    assert.equal(query.code, 0, `${label}: ${query.stdout}`);
    assert.equal(query.json!.data.total, 0, `${label}: the text of a file outside the workspace is never served`);
    // And the state it committed is sound again: a second build has nothing to do.
    const again = await rig.exec(['build', '--json']);
    assert.equal(again.code, 0, `${label}: ${again.stdout}`);
    assert.equal(again.json!.data.counts.built, 0, `${label}: ${again.stdout}`);
  }

  it('forged state.log lines (outside paths, missing fields, wrong types) discard the state and rebuild', async () => {
    const outsideFile = outside.path('chunks.json');
    const forgeries: [string, (records: Map<string, TargetRecord>, rig: Rig) => unknown][] = [
      [
        'a chunk output outside the workspace (relative)',
        (records, rig) => {
          const record = structuredClone(records.get('chunks/example-test-doc0.json')!);
          const stat = fs.statSync(outsideFile);
          record.output = path.relative(rig.dir, outsideFile);
          record.sha256 = sha256Hex(outsideBytes);
          record.stamp = { size: stat.size, mtimeMs: String(stat.mtimeMs), ctimeMs: String(stat.ctimeMs), ino: stat.ino };
          return { t: 'chunks/example-test-doc0.json', r: record };
        },
      ],
      [
        'a chunk output outside the workspace (absolute)',
        (records) => {
          const record = structuredClone(records.get('chunks/example-test-doc0.json')!);
          record.output = outsideFile;
          record.sha256 = sha256Hex(outsideBytes);
          return { t: 'chunks/example-test-doc0.json', r: record };
        },
      ],
      [
        'a snapshot body outside the workspace',
        (records) => {
          const record = structuredClone(records.get('snapshots/example-test-doc0.json')!);
          record.facts = { ...record.facts, body: `snapshots/../../${path.basename(outside.dir)}/chunks.json` };
          return { t: 'snapshots/example-test-doc0.json', r: record };
        },
      ],
      [
        'a record without components',
        (records) => {
          const record: Partial<TargetRecord> = structuredClone(records.get('specs/example-test-doc1.json')!);
          delete record.components;
          return { t: 'specs/example-test-doc1.json', r: record };
        },
      ],
      [
        'a record with a rule version of the wrong type and a numeric fact',
        (records) => {
          const record = structuredClone(records.get('chunks/example-test-doc2.json')!) as unknown as Record<string, any>;
          record['components'].ruleVersion = 'two';
          record['facts'] = { chunksContentHash: 7 };
          return { t: 'chunks/example-test-doc2.json', r: record };
        },
      ],
      ['a record that is a string', () => ({ t: 'chunks/index.json', r: 'chunks/index.json' })],
      ['a file stamp without its hash', () => ({ f: 'src/doc0.html', s: { size: 1, mtimeMs: '1', ctimeMs: '1', ino: 1 } })],
      ['a clean record without its order', () => ({ c: { invocation: 'x', producerVersion: '0', ruleVersions: {}, files: {} } })],
    ];
    for (const [label, forge] of forgeries) {
      const rig = await built();
      const entry = forge(stateRecords(rig), rig);
      fs.appendFileSync(rig.path('.episteme', 'state.log'), logLine(entry) + logLine({ k: 1 }));
      await survives(rig, label, true);
    }
  });

  it('a forged record in state.json (valid checksum) is dropped and its target rebuilt', async () => {
    const forgeries: [string, (record: Record<string, any>) => void][] = [
      ['outside output', (record) => (record['output'] = `../${path.basename(outside.dir)}/chunks.json`)],
      ['missing components', (record) => delete record['components']],
      ['options of the wrong type', (record) => (record['components'].options = ['chunk.maxChars'])],
    ];
    for (const [label, forge] of forgeries) {
      const rig = await built();
      const file = rig.path('.episteme', 'state.json');
      const body = verifiedBody(fs.readFileSync(file))!;
      const lines = body.split('\n').map((line) => {
        if (!line.startsWith('"chunks/example-test-doc0.json"\t')) return line;
        const tab = line.indexOf('\t');
        const record = JSON.parse(line.slice(tab + 1)) as Record<string, any>;
        forge(record);
        return `${line.slice(0, tab)}\t${JSON.stringify(record)}`;
      });
      assert.notEqual(lines.join('\n'), body, `${label}: the record was forged`);
      fs.writeFileSync(file, withChecksum(lines.join('\n')));
      fs.rmSync(rig.path('.episteme', 'noop.json'), { force: true });
      await survives(rig, `state.json: ${label}`, false);
    }
  });

  it('a forged no-op proof (root or group file, valid checksums) is refused with state-discarded, and the build checks every target', {
    timeout: 600_000,
  }, async () => {
    type Proof = Record<string, any>;
    const outsideFile = outside.path('chunks.json');
    const stat = fs.statSync(outsideFile);
    const outsideStamp = [stat.size, String(stat.mtimeMs), stat.ino, String(stat.ctimeMs)];
    // Each forgery edits the root (noop.json) or the group file (noop/<hash>.json); the group's checksum
    // in the root is recomputed, as anyone who can write .episteme/ could.
    const forgeries: [string, (proof: { root: Proof; group: Proof }, rig: Rig) => void][] = [
      [
        'a target whose output is outside the workspace (relative)',
        ({ group }, rig) =>
          group['targets'].push(['chunks/forged.json', 'chunk', path.relative(rig.dir, outsideFile), ...outsideStamp, [], 0]),
      ],
      [
        'an index whose output is absolute',
        ({ root }) => root['targets'].push(['chunks/forged.json', 'chunk', outsideFile, ...outsideStamp, [], 0]),
      ],
      [
        'a target with an other file behind `..`',
        ({ group }) => (group['targets'][0][7] = [[`snapshots/../../${path.basename(outside.dir)}/chunks.json`, ...outsideStamp]]),
      ],
      ['a source with an absolute path', ({ group }) => group['sources'].push([outsideFile, ...outsideStamp])],
      ['a target size of the wrong type', ({ group }) => (group['targets'][0][3] = String(group['targets'][0][3]))],
      ['a target that is not a list', ({ group }) => (group['targets'][0] = { name: group['targets'][0][0] })],
      ['other files that are not a list', ({ root }) => (root['targets'][0][7] = 'snapshots/bodies')],
      ['a missing state stamp', ({ root }) => delete root['state']],
      ['a group file name a build does not write', ({ root }) => (root['groups'][0][1] = '../state.json')],
      ['diagnostics of a target it does not list', ({ group }) => (group['diagnostics']['chunks/forged.json'] = { diagnosticErrors: '1' })],
      ['a group file of another group', ({ group }) => (group['group'] = 'example-test-doc9')],
      // A list of 200,000 copies of one real target passes every stat: refused as a repeat, not statted.
      [
        'one real target 200,000 times',
        ({ group }) => {
          for (let i = 0; i < 200_000; i += 1) group['targets'].push(group['targets'][0]);
        },
      ],
      [
        'a target with 200,000 other files',
        ({ group }) => (group['targets'][0][7] = Array.from({ length: 200_000 }, (_, i) => [`snapshots/f${i}`, 1, '1', 1, '1'])),
      ],
    ];
    for (const [label, forge] of forgeries) {
      const rig = await built();
      const rootFile = rig.path('.episteme', 'noop.json');
      // The proof a clean build wrote is valid and proves the next build a no-op.
      const root = JSON.parse(verifiedBody(fs.readFileSync(rootFile))!) as Proof;
      assert.equal(noopProofProblem(root), null, `${label}: the proof a build wrote validates`);
      const groupFile = rig.path('.episteme', 'noop', root['groups'][0][1]);
      const group = JSON.parse(verifiedBody(fs.readFileSync(groupFile))!) as Proof;
      assert.equal(groupProofProblem(group), null, `${label}: the group file a build wrote validates`);
      forge({ root, group }, rig);
      const groupBytes = withChecksum(JSON.stringify(group));
      fs.writeFileSync(groupFile, groupBytes);
      if (root['groups'][0]) root['groups'][0][2] = groupBytes.toString('latin1').split('\nxxh64:')[1]!.trim();
      fs.writeFileSync(rootFile, withChecksum(JSON.stringify(root)));
      const started = Date.now();
      const build = await rig.exec(['build', '--json']);
      noInternalError(build, `${label}: build`);
      assert.equal(build.code, 0, `${label}: ${build.stdout}`);
      const discarded = build.json!.warnings.filter((w: { code: string }) => w.code === 'state-discarded');
      assert.equal(discarded.length, 1, `${label}: ${JSON.stringify(build.json!.warnings)}`);
      assert.match(discarded[0].message, /no-op proof/, label);
      // The full build ran (every target checked, from the state), and reported none of the proof's forgeries.
      assert.doesNotMatch(JSON.stringify(build.json!.data), /forged|outside/, `${label}: ${build.stdout.slice(0, 2000)}`);
      const names = (build.json!.data.targets as { target: string }[]).map((row) => row.target);
      assert.equal(new Set(names).size, names.length, `${label}: a target reported twice`);
      assert.ok(Date.now() - started < 60_000, `${label}: took ${Date.now() - started} ms`);
      assert.deepEqual(rig.artifacts(), reference, `${label}: the workspace equals a clean build`);
      // That build ended clean: it wrote a whole proof again, so the refusal is reported once and the
      // next build is a proven no-op.
      const again = await rig.exec(['build', '--json']);
      assert.equal(again.code, 0, `${label}: ${again.stdout}`);
      assert.deepEqual(again.json!.warnings, [], label);
      assert.equal(again.json!.data.actions, 0, label);
    }
  });

  it('the validation itself: every path a record names stays inside the workspace', () => {
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a//b', './a', 'a\\..\\b', 'C:/x', '', 'a/\0b'])
      assert.notEqual(relativePathProblem(bad), null, bad);
    for (const good of ['chunks/a.json', 'snapshots/bodies/ab12', 'specs/x..y.json']) assert.equal(relativePathProblem(good), null, good);
    assert.notEqual(targetRecordProblem(null), null);
    assert.notEqual(targetRecordProblem({ key: 'k' }), null);
  });
});
