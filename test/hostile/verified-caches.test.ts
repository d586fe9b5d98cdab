import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, assertBounded, assertFailure, type MeasuredResult } from './harness.js';
import { sampleHtml, sha256 } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';
import { withChecksum } from '../../src/graph/state.js';
import { initFastHash } from '../../src/store/hash.js';
import { TestServer, staticRoute, page } from '../capture/server.js';

// state.json and noop.json carry an xxh64 checksum (the forgeries below recompute it).
await initFastHash();

/**
 * Section 2 of issue 9, "nothing is trusted unverified", attacked: every kind of file under .episteme
 * that feeds a build (index parts, state.json, state.log, noop.json), every kind of output the stat
 * fast path could be fooled about (records, documents, chunk files with their mtime restored), damaged
 * snapshot bodies of a local and of an HTTP source, and a chunk index whose entries were edited under
 * its old fingerprint. Each: the exact code and exit, nothing touched outside the workspace, the
 * committed generation intact, and time and memory within generous bounds.
 */
const BUILD_BOUNDS = { maxMs: 60_000, maxRssMb: 600 };
const QUERY_BOUNDS = { maxMs: 20_000, maxRssMb: 300 };

type Row = {
  target: string;
  status: string;
  reasons: { reason: string; output?: string }[];
  error?: { code: string; message: string; hint?: string };
};

function workspace(box: Sandbox, count = 3): void {
  const map = [];
  for (let i = 0; i < count; i++) {
    box.write({ [`src/doc${i}.html`]: sampleHtml(i) });
    map.push({ sourceUrl: `https://example.test/doc${i}/`, localPath: `src/doc${i}.html`, contentType: 'text/html' });
  }
  box.write({ 'map.json': JSON.stringify(map), 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
}

async function build(box: Sandbox, args: string[] = []): Promise<MeasuredResult> {
  const result = await box.run(['build', '--json', ...args]);
  assertBounded(result, BUILD_BOUNDS);
  return result;
}

function rows(result: MeasuredResult): Map<string, Row> {
  return new Map((result.json!.data.targets as Row[]).map((row) => [row.target, row]));
}

function warningCodes(result: MeasuredResult): string[] {
  return result.json!.warnings.map((w: { code: string }) => w.code);
}

/** Every output file by path and SHA-256 (the workspace's committed bytes). */
function outputs(box: Sandbox): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(box.ws, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else found.set(relative, sha256(fs.readFileSync(path.join(box.ws, relative))));
    }
  };
  for (const dir of ['snapshots', 'specs', 'chunks']) if (fs.existsSync(path.join(box.ws, dir))) walk(dir);
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Changes one byte in place and restores the mtime: only a hash (or the change time) can notice. */
function flipByteKeepingMtime(file: string, at = 40): void {
  const stat = fs.statSync(file);
  const mtimeNs = fs.statSync(file, { bigint: true }).mtimeNs;
  const bytes = fs.readFileSync(file);
  const position = Math.min(at, bytes.length - 2);
  bytes[position] = bytes[position] === 0x41 ? 0x42 : 0x41;
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, bytes, position, 1, position);
  fs.closeSync(fd);
  // Exactly the old mtime, to the nanosecond (fs.utimes takes a double of seconds and rounds).
  execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file]);
  assert.equal(fs.statSync(file).mtimeMs, stat.mtimeMs);
  assert.equal(fs.statSync(file).size, stat.size);
}

/** state.json as a forger who knows its format reads it: the header line, then `"name"<TAB>record` lines. */
interface StateFileParts {
  header: { files: Record<string, { size: number; mtimeMs: string; ctimeMs: string; ino: number }> } & Record<string, unknown>;
  targets: Record<string, { sha256: string; facts?: { body?: string }; bodyStamp?: unknown }>;
}

function readStateFile(statePath: string): StateFileParts {
  const text = fs.readFileSync(statePath, 'utf8');
  const [header, ...lines] = text.slice(0, text.lastIndexOf('\nxxh64:')).split('\n');
  const targets: StateFileParts['targets'] = {};
  for (const line of lines) {
    const tab = line.indexOf('\t');
    targets[JSON.parse(line.slice(0, tab)) as string] = JSON.parse(line.slice(tab + 1));
  }
  return { header: JSON.parse(header!), targets };
}

