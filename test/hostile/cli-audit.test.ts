import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { CLI, Rig, assertNoStackTrace, sampleHtml } from '../helpers/rig.js';
import { runHint } from '../helpers/hints.js';
import { textPdf } from './hostile-documents.js';
import { summaryResult } from '../../src/cli/build-runner.js';
import type { TargetResult } from '../../src/graph/scheduler.js';

/**
 * Classes of failure found by an adversarial audit through the CLI (a careless user or an attacker
 * calling it), each pinned by its smallest instance: what used to crash, grow without bound or print a
 * hint that does not work now gives a structured answer, and the workspace stays consistent (the
 * next build equals a clean build, queries answer).
 */

function chunkFiles(rig: Rig): string[] {
  return fs
    .readdirSync(rig.path('chunks'))
    .filter((name) => name.endsWith('.json') && name !== 'index.json' && !name.startsWith('search-index'))
    .map((name) => rig.path('chunks', name));
}

test('an empty map or manifest builds an empty workspace (no internal error), and a later build equals a clean one', async () => {
  const rig = new Rig();
  try {
    rig.write({ 'empty.json': '[]\n', 'doc.html': sampleHtml(1) });
    const empty = await rig.exec(['build', '--map', 'empty.json', '--json']);
    assertNoStackTrace(empty);
    assert.equal(empty.code, 0, empty.stdout);
    assert.equal(empty.json!.ok, true);
    // The empty workspace answers queries, a no-op build, explain and graph.
    const none = await rig.exec(['query', '--term', 'zebra1', '--json']);
    assert.equal(none.code, 0, none.stdout);
    assert.equal(none.json!.data.total, 0);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    assert.equal((await rig.exec(['explain', 'chunks/search-index.json', '--json'])).code, 0);
    assert.equal((await rig.exec(['graph', '--format', 'json', '--json'])).code, 0);
    // Entries arrive: the build equals a clean build of the same map, and the query finds them.
    rig.write({ 'empty.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]) });
    const filled = await rig.exec(['build', '--json']);
    assert.equal(filled.code, 0, filled.stdout);
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 1);
    const clean = new Rig();
    try {
      clean.write({ 'empty.json': rig.read('empty.json'), 'doc.html': sampleHtml(1) });
      assert.equal((await clean.exec(['build', '--map', 'empty.json', '--json'])).code, 0);
      assert.deepEqual(rig.artifacts(), clean.artifacts());
    } finally {
      clean.cleanup();
    }
    // And back to empty: the documents leave every index.
    rig.write({ 'empty.json': '[]' });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 0);
    // An empty manifest too.
    const manifest = new Rig();
    try {
      manifest.write({ 'manifest.json': '[]' });
      const built = await manifest.exec(['build', '--manifest', 'manifest.json', '--json']);
      assert.equal(built.code, 0, built.stdout);
    } finally {
      manifest.cleanup();
    }
  } finally {
    rig.cleanup();
  }
});

