import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Sandbox, assertBounded, assertFailure, type MeasuredResult, writeTwoDocumentWorkspace } from './harness.js';

/**
 * Named inputs that are not what they claim: huge sparse files, FIFOs with no writer, devices,
 * directories, sockets, symlink loops and dangling symlinks, as the config, the map, a map entry, the
 * manifest, the search index and the diff corpora. Each is refused by what it is, before a byte is
 * read, within seconds and a small memory bound, and nothing outside the workspace changes.
 */

const TWO_GB = 2 * 1024 ** 3;
/** A refusal costs one open and one fstat: generous ceilings that a 2 GB read or a hang would break. */
const QUICK = { maxMs: 15_000, maxRssMb: 250 };

interface Hostile {
  name: string;
  /** Path of the hostile file, created by `make`. */
  file: string;
  make: () => void;
  code: string;
  /** Words the message must use to say what the file is. */
  says: RegExp;
}

/** One of each kind of non-regular file, plus a 2 GB sparse file and a missing one, under `dir`. */
function hostileFiles(dir: string, servers: net.Server[]): Hostile[] {
  const at = (name: string) => path.join(dir, name);
  return [
    {
      name: 'a FIFO with no writer',
      file: at('fifo.json'),
      make: () => execFileSync('mkfifo', [at('fifo.json')]),
      code: 'input-not-regular',
      says: /FIFO/,
    },
    { name: 'a character device', file: '/dev/zero', make: () => undefined, code: 'input-not-regular', says: /character device/ },
    {
      name: 'a directory',
      file: at('folder.json'),
      make: () => fs.mkdirSync(at('folder.json')),
      code: 'input-not-regular',
      says: /directory/,
    },
    {
      name: 'a symlink loop',
      file: at('loop.json'),
      make: () => {
        fs.symlinkSync('loop2.json', at('loop.json'));
        fs.symlinkSync('loop.json', at('loop2.json'));
      },
      code: 'input-not-regular',
      says: /symbolic link loop/,
    },
    {
      name: 'a dangling symlink',
      file: at('dangling.json'),
      make: () => fs.symlinkSync('nowhere.json', at('dangling.json')),
      code: 'input-not-regular',
      says: /dangling symbolic link/,
    },
    {
      name: 'a Unix socket',
      file: at('socket.json'),
      make: () => {
        const server = net.createServer();
        server.listen(at('socket.json'));
        servers.push(server);
      },
      code: 'input-not-regular',
      says: /socket/,
    },
    {
      name: 'a 2 GB sparse file',
      file: at('sparse.json'),
      make: () => fs.truncateSync(touch(at('sparse.json')), TWO_GB),
      code: 'input-too-large',
      says: /2147483648 bytes/,
    },
    { name: 'a missing file', file: at('missing.json'), make: () => undefined, code: 'input-not-found', says: /not found/ },
  ];
}

function touch(file: string): string {
  fs.writeFileSync(file, '');
  return file;
}

async function withHostiles(run: (sandbox: Sandbox, hostiles: Hostile[]) => Promise<void>): Promise<void> {
  const sandbox = new Sandbox();
  const servers: net.Server[] = [];
  try {
    // Inside the workspace: the outside checksum would otherwise read the 2 GB sparse file.
    const dir = path.join(sandbox.ws, 'hostile');
    fs.mkdirSync(dir);
    const hostiles = hostileFiles(dir, servers);
    for (const hostile of hostiles) hostile.make();
    await new Promise((resolve) => setImmediate(resolve)); // let the socket bind
    await run(sandbox, hostiles);
  } finally {
    for (const server of servers) server.close();
    sandbox.cleanup();
  }
}

function assertRefused(result: MeasuredResult, hostile: Hostile, context: string): void {
  try {
    assertFailure(result, { code: hostile.code, exit: 2, ...QUICK });
    assert.match(result.json!.error!.message, hostile.says);
    if (hostile.code !== 'input-not-found') assert.doesNotMatch(result.json!.error!.message, /not found/);
  } catch (error) {
    throw new Error(`${context}, ${hostile.name}: ${(error as Error).message}`);
  }
}

test('config, map and manifest that are not regular files are refused as what they are, before any read', async () => {
  await withHostiles(async (sandbox, hostiles) => {
    const outside = sandbox.outside();
    for (const hostile of hostiles) {
      assertRefused(await sandbox.run(['build', '--manifest', hostile.file, '--json']), hostile, '--manifest');
      assertRefused(await sandbox.run(['manual-ingest', '--map', hostile.file, '--json']), hostile, '--map');
    }
    // --config: a missing config keeps its own code; every other kind is refused by what it is.
    for (const hostile of hostiles.filter((h) => h.code !== 'input-not-found')) {
      const result = await sandbox.run(['build', '--config', hostile.file, '--json']);
      if (hostile.says.source === 'directory') {
        // A folder given as --config means its episteme.json, which is not there: not a workspace.
        assertFailure(result, { code: 'config-not-found', exit: 2, ...QUICK });
        continue;
      }
      assertRefused(result, hostile, '--config');
    }
    assert.equal(sandbox.outside(), outside, 'nothing outside the workspace changed');
  });
});