/** Writes the parts back with a recomputed checksum (what a consistent forgery takes). */
function writeStateFile(statePath: string, state: StateFileParts): void {
  const lines = [
    JSON.stringify(state.header),
    ...Object.entries(state.targets).map(([name, r]) => `${JSON.stringify(name)}\t${JSON.stringify(r)}`),
  ];
  fs.writeFileSync(statePath, withChecksum(lines.join('\n')));
}

async function withSandbox(body: (box: Sandbox) => Promise<void>): Promise<void> {
  const box = new Sandbox('episteme-verify-');
  fs.writeFileSync(path.join(box.parent, 'neighbour.txt'), "not the workspace's\n");
  try {
    await body(box);
  } finally {
    box.cleanup();
  }
}

/** The bytes a clean build of the sandbox's inputs leaves (in a fresh copy of its sources). */
async function cleanBuildOutputs(box: Sandbox): Promise<Map<string, string>> {
  const clean = new Sandbox('episteme-verify-clean-');
  try {
    for (const name of ['src', 'map.json', 'episteme.json'])
      fs.cpSync(path.join(box.ws, name), path.join(clean.ws, name), { recursive: true });
    assert.equal((await clean.run(['build', '--json'])).code, 0);
    return outputs(clean);
  } finally {
    clean.cleanup();
  }
}

for (const damage of ['truncated', 'flipped'] as const) {
  test(`a ${damage} cached index part is dropped and rebuilt with a warning, never merged into the index`, async () => {
    await withSandbox(async (box) => {
      workspace(box);
      assert.equal((await build(box)).code, 0);
      const partsDir = path.join(box.ws, '.episteme/cache/index-parts');
      const parts = fs.readdirSync(partsDir);
      assert.equal(parts.length, 3);
      for (const part of parts) {
        const file = path.join(partsDir, part);
        if (damage === 'truncated') fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
        else flipByteKeepingMtime(file, 200);
      }
      const outside = box.outside();
      // An edit of one source makes the search index merge again, reading the other two cached parts.
      box.write({ 'src/doc0.html': sampleHtml(0, ' Edited with walrus.') });
      const result = await build(box);
      assert.equal(result.code, 0, result.stdout);
      assert.deepEqual(warningCodes(result).sort(), ['cache-entry-dropped', 'cache-entry-dropped']);
      assert.equal(rows(result).get('chunks/search-index.json')!.status, 'built');
      assert.deepEqual(outputs(box), await cleanBuildOutputs(box), 'the workspace equals a clean build: no damaged part was used');
      // The rebuilt entries are sound again: the next index merge uses them without a warning.
      box.write({ 'src/doc0.html': sampleHtml(0, ' Edited again with narwhal.') });
      const next = await build(box);
      assert.deepEqual(warningCodes(next), []);
      assert.equal(box.outside(), outside);
      assert.ok(verifyCommittedGeneration(box.ws) > 0);
    });
  });
}

test('a state.json with a flipped byte or a hand edit counts as absent: everything is checked from scratch, with a warning', async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const before = outputs(box);
    const outside = box.outside();
    // The attack: edit a source, then make the state claim the source's new stamp and hash are known.
    box.write({ 'src/doc1.html': sampleHtml(1, ' Inserted okapi.') });
    const statePath = path.join(box.ws, '.episteme/state.json');
    const text = fs.readFileSync(statePath, 'utf8');
    const state = readStateFile(statePath);
    const stat = fs.statSync(path.join(box.ws, 'src/doc1.html'));
    state.header.files['src/doc1.html'] = {
      ...state.header.files['src/doc1.html']!,
      size: stat.size,
      mtimeMs: String(stat.mtimeMs),
      ctimeMs: String(stat.ctimeMs),
      ino: stat.ino,
    };
    // The edit without recomputing the checksum: the old one stays.
    const edited = [JSON.stringify(state.header), ...text.slice(0, text.lastIndexOf('\nxxh64:')).split('\n').slice(1)].join('\n');
    fs.writeFileSync(statePath, edited + text.slice(text.lastIndexOf('\nxxh64:')));
    fs.rmSync(path.join(box.ws, '.episteme/noop.json'));
    const result = await build(box);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(warningCodes(result), ['state-discarded']);
    assert.equal(rows(result).get('snapshots/example-test-doc1.json')!.status, 'built', 'the edited source is captured again');
    const query = await box.run(['query', '--index', 'chunks/search-index.json', '--term', 'okapi', '--json']);
    assert.equal(query.code, 0);
    assert.equal(query.json!.data.hits.length, 1);
    assert.notDeepEqual(outputs(box), before);
    assert.deepEqual(outputs(box), await cleanBuildOutputs(box));
    // A flipped byte anywhere in the state file: the same.
    flipByteKeepingMtime(statePath, 100);
    const flipped = await build(box);
    assert.equal(flipped.code, 0);
    assert.deepEqual(warningCodes(flipped), ['state-discarded']);
    assert.equal(flipped.json!.data.counts['up-to-date'], 0, 'no record was believed');
    assert.deepEqual(outputs(box), await cleanBuildOutputs(box));
    const quiet = await build(box);
    assert.deepEqual(warningCodes(quiet), [], 'the rewritten state verifies');
    assert.equal(quiet.json!.data.actions, 0);
    assert.equal(box.outside(), outside);
  });
});

