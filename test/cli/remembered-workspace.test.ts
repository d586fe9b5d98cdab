import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, type CliResult, Rig, runCli } from '../helpers/rig.js';
import { runHint } from '../helpers/hints.js';
import { WatchProcess } from '../helpers/watch-process.js';

/**
 * One rule for a workspace given by --map or --manifest in a folder with no config (issue 33): every
 * command that writes into it (build, pipeline, each one-stage command, watch, diff) writes
 * episteme.json naming them, never over an existing one, and says so; so after any of them, every
 * hint shown (the stale-index one above all) runs as written from the workspace, from a subfolder and
 * from outside. The commands that write nothing (explain, graph, a dry run) write no config: their
 * hints carry the flags instead.
 */

const CACHING = '<h1>Caching</h1><p>A cached response is fresh until its age exceeds its freshness lifetime.</p>\n';
const MAP = '[{"sourceUrl":"https://example.test/caching","localPath":"caching.html","contentType":"text/html"}]\n';

/** The HTTP source a manifest names: its body changes with each edit. */
let body = CACHING;
const server = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html' });
  response.end(body);
});
let base = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

interface Writer {
  command: string;
  /** The flag that gives the workspace, and the file it names. */
  flag: '--map' | '--manifest';
}
const file = (writer: Writer) => (writer.flag === '--map' ? 'map.json' : 'manifest.json');
const WRITERS: Writer[] = [
  ...['manual-ingest', 'extract', 'chunk', 'index', 'build', 'pipeline'].map((command) => ({ command, flag: '--map' as const })),
  { command: 'snapshot', flag: '--manifest' },
  { command: 'watch', flag: '--map' },
];

/** A folder under the OS temp folder (no episteme.json above it), with a map and a manifest of one source each. */
function fresh(): Rig {
  const rig = new Rig('episteme-remember-');
  rig.write({ 'caching.html': CACHING, 'map.json': MAP, 'manifest.json': JSON.stringify([{ url: `${base}/caching` }]) });
  return rig;
}

