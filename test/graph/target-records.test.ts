import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BuildState, STATE_FORMAT_VERSION, withChecksum, type CleanRecord, type TargetRecord } from '../../src/graph/state.js';
import { TargetRecords } from '../../src/graph/target-records.js';
import { initFastHash } from '../../src/store/hash.js';

// BuildState.load checks state.json's xxh64 checksum.
await initFastHash();

/**
 * Build records stay the text state.json holds until used, so an edit parses the records of what
 * changed; state.json is a header line plus one line per target, and an older layout is discarded.
 */
function record(i: number, extra: Record<string, string> = {}): TargetRecord {
  return {
    key: `k${i}`,
    components: { rule: 'chunk', ruleVersion: 1, producerVersion: '0', options: {}, inputs: { [`specs/d${i}.json`]: 'a'.repeat(64) } },
    output: `chunks/d${i}.${'0'.repeat(16)}.json`,
    sha256: 'ab'.repeat(32),
    stamp: { size: 1, mtimeMs: '1', ctimeMs: '1', ino: i },
    facts: { chunksContentHash: `content-${i}`, ...extra },
  };
}

function withDir(run: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-target-records-'));
  try {
    run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a record given as text is parsed once, when first read; names and size need no parse', () => {
  const records = new TargetRecords();
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = ((text: string) => {
    parses += 1;
    return parse(text);
  }) as typeof JSON.parse;
  try {
    for (let i = 0; i < 5; i++) records.setText(`chunks/d${i}.json`, JSON.stringify(record(i)));
    assert.equal(records.size, 5);
    assert.deepEqual(
      records.names().sort(),
      [0, 1, 2, 3, 4].map((i) => `chunks/d${i}.json`),
    );
    assert.ok(records.has('chunks/d3.json'));
    assert.equal(parses, 0);
    assert.deepEqual(records.get('chunks/d3.json'), record(3));
    assert.equal(records.get('chunks/d3.json'), records.get('chunks/d3.json'), 'the parsed record is kept');
    assert.equal(parses, 1);
    assert.equal(records.textOf('chunks/d3.json'), undefined, 'a parsed record may have changed: its text is gone');
    assert.ok(records.delete('chunks/d4.json'));
    assert.ok(!records.has('chunks/d4.json'));
    assert.equal(records.size, 4);
    // Iterating is the slow path: everything is parsed.
    assert.equal([...records.values()].length, 4);
    assert.equal(parses, 4);
  } finally {
    JSON.parse = parse;
  }
});

test('mentioning finds the records whose text holds a token, or parsed ones the predicate accepts, among the targets asked', () => {
  const records = new TargetRecords();
  for (let i = 0; i < 20; i++) records.setText(`chunks/d${i}.json`, JSON.stringify(record(i)));
  records.setText('specs/d7.json', JSON.stringify(record(7)));
  records.get('chunks/d0.json');
  records.get('chunks/d1.json');
  const isChunk = (name: string): boolean => name.startsWith('chunks/');
  const found = records.mentioning(isChunk, ['content-7', 'chunks/d12.0000000000000000.json'], (r) => r.key === 'k0');
  assert.deepEqual([...found.keys()].sort(), ['chunks/d0.json', 'chunks/d12.json', 'chunks/d7.json']);
  assert.equal(records.textOf('chunks/d5.json') !== undefined, true, 'the others stay text');
  assert.equal(records.textOf('specs/d7.json') !== undefined, true, 'outside the targets asked');
  assert.equal(records.mentioning(isChunk, [], () => true).size, 0, 'no token, nothing to find');
});

