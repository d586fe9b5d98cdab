import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BuildState, type CleanRecord, type TargetRecord } from '../../src/graph/state.js';
import { isProof, openProof, readProofFile } from '../../src/graph/noop-proof-files.js';
import { initFastHash } from '../../src/store/hash.js';

// BuildState.load checks state.json's xxh64 checksum.
await initFastHash();

/**
 * The state commits by appending to state.log and folds the log into state.json only once it has
 * grown to half of state.json's size: a small change rewrites nothing, a crashed build's lines are
 * told from committed ones, and whatever is loaded equals what was recorded.
 */
function record(i: number, revision = 0): TargetRecord {
  return {
    key: `k${i}-${revision}`,
    components: {
      rule: 'chunk',
      ruleVersion: 1,
      producerVersion: '0',
      options: { 'chunk.maxChars': '1200' },
      inputs: { [`specs/d${i}.json`]: `${revision}`.repeat(64).slice(0, 64) },
    },
    output: `chunks/d${i}.${String(revision).padStart(16, '0')}.json`,
    sha256: 'ab'.repeat(32),
    stamp: { size: 1, mtimeMs: '1', ctimeMs: '1', ino: i },
  };
}

const clean: CleanRecord = { invocation: 'inv', producerVersion: '0', ruleVersions: {}, files: {}, order: ['chunks/d0.json'] };

