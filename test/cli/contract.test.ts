import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rig, writeSmallWorkspace, assertNoStackTrace, runCli, REPO_ROOT } from '../helpers/rig.js';

const COMMANDS = [
  'build',
  'pipeline',
  'snapshot',
  'manual-ingest',
  'extract',
  'chunk',
  'index',
  'query',
  'diff',
  'explain',
  'watch',
  'graph',
];

test('help is human-readable for the CLI and every command, with options and defaults', async () => {
  const top = await runCli(['--help'], { cwd: REPO_ROOT });
  assert.equal(top.code, 0);
  for (const command of COMMANDS) assert.match(top.stdout, new RegExp(`^  ${command} +[A-Z]`, 'm'), command);
  const query = await runCli(['query', '--help'], { cwd: REPO_ROOT });
  assert.equal(query.code, 0);
  assert.match(query.stdout, /--max-chars/);
  assert.match(query.stdout, /default 10/);
  assert.match(query.stdout, /stale-index/);
});

test('bad input gives a structured error with exit code 2 and no stack trace', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const cases: { name: string; setup?: () => void; args: string[]; code: string; input?: string; cwd?: string }[] = [
      {
        name: 'not a workspace',
        args: ['build', '--json'],
        code: 'config-not-found',
        cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-empty-')),
      },
      { name: 'missing --config', args: ['build', '--config', 'nope.json', '--json'], code: 'config-not-found' },
      {
        name: 'malformed config',
        setup: () => rig.write({ 'bad1.json': '{"manualIngest": ' }),
        args: ['build', '--config', 'bad1.json', '--json'],
        code: 'config-invalid',
      },
      {
        name: 'unknown config field',
        setup: () => rig.write({ 'bad2.json': '{"manualIngest": "map.json", "colour": 1}' }),
        args: ['build', '--config', 'bad2.json', '--json'],
        code: 'config-invalid',
      },
      {
        name: 'unknown option',
        setup: () => rig.write({ 'bad3.json': '{"manualIngest": "map.json", "options": {"extract": {"nope": 1}}}' }),
        args: ['build', '--config', 'bad3.json', '--json'],
        code: 'config-invalid',
      },
      {
        name: 'map with ftp URL',
        setup: () => rig.write({ 'm1.json': '[{"sourceUrl": "ftp://example.test/x", "localPath": "src/doc0.html"}]' }),
        args: ['build', '--map', 'm1.json', '--json'],
        code: 'map-invalid',
      },
      {
        name: 'map duplicate by host case and default port',
        setup: () =>
          rig.write({
            'm2.json':
              '[{"sourceUrl": "https://Example.test:443/a", "localPath": "src/doc0.html"}, ' +
              '{"sourceUrl": "https://example.test/a", "localPath": "src/doc1.html"}]',
          }),
        args: ['build', '--map', 'm2.json', '--json'],
        code: 'map-invalid',
      },
      {
        name: 'map unknown field',
        setup: () => rig.write({ 'm3.json': '[{"sourceUrl": "https://example.test/a", "localPath": "src/doc0.html", "colour": "red"}]' }),
        args: ['build', '--map', 'm3.json', '--json'],
        code: 'map-invalid',
      },
      {
        name: 'map missing file',
        setup: () => rig.write({ 'm4.json': '[{"sourceUrl": "https://example.test/a", "localPath": "src/missing.html"}]' }),
        args: ['build', '--map', 'm4.json', '--json'],
        code: 'map-invalid',
      },
      {
        name: 'map not an array',
        setup: () => rig.write({ 'm5.json': '{"sourceUrl": "https://example.test/a"}' }),
        args: ['build', '--map', 'm5.json', '--json'],
        code: 'map-invalid',
      },
      {
        name: 'map on stdin over the bound',
        args: ['manual-ingest', '--map', '-', '--max-input-bytes', '10', '--json'],
        input: '[{"sourceUrl": "https://example.test/a", "localPath": "src/doc0.html"}]',
        code: 'input-too-large',
      },
      { name: 'unknown flag', args: ['build', '--frobnicate', '--json'], code: 'usage-error' },
      { name: 'bad flag value', args: ['query', '--index', 'x', '--term', 'a', '--limit', 'many', '--json'], code: 'usage-error' },
      { name: 'unknown command', args: ['frobnicate', '--json'], code: 'usage-error' },
      { name: 'missing index file', args: ['query', '--index', 'nope.json', '--term', 'a', '--json'], code: 'input-not-found' },
      { name: 'index --out - without --json', args: ['index', '--out', '-'], code: 'usage-error' },
      {
        name: 'unknown normativity filter',
        args: ['query', '--index', 'x', '--term', 'a', '--normativity', 'bogus', '--json'],
        code: 'usage-error',
      },
      {
        name: 'chunk options out of bounds',
        setup: () =>
          rig.write({ 'bad4.json': '{"manualIngest": "map.json", "options": {"chunk": {"maxChars": 200, "overlapChars": 150}}}' }),
        args: ['build', '--config', 'bad4.json', '--json'],
        code: 'config-invalid',
      },
    ];
    for (const c of cases) {
      c.setup?.();
      const result = await runCli(c.args, { cwd: c.cwd ?? rig.dir, ...(c.input !== undefined ? { input: c.input } : {}) });
      assert.equal(result.code, 2, `${c.name}: exit ${result.code}\n${result.stdout}${result.stderr}`);
      assertNoStackTrace(result);
      if (c.args.includes('--json')) {
        assert.equal(result.json!.ok, false, c.name);
        assert.equal(result.json!.error!.code, c.code, `${c.name}: ${result.json!.error!.message}`);
        assert.ok(result.json!.error!.message.length > 0);
      } else {
        assert.match(result.stderr, new RegExp(`error \\[${c.code}\\]`), c.name);
      }
    }
    const entryNamed = await runCli(['build', '--map', 'm4.json', '--json'], { cwd: rig.dir });
    assert.match(entryNamed.json!.error!.message, /entry 0, field localPath/);
    const dup = await runCli(['build', '--map', 'm2.json', '--json'], { cwd: rig.dir });
    assert.match(dup.json!.error!.message, /entry 1, field sourceUrl: duplicate of entry 0/);
    const human = await runCli(['build', '--map', 'm1.json'], { cwd: rig.dir });
    assert.match(human.stderr, /^error \[map-invalid\]: .*entry 0, field sourceUrl/m);
    assert.match(human.stderr, /^hint: /m);
    const debug = await runCli(['build', '--config', 'bad1.json', '--debug', '--json'], { cwd: rig.dir });
    assert.match(debug.json!.error!.debug ?? '', /SyntaxError/);
  } finally {
    rig.cleanup();
  }
});