/** Runs the writer with its flag in --json; returns its configWritten. */
async function writeJson(rig: Rig, writer: Writer): Promise<unknown> {
  if (writer.command === 'watch') {
    const watch = new WatchProcess(rig.dir, [writer.flag, file(writer)]);
    try {
      const cycle = await watch.nextCycle(0);
      assert.equal(cycle.ok, true, watch.dump());
      return cycle.configWritten;
    } finally {
      await watch.stop();
    }
  }
  const result = await rig.exec([writer.command, writer.flag, file(writer), '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.equal(result.json!.data.config, 'episteme.json');
  return result.json!.data.configWritten;
}

/** Runs the writer with its flag in human output; returns its stdout (watch: up to its first cycle line). */
async function writeHuman(rig: Rig, writer: Writer): Promise<string> {
  if (writer.command !== 'watch') {
    const result = await rig.exec([writer.command, writer.flag, file(writer)]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.doesNotMatch(result.stderr, /^hint:/m);
    return result.stdout;
  }
  const child = spawn(process.execPath, [CLI, 'watch', writer.flag, file(writer)], { cwd: rig.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no cycle line: ${out}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (/^\[1\] .*\n/m.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
  }
  return out;
}

/** A query from `cwd`: the workspace's index by default, or `index` (from outside). */
function query(cwd: string, index: string[], json: boolean): Promise<CliResult> {
  return runCli(['query', ...index, '--term', 'fresh', ...(json ? ['--json'] : [])], { cwd });
}

/**
 * From the workspace, a subfolder and outside it: a query that fails (not built yet) runs its hint;
 * then, after an edit that leaves the search index stale, the stale-index hint (human and JSON) runs
 * as written, and the query answers.
 */
async function hintsRunEverywhere(rig: Rig): Promise<void> {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-outside-'));
  fs.mkdirSync(rig.path('sub', 'deep'), { recursive: true });
  try {
    const where: [string, string[]][] = [
      [rig.dir, []],
      [rig.path('sub', 'deep'), []],
      [outside, ['--index', path.relative(outside, rig.path('chunks', 'search-index.json'))]],
    ];
    for (const [cwd, index] of where) {
      const first = await query(cwd, index, true);
      if (first.code !== 0) {
        assert.equal(first.json!.error!.code, 'input-not-found', first.stdout);
        await runHint(first, cwd);
        assert.equal((await query(cwd, index, true)).code, 0);
      }
      // An edit, then a new chunk index without a new search index: the query is stale.
      fs.appendFileSync(rig.path('caching.html'), `<p>edit ${path.basename(cwd)}</p>\n`);
      body += `<p>edit ${path.basename(cwd)}</p>\n`;
      const chunked = await rig.exec(['build', '--refresh', 'chunks/index.json']);
      assert.equal(chunked.code, 0, chunked.stdout + chunked.stderr);
      const human = await query(cwd, index, false);
      assert.match(human.stderr, /^error \[stale-index\]/m);
      assert.match(human.stderr, /^hint: Rebuild it: episteme build (--config \S+ )?chunks\/search-index\.json$/m);
      const stale = await query(cwd, index, true);
      assert.equal(stale.json!.error!.code, 'stale-index', stale.stdout);
      await runHint(stale, cwd);
      assert.equal((await query(cwd, index, true)).code, 0);
    }
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
}

for (const writer of WRITERS) {
  test(`${writer.command} ${writer.flag} in a folder with no config remembers it; every hint after it runs as written`, async () => {
    const human = fresh();
    const rig = fresh();
    try {
      const stdout = await writeHuman(human, writer);
      const name = writer.flag === '--map' ? 'map' : 'manifest';
      assert.match(
        stdout,
        new RegExp(`^wrote episteme\\.json, naming the ${name}: commands run here or below need no ${writer.flag} from now on$`, 'm'),
      );
      assert.equal(await writeJson(rig, writer), 'episteme.json');
      const named = writer.flag === '--map' ? { manualIngest: 'map.json' } : { manifest: 'manifest.json' };
      assert.deepEqual(JSON.parse(rig.read('episteme.json')), named);

      // Never over an existing config, and said only once.
      const again = await writeJson(rig, writer);
      assert.equal(again, undefined);
      assert.deepEqual(JSON.parse(rig.read('episteme.json')), named);

      await hintsRunEverywhere(rig);
    } finally {
      human.cleanup();
      rig.cleanup();
    }
  });
}

test('manual-ingest --snapshots names its folder in the config it writes, so later commands read the same snapshots', async () => {
  const rig = fresh();
  try {
    const ingest = await rig.exec(['manual-ingest', '--map', 'map.json', '--snapshots', 'captures']);
    assert.equal(ingest.code, 0, ingest.stdout + ingest.stderr);
    assert.match(ingest.stdout, /^wrote episteme\.json, naming the map and the snapshot folder: .* need no --map or --snapshots /m);
    assert.deepEqual(JSON.parse(rig.read('episteme.json')), { manualIngest: 'map.json', outputs: { snapshots: 'captures' } });
    const built = await rig.exec(['build', '--json']);
    assert.equal(built.code, 0, built.stdout);
    assert.ok(built.json!.data.counts['up-to-date'] >= 1, 'the snapshot ingested into captures/ is reused');
    assert.equal(fs.existsSync(rig.path('snapshots')), false);
  } finally {
    rig.cleanup();
  }
});

test('diff --map writes into the workspace, so it remembers it too (a workspace built from a map on stdin had no config)', async () => {
  const rig = fresh();
  try {
    const piped = await rig.exec(['pipeline', '--map', '-', '--json'], { input: MAP });
    assert.equal(piped.code, 0, piped.stdout);
    assert.equal(fs.existsSync(rig.path('episteme.json')), false, 'a map on stdin cannot be named by a config');
    const diff = await rig.exec(['diff', '--map', 'map.json', '--before', 'specs', '--json']);
    assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    assert.equal(diff.json!.data.configWritten, 'episteme.json');
    assert.deepEqual(JSON.parse(rig.read('episteme.json')), { manualIngest: 'map.json' });
    await hintsRunEverywhere(rig);
  } finally {
    rig.cleanup();
  }
});

test('explain, graph and a dry run write nothing, no config either: their hints carry --map and run as written', async () => {
  const rig = fresh();
  try {
    const dry = await rig.exec(['build', '--map', 'map.json', '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stdout);
    assert.equal(dry.json!.data.configWritten, undefined);
    assert.equal((await rig.exec(['graph', '--map', 'map.json'])).code, 0);
    const unknown = await rig.exec(['explain', '--map', 'map.json', 'specs/nothing.json', '--json']);
    assert.equal(unknown.json!.error!.code, 'unknown-target');
    assert.ok(unknown.json!.error!.hint!.includes('`episteme build --map map.json --dry-run`'), unknown.json!.error!.hint);
    await runHint(unknown, rig.dir);
    assert.equal(fs.existsSync(rig.path('episteme.json')), false);
    assert.deepEqual(fs.readdirSync(rig.dir).sort(), ['caching.html', 'manifest.json', 'map.json']);
  } finally {
    rig.cleanup();
  }
});
