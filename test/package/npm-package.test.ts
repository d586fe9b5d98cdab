import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, sampleHtml } from '../helpers/rig.js';

/**
 * The npm package as a user gets it: only the files it uses, a lockfile npm agrees with, and a
 * tarball that installs without devDependencies and runs.
 */
const npm = (args: string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> =>
  spawnSync('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

/** Every file the package may ship; anything else (tests, sources, maps, build state) is a leak. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^bin\/episteme\.cjs$/,
  /^dist\/bundle\/cli\.d\.ts$/,
  /^dist\/bundle\/[A-Za-z0-9_-]+\.(js|cjs)$/,
  /^rules\/[a-z0-9-]+\.json$/,
  /^schema\/[a-z0-9-]+\.schema\.json$/,
];

test('npm pack ships exactly the files the package uses', () => {
  const packed = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], REPO_ROOT);
  assert.equal(packed.status, 0, packed.stderr);
  const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path).sort();
  const leaked = files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)));
  assert.deepEqual(leaked, [], 'files outside the allow-list');
  // And everything it needs is there: the launcher, both bundles, the stage worker, every rule and schema.
  const needed = [
    'bin/episteme.cjs',
    'dist/bundle/cli.js',
    'dist/bundle/query-main.cjs',
    'dist/bundle/stage-worker.js',
    'dist/bundle/stage-worker-main.cjs',
  ];
  for (const folder of ['rules', 'schema'])
    for (const name of fs.readdirSync(path.join(REPO_ROOT, folder))) needed.push(`${folder}/${name}`);
  for (const file of needed) assert.ok(files.includes(file), `${file} is not shipped`);
  // Every ES module chunk the bundle imports is shipped (no chunk left behind by a stale build).
  for (const file of files.filter((name) => name.startsWith('dist/bundle/'))) {
    for (const [, chunk] of fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').matchAll(/from\s*"\.\/([^"]+)"|import\("\.\/([^"]+)"\)/g)) {
      if (chunk !== undefined) assert.ok(files.includes(`dist/bundle/${chunk}`), `${file} imports ${chunk}, which is not shipped`);
    }
  }
});

test('package-lock.json is what npm would write for package.json (npm ci leaves the tree clean)', (t) => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-lock-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(REPO_ROOT, file), path.join(scratch, file));
    const result = npm(['install', '--package-lock-only', '--ignore-scripts'], scratch, 120_000);
    if (result.status !== 0 && /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN/.test(result.stderr)) {
      t.skip(`the npm registry is unreachable: ${result.stderr.trim().split('\n').at(-1)}`);
      return;
    }
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      fs.readFileSync(path.join(scratch, 'package-lock.json'), 'utf8'),
      fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'),
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

test('the packed tarball installs without devDependencies and runs --help, pipeline and query; importing episteme/cli runs nothing', {
  timeout: 600_000,
}, (t) => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-npm-'));
  try {
    const packed = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], REPO_ROOT);
    assert.equal(packed.status, 0, packed.stderr);
    const tarball = path.join(scratch, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    const app = path.join(scratch, 'app');
    fs.mkdirSync(app);
    const installed = npm(['install', '--omit=dev', tarball], app);
    if (installed.status !== 0 && /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN/.test(installed.stderr)) {
      t.skip(`the npm registry is unreachable: ${installed.stderr.trim().split('\n').at(-1)}`);
      return;
    }
    assert.equal(installed.status, 0, installed.stderr);
    for (const devOnly of ['typescript', 'esbuild', 'ajv', 'better-sqlite3']) {
      assert.ok(!fs.existsSync(path.join(app, 'node_modules', devOnly)), `devDependency ${devOnly} was installed`);
    }
    const run = (args: string[]): SpawnSyncReturns<string> =>
      spawnSync('npx', ['--no-install', 'episteme', ...args], { cwd: app, encoding: 'utf8', timeout: 120_000 });
    const help = run(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: episteme <command>/);
    assert.match(help.stdout, /^ {2}pipeline +Run every stage/m);
    fs.mkdirSync(path.join(app, 'src'));
    fs.writeFileSync(path.join(app, 'src', 'doc.html'), sampleHtml(1));
    fs.writeFileSync(path.join(app, 'src', 'notes.txt'), 'Plain notes about conditional requests and giraffes.\n');
    fs.writeFileSync(
      path.join(app, 'map.json'),
      JSON.stringify([
        { sourceUrl: 'https://example.test/doc/', localPath: 'src/doc.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.test/notes.txt', localPath: 'src/notes.txt', contentType: 'text/plain' },
      ]),
    );
    const pipeline = run(['pipeline', '--map', 'map.json', '--json']);
    assert.equal(pipeline.status, 0, pipeline.stderr + pipeline.stdout);
    const query = run(['query', '--index', 'chunks/search-index.json', '--term', 'giraffe', '--json']);
    assert.equal(query.status, 0, query.stderr);
    const hits = (JSON.parse(query.stdout) as { data: { hits: unknown[] } }).data.hits;
    assert.ok(hits.length >= 1, query.stdout);
    // The ./cli export is a function; importing it prints nothing and changes nothing.
    const imported = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', 'const cli = await import("episteme/cli"); process.stdout.write(typeof cli.main);'],
      { cwd: app, encoding: 'utf8' },
    );
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.stdout, 'function');
    assert.equal(imported.stderr, '');
    // Only ./cli and package.json are exported.
    const deep = spawnSync(process.execPath, ['--input-type=module', '-e', 'await import("episteme/dist/bundle/cli.js")'], {
      cwd: app,
      encoding: 'utf8',
    });
    assert.match(deep.stderr, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