test('a long title or heading is cut in heading paths: chunk files grow with the input, not with chunks x heading', async () => {
  const rig = new Rig();
  try {
    // A one-line text file is its own title; an HTML <h1> heads every section below it.
    const line = 'fresh word '.repeat(30_000);
    const sections = Array.from({ length: 200 }, (_, i) => `<h2>S${i}</h2><p>body ${i}</p>`).join('');
    const headed = `<h1>${'long heading '.repeat(20_000)}</h1>${sections}`;
    rig.write({
      'line.txt': line,
      'headed.html': headed,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/line', localPath: 'line.txt', contentType: 'text/plain' },
        { sourceUrl: 'https://example.test/headed', localPath: 'headed.html', contentType: 'text/html' },
      ]),
    });
    const built = await rig.exec(['build', '--map', 'map.json', '--json']);
    assertNoStackTrace(built);
    assert.equal(built.code, 0, built.stdout);
    let chunkBytes = 0;
    for (const file of chunkFiles(rig)) {
      chunkBytes += fs.statSync(file).size;
      const chunks = JSON.parse(fs.readFileSync(file, 'utf8')).payload.chunks as { citation: { headingPath: string[] } }[];
      for (const chunk of chunks)
        for (const entry of chunk.citation.headingPath) assert.ok(entry.length <= 256, `${entry.length} code units`);
    }
    // Before the cut: ~80 MB of chunk files for ~600 KB of input.
    const inputBytes = line.length + headed.length;
    assert.ok(chunkBytes < 6 * inputBytes, `chunk files ${chunkBytes} bytes for ${inputBytes} bytes of input`);
    const hit = await rig.exec(['query', '--term', 'body 7', '--limit', '1', '--json']);
    assert.equal(hit.code, 0, hit.stdout);
    const headingPath = hit.json!.data.hits[0].citation.headingPath as string[];
    assert.ok(headingPath[0]!.endsWith('…'), 'the cut title ends with an ellipsis');
    assert.equal(headingPath.at(-1), 'S7');
  } finally {
    rig.cleanup();
  }
});

test('a named input that is missing or cannot be opened always has a hint: the nearest name, the missing folder, the NUL', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]),
      'doc.html': sampleHtml(1),
    });
    const cases: { config: unknown; args?: string[]; code: string; hint: RegExp }[] = [
      { config: { manualIngest: 'mpa.json' }, code: 'input-not-found', hint: /Did you mean map\.json\?/ },
      { config: { manualIngest: 'inputs/map.json' }, code: 'input-not-found', hint: /Its folder inputs does not exist either/ },
      { config: { manualIngest: 'zzzzzzzzzzzz.json' }, code: 'input-not-found', hint: /No file of that name is in the current folder/ },
      { config: { manualIngest: 'map.json/x.json' }, code: 'input-not-found', hint: /A folder on the path is a file/ },
      { config: { manualIngest: 'map.json\u0000x' }, code: 'input-unreadable', hint: /NUL character/ },
    ];
    for (const c of cases) {
      rig.write({ 'episteme.json': JSON.stringify(c.config) });
      const result = await rig.exec(['build', '--json']);
      assertNoStackTrace(result);
      assert.equal(result.code, 2, result.stdout);
      assert.equal(result.json!.error!.code, c.code, result.stdout);
      assert.match(result.json!.error!.hint ?? '', c.hint, JSON.stringify(c.config));
    }
    // From a folder below, the nearest name is a path from there.
    fs.mkdirSync(rig.path('sub'));
    const below = await rig.exec(['build', '--map', '../mpa.json', '--json'], { cwd: rig.path('sub') });
    assert.match(below.json!.error!.hint ?? '', /Did you mean \.\.\/map\.json\?/);
    // An artifact of the wrong kind given to diff says what it is.
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }), 'other/index.json': '{"artifact":"chunk-index"}' });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const diff = await rig.exec(['diff', '--before', 'other', '--after', 'specs', '--out', '-', '--json']);
    assert.equal(diff.json!.error!.code, 'artifact-invalid', diff.stdout);
    assert.match(diff.json!.error!.hint ?? '', /It is a chunk-index artifact: name the document-index file a build wrote/);
  } finally {
    rig.cleanup();
  }
});

test('a failing standard output (a full disk behind `> file`) is said on standard error, not only by the exit code', async (t) => {
  if (!fs.existsSync('/dev/full')) {
    t.skip('/dev/full is absent on this system');
    return;
  }
  const rig = new Rig();
  try {
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]),
      'doc.html': sampleHtml(1),
    });
    assert.equal((await rig.exec(['build', '--map', 'map.json', '--json'])).code, 0);
    for (const args of [
      ['query', '--term', 'zebra1', '--json'],
      ['query', '--term', 'zebra1'],
      ['build', '--verbose'],
    ]) {
      const full = fs.openSync('/dev/full', 'w');
      const result = spawnSync(process.execPath, [CLI, ...args], { cwd: rig.dir, stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      fs.closeSync(full);
      assert.equal(result.status, 1, args.join(' '));
      assert.match(result.stderr, /^error \[write-failed\]: standard output could not be written \(ENOSPC\)/m, args.join(' '));
      assert.match(result.stderr, /^hint: /m);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    }
  } finally {
    rig.cleanup();
  }
});