const stateLogChecksumsAreVerified =
  'state.log: a line failing its checksum discards the state with a warning; torn lines (a crash, a full disk) are ignored silently';
test(stateLogChecksumsAreVerified, async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const logPath = path.join(box.ws, '.episteme/state.log');
    const outside = box.outside();
    // A forged line, without a valid checksum, that tries to drop the record of the chunk index.
    fs.writeFileSync(logPath, JSON.stringify({ t: 'chunks/index.json', r: null }) + '\tdeadbeefdeadbeef\n');
    const forged = await build(box);
    assert.equal(forged.code, 0);
    assert.deepEqual(warningCodes(forged), ['state-discarded']);
    // The state is rewritten without the forged line (the log holds at most the clean record and the
    // commit that the build appends after collecting garbage).
    assert.ok(!fs.existsSync(logPath) || !fs.readFileSync(logPath, 'utf8').includes('deadbeef'), 'the forged line was compacted away');
    // Torn lines, as a crash or a full disk mid-append leaves them (then later appends on a new line):
    // no warning, nothing lost.
    fs.writeFileSync(logPath, '{"t":"chunks/index.json","r":nu\n{"t":"chunks/ind');
    const torn = await build(box);
    assert.equal(torn.code, 0);
    assert.deepEqual(warningCodes(torn), []);
    assert.equal(torn.json!.data.actions, 0);
    assert.equal(box.outside(), outside);
    assert.ok(verifyCommittedGeneration(box.ws) > 0);
  });
});

test('the no-op proof is not fooled: an output edited with its mtime restored, or a proof edited to match, is rebuilt', async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const clean = outputs(box);
    const outside = box.outside();
    const chunkFile = [...clean.keys()].find((file) => /^chunks\/example-test-doc2\.[0-9a-f]{16}\.json$/.test(file))!;
    // 1. Same size, same mtime, same inode: only the change time (and then the hash) tells.
    flipByteKeepingMtime(path.join(box.ws, chunkFile), 120);
    const first = await build(box);
    assert.equal(first.code, 0, first.stdout);
    assert.deepEqual(rows(first).get('chunks/example-test-doc2.json')!.reasons, [{ reason: 'output-modified', output: chunkFile }]);
    assert.deepEqual(outputs(box), clean, 'rebuilt to the clean bytes');
    // 2. Edit the output, then edit the proof (the group file that lists it) so its recorded stamp
    // matches the edited file.
    fs.appendFileSync(path.join(box.ws, chunkFile), ' ');
    const stat = fs.statSync(path.join(box.ws, chunkFile));
    const groups = path.join(box.ws, '.episteme/noop');
    const proofPath = fs
      .readdirSync(groups)
      .map((name) => path.join(groups, name))
      .find((file) => fs.readFileSync(file, 'utf8').includes(`"${chunkFile}"`))!;
    const text = fs.readFileSync(proofPath, 'utf8');
    const at = text.lastIndexOf('\nxxh64:');
    const proof = JSON.parse(text.slice(0, at)) as { targets: [string, string, string, number, string, number, string][] };
    const entry = proof.targets.find((t) => t[2] === chunkFile)!;
    entry[3] = stat.size;
    entry[4] = String(stat.mtimeMs);
    entry[5] = stat.ino;
    entry[6] = String(stat.ctimeMs);
    fs.writeFileSync(proofPath, JSON.stringify(proof) + text.slice(at));
    const second = await build(box);
    assert.equal(second.code, 0);
    assert.deepEqual(warningCodes(second), ['state-discarded'], 'the edited proof is reported, not used');
    assert.deepEqual(rows(second).get('chunks/example-test-doc2.json')!.reasons, [{ reason: 'output-modified', output: chunkFile }]);
    assert.deepEqual(outputs(box), clean);
    assert.equal(box.outside(), outside);
  });
});

