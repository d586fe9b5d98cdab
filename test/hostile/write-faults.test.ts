import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CLI, sampleHtml } from '../helpers/rig.js';
import { writeFileAtomic, isTempFileName } from '../../src/store/atomic-file.js';
import { EpistemeError } from '../../src/failure.js';
import { BuildState } from '../../src/graph/state.js';
import { initFastHash } from '../../src/store/hash.js';
import { Sandbox, assertBounded, assertFailure, isRoot, treeChecksum, writeTwoDocumentWorkspace } from './harness.js';

// BuildState.load checks state.json's xxh64 checksum.
await initFastHash();

/**
 * The file system says no: a disk that fills up (a small tmpfs mounted by the test) and a read-only
 * workspace (a read-only remount as root, where permission bits do not bind; chmod otherwise). Each
 * fault is `write-failed` naming the workspace-relative path and errno, leaves no temp file, keeps the
 * previous commit readable, and a read-only workspace still answers a no-op build and every query.
 */

const BOUNDS = { maxMs: 60_000, maxRssMb: 400 };
const ROOT_SKIP = isRoot() ? false : 'needs root to mount a tmpfs: skipped (the disk-full and read-only-mount attacks)';

function mount(args: string[]): void {
  execFileSync('mount', args, { stdio: 'pipe' });
}

function umount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    // not mounted
  }
}

function tempFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const visit = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (isTempFileName(entry.name)) found.push(path.relative(dir, full));
    }
  };
  visit(dir);
  return found;
}

/** Text that does not compress or shrink: each byte is a fresh random hex digit. */
function incompressibleHtml(bytes: number): string {
  return `<!DOCTYPE html><html><body><h1>Big</h1><p>${randomBytes(bytes / 2).toString('hex')}</p></body></html>`;
}

async function assertQueryAnswers(sandbox: Sandbox, term: string): Promise<void> {
  const query = await sandbox.run(['query', '--index', 'chunks/search-index.json', '--term', term, '--json']);
  assert.equal(query.code, 0, query.stdout + query.stderr);
  assert.equal((query.json!.data.hits as unknown[]).length, 1, `the committed index answers "${term}"`);
}

test('a disk that fills up: write-failed with ENOSPC and the path, no temp file left, the previous commit intact', {
  skip: ROOT_SKIP,
}, async () => {
  const sandbox = new Sandbox();
  mount(['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', sandbox.ws]);
  try {
    writeTwoDocumentWorkspace(sandbox);
    const first = await sandbox.run(['build', '--json']);
    assert.equal(first.code, 0, first.stdout);
    const committed = treeChecksum(path.join(sandbox.ws, 'chunks'));
    const outside = sandbox.outside();

    // A source that fits on the disk once, but not twice (its snapshot body is a copy).
    sandbox.write({
      'src/big.html': incompressibleHtml(1200 * 1024),
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/doc0/', localPath: 'src/doc0.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.test/doc1/', localPath: 'src/doc1.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.test/big/', localPath: 'src/big.html', contentType: 'text/html' },
      ]),
    });
    const full = await sandbox.run(['build', '--json']);
    assertFailure(full, { code: 'write-failed', exit: 1, ...BOUNDS });
    const details = full.json!.error!.details as { path: string; errno: string };
    assert.equal(details.errno, 'ENOSPC');
    assert.match(details.path, /^snapshots\/bodies\/[0-9a-f]{64}$/, 'the workspace-relative path of the file that did not fit');
    assert.match(full.json!.error!.hint!, /disk is full/);
    assert.deepEqual(tempFilesUnder(sandbox.ws), [], 'every temp file removed');
    assert.equal(treeChecksum(path.join(sandbox.ws, 'chunks')), committed, 'the committed generation is untouched');
    await assertQueryAnswers(sandbox, 'zebra1');
    assert.equal(sandbox.outside(), outside, 'nothing written outside the workspace');

    // Human output says the same, without a stack trace.
    const human = await sandbox.run(['build']);
    assert.equal(human.code, 1);
    assert.match(human.stderr, /^error \[write-failed\]: .*no space left on the device \(ENOSPC\)/m);

    // Space freed: the next build succeeds and is consistent (the failed write was never recorded).
    fs.writeFileSync(path.join(sandbox.ws, 'src', 'big.html'), sampleHtml(2, ' bigword'));
    const recovered = await sandbox.run(['build', '--json']);
    assert.equal(recovered.code, 0, recovered.stdout);
    await assertQueryAnswers(sandbox, 'bigword');
    assertBounded(recovered, BOUNDS);
  } finally {
    umount(sandbox.ws);
    sandbox.cleanup();
  }
});