test('state.json is a header line and one line per target; it loads back with records as text, and names with tabs survive', () => {
  withDir((dir) => {
    const state = BuildState.load(dir);
    const odd = 'chunks/odd\tname "quoted"\\.json';
    for (let i = 0; i < 3; i++) state.recordTarget(`chunks/d${i}.json`, record(i));
    state.recordTarget(odd, record(9));
    state.compact();
    const text = fs.readFileSync(path.join(dir, 'state.json'), 'utf8');
    const lines = text.split('\n');
    assert.equal(JSON.parse(lines[0]!).version, STATE_FORMAT_VERSION);
    assert.equal(lines.filter((line) => line.startsWith('"')).length, 4);
    const loaded = BuildState.load(dir);
    assert.deepEqual(loaded.diagnostics, []);
    assert.equal(loaded.targets.size, 4);
    assert.ok(loaded.targets.textOf('chunks/d1.json') !== undefined, 'not parsed by the load');
    assert.deepEqual(loaded.targets.get(odd), record(9));
    assert.deepEqual(
      new Map(loaded.targets),
      new Map([...[0, 1, 2].map((i) => [`chunks/d${i}.json`, record(i)] as const), [odd, record(9)]]),
    );
    // A fold writes the records never parsed back as they were.
    loaded.recordTarget('chunks/d5.json', record(5));
    (loaded as unknown as { stateBytes: number }).stateBytes = 1; // force a fold
    loaded.compact();
    const again = BuildState.load(dir);
    assert.equal(again.targets.size, 5);
    assert.deepEqual(again.targets.get('chunks/d2.json'), record(2));
  });
});

test('a state.json of the previous format (one JSON object), checksum intact, is discarded, never misread', () => {
  withDir((dir) => {
    const old = { version: 3, targets: { 'chunks/d0.json': record(0) }, files: {}, clean: null };
    fs.writeFileSync(path.join(dir, 'state.json'), withChecksum(JSON.stringify(old)));
    const loaded = BuildState.load(dir);
    assert.equal(loaded.targets.size, 0);
    assert.equal(loaded.clean, null);
    assert.deepEqual(loaded.diagnostics, [], 'an older format is no damage: everything simply rebuilds');
  });
});

test('a record line without its name or tab counts as damage: the state is discarded with a warning', () => {
  withDir((dir) => {
    const header = JSON.stringify({ version: STATE_FORMAT_VERSION, files: {}, clean: null });
    fs.writeFileSync(path.join(dir, 'state.json'), withChecksum(`${header}\n${JSON.stringify(record(0))}`));
    const loaded = BuildState.load(dir);
    assert.equal(loaded.targets.size, 0);
    assert.deepEqual(
      loaded.diagnostics.map((d) => d.code),
      ['state-discarded'],
    );
  });
});

const clean: CleanRecord = {
  invocation: 'inv',
  producerVersion: '0',
  ruleVersions: {},
  files: {},
  order: ['chunks/d0.json', 'chunks/d1.json'],
};

test('the no-op proof vouches for the loaded state only while state.json and state.log are as the commit that wrote it left them', () => {
  withDir((dir) => {
    const first = BuildState.load(dir);
    first.recordTarget('chunks/d0.json', record(0));
    first.recordTarget('chunks/d1.json', record(1, { diagnosticErrors: '1', diagnosticWarnings: '0', diagnosticCodes: 'x' }));
    first.setClean(clean, { groups: [], rootTargets: clean.order, position: new Map() });
    first.compact();
    const loaded = BuildState.load(dir);
    assert.ok(loaded.untouchedSinceCleanCommit());
    // A changed record: the state no longer is what the proof describes, until the next clean commit.
    loaded.setClean(null);
    loaded.recordTarget('chunks/d0.json', { ...record(0), output: 'chunks/d0.1111111111111111.json' });
    assert.ok(!loaded.untouchedSinceCleanCommit());
    loaded.setClean(clean, { groups: [], rootTargets: clean.order, position: new Map() });
    loaded.compact();
    const next = BuildState.load(dir);
    assert.ok(next.untouchedSinceCleanCommit());
    // A proof put back after another build changed the state does not vouch for it.
    const proofFiles = ['noop.json'].map((name) => path.join(dir, name));
    const saved = proofFiles.map((file) => fs.readFileSync(file));
    const changed = BuildState.load(dir);
    changed.setClean(null);
    changed.recordTarget('chunks/d2.json', record(2));
    changed.compact();
    assert.ok(!fs.existsSync(proofFiles[0]!), 'a build that is not clean leaves no proof');
    for (const [i, file] of proofFiles.entries()) fs.writeFileSync(file, saved[i]!);
    const after = BuildState.load(dir);
    assert.ok(!after.untouchedSinceCleanCommit());
  });
});
