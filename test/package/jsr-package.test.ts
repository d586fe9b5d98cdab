import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, Rig, sampleHtml, sharedDir } from '../helpers/rig.js';
import { DENO_PERMISSIONS, ensureRuntimes, runtimeBin } from '../helpers/runtimes.js';

/**
 * The JSR package: jsr.json's ./cli entry passes `deno publish --dry-run` (no warnings), imports
 * without running anything, and run with exactly the permissions README.md lists it runs the
 * pipeline and a query with nothing on stderr. Deno comes from its npm package (test/helpers/runtimes.ts).
 */
const jsr = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'jsr.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, string>;
};
const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

test('jsr.json names the ./cli entry the spec names, at the npm version, and README runs it with the permissions the tests use', () => {
  assert.equal(jsr.name, '@ismail-elkorchi/episteme');
  assert.equal(jsr.version, pkg.version);
  assert.deepEqual(Object.keys(jsr.exports), ['./cli']);
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const commands = [...readme.matchAll(/deno run ((?:--allow-[a-z]+ )+)(?:\\\n\s*)?jsr:@ismail-elkorchi\/episteme\/cli/g)];
  assert.ok(commands.length > 0, 'README has no `deno run ... jsr:@ismail-elkorchi/episteme/cli` command');
  for (const [, flags] of commands) assert.deepEqual(flags!.trim().split(/\s+/), DENO_PERMISSIONS);
});

test('deno publish --dry-run passes without warnings', { timeout: 600_000 }, (t) => {
  const skip = ensureRuntimes();
  if (skip !== undefined) {
    t.skip(skip);
    return;
  }
  const result = spawnSync(runtimeBin('deno'), ['publish', '--dry-run', '--allow-dirty', '--no-lock'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(result.status, 0, result.stderr);
  const output = result.stdout + result.stderr;
  assert.match(output, /Dry run complete/);
  assert.doesNotMatch(output, /warning/i);
  // It publishes the entry and what the entry needs at run time, nothing from tests or sources.
  for (const needed of ['dist/bundle/cli.js', 'dist/bundle/cli.d.ts', 'dist/bundle/stage-worker.js', 'rules/w3c.json'])
    assert.ok(output.includes(`/${needed} (`), `${needed} is not published`);
  assert.doesNotMatch(output, /\/(test|src|dist\/test|dist\/src)\//);
});

const denoRunsTheCliEntry =
  'deno run of the ./cli entry: importing runs nothing; running it with the README permissions runs the pipeline and a query, ' +
  'nothing on stderr';
test(denoRunsTheCliEntry, {
  timeout: 600_000,
}, (t) => {
  const skip = ensureRuntimes();
  if (skip !== undefined) {
    t.skip(skip);
    return;
  }
  const entry = path.join(REPO_ROOT, jsr.exports['./cli']!);
  const rig = new Rig('episteme-deno-');
  try {
    const map = [
      { sourceUrl: 'https://example.test/doc/', localPath: 'src/doc.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/notes.txt', localPath: 'src/notes.txt', contentType: 'text/plain' },
    ];
    rig.write({ 'src/doc.html': sampleHtml(2), 'src/notes.txt': 'Plain notes about conditional requests and giraffes.\n' });
    // A PDF too when ../shared is there: pdfjs is where runtime-specific warnings came from.
    const shared = sharedDir();
    if (shared !== null) {
      fs.copyFileSync(path.join(shared, 'corpus/dev/pdf/multicolumn.pdf'), rig.path('src/multicolumn.pdf'));
      map.push({ sourceUrl: 'https://example.test/multicolumn.pdf', localPath: 'src/multicolumn.pdf', contentType: 'application/pdf' });
    } else t.diagnostic('../shared is absent: no PDF in this run');
    rig.write({ 'map.json': JSON.stringify(map) });
    const deno = (args: string[]) =>
      spawnSync(runtimeBin('deno'), args, { cwd: rig.dir, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1' } });
    const imported = deno([
      'eval',
      '--no-lock',
      `const cli = await import(${JSON.stringify(new URL(`file://${entry}`).href)}); console.log(typeof cli.main);`,
    ]);
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.stdout, 'function\n');
    assert.equal(imported.stderr, '');
    const run = (args: string[]) => deno(['run', '--no-lock', ...DENO_PERMISSIONS, entry, ...args]);
    const help = run(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: episteme <command>/);
    assert.match(help.stdout, /^ {2}pipeline +Run every stage/m);
    const pipeline = run(['pipeline', '--map', 'map.json', '--json']);
    assert.equal(pipeline.status, 0, pipeline.stderr + pipeline.stdout);
    assert.equal(pipeline.stderr, '');
    const documents = fs.readdirSync(rig.path('specs')).filter((name) => name.endsWith('.json') && name !== 'index.json');
    assert.equal(documents.length, map.length);
    const query = run(['query', '--index', 'chunks/search-index.json', '--term', 'giraffes', '--json']);
    assert.equal(query.status, 0, query.stderr);
    assert.equal(query.stderr, '');
    assert.ok((JSON.parse(query.stdout) as { data: { hits: unknown[] } }).data.hits.length >= 1, query.stdout);
  } finally {
    rig.cleanup();
  }
});