test('the stage commands, stdin maps and progress follow the contract', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const map = rig.read('map.json');
    const ingest = await rig.exec(['manual-ingest', '--map', '-', '--snapshots', 'snaps', '--json'], { input: map });
    assert.equal(ingest.code, 0, ingest.stdout + ingest.stderr);
    assert.ok(fs.existsSync(rig.path('snaps/index.json')));
    const again = await rig.exec(['manual-ingest', '--map', '-', '--snapshots', 'snaps', '--json'], { input: map });
    assert.equal(again.json!.data.actions, 0, 'ingest is idempotent');

    const extract = await rig.exec(['extract', '--json', '--progress', 'always']);
    assert.equal(extract.code, 0, extract.stdout);
    assert.ok(fs.existsSync(rig.path('specs/index.json')));
    assert.ok(!fs.existsSync(rig.path('chunks')), 'extract builds only the extract stage');
    const progressLines = extract.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; target: string });
    assert.ok(progressLines.length > 0 && progressLines.every((p) => p.type === 'progress'));
    const quiet = await rig.exec(['chunk', '--json']);
    assert.equal(quiet.stderr, '', 'progress=auto is silent when stderr is not a terminal');
    assert.ok(fs.existsSync(rig.path('chunks/index.json')));
    const index = await rig.exec(['index', '--out', '-', '--json']);
    assert.equal(index.code, 0);
    assert.equal(index.json!.data.artifact.artifact, 'search-index');
    assert.equal(index.json!.data.artifact.fingerprint, JSON.parse(rig.read('chunks/search-index.json')).fingerprint);
    const human = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1', '--limit', '2']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^1\. \[[\d.]+\] https:\/\/example\.test\/doc1\/#alpha-1/m);
    const fromStdin = await rig.exec(['query', '--index', '-', '--chunk-index', 'chunks/index.json', '--term', 'zebra1', '--json'], {
      input: rig.read('chunks/search-index.json'),
    });
    assert.equal(fromStdin.code, 0, fromStdin.stdout + fromStdin.stderr);
    assert.equal(fromStdin.json!.data.hits[0].citation.fragment, 'alpha-1');
    assert.ok(fromStdin.json!.data.hits[0].citation.snapshotId.startsWith('snap-'));
  } finally {
    rig.cleanup();
  }
});

test('the built-in example builds and answers a query offline', async () => {
  const rig = new Rig();
  try {
    fs.cpSync(`${REPO_ROOT}/examples`, rig.dir, {
      recursive: true,
      filter: (src) => !/\/(snapshots|specs|chunks|\.episteme)(\/|$)/.test(src),
    });
    const build = await rig.exec(['pipeline', '--config', 'episteme.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const query = await rig.exec([
      'query',
      '--index',
      'chunks/search-index.json',
      '--term',
      'conditional request',
      '--limit',
      '3',
      '--json',
    ]);
    assert.equal(query.code, 0);
    assert.ok(query.json!.data.hits.length > 0);
    assert.equal(query.json!.data.hits[0].contentTrust, 'untrusted-source');
  } finally {
    rig.cleanup();
  }
});