test('a damaged --index that is not the workspace search index names the search index, never a target that does not exist', async () => {
  const rig = new Rig();
  const outside = new Rig();
  try {
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]),
      'doc.html': sampleHtml(1),
    });
    assert.equal((await rig.exec(['build', '--map', 'map.json', '--json'])).code, 0);
    const index = fs.readFileSync(rig.path('chunks', 'search-index.json'));
    rig.write({ 'chunks/copy.json': index.subarray(0, 200) });
    fs.mkdirSync(rig.path('sub'));
    for (const [given, cwd] of [
      ['episteme.json', rig.dir],
      ['../map.json', rig.path('sub')],
      ['../chunks/copy.json', rig.path('sub')],
    ] as const) {
      const result = await rig.exec(['query', '--term', 'zebra1', '--index', given, '--json'], { cwd });
      assert.equal(result.json!.error!.code, 'artifact-invalid', result.stdout);
      const wanted = cwd === rig.dir ? 'chunks/search-index.json' : '../chunks/search-index.json';
      assert.equal(result.json!.error!.hint, `Did you mean --index ${wanted}? (the search index; ${given} is not one)`);
    }
    // A file in no workspace: no build command, which would build another workspace or none.
    outside.write({ 'search-index.json': index.subarray(0, 200) });
    const lone = await outside.exec(['query', '--term', 'zebra1', '--index', 'search-index.json', '--json']);
    assert.equal(lone.json!.error!.code, 'artifact-invalid');
    assert.match(lone.json!.error!.hint ?? '', /^No workspace holds search-index\.json/);
    assert.doesNotMatch(lone.json!.error!.hint ?? '', /episteme build/);
    // The workspace's own search index, damaged: the rebuild its hint names works from where it is shown.
    rig.write({ 'chunks/search-index.json': index.subarray(0, 200) });
    const damaged = await rig.exec(['query', '--term', 'zebra1', '--index', '../chunks/search-index.json', '--json'], {
      cwd: rig.path('sub'),
    });
    assert.equal(damaged.json!.error!.code, 'artifact-invalid');
    await runHint(damaged, rig.path('sub'));
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 1);
  } finally {
    rig.cleanup();
    outside.cleanup();
  }
});