test('atomic writes on a full disk throw write-failed, keep the old bytes and leave no temp file', { skip: ROOT_SKIP }, () => {
  const sandbox = new Sandbox();
  mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', sandbox.ws]);
  try {
    const target = path.join(sandbox.ws, 'data.json');
    writeFileAtomic(target, 'old');
    assert.throws(
      () => writeFileAtomic(target, Buffer.alloc(2 * 1024 * 1024, 1)),
      (error: unknown) =>
        error instanceof EpistemeError &&
        error.code === 'write-failed' &&
        error.details?.errno === 'ENOSPC' &&
        error.details?.path === target,
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'old');
    assert.deepEqual(fs.readdirSync(sandbox.ws), ['data.json']);
    mount(['-o', 'remount,ro', sandbox.ws]);
    assert.throws(
      () => writeFileAtomic(target, 'new'),
      (error: unknown) => error instanceof EpistemeError && error.code === 'write-failed' && error.details?.errno === 'EROFS',
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'old');
  } finally {
    umount(sandbox.ws);
    sandbox.cleanup();
  }
});

/** Makes the workspace read-only for real: a read-only remount as root (root ignores mode bits), chmod otherwise. */
function makeReadOnly(sandbox: Sandbox, mounted: boolean): void {
  if (mounted) mount(['-o', 'remount,ro', sandbox.ws]);
  else execFileSync('chmod', ['-R', 'a-w', sandbox.ws]);
}

test('a read-only workspace answers a no-op build and every query; a build that must write says write-failed and why', async () => {
  const sandbox = new Sandbox();
  const mounted = isRoot();
  if (mounted) mount(['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', sandbox.ws]);
  try {
    writeTwoDocumentWorkspace(sandbox);
    // A second map outside the workspace, for a build that has to write.
    fs.writeFileSync(path.join(sandbox.parent, 'extra.html'), sampleHtml(7));
    fs.writeFileSync(
      path.join(sandbox.parent, 'extra-map.json'),
      JSON.stringify([{ sourceUrl: 'https://example.test/extra/', localPath: 'extra.html', contentType: 'text/html' }]),
    );
    assert.equal((await sandbox.run(['build'])).code, 0);
    makeReadOnly(sandbox, mounted);
    const before = treeChecksum(sandbox.ws);
    const outside = sandbox.outside();

    // The stat-only no-op proof, and the full graph walk (a named target skips the proof): both read only.
    for (const args of [
      ['build', '--json'],
      ['build', 'chunks/search-index.json', '--json'],
      ['pipeline', '--json'],
    ]) {
      const noop = await sandbox.run(args);
      assert.equal(noop.code, 0, `${args.join(' ')}: ${noop.stdout}${noop.stderr}`);
      assert.equal(noop.json!.data.actions, 0);
      assertBounded(noop, BOUNDS);
    }
    await assertQueryAnswers(sandbox, 'zebra1');
    const explain = await sandbox.run(['explain', 'chunks/search-index.json', '--json']);
    assert.equal(explain.code, 0, explain.stdout);

    // A build that has to write: one precise failure naming the read-only file system.
    const must = await sandbox.run(['build', '--map', '../extra-map.json', '--json']);
    assertFailure(must, { code: 'write-failed', exit: 1, ...BOUNDS });
    const details = must.json!.error!.details as { path: string; errno: string };
    assert.equal(details.errno, mounted ? 'EROFS' : 'EACCES');
    assert.ok(!path.isAbsolute(details.path), `a workspace-relative path: ${details.path}`);
    assert.match(must.json!.error!.message, mounted ? /read-only file system/ : /permission denied/);

    assert.equal(treeChecksum(sandbox.ws), before, 'the read-only workspace is unchanged');
    assert.equal(sandbox.outside(), outside);
    await assertQueryAnswers(sandbox, 'zebra0');
  } finally {
    if (mounted) umount(sandbox.ws);
    else execFileSync('chmod', ['-R', 'u+w', sandbox.ws]);
    sandbox.cleanup();
  }
});