const editChecksOthers =
  'an edit settles the other targets by the proof stamps, and is not fooled either: a chunk file or snapshot body edited with its ' +
  'mtime restored, in the same build as an edit of another source, is rebuilt; a touched source is rehashed and stays up to date';
test(editChecksOthers, async () => {
  await withSandbox(async (box) => {
    workspace(box, 4);
    assert.equal((await build(box)).code, 0);
    const outside = box.outside();
    const clean = outputs(box);
    const chunkFile = [...clean.keys()].find((file) => /^chunks\/example-test-doc2\.[0-9a-f]{16}\.json$/.test(file))!;
    const snapshotRecord = rows(await build(box, ['--trace', path.join(box.ws, 'trace.json')])).get('snapshots/example-test-doc3.json')!;
    assert.equal(snapshotRecord.status, 'up-to-date');
    const body = [...clean.keys()].filter((file) => file.startsWith('snapshots/bodies/'));
    const doc3Body = body.find((file) => path.basename(file) === sha256(fs.readFileSync(path.join(box.ws, 'src/doc3.html'))))!;
    box.write({ 'src/doc0.html': sampleHtml(0, ' Inserted okapi.') });
    flipByteKeepingMtime(path.join(box.ws, chunkFile), 120);
    flipByteKeepingMtime(path.join(box.ws, doc3Body), 60);
    const now = new Date();
    fs.utimesSync(path.join(box.ws, 'src/doc1.html'), now, now);
    const result = await build(box);
    assert.equal(result.code, 0, result.stdout);
    const status = rows(result);
    assert.equal(status.get('snapshots/example-test-doc0.json')!.status, 'built');
    assert.deepEqual(status.get('chunks/example-test-doc2.json')!.reasons, [{ reason: 'output-modified', output: chunkFile }]);
    assert.deepEqual(status.get('snapshots/example-test-doc3.json')!.reasons, [{ reason: 'output-modified', output: doc3Body }]);
    assert.equal(status.get('snapshots/example-test-doc1.json')!.status, 'up-to-date', 'touched, same bytes');
    assert.equal(status.get('specs/example-test-doc1.json')!.status, 'up-to-date');
    assert.deepEqual(outputs(box), await cleanBuildOutputs(box));
    const quiet = await build(box, ['--trace', path.join(box.ws, 'trace.json')]);
    assert.equal(quiet.json!.data.actions, 0, 'the next full check finds nothing to do');
    assert.equal(box.outside(), outside);
  });
});

test('a damaged snapshot record, evidence document or chunk file (mtime restored) is detected and rebuilt to the clean bytes', async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const clean = outputs(box);
    const outside = box.outside();
    const victims = [
      [...clean.keys()].find((file) => file.startsWith('snapshots/records/'))!,
      [...clean.keys()].find((file) => /^specs\/example-test-doc1\./.test(file))!,
      [...clean.keys()].find((file) => /^chunks\/example-test-doc0\./.test(file))!,
      'chunks/index.json',
    ];
    for (const victim of victims) flipByteKeepingMtime(path.join(box.ws, victim), 60);
    const result = await build(box);
    assert.equal(result.code, 0, result.stdout);
    const modified = (result.json!.data.targets as Row[]).flatMap((row) =>
      row.reasons.filter((r) => r.reason === 'output-modified').map((r) => r.output),
    );
    assert.deepEqual(modified.sort(), [...victims].sort());
    assert.deepEqual(outputs(box), clean);
    assert.equal(box.outside(), outside);
  });
});