test('a map entry that is not a regular file names the entry and what the file is, never "file not found"', async () => {
  await withHostiles(async (sandbox, hostiles) => {
    writeTwoDocumentWorkspace(sandbox);
    const outside = sandbox.outside();
    for (const hostile of hostiles.filter((h) => h.code === 'input-not-regular' || h.code === 'input-not-found')) {
      const map = [
        { sourceUrl: 'https://example.test/hostile/', localPath: path.relative(sandbox.ws, hostile.file), contentType: 'text/html' },
      ];
      sandbox.write({ 'hostile-map.json': JSON.stringify(map) });
      const result = await sandbox.run(['manual-ingest', '--map', 'hostile-map.json', '--json']);
      assertFailure(result, { code: 'map-invalid', exit: 2, ...QUICK });
      const problem = (result.json!.error!.details as { problems: string[] }).problems[0]!;
      assert.match(problem, /^entry 0, field localPath: /);
      assert.match(problem, hostile.code === 'input-not-found' ? /does not exist/ : hostile.says, hostile.name);
    }
    assert.equal(sandbox.outside(), outside);
  });
});

test('a 2 GB sparse source fails its own target at once by stat, with no 2 GB read; the previous commit stays intact', async () => {
  const sandbox = new Sandbox();
  try {
    writeTwoDocumentWorkspace(sandbox);
    const first = await sandbox.run(['build', '--json']);
    assert.equal(first.code, 0, first.stdout);
    const committed = fs.readFileSync(path.join(sandbox.ws, 'chunks', 'search-index.json'));
    const outside = sandbox.outside();
    // Same path, now 2 GB of holes: hashing it for the key or reading it would take seconds and GBs.
    fs.truncateSync(path.join(sandbox.ws, 'src', 'doc1.html'), TWO_GB);
    const result = await sandbox.run(['build', '--json']);
    assertFailure(result, { code: 'target-failed', exit: 1, ...QUICK });
    const targets = result.json!.data.targets as {
      target: string;
      status: string;
      error?: { code: string; details?: Record<string, unknown> };
    }[];
    const snapshot = targets.find((t) => t.target === 'snapshots/example-test-doc1.json')!;
    assert.equal(snapshot.status, 'failed');
    assert.equal(snapshot.error!.code, 'source-failed');
    assert.equal(snapshot.error!.details!.reason, 'input-too-large');
    assert.equal(snapshot.error!.details!.size, TWO_GB);
    assert.deepEqual(fs.readFileSync(path.join(sandbox.ws, 'chunks', 'search-index.json')), committed, 'committed index untouched');
    const query = await sandbox.run(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1', '--json']);
    assert.equal(query.code, 0, query.stdout);
    assert.equal((query.json!.data.hits as unknown[]).length, 1, 'the previous commit still answers');
    // The bound is limits.maxFileBytes: a changed 200-byte file over a 100-byte bound fails the same way.
    sandbox.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: 100 } }) });
    fs.writeFileSync(path.join(sandbox.ws, 'src', 'doc1.html'), 'x'.repeat(200));
    const bounded = await sandbox.run(['build', '--json']);
    assertFailure(bounded, { code: 'target-failed', exit: 1, ...QUICK });
    const failed = (bounded.json!.data.targets as typeof targets).find((t) => t.target === 'snapshots/example-test-doc1.json')!;
    assert.deepEqual(failed.error!.details, { file: 'src/doc1.html', reason: 'input-too-large', size: 200, maxBytes: 100 });
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});

test('query --index and diff --before/--after refuse non-regular and oversized files, and diff applies --max-input-bytes', async () => {
  await withHostiles(async (sandbox, hostiles) => {
    writeTwoDocumentWorkspace(sandbox);
    assert.equal((await sandbox.run(['build'])).code, 0);
    const outside = sandbox.outside();
    for (const hostile of hostiles) {
      assertRefused(
        await sandbox.run(['query', '--index', hostile.file, '--term', 'a', '--max-input-bytes', '1000000', '--json']),
        hostile,
        'query --index',
      );
      if (hostile.says.source === 'directory') continue; // a folder is a corpus; its missing index.json is below
      const diff = await sandbox.run([
        'diff',
        '--before',
        hostile.file,
        '--after',
        'specs',
        '--out',
        '-',
        '--json',
        '--max-input-bytes',
        '1000000',
      ]);
      assertRefused(diff, hostile.code === 'input-not-found' ? { ...hostile, says: /has no document index/ } : hostile, 'diff --before');
    }
    // A corpus folder whose index.json is a FIFO: refused, not waited on.
    const corpus = path.join(sandbox.ws, 'hostile', 'corpus');
    fs.mkdirSync(corpus);
    execFileSync('mkfifo', [path.join(corpus, 'index.json')]);
    assertRefused(
      await sandbox.run(['diff', '--before', corpus, '--after', 'specs', '--out', '-', '--json']),
      hostiles[0]!,
      'diff corpus index.json',
    );
    // --max-input-bytes bounds what diff reads of each corpus.
    const small = await sandbox.run(['diff', '--before', 'specs', '--after', 'specs', '--out', '-', '--json', '--max-input-bytes', '100']);
    assertFailure(small, { code: 'input-too-large', exit: 2, ...QUICK });
    const fits = await sandbox.run(['diff', '--before', 'specs', '--after', 'specs', '--out', '-', '--json']);
    assert.equal(fits.code, 0, fits.stdout);
    assertBounded(fits, QUICK);
    assert.equal(sandbox.outside(), outside);
  });
});

test('stdin keeps its documented bound', async () => {
  const sandbox = new Sandbox();
  try {
    const outside = sandbox.outside();
    const result = await sandbox.run(['snapshot', '--manifest', '-', '--max-input-bytes', '10', '--json'], {
      input: '[{"url": "https://a.test/"}]',
    });
    assertFailure(result, { code: 'input-too-large', exit: 2, ...QUICK });
    assert.equal(sandbox.outside(), outside);
  } finally {
    sandbox.cleanup();
  }
});