function withDir(run: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-state-log-'));
  try {
    run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const exists = (dir: string, file: string): boolean => fs.existsSync(path.join(dir, file));
const read = (dir: string, file: string): string => fs.readFileSync(path.join(dir, file), 'utf8');

test('a first commit writes state.json; a small change after it only appends to the log, ending with a commit line', () => {
  withDir((dir) => {
    const first = BuildState.load(dir);
    for (let i = 0; i < 50; i += 1) first.recordTarget(`chunks/d${i}.json`, record(i));
    first.compact();
    first.close();
    assert.ok(exists(dir, 'state.json'));
    assert.ok(!exists(dir, 'state.log'), 'no state.json yet: the first commit folds');
    const stateBefore = read(dir, 'state.json');

    const second = BuildState.load(dir);
    second.recordTarget('chunks/d7.json', record(7, 1));
    second.compact();
    second.close();
    assert.equal(read(dir, 'state.json'), stateBefore, 'state.json is not rewritten for one record');
    const lines = read(dir, 'state.log').trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /^\{"k":1\}\t[0-9a-f]{16}$/);

    const loaded = BuildState.load(dir);
    assert.equal(loaded.targets.get('chunks/d7.json')?.key, 'k7-1');
    assert.equal(loaded.targets.size, 50);
    assert.equal(loaded.recordsHaveChanged(), false, 'committed lines are not a crashed build');
    // Nothing changed: nothing is written (a no-op build works on a read-only workspace).
    const logBefore = fs.statSync(path.join(dir, 'state.log'));
    loaded.compact();
    loaded.close();
    assert.deepEqual(fs.statSync(path.join(dir, 'state.log')), logBefore);
  });
});

test('lines after the last commit line are a crashed build: loaded, marked changed, committed by the next run', () => {
  withDir((dir) => {
    const first = BuildState.load(dir);
    for (let i = 0; i < 50; i += 1) first.recordTarget(`chunks/d${i}.json`, record(i));
    first.compact();
    first.close();
    const crashed = BuildState.load(dir);
    crashed.recordTarget('chunks/d3.json', record(3, 2));
    crashed.close(); // killed before compact(): no commit line
    const next = BuildState.load(dir);
    assert.equal(next.targets.get('chunks/d3.json')?.key, 'k3-2', 'work done before a crash is kept');
    assert.equal(next.recordsHaveChanged(), true, 'its garbage is collected');
    next.compact();
    next.close();
    assert.match(read(dir, 'state.log'), /\{"k":1\}\t[0-9a-f]{16}\n$/, 'committed now');
    assert.equal(BuildState.load(dir).recordsHaveChanged(), false);
  });
});

test('the log is folded into state.json once it reaches half of its size, and the folded state equals the replayed one', () => {
  withDir((dir) => {
    const first = BuildState.load(dir);
    for (let i = 0; i < 40; i += 1) first.recordTarget(`chunks/d${i}.json`, record(i));
    first.compact();
    first.close();
    const stateSize = fs.statSync(path.join(dir, 'state.json')).size;
    let folded = false;
    let expected = new Map<string, TargetRecord>();
    for (let round = 1; round <= 40 && !folded; round += 1) {
      const state = BuildState.load(dir);
      state.recordTarget(`chunks/d${round % 40}.json`, record(round % 40, round));
      state.setClean(clean, { groups: [], rootTargets: clean.order, position: new Map() });
      expected = new Map(state.targets);
      const logBefore = exists(dir, 'state.log') ? fs.statSync(path.join(dir, 'state.log')).size : 0;
      state.compact();
      state.close();
      folded = !exists(dir, 'state.log');
      if (folded) assert.ok(logBefore >= stateSize / 2 - 4096, `folded at ${logBefore} bytes of log for ${stateSize} of state`);
      // The no-op proof stands on both files as this commit left them.
      const proof = openProof(readProofFile(dir));
      assert.ok(isProof(proof), `the proof is there and intact: ${JSON.stringify(proof)}`);
      assert.equal(proof.log?.size ?? null, folded ? null : fs.statSync(path.join(dir, 'state.log')).size);
      assert.equal(proof.state.size, fs.statSync(path.join(dir, 'state.json')).size);
    }
    assert.ok(folded, 'the log was folded within 40 commits');
    const loaded = BuildState.load(dir);
    assert.deepEqual(new Map(loaded.targets), expected);
    loaded.close();
  });
});

test('resume (watch) reuses the committed state in memory while the files on disk are as it left them', () => {
  withDir((dir) => {
    const first = BuildState.load(dir);
    for (let i = 0; i < 20; i += 1) first.recordTarget(`chunks/d${i}.json`, record(i));
    first.setClean(clean, { groups: [], rootTargets: clean.order, position: new Map() });
    first.compact();
    first.close();
    const again = BuildState.resume(first, dir);
    assert.equal(again, first, 'nothing changed on disk: the same object');
    assert.equal(again.recordsHaveChanged(), false);
    assert.deepEqual(again.releasedRecords(), []);

    // A build that cleared the clean record in memory only (it wrote nothing) is undone on resume.
    again.setClean(null);
    again.close();
    const third = BuildState.resume(again, dir);
    assert.equal(third, again);
    assert.deepEqual(third.clean, clean, 'the clean record is still on disk, so it is still in memory');

    // A small edit committed in memory: the log now holds it, and resume still trusts memory.
    third.recordTarget('chunks/d3.json', record(3, 1));
    third.compact();
    third.close();
    const fourth = BuildState.resume(third, dir);
    assert.equal(fourth, third);
    assert.deepEqual(fourth.targets.get('chunks/d3.json'), record(3, 1));
    assert.deepEqual(Object.fromEntries(BuildState.load(dir).targets), Object.fromEntries(fourth.targets), 'memory equals disk');
  });
});

test('resume reads the disk again when another process committed in between, or the state was removed', () => {
  withDir((dir) => {
    const watched = BuildState.load(dir);
    for (let i = 0; i < 20; i += 1) watched.recordTarget(`chunks/d${i}.json`, record(i));
    watched.compact();
    watched.close();
    // Another process (a one-shot build) commits a change.
    const other = BuildState.load(dir);
    other.recordTarget('chunks/d5.json', record(5, 2));
    other.recordTarget('chunks/d6.json', null);
    other.compact();
    other.close();
    const resumed = BuildState.resume(watched, dir);
    assert.notEqual(resumed, watched);
    assert.deepEqual(resumed.targets.get('chunks/d5.json'), record(5, 2));
    assert.equal(resumed.targets.has('chunks/d6.json'), false);

    // The state deleted by hand: everything is checked from scratch, as a one-shot build would.
    resumed.close();
    fs.rmSync(path.join(dir, 'state.json'));
    fs.rmSync(path.join(dir, 'state.log'), { force: true });
    const fresh = BuildState.resume(resumed, dir);
    assert.notEqual(fresh, resumed);
    assert.equal(fresh.targets.size, 0);
    assert.equal(fresh.mayHoldUnknownGarbage(), true, 'no state: garbage is unknown, the full sweep runs');
  });
});

test('an edit that ends clean again restores the clean record in a few bytes, and a replay sees it', () => {
  withDir((dir) => {
    const big: CleanRecord = { ...clean, order: Array.from({ length: 5000 }, (_, i) => `chunks/d${i}.json`) };
    const first = BuildState.load(dir);
    for (let i = 0; i < 20; i += 1) first.recordTarget(`chunks/d${i}.json`, record(i));
    first.setClean(big, { groups: [], rootTargets: big.order, position: new Map() });
    first.compact();
    first.close();
    for (let edit = 1; edit <= 3; edit += 1) {
      const state = BuildState.load(dir);
      assert.deepEqual(state.clean, big);
      state.setClean(null);
      state.recordTarget('chunks/d3.json', record(3, edit)); // clears the record on disk first
      state.setClean(big, { groups: [], rootTargets: big.order, position: new Map() });
      state.compact();
      state.close();
    }
    assert.ok(fs.statSync(path.join(dir, 'state.log')).size < 3000, 'the 5,000 names are not repeated per edit');
    const loaded = BuildState.load(dir);
    assert.deepEqual(loaded.clean, big);
    assert.deepEqual(loaded.targets.get('chunks/d3.json'), record(3, 3));
    // A build that fails leaves the record cleared: a replay says so too.
    loaded.setClean(null);
    loaded.recordTarget('chunks/d4.json', record(4, 1));
    loaded.compact();
    loaded.close();
    assert.equal(BuildState.load(dir).clean, null);
    // ...and the next clean end restores it from the cleared one, still in a few bytes.
    const next = BuildState.load(dir);
    next.setClean(big, { groups: [], rootTargets: big.order, position: new Map() });
    next.compact();
    next.close();
    assert.deepEqual(BuildState.load(dir).clean, big);
    assert.ok(fs.statSync(path.join(dir, 'state.log')).size < 4000);
  });
});