test('an option value that starts with "-" is the value: a negative bound names its range, a term may start with "-"', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]),
      'doc.html': sampleHtml(1, ' The offset -5 applies.'),
    });
    assert.equal((await rig.exec(['build', '--map', 'map.json', '--json'])).code, 0);
    for (const [args, message] of [
      [['query', '--term', 'zebra1', '--limit', '-1'], /^Invalid value for --limit: expected an integer from 1 to 1000 \(got "-1"\)/],
      [['build', '--wait-lock', '-5'], /^Invalid value for --wait-lock: expected an integer from 0 to 86400 \(got "-5"\)/],
      [['query', '--term', 'zebra1', '--offset', '-3'], /^Invalid value for --offset: /],
      // A missing value before another option is still reported as missing.
      [['query', '--term', 'zebra1', '--limit', '--json'], /^Not enough arguments to option --limit/],
      // An unknown option stays unknown.
      [['query', '--term', 'zebra1', '-x'], /^Unknown option -x/],
    ] as const) {
      const result = await rig.exec([...args, '--json']);
      assert.equal(result.code, 2, result.stdout);
      assert.equal(result.json!.error!.code, 'usage-error');
      assert.match(result.json!.error!.message, message);
    }
    const term = await rig.exec(['query', '--term', '-5', '--json']);
    assert.equal(term.code, 0, term.stdout);
    assert.equal(term.json!.data.total, 1);
    // The bounds of a --batch line or MCP search request hold for the flags too: one request either way.
    const many = (flag: string, count: number, value: string) => Array.from({ length: count }, () => [flag, value]).flat();
    for (const [args, message] of [
      [['--term', ''], /^--term takes 1 to 4096 characters \(got 0\)/],
      [['--term', 'a'.repeat(4097)], /^--term takes 1 to 4096 characters \(got 4097\)/],
      [many('--term', 65, 'zebra1'), /^--term is given 65 times; a query takes at most 64\./],
      [['--term', 'zebra1', ...many('--family', 65, 'generic')], /^--family is given 65 times/],
    ] as const) {
      const result = await rig.exec(['query', ...args, '--json']);
      assert.equal(result.code, 2, result.stdout.slice(0, 500));
      assert.equal(result.json!.error!.code, 'usage-error');
      assert.match(result.json!.error!.message, message);
    }
    // As the defaults of --batch lines: refused before any line is read.
    const defaults = await rig.exec(['query', '--batch', ...many('--family', 65, 'generic')], { input: '{"terms":["zebra1"]}\n' });
    assert.equal(defaults.code, 2);
    assert.match(JSON.parse(defaults.stdout).error.message, /^--family is given 65 times/);
    assert.equal((await rig.exec(['query', ...many('--term', 64, 'zebra1'), '--json'])).json!.data.total, 1);
  } finally {
    rig.cleanup();
  }
});

test('JSON inputs with a UTF-8 byte order mark are read; UTF-16 ones are refused as UTF-16, not as a stray token', async () => {
  const rig = new Rig();
  try {
    const bom = '\uFEFF';
    rig.write({
      'episteme.json': `${bom}${JSON.stringify({ manualIngest: 'map.json' })}`,
      'map.json': `${bom}${JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }])}`,
      'doc.html': sampleHtml(1),
    });
    const built = await rig.exec(['build', '--json']);
    assert.equal(built.code, 0, built.stdout);
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 1);
    const batch = await rig.exec(['query', '--batch'], { input: `${bom}{"terms":["zebra1"]}\n` });
    assert.equal(batch.code, 0, batch.stdout);
    assert.equal(JSON.parse(batch.stdout.split('\n')[0]!).data.total, 1);
    // Manifest (read by the same parser) and UTF-16 with and without its byte order mark.
    const utf16 = (text: string, mark: boolean) => Buffer.concat([Buffer.from(mark ? [0xff, 0xfe] : []), Buffer.from(text, 'utf16le')]);
    for (const mark of [true, false]) {
      rig.write({ 'episteme.json': utf16(JSON.stringify({ manualIngest: 'map.json' }), mark) });
      const result = await rig.exec(['build', '--json']);
      assert.equal(result.code, 2, result.stdout);
      assert.equal(result.json!.error!.code, 'config-invalid');
      assert.match(result.json!.error!.message, mark ? /is UTF-16 text/ : /holds NUL bytes/);
      assert.match(result.json!.error!.hint ?? '', /Save it as UTF-8/);
    }
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }), 'manifest.json': utf16('[]', true) });
    const manifest = await rig.exec(['build', '--manifest', 'manifest.json', '--json']);
    assert.equal(manifest.json!.error!.code, 'manifest-invalid');
  } finally {
    rig.cleanup();
  }
});

