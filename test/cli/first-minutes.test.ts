import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { assertNoStackTrace, CLI, Rig, runCli } from '../helpers/rig.js';
import { runHint } from '../helpers/hints.js';
import { tablePdf } from '../helpers/table-pdf.js';
import { WatchProcess } from '../helpers/watch-process.js';

/**
 * The first ten minutes of a new user (issue 33), through the CLI as they call it, in human and --json
 * output: a workspace made with --map is remembered, found from below, and every hint it prints is a
 * command that runs where it is shown; human output names files that exist; queries ask for what the
 * workspace knows; extraction bounds are flags that re-extract nothing; watch shows bad input.
 */

const CACHING = '<h1>Caching</h1><p>A cached response is fresh until its age exceeds its freshness lifetime.</p>\n';
const MAP = '[{"sourceUrl":"https://example.test/caching","localPath":"caching.html","contentType":"text/html"}]\n';

/** A folder under the OS temp folder, not inside any workspace (no episteme.json above it). */
function quickStart(): Rig {
  const rig = new Rig('episteme-first-');
  rig.write({ 'caching.html': CACHING, 'map.json': MAP });
  return rig;
}

test("the quick start's --map workspace is remembered: episteme.json is written, and later commands need no flags", async () => {
  const rig = quickStart();
  try {
    const human = await rig.exec(['pipeline', '--map', 'map.json']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^wrote episteme\.json, naming the map: commands run here or below need no --map/m);
    assert.deepEqual(JSON.parse(rig.read('episteme.json')), { manualIngest: 'map.json' });

    // A later build has a config: nothing to do, and nothing more written.
    const again = await rig.exec(['build', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json!.data.actions, 0);
    assert.equal(again.json!.data.config, 'episteme.json');
    assert.equal(again.json!.data.configWritten, undefined);

    // query takes the workspace's search index by default, in human and JSON output.
    const query = await rig.exec(['query', '--term', 'fresh cached response', '--json']);
    assert.equal(query.code, 0, query.stderr);
    assert.equal(query.json!.data.hits[0].citation.sourceUrl, 'https://example.test/caching');
    const queryHuman = await rig.exec(['query', '--term', 'fresh']);
    assert.match(queryHuman.stdout, /^1\. .*https:\/\/example\.test\/caching/m);

    // A map on stdin cannot be named by a config: nothing is written for it.
    const stdin = quickStart();
    try {
      const piped = await stdin.exec(['pipeline', '--map', '-', '--json'], { input: MAP });
      assert.equal(piped.code, 0, piped.stdout + piped.stderr);
      assert.equal(piped.json!.data.configWritten, undefined);
      assert.equal(fs.existsSync(stdin.path('episteme.json')), false);
    } finally {
      stdin.cleanup();
    }
  } finally {
    rig.cleanup();
  }
});

test('the workspace is found upward from a subfolder, which the output names; --map there starts no second workspace', async () => {
  const rig = quickStart();
  try {
    assert.equal((await rig.exec(['pipeline', '--map', 'map.json'])).code, 0);
    const sub = rig.path('notes', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    const human = await rig.exec(['build'], { cwd: sub });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^workspace \.\.\/\.\.\/episteme\.json$/m);
    const json = await rig.exec(['build', '--map', '../../map.json', '--json'], { cwd: sub });
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.json!.data.config, '../../episteme.json');
    assert.equal(json.json!.data.actions, 0, 'the same map: the same workspace, nothing to do');
    assert.deepEqual(fs.readdirSync(sub), [], 'no outputs, state or config in the subfolder');
    const query = await rig.exec(['query', '--term', 'fresh', '--json'], { cwd: sub });
    assert.equal(query.code, 0, query.stderr);

    // Outside any workspace: a hint that says how to start one.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-outside-'));
    try {
      const none = await runCli(['build', '--json'], { cwd: outside });
      assert.equal(none.json!.error!.code, 'config-not-found');
      assert.match(none.json!.error!.hint!, /episteme pipeline --map MAP\.json/);
      const noIndex = await runCli(['query', '--term', 'x'], { cwd: outside });
      assert.equal(noIndex.code, 2);
      assert.match(noIndex.stderr, /^error \[config-not-found\]: No --index given/m);
      assertNoStackTrace(noIndex);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  } finally {
    rig.cleanup();
  }
});

test('every hint runs as written where it is shown: stale index from the workspace, from below it, and from outside', async () => {
  const rig = quickStart();
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-outside-'));
  try {
    assert.equal((await rig.exec(['pipeline', '--map', 'map.json'])).code, 0);
    fs.mkdirSync(rig.path('sub'));
    const where: [string, string[]][] = [
      [rig.dir, []],
      [rig.path('sub'), []],
      [outside, ['--index', path.relative(outside, rig.path('chunks', 'search-index.json'))]],
    ];
    for (const [cwd, index] of where) {
      // A new chunk index without a new search index: the query is stale, and says how to rebuild.
      fs.appendFileSync(rig.path('caching.html'), `<p>edit ${path.basename(cwd)}</p>\n`);
      assert.equal((await rig.exec(['build', 'chunks/index.json'])).code, 0);
      const stale = await runCli(['query', ...index, '--term', 'fresh', '--json'], { cwd });
      assert.equal(stale.json!.error!.code, 'stale-index', stale.stdout);
      const human = await runCli(['query', ...index, '--term', 'fresh'], { cwd });
      assert.match(human.stderr, /^hint: Rebuild it: episteme build /m);
      await runHint(stale, cwd);
      assert.equal((await runCli(['query', ...index, '--term', 'fresh', '--json'], { cwd })).code, 0);
    }

    // A workspace given by --config from elsewhere: the commands its hints name carry --config.
    const config = path.relative(outside, rig.path('episteme.json'));
    const unknown = await runCli(['build', '--config', config, 'specs/nothing.json', '--json'], { cwd: outside });
    assert.equal(unknown.json!.error!.code, 'unknown-target');
    assert.ok(unknown.json!.error!.hint!.includes(`\`episteme build --config ${config} --dry-run\``), unknown.json!.error!.hint);
    await runHint(unknown, outside);
  } finally {
    rig.cleanup();
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test('a query before any build says to build; another artifact as --index names the search index', async () => {
  const rig = quickStart();
  try {
    rig.write({ 'episteme.json': '{"manualIngest":"map.json"}' });
    const before = await rig.exec(['query', '--term', 'fresh', '--json']);
    assert.equal(before.code, 2);
    assert.equal(before.json!.error!.code, 'input-not-found');
    assert.match(before.json!.error!.message, /has not been built yet/);
    await runHint(before, rig.dir);
    assert.equal((await rig.exec(['query', '--term', 'fresh', '--json'])).code, 0);

    const chunkIndex = await rig.exec(['query', '--index', 'chunks/index.json', '--term', 'fresh', '--json']);
    assert.equal(chunkIndex.json!.error!.code, 'artifact-invalid');
    assert.match(chunkIndex.json!.error!.hint!, /^Did you mean --index chunks\/search-index\.json\?/);
    // A document index (built or not) is not a search index either: the hint names the workspace's.
    for (const index of ['specs/index.json', 'specs/nothing.json']) {
      const human = await rig.exec(['query', '--index', index, '--term', 'fresh']);
      assert.match(human.stderr, /^hint: Did you mean --index chunks\/search-index\.json\?/m, index);
    }
  } finally {
    rig.cleanup();
  }
});

test('human output names files that exist, which build and explain take back; an unknown target gets the nearest names', async () => {
  const rig = quickStart();
  try {
    const built = await rig.exec(['pipeline', '--map', 'map.json']);
    assert.equal(built.code, 0, built.stderr);
    const shown = [...built.stdout.matchAll(/^ {2}built +(\S+)/gm)].map((m) => m[1]!);
    assert.equal(shown.length, 7, built.stdout);
    for (const file of shown) assert.ok(fs.statSync(rig.path(file)).isFile(), `${file} is named but is not a file`);
    assert.ok(shown.some((file) => /^specs\/example-test-caching\.[0-9a-f]{16}\.json$/.test(file)));
    // --json keeps the target names, with the file each wrote.
    const json = await rig.exec(['build', '--json', '--dry-run']);
    const specs = json.json!.data.targets.find((t: { target: string }) => t.target === 'specs/example-test-caching.json');
    assert.match(specs.output, /^specs\/example-test-caching\.[0-9a-f]{16}\.json$/);

    for (const file of shown) {
      const one = await rig.exec(['build', file, '--json']);
      assert.equal(one.code, 0, `${file}: ${one.stdout}`);
      const explain = await rig.exec(['explain', file, '--json']);
      assert.equal(explain.code, 0, `${file}: ${explain.stdout}`);
    }

    const typo = await rig.exec(['build', 'specs/example-test-cachng.json', '--json']);
    assert.equal(typo.code, 2);
    assert.equal(typo.json!.error!.code, 'unknown-target');
    assert.match(typo.json!.error!.hint!, /^Did you mean specs\/example-test-caching\.json\?/);
    assert.deepEqual(typo.json!.error!.details!.nearest, ['specs/example-test-caching.json']);
    const byId = await rig.exec(['explain', 'example-test-caching']);
    assert.match(byId.stderr, /^hint: Did you mean snapshots\/example-test-caching\.json, specs\/example-test-caching\.json or/m);
  } finally {
    rig.cleanup();
  }
});

test('extraction bounds are flags and config options outside every key: raising one re-extracts nothing that succeeded', async () => {
  const rig = quickStart();
  try {
    const pdf = tablePdf([
      {
        texts: [
          { x: 72, top: 72, size: 18, text: 'Freshness' },
          { x: 72, top: 110, size: 11, text: 'A fresh response.' },
        ],
      },
    ]);
    rig.write({
      'doc.pdf': pdf,
      'map.json': JSON.stringify([
        ...JSON.parse(MAP),
        { sourceUrl: 'https://example.test/doc.pdf', localPath: 'doc.pdf', contentType: 'application/pdf' },
      ]),
    });
    const first = await rig.exec(['pipeline', '--map', 'map.json', '--json']);
    assert.equal(first.code, 0, first.stdout);
    const raised = await rig.exec([
      'build',
      '--pdf-timeout-ms',
      '600000',
      '--extract-timeout-ms',
      '600000',
      '--extract-max-heap-mb',
      '4096',
      '--json',
    ]);
    assert.equal(raised.code, 0, raised.stdout);
    assert.equal(raised.json!.data.actions, 0, 'a raised bound re-extracted a document');
    // The same bound in the config: the config changed, no key did.
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { extract: { pdfTimeoutMs: 600000 } } }) });
    const configured = await rig.exec(['build', '--json']);
    assert.equal(configured.code, 0, configured.stdout);
    assert.equal(configured.json!.data.actions, 0, 'pdfTimeoutMs in the config re-extracted a document');
    // Out of range: a usage error naming the range.
    const bad = await rig.exec(['build', '--pdf-timeout-ms', '5', '--json']);
    assert.equal(bad.code, 2);
    assert.equal(bad.json!.error!.code, 'usage-error');
    assert.match(bad.json!.error!.message, /--pdf-timeout-ms.*1000 to 3600000/);
  } finally {
    rig.cleanup();
  }
});

