import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI } from '../helpers/rig.js';
import { readmeBlocks, runBlock } from '../helpers/readme.js';

/**
 * README's quick start ("A first workspace"), run as written in an empty folder with `episteme` on
 * PATH (here a shim to this checkout's launcher; test/package/readme-install.test.ts installs the
 * packed tarball as README says and runs the same block with the installed command).
 */
test("README's quick start runs as written in an empty folder", () => {
  const [block] = readmeBlocks('A first workspace');
  assert.ok(block !== undefined && /episteme pipeline/.test(block), 'README has no quick start block');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-readme-'));
  try {
    const bin = path.join(scratch, 'bin');
    const folder = path.join(scratch, 'empty');
    fs.mkdirSync(bin);
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(bin, 'episteme'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`, {
      mode: 0o755,
    });
    const run = runBlock(block, folder, bin);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^1\. \[[0-9.]+\] https:\/\/example\.test\/caching\n {3}\| § Caching$/m, 'the query answered');
    assert.match(run.stdout, /^7 targets, 0 would run/m, 'the dry run found nothing to do');
    assert.ok(fs.existsSync(path.join(folder, 'episteme.json')), 'the workspace is remembered');
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