test('a damaged body of a local source is repaired by the next build from the local file; a changed file is a new snapshot', async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const clean = outputs(box);
    const outside = box.outside();
    const bodies = [...clean.keys()].filter((file) => file.startsWith('snapshots/bodies/'));
    assert.equal(bodies.length, 3);
    fs.truncateSync(path.join(box.ws, bodies[0]!), 7);
    flipByteKeepingMtime(path.join(box.ws, bodies[1]!), 30);
    const repaired = await build(box);
    assert.equal(repaired.code, 0, repaired.stdout);
    assert.deepEqual(warningCodes(repaired), ['snapshot-repaired', 'snapshot-repaired']);
    assert.deepEqual(outputs(box), clean, 'bodies rewritten; nothing else changed');
    for (const body of bodies) assert.equal(sha256(fs.readFileSync(path.join(box.ws, body))), path.basename(body));
    assert.equal((await build(box)).json!.data.actions, 0);

    // A body damaged while its local file changed: the change is an ordinary new snapshot.
    fs.truncateSync(path.join(box.ws, bodies[2]!), 3);
    box.write({ 'src/doc2.html': sampleHtml(2, ' Now with a pangolin.') });
    const changed = await build(box);
    assert.equal(changed.code, 0, changed.stdout);
    assert.equal(rows(changed).get('snapshots/example-test-doc2.json')!.status, 'built');
    const query = await box.run(['query', '--index', 'chunks/search-index.json', '--term', 'pangolin', '--json']);
    assert.equal(query.json!.data.hits.length, 1);
    assert.deepEqual(outputs(box), await cleanBuildOutputs(box));
    assert.equal(box.outside(), outside);
  });
});

const damagedHttpBodyIsRecaptured =
  'a damaged body of an HTTP source fails its snapshot target with the exact recapture command, keeps the commit, ' +
  'and that command repairs it';
test(damagedHttpBodyIsRecaptured, async () => {
  const server = await TestServer.start({ '/spec': staticRoute(() => page('Spec', 'The quokka paragraph.'), { etag: () => '"v1"' }) });
  try {
    await withSandbox(async (box) => {
      box.write({
        'manifest.json': JSON.stringify([{ url: server.url('/spec') }]),
        'episteme.json': JSON.stringify({ manifest: 'manifest.json' }),
      });
      const first = await build(box);
      assert.equal(first.code, 0, first.stdout);
      const snapshotTarget = (first.json!.data.targets as Row[]).find(
        (row) => row.target.startsWith('snapshots/') && row.target !== 'snapshots/index.json',
      )!.target;
      const clean = outputs(box);
      const body = [...clean.keys()].find((file) => file.startsWith('snapshots/bodies/'))!;
      const outside = box.outside();
      const fetches = server.hits('/spec');
      fs.writeFileSync(path.join(box.ws, body), 'damaged');

      const failed = await box.run(['build', '--json']);
      assertFailure(failed, { code: 'target-failed', exit: 1, ...BUILD_BOUNDS });
      const row = rows(failed).get(snapshotTarget)!;
      assert.equal(row.status, 'failed');
      assert.equal(row.error!.code, 'artifact-invalid');
      assert.equal(row.error!.hint, `Recapture it: episteme build --refresh ${snapshotTarget}`);
      assert.equal(server.hits('/spec'), fetches, 'a plain build fetches nothing');
      assert.ok(verifyCommittedGeneration(box.ws) > 0, 'the committed generation is intact');
      const query = await box.run(['query', '--index', 'chunks/search-index.json', '--term', 'quokka', '--json']);
      assert.equal(query.code, 0);
      assert.equal(box.outside(), outside);

      // The hint, as printed: an unconditional fetch (the recorded body cannot back a 304) repairs it.
      const repaired = await box.run(['build', '--refresh', snapshotTarget, '--json']);
      assert.equal(repaired.code, 0, repaired.stdout);
      assert.equal(server.hits('/spec'), fetches + 1);
      assert.equal(server.requests.at(-1)!.headers['if-none-match'], undefined);
      assert.equal(sha256(fs.readFileSync(path.join(box.ws, body))), path.basename(body));
      const after = await build(box);
      assert.equal(after.code, 0);
      assert.equal(box.outside(), outside);
    });
  } finally {
    await server.close();
  }
});

