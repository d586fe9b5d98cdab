import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, runCli } from '../helpers/rig.js';

/**
 * `--help` of the CLI and of every command, compared with the reviewed text in test/fixtures/help/.
 * The machine's core count (the --jobs default) is normalised to N, the version to VERSION. To update after a deliberate
 * change: `UPDATE_HELP=1 node --test dist/test/cli/help.test.js`, then read the diff before committing.
 */

const COMMANDS = [
  'build',
  'pipeline',
  'snapshot',
  'manual-ingest',
  'extract',
  'chunk',
  'index',
  'query',
  'show',
  'serve',
  'diff',
  'explain',
  'watch',
  'graph',
];
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'help');

function normalise(text: string): string {
  return text.replace(/all cores, here \d+/g, 'all cores, here N').replace(/^Episteme \d+\.\d+\.\d+\S*:/m, 'Episteme VERSION:');
}

for (const command of ['', ...COMMANDS]) {
  test(`episteme ${command || ''} --help matches its reviewed snapshot`.replace('  ', ' '), async () => {
    const result = await runCli(command ? [command, '--help'] : ['--help'], { cwd: REPO_ROOT });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    const file = path.join(FIXTURES, `${command || 'episteme'}.txt`);
    const text = normalise(result.stdout);
    if (process.env.UPDATE_HELP === '1') fs.writeFileSync(file, text);
    assert.equal(text, fs.readFileSync(file, 'utf8'));
    assert.doesNotMatch(text, /#0/, 'every value placeholder is named');
  });
}

test('the offline stages list no capture flags', async () => {
  for (const command of ['extract', 'chunk', 'index', 'manual-ingest']) {
    const { stdout } = await runCli([command, '--help'], { cwd: REPO_ROOT });
    for (const flag of ['--refresh', '--max-age', '--request-timeout-ms', '--max-response-bytes', '--fetch-concurrency'])
      assert.doesNotMatch(stdout, new RegExp(`^ +${flag}\\b`, 'm'), `${command} lists ${flag}`);
  }
  const { stdout } = await runCli(['manual-ingest', '--help'], { cwd: REPO_ROOT });
  assert.doesNotMatch(stdout, /^ +--manifest\b/m, 'manual-ingest records local files only');
});

test("every help example runs as written: its flags are the command's own", async () => {
  for (const command of COMMANDS) {
    const { stdout } = await runCli([command, '--help'], { cwd: REPO_ROOT });
    const flags = new Set([...stdout.matchAll(/^ {2}(--[a-z0-9-]+)/gm)].map((m) => m[1]!));
    for (const boolean of [...flags]) flags.add(`--no-${boolean.slice(2)}`);
    for (const m of stdout.matchAll(/^ {2}\$ episteme ([a-z-]+)(.*)$/gm)) {
      assert.equal(m[1], command, m[0]);
      for (const used of m[2]!.matchAll(/(?:^|\s)(--[a-z0-9-]+)/g))
        assert.ok(flags.has(used[1]!), `${command} example uses ${used[1]}, which it does not take: ${m[0]}`);
    }
  }
});