test("watch's cycle line and --json event carry the diagnostics of what it built: random bytes are invalid-bytes", async () => {
  const rig = quickStart();
  rig.write({ 'episteme.json': '{"manualIngest":"map.json"}' });
  const watch = new WatchProcess(rig.dir);
  try {
    const start = await watch.nextCycle(0);
    assert.equal(start.ok, true, watch.dump());
    assert.equal(start.diagnostics, undefined);
    const mark = watch.lines.length;
    fs.writeFileSync(rig.path('caching.html'), Buffer.from([0x3c, 0x70, 0x3e, 0xff, 0xfe, 0xc3, 0x28, 0x80, 0x0a]));
    const cycle = await watch.waitFor((line) => line.event === 'cycle' && line.diagnostics !== undefined, mark);
    const specs = cycle.diagnostics.find((d: { target: string }) => d.target === 'specs/example-test-caching.json');
    assert.ok(specs, watch.dump());
    assert.ok(specs.codes.includes('invalid-bytes'), JSON.stringify(specs));
    // The one-shot build reports the same document with the same code.
    await watch.stop();
    const oneShot = await rig.exec(['build', '--json']);
    const documents = oneShot.json!.data.diagnostics.documents;
    assert.ok(
      documents.some((d: { codes: string[] }) => d.codes.includes('invalid-bytes')),
      JSON.stringify(documents),
    );
  } finally {
    await watch.stop();
  }
  // Human mode: the cycle line names the document and the code.
  const child = spawn(process.execPath, [CLI, 'watch'], { cwd: rig.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
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
    // The first cycle builds nothing new (the document is up to date); the next save shows its diagnostics.
    const seen = out.length;
    fs.writeFileSync(rig.path('caching.html'), Buffer.from([0x3c, 0x70, 0x3e, 0xc3, 0x28, 0x41, 0x0a]));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no diagnostics line: ${out}`)), 60_000);
      const check = () => {
        // Any cycle from here on: under load, a save seen half-written builds in two cycles.
        if (/^\[\d+\] .*diagnostics: specs\/example-test-caching\.json warning \(invalid-bytes/m.test(out.slice(seen))) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', check);
      check();
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
    rig.cleanup();
  }
});

test('messages: help in 100 columns; config errors with hints, no absolute paths; nearest field; a 404 is not unreachable', async () => {
  const rig = quickStart();
  const server = http.createServer((request, response) => {
    response.writeHead(request.url === '/gone' ? 404 : 200, { 'content-type': 'text/html' });
    response.end(request.url === '/gone' ? 'not here' : CACHING);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    for (const command of ['', 'build', 'pipeline', 'snapshot', 'query', 'watch', 'extract', 'diff']) {
      const help = await rig.exec(command === '' ? ['--help'] : [command, '--help']);
      const long = help.stdout.split('\n').filter((line) => [...line].length > 100);
      assert.deepEqual(long, [], `episteme ${command} --help`);
    }

    rig.write({ 'episteme.json': '{"manualIngest": "map.json",}' });
    const notJson = await rig.exec(['build', '--json']);
    assert.equal(notJson.json!.error!.code, 'config-invalid');
    assert.match(notJson.json!.error!.hint!, /Fix the JSON .*docs\/workspace\.md, "Workspace"/);

    rig.write({ 'episteme.json': '{"manualIngest": "map.json", "outputs": {"specs": "../elsewhere"}}' });
    const outside = await rig.exec(['build', '--json']);
    assert.equal(outside.json!.error!.code, 'config-invalid');
    assert.match(outside.json!.error!.hint!, /outputs\.specs .*"specs"/);

    rig.write({ 'episteme.json': '{"manualIngest": "map.json"}' });
    const tooLarge = await rig.exec(['build', '--max-input-bytes', '10', '--json']);
    assert.equal(tooLarge.json!.error!.code, 'input-too-large');
    assert.doesNotMatch(JSON.stringify(tooLarge.json), new RegExp(rig.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.match(tooLarge.json!.error!.message, /^Workspace config episteme\.json is/);

    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fs.rmSync(rig.path('episteme.json'));
    rig.write({ 'manifest.json': JSON.stringify([{ url: `${base}/gone`, famly: 'w3c' }]) });
    const typo = await rig.exec(['snapshot', '--manifest', 'manifest.json', '--json']);
    assert.equal(typo.json!.error!.code, 'manifest-invalid');
    assert.match(typo.json!.error!.message, /unknown field "famly" \(did you mean "family"\?\)/);

    rig.write({ 'manifest.json': JSON.stringify([{ url: `${base}/gone` }]) });
    const gone = await rig.exec(['snapshot', '--manifest', 'manifest.json', '--json']);
    assert.equal(gone.code, 1, gone.stdout);
    const failed = gone.json!.data.targets.find((t: { status: string }) => t.status === 'failed');
    assert.equal(failed.error.details.status, 404);
    assert.doesNotMatch(failed.error.hint, /reachable/);
    assert.match(failed.error.hint, /no document at this URL \(404\): fix the url in the manifest/);
  } finally {
    server.close();
    rig.cleanup();
  }
});

test('show reads the search index query reads; messages name paths that work from here and files that exist', async () => {
  const rig = quickStart();
  try {
    rig.write({
      'broken.pdf': '%PDF-1.4\nnot a pdf at all\n%%EOF\n',
      'map.json': JSON.stringify([
        ...JSON.parse(MAP),
        { sourceUrl: 'https://example.test/broken.pdf', localPath: 'broken.pdf', contentType: 'application/pdf' },
      ]),
    });
    // A document with error diagnostics fails the build; the message names the file it wrote, which exists.
    const built = await rig.exec(['pipeline', '--map', 'map.json', '--json']);
    assert.equal(built.json!.error!.code, 'document-diagnostics', built.stdout);
    const named = [...built.json!.error!.message.matchAll(/(specs\/\S+\.json) \(/g)].map((m) => m[1]!);
    assert.equal(named.length, 1, built.json!.error!.message);
    assert.match(named[0]!, /\.[0-9a-f]{16}\.json$/);
    assert.ok(fs.statSync(rig.path(named[0]!)).isFile());

    // From a subfolder, show without --index reads the workspace's search index, as query does.
    fs.mkdirSync(rig.path('sub'));
    const hit = await rig.exec(['query', '--term', 'fresh', '--json'], { cwd: rig.path('sub') });
    assert.equal(hit.code, 0, hit.stdout);
    const chunkId = hit.json!.data.hits[0].chunkId as string;
    const shown = await rig.exec(['show', chunkId, '--json'], { cwd: rig.path('sub') });
    assert.equal(shown.code, 0, shown.stdout + shown.stderr);
    const human = await rig.exec(['show', chunkId], { cwd: rig.path('sub') });
    assert.match(human.stdout, /^https:\/\/example\.test\/caching/m);

    // The workspace's index named from the wrong folder: the hint gives the path from here.
    const wrong = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'fresh', '--json'], { cwd: rig.path('sub') });
    assert.equal(wrong.json!.error!.code, 'input-not-found');
    assert.match(wrong.json!.error!.hint!, /^Did you mean --index \.\.\/chunks\/search-index\.json\? \(the workspace's search index/);
    assert.equal(
      (await rig.exec(['query', '--index', '../chunks/search-index.json', '--term', 'fresh'], { cwd: rig.path('sub') })).code,
      0,
    );

    // A map piped from another folder: its relative paths resolve against the current one, and the hint says so.
    const piped = await rig.exec(['manual-ingest', '--map', '-', '--json'], { cwd: rig.path('sub'), input: MAP });
    assert.equal(piped.json!.error!.code, 'map-invalid');
    assert.match(piped.json!.error!.hint!, /A map on stdin has no folder: its relative localPaths resolve against the current folder/);

    // A damaged search index queried from outside the workspace: the rebuild its hint names runs from there.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-outside-'));
    try {
      // Without the broken PDF, whose error diagnostics would fail every build of the index (--fail-on error).
      rig.write({ 'map.json': MAP });
      assert.equal((await rig.exec(['build'])).code, 0);
      fs.writeFileSync(rig.path('chunks', 'search-index.json'), '{"damaged": true}\n');
      const index = ['--index', path.relative(outside, rig.path('chunks', 'search-index.json'))];
      const damaged = await runCli(['query', ...index, '--term', 'fresh', '--json'], { cwd: outside });
      assert.equal(damaged.json!.error!.code, 'artifact-invalid', damaged.stdout);
      assert.match(damaged.json!.error!.hint!, /`episteme build --config \S+episteme\.json chunks\/search-index\.json`/);
      await runHint(damaged, outside);
      assert.equal((await runCli(['query', ...index, '--term', 'fresh', '--json'], { cwd: outside })).code, 0);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  } finally {
    rig.cleanup();
  }
});