test('query: a chunk index whose entries were edited under the old fingerprint, or truncated, is artifact-invalid', async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const indexPath = path.join(box.ws, 'chunks/index.json');
    const original = fs.readFileSync(indexPath, 'utf8');
    const outside = box.outside();
    const query = (): Promise<MeasuredResult> => box.run(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1', '--json']);
    const fresh = await query();
    assert.equal(fresh.code, 0);
    assertBounded(fresh, QUERY_BOUNDS);

    const tampered = original.replace('"documentId":"example-test-doc1"', '"documentId":"example-test-docX"');
    assert.notEqual(tampered, original);
    assert.equal(JSON.parse(tampered).fingerprint, JSON.parse(original).fingerprint, 'the old fingerprint is kept');
    for (const bytes of [tampered, original.slice(0, original.length - 40), original.replace('"sha256":"', '"sha256":"0')]) {
      fs.writeFileSync(indexPath, bytes);
      const result = await query();
      assertFailure(result, { code: 'artifact-invalid', ...QUERY_BOUNDS, exit: 2 });
      assert.equal(result.json!.error!.details.file, 'chunks/index.json');
    }
    // The same entry list with the search index's own chunk index restored answers again.
    fs.writeFileSync(indexPath, original);
    assert.equal((await query()).code, 0);
    assert.equal(box.outside(), outside);
  });
});

const forgedOutputHashIsRepaired =
  'a state forged consistently (checksum recomputed) that claims a wrong hash for an output fails once, drops that record, ' +
  'and the next build repairs everything';
test(forgedOutputHashIsRepaired, async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const clean = outputs(box);
    const outside = box.outside();
    // A forger who knows the format: the record of one chunk file now claims other bytes.
    const statePath = path.join(box.ws, '.episteme/state.json');
    const state = readStateFile(statePath);
    state.targets['chunks/example-test-doc0.json']!.sha256 = 'f'.repeat(64);
    writeStateFile(statePath, state);

    const failed = await box.run(['build', '--json']);
    assertFailure(failed, { code: 'target-failed', exit: 1, ...BUILD_BOUNDS });
    // The chunk index checks each file it names with a new hash before committing it.
    const row = rows(failed).get('chunks/index.json')!;
    assert.equal(row.status, 'failed');
    assert.equal(rows(failed).get('chunks/search-index.json')!.status, 'skipped');
    assert.equal(row.error!.code, 'artifact-invalid');
    assert.equal(row.error!.hint, 'Run `episteme build` again: it rebuilds the damaged file.');
    assert.equal(box.outside(), outside);

    const repaired = await build(box);
    assert.equal(repaired.code, 0, repaired.stdout);
    assert.equal(rows(repaired).get('chunks/example-test-doc0.json')!.status, 'built');
    assert.deepEqual(outputs(box), clean, 'back to the clean bytes');
    assert.ok(verifyCommittedGeneration(box.ws) > 0);
    assert.equal(box.outside(), outside);
  });
});

const forgedStateBodyIsRepaired =
  'a damaged body that the stamps do not reveal (forged state) is caught when extraction reads it and repaired on the spot from the ' +
  'local file';
test(forgedStateBodyIsRepaired, async () => {
  await withSandbox(async (box) => {
    workspace(box);
    assert.equal((await build(box)).code, 0);
    const outside = box.outside();
    const body = [...outputs(box).keys()].find((file) => file.startsWith('snapshots/bodies/'))!;
    fs.writeFileSync(path.join(box.ws, body), 'rotten');
    // The forger records the damaged body's stamp, so only reading it can tell.
    const statePath = path.join(box.ws, '.episteme/state.json');
    const state = readStateFile(statePath);
    const stat = fs.statSync(path.join(box.ws, body));
    const owner = Object.values(state.targets).find((record) => record.facts?.body === body)!;
    owner.bodyStamp = { size: stat.size, mtimeMs: String(stat.mtimeMs), ctimeMs: String(stat.ctimeMs), ino: stat.ino };
    writeStateFile(statePath, state);
    // An option change makes every document extract again, reading every body.
    box.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { extract: { links: false } } }) });
    const result = await build(box);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(warningCodes(result), ['snapshot-repaired']);
    assert.equal(sha256(fs.readFileSync(path.join(box.ws, body))), path.basename(body));
    assert.deepEqual(outputs(box), await cleanBuildOutputs(box));
    assert.equal(box.outside(), outside);
  });
});
