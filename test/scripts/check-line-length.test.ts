import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, Rig } from '../helpers/rig.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'check-line-length.mjs');

function check(rig: Rig, files: string[] = []) {
  const run = spawnSync(process.execPath, [SCRIPT, ...files], { cwd: rig.dir, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A repository whose biome.json sets a 20-character line width, with lines on both sides of it. */
function writeRepository(rig: Rig): void {
  const exact = 'const a = 1234567890'; // 20 characters
  rig.write({
    'biome.json': JSON.stringify({
      files: { includes: ['src/**', 'bin/**', '*.json', '*.mjs', '!src/fixtures', '!bin/.work'] },
      formatter: { lineWidth: 20 },
    }),
    // 20 code points each: astral characters (2 UTF-16 units) and a combining accent (3 UTF-8 bytes).
    'src/a.ts': `${exact}\n${exact};\n'\u{1D538}\u{1D539}\u{1D53A} cafe\u0301 \u{1F642}\u{1F642}\u{1F642}    ';\n`,
    // CRLF line endings: the \r is not a character of the line.
    'src/deep/b.mts': `${exact}\r\n${exact}\r\n${exact}.5;\r\n`,
    'src/c.cts': `${exact}\n`,
    'src/view.tsx': `${exact}xx\n`,
    'src/notes.md': `${exact} not code\n`,
    'src/fixtures/long.ts': `${exact} excluded\n`,
    'bin/tool.cjs': `${exact} // tool\n`,
    'bin/.work/long.js': `${exact} excluded\n`,
    'other/x.ts': `${exact} not included\n`,
    'root.ts': `${exact} root file\n`,
    'setup.mjs': `${exact} // x\n`,
  });
}

test('check-line-length lists lines longer than biome.json lineWidth, in characters, in the files biome checks', () => {
  const rig = new Rig('episteme-line-length-');
  try {
    writeRepository(rig);
    const found = check(rig);
    assert.equal(found.status, 1, found.stderr);
    assert.equal(found.stdout, 'bin/tool.cjs:1: 28\nsetup.mjs:1: 25\nsrc/a.ts:2: 21\nsrc/deep/b.mts:3: 23\nsrc/view.tsx:1: 22\n');
    assert.equal(found.stderr, '5 line(s) longer than 20 characters (biome.json formatter.lineWidth)\n');

    // Named files are checked whatever the includes say.
    const named = check(rig, ['other/x.ts', 'src/c.cts']);
    assert.equal(named.status, 1);
    assert.equal(named.stdout, 'other/x.ts:1: 33\n');

    for (const file of ['bin/tool.cjs', 'setup.mjs', 'src/a.ts', 'src/deep/b.mts', 'src/view.tsx']) {
      fs.writeFileSync(rig.path(file), 'const a = 1;\n');
    }
    const clean = check(rig);
    assert.deepEqual(clean, { status: 0, stdout: '', stderr: '' });
  } finally {
    rig.cleanup();
  }
});

test('check-line-length refuses without a stack trace: no biome.json, an include form it cannot read, a missing file', () => {
  const rig = new Rig('episteme-line-length-');
  try {
    const noConfig = check(rig);
    assert.equal(noConfig.status, 2);
    assert.match(noConfig.stderr, /^check-line-length: cannot read biome\.json in .* \(run from the repository root\)/);

    rig.write({ 'biome.json': JSON.stringify({ files: { includes: ['src/**/*.ts'] }, formatter: { lineWidth: 20 } }) });
    const pattern = check(rig);
    assert.equal(pattern.status, 2);
    assert.match(pattern.stderr, /^check-line-length: unsupported biome\.json include pattern "src\/\*\*\/\*\.ts"/);

    const missing = check(rig, ['src/none.ts']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^check-line-length: cannot read src\/none\.ts: /);
    for (const result of [noConfig, pattern, missing]) assert.doesNotMatch(result.stderr, /\n\s+at /);
  } finally {
    rig.cleanup();
  }
});