/**
 * The first minutes of the README: `pipeline --map map.json` builds and writes episteme.json naming the
 * map; a plain `build` then reads the config, another invocation than the one that proved the workspace
 * clean. Finding nothing to do, it still recorded itself as the clean invocation, and on a workspace
 * made read-only since, that write failed the no-op build with write-failed (EROFS).
 */
test('a no-op build of a read-only workspace last built by another invocation (pipeline --map) succeeds and writes nothing', async () => {
  const sandbox = new Sandbox();
  const mounted = isRoot();
  if (mounted) mount(['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', sandbox.ws]);
  try {
    writeTwoDocumentWorkspace(sandbox);
    fs.rmSync(path.join(sandbox.ws, 'episteme.json'));
    const first = await sandbox.run(['pipeline', '--map', 'map.json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.ok(fs.existsSync(path.join(sandbox.ws, 'episteme.json')), 'the first build remembered the workspace');
    makeReadOnly(sandbox, mounted);
    const before = treeChecksum(sandbox.ws);

    for (const args of [
      ['build', '--json'],
      ['pipeline', '--json'],
      ['build', '--config', 'episteme.json', '--json'],
    ]) {
      const noop = await sandbox.run(args);
      assert.equal(noop.code, 0, `${args.join(' ')}: ${noop.stdout}${noop.stderr}`);
      assert.equal(noop.json!.data.actions, 0);
      assertBounded(noop, BOUNDS);
    }
    assert.equal(treeChecksum(sandbox.ws), before, 'the read-only workspace is unchanged');
    await assertQueryAnswers(sandbox, 'zebra1');
  } finally {
    if (mounted) umount(sandbox.ws);
    else execFileSync('chmod', ['-R', 'u+w', sandbox.ws]);
    sandbox.cleanup();
  }
});

test('a closed stdout or stderr (EPIPE) ends the command quietly: no stack trace, no hang', async () => {
  const sandbox = new Sandbox();
  try {
    writeTwoDocumentWorkspace(sandbox);
    assert.equal((await sandbox.run(['build'])).code, 0);
    const outside = sandbox.outside();
    for (const [args, closed] of [
      [['query', '--index', 'chunks/search-index.json', '--term', 'zebra1'], 'stdout'],
      [['build', '--dry-run'], 'stdout'],
      [['build', 'chunks/search-index.json', '--progress', 'always'], 'stderr'],
    ] as const) {
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { cwd: sandbox.ws, stdio: ['ignore', 'pipe', 'pipe'] });
        const err: Buffer[] = [];
        // The reader goes away before the command writes anything.
        if (closed === 'stdout') {
          child.stdout.destroy();
          child.stderr.on('data', (d: Buffer) => err.push(d));
        } else {
          child.stderr.destroy();
          child.stdout.resume();
        }
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stderr: Buffer.concat(err).toString('utf8') });
        });
      });
      assert.notEqual(result.code, null, `${args.join(' ')}: killed (hung)`);
      assert.ok(result.code === 0 || result.code === 1, `${args.join(' ')}: exit ${result.code}`);
      assert.doesNotMatch(result.stderr, /\n\s+at .+:\d+:\d+|EPIPE|Unhandled|FATAL/, `${args.join(' ')}: ${result.stderr}`);
    }
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});

test("a state.log line torn by a full disk stays alone: the next build's records are not swallowed by it", () => {
  const sandbox = new Sandbox();
  try {
    const dir = path.join(sandbox.ws, '.episteme');
    fs.mkdirSync(dir);
    // What a short write leaves: half a JSON line, no newline.
    fs.writeFileSync(path.join(dir, 'state.log'), '{"t":"specs/a.json","r":{"key":"k","comp');
    const state = BuildState.load(dir);
    const record = {
      key: 'k2',
      components: { rule: 'chunk', ruleVersion: 1, producerVersion: '0', options: {}, inputs: {} },
      output: 'chunks/b.json',
      // A record as a build writes it: state records are validated as they are read.
      sha256: 'ab'.repeat(32),
      stamp: { size: 1, mtimeMs: '1', ctimeMs: '1', ino: 1 },
    } as const;
    state.recordTarget('chunks/b.json', structuredClone(record) as never);
    state.close();
    const reloaded = BuildState.load(dir);
    assert.equal(reloaded.targets.get('chunks/b.json')?.key, 'k2', 'the record after the torn line is read back');
    assert.equal(reloaded.targets.has('specs/a.json'), false);
    reloaded.close();
  } finally {
    sandbox.cleanup();
  }
});