test("a map entry naming a build's own output is refused: such a source would change with every build", async () => {
  const rig = new Rig();
  try {
    const one = { sourceUrl: 'https://example.test/one', localPath: 'doc.html' };
    rig.write({
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
      'map.json': JSON.stringify([one]),
      'doc.html': sampleHtml(1),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const before = rig.artifacts();
    for (const localPath of ['chunks/search-index.json', '.episteme/state.json', 'src/../specs/index.json']) {
      rig.write({ 'map.json': JSON.stringify([one, { sourceUrl: 'https://example.test/self', localPath, contentType: 'text/plain' }]) });
      const result = await rig.exec(['build', '--json']);
      assert.equal(result.code, 2, result.stdout);
      assert.equal(result.json!.error!.code, 'map-invalid');
      assert.match(result.json!.error!.message, /entry 1, field localPath: .* is inside .*which Episteme's builds write/);
      assert.match(result.json!.error!.hint ?? '', /Copy the file out of the output folders/);
      assert.deepEqual(rig.artifacts(), before, 'nothing was written');
      assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 1);
    }
    // Through a symlink: the file's own, or a folder's on its path.
    fs.symlinkSync('chunks/search-index.json', rig.path('index-link.json'));
    fs.symlinkSync('specs', rig.path('specs-link'));
    for (const localPath of ['index-link.json', 'specs-link/index.json']) {
      rig.write({ 'map.json': JSON.stringify([one, { sourceUrl: 'https://example.test/self', localPath, contentType: 'text/plain' }]) });
      const result = await rig.exec(['build', '--json']);
      assert.equal(result.json!.error?.code, 'map-invalid', `${localPath}: ${result.stdout}`);
      assert.match(result.json!.error!.message, /entry 1, field localPath: .* is inside .*which Episteme's builds write/);
      assert.deepEqual(rig.artifacts(), before, 'nothing was written');
    }
    // A copy outside the output folders is a source like any other, and the next build is a no-op.
    fs.copyFileSync(rig.path('chunks', 'search-index.json'), rig.path('copy.json'));
    rig.write({
      'map.json': JSON.stringify([one, { sourceUrl: 'https://example.test/self', localPath: 'copy.json', contentType: 'text/plain' }]),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    assert.equal((await rig.exec(['build', '--json'])).json!.data.actions, 0);
  } finally {
    rig.cleanup();
  }
});

test('with --debug, the human build summary shows a failed target its stack, as the internal-error hint promises', () => {
  const failed: TargetResult = {
    target: 'chunks/a.json',
    rule: 'chunk',
    status: 'failed',
    reasons: [],
    error: {
      code: 'internal-error',
      message: 'Unexpected failure in the chunk rule: boom',
      hint: 'This is a bug in Episteme; rerun with --debug for the stack trace and report it.',
      details: { debug: 'RangeError: boom\n    at encodeChunks (chunk-file.js:1:1)' },
    },
  };
  const counts = { 'up-to-date': 0, built: 0, unchanged: 0, failed: 1, skipped: 0, dirty: 0, 'maybe-dirty': 0 };
  const summary = { targets: [failed], counts, actions: 0, removed: [], ok: false };
  for (const verbose of [false, true]) {
    const { human } = summaryResult(summary, false, { failOn: 'error', verbose });
    const at = human.indexOf('  debug      chunks/a.json:');
    assert.ok(at > 0, human.join('\n'));
    assert.deepEqual(human.slice(at + 1, at + 3), ['    RangeError: boom', '        at encodeChunks (chunk-file.js:1:1)']);
  }
  // Without --debug the error has no stack, and the summary shows none.
  const plain = { ...failed, error: { ...failed.error!, details: {} } };
  const { human } = summaryResult({ ...summary, targets: [plain] }, false, { failOn: 'error', verbose: false });
  assert.ok(!human.some((line) => line.startsWith('  debug')));
});

test('a hint naming a path with a newline or control character pastes into a shell: ANSI-C quoted, plain ASCII', async (t) => {
  if (process.platform === 'win32' || spawnSync('bash', ['-c', 'true']).status !== 0) {
    t.skip('needs bash and file names that may hold a newline');
    return;
  }
  const rig = new Rig();
  try {
    const folder = 'ws\nx\u001b[31m';
    rig.write({
      [`${folder}/map.json`]: JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]),
      [`${folder}/doc.html`]: sampleHtml(1),
    });
    assert.equal((await rig.exec(['build', '--map', 'map.json', '--json'], { cwd: rig.path(folder) })).code, 0);
    fs.rmSync(rig.path(folder, 'chunks', 'search-index.json'));
    const index = `${folder}/chunks/search-index.json`;
    const human = await rig.exec(['query', '--term', 'zebra1', '--index', index]);
    const json = await rig.exec(['query', '--term', 'zebra1', '--index', index, '--json']);
    const hint = /^hint: Build it first: (episteme .*)$/m.exec(human.stderr)?.[1];
    assert.ok(hint !== undefined, human.stderr);
    assert.equal(hint, "episteme build --config $'ws\\x0ax\\x1b[31m/episteme.json' chunks/search-index.json");
    assert.equal(json.json!.error!.hint, `Build it first: ${hint}`, 'human and --json give the same command');
    // Pasted into a shell where it was shown, it builds that workspace.
    const ran = spawnSync('bash', ['-c', `"${process.execPath}" "${CLI}" ${hint.slice('episteme '.length)} --json`], {
      cwd: rig.dir,
      encoding: 'utf8',
    });
    assert.equal(ran.status, 0, ran.stdout + ran.stderr);
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--index', index, '--json'])).json!.data.total, 1);
  } finally {
    rig.cleanup();
  }
});

test('run from a folder deleted under the shell: a structured input error, not internal-error "uv_cwd"', (t) => {
  if (process.platform === 'win32') {
    t.skip('a process cannot stand in a deleted folder on Windows');
    return;
  }
  const rig = new Rig();
  try {
    const gone = rig.path('gone');
    for (const args of [['query', '--term', 'zebra1', '--json'], ['build', '--json'], ['build']]) {
      fs.mkdirSync(gone);
      // The shell enters the folder, removes it, then becomes the CLI there.
      const result = spawnSync(
        'sh',
        ['-c', 'cd "$1" && rmdir "$1" && shift 2 && exec "$@"', 'sh', gone, '-', process.execPath, CLI, ...args],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(result.status, 2, result.stdout + result.stderr);
      assert.doesNotMatch(result.stdout + result.stderr, /internal-error|uv_cwd|\n\s+at /);
      if (args.includes('--json')) {
        const envelope = JSON.parse(result.stdout) as { error: { code: string; message: string; hint: string } };
        assert.equal(envelope.error.code, 'input-not-found');
        assert.match(envelope.error.message, /current folder no longer exists/);
        assert.match(envelope.error.hint, /Change to a folder that exists/);
      } else assert.match(result.stderr, /^error \[input-not-found\]: The current folder no longer exists/m);
    }
  } finally {
    rig.cleanup();
  }
});

test('text holding NUL characters (UTF-16 without its byte order mark) is a warning naming the fix, not silent garbage', async () => {
  const rig = new Rig();
  try {
    const html = '<h1>Title</h1><p>hello utf sixteen world</p>';
    rig.write({
      'utf16.html': Buffer.from(html, 'utf16le'),
      'plain.html': '<h1>Plain</h1><p>a plain page, also sixteen words long</p>',
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/utf16', localPath: 'utf16.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.test/plain', localPath: 'plain.html', contentType: 'text/html' },
      ]),
    });
    const built = await rig.exec(['build', '--map', 'map.json', '--fail-on', 'warning', '--json']);
    assert.equal(built.json!.error!.code, 'document-diagnostics', built.stdout);
    const documents = built.json!.data.diagnostics.documents as { target: string; codes: string[] }[];
    assert.equal(documents.length, 1, JSON.stringify(documents));
    assert.match(documents[0]!.target, /utf16/);
    assert.ok(documents[0]!.codes.includes('nul-characters'));
    // The fix the message names reads it.
    rig.write({
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/utf16', localPath: 'utf16.html', contentType: 'text/html', charset: 'utf-16le' },
        { sourceUrl: 'https://example.test/plain', localPath: 'plain.html', contentType: 'text/html' },
      ]),
    });
    const fixed = await rig.exec(['build', '--fail-on', 'warning', '--json']);
    assert.equal(fixed.code, 0, fixed.stdout);
    assert.equal((await rig.exec(['query', '--term', 'sixteen', '--json'])).json!.data.total, 2);
  } finally {
    rig.cleanup();
  }
});

test('a refused --out names folders as paths from the current folder, never absolute ones', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]),
      'doc.html': sampleHtml(1),
    });
    assert.equal((await rig.exec(['build', '--map', 'map.json', '--json'])).code, 0);
    fs.mkdirSync(rig.path('sub'));
    for (const [out, says] of [
      ['../specs/x.json', /^--out \.\.\/specs\/x\.json: is inside \.\.\/specs, a folder/],
      ['../newdir/x.json', /^--out \.\.\/newdir\/x\.json: the folder \.\.\/newdir does not exist\./],
      ['../map.json/x.json', /^--out \.\.\/map\.json\/x\.json: \.\.\/map\.json is not a folder\./],
    ] as const) {
      const result = await rig.exec(['index', '--out', out, '--json'], { cwd: rig.path('sub') });
      assert.equal(result.json!.error!.code, 'usage-error', result.stdout);
      assert.match(result.json!.error!.message, says);
      assert.ok(!result.json!.error!.message.includes(rig.dir), result.json!.error!.message);
    }
  } finally {
    rig.cleanup();
  }
});

test('bytes of a binary format labelled as text are a warning naming the label that reads them', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'report.html': Buffer.from(textPdf(1, 5, 'mislabelled')),
      'logo.txt': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      'plain.html': '<h1>Plain</h1><p>a plain page that says what it is</p>',
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/report', localPath: 'report.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.test/logo', localPath: 'logo.txt', contentType: 'text/plain' },
        { sourceUrl: 'https://example.test/plain', localPath: 'plain.html', contentType: 'text/html' },
      ]),
    });
    const built = await rig.exec(['build', '--map', 'map.json', '--fail-on', 'warning', '--json']);
    assert.equal(built.json!.error!.code, 'document-diagnostics', built.stdout);
    const documents = built.json!.data.diagnostics.documents as { target: string; codes: string[] }[];
    const mismatched = documents.filter((d) => d.codes.includes('content-type-mismatch')).map((d) => d.target);
    assert.equal(mismatched.length, 2, JSON.stringify(documents));
    assert.ok(mismatched.some((t) => /report/.test(t)) && mismatched.some((t) => /logo/.test(t)));
    const report = fs.readdirSync(rig.path('specs')).find((name) => name.startsWith('example-test-report.'))!;
    const document = JSON.parse(fs.readFileSync(rig.path('specs', report), 'utf8')) as {
      payload: { diagnostics: { code: string; message: string }[] };
    };
    const warning = document.payload.diagnostics.find((d) => d.code === 'content-type-mismatch')!;
    assert.match(warning.message, /signature of a PDF \(application\/pdf\), but the source is labelled text\/html/);
    // The label the message names reads it as a PDF, without the warning.
    rig.write({
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/report', localPath: 'report.html', contentType: 'application/pdf' },
        { sourceUrl: 'https://example.test/plain', localPath: 'plain.html', contentType: 'text/html' },
      ]),
    });
    const fixed = await rig.exec(['build', '--fail-on', 'warning', '--json']);
    assert.equal(fixed.code, 0, fixed.stdout);
    assert.ok((await rig.exec(['query', '--term', 'mislabelled', '--json'])).json!.data.total > 0);
  } finally {
    rig.cleanup();
  }
});
