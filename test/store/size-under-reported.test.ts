import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { Rig } from '../helpers/rig.js';

/**
 * fstat's size is what the file system says, not what a read returns: procfs (and some FUSE or network
 * mounts) report 0 for a file full of text, and a file appended while it is read holds more than its
 * fstat said. A source like that must be captured whole (its bytes, as `cat` reads them), never cut at
 * the reported size plus one probing byte and recorded as if it were the file.
 */
const PROC_FILE = '/proc/version';
const SKIP =
  process.platform !== 'linux' || !fs.existsSync(PROC_FILE) || fs.statSync(PROC_FILE).size !== 0
    ? `${PROC_FILE} is not a file whose fstat size (0) is below its content on this platform`
    : false;

test('a source whose fstat under-reports its size is captured whole', { skip: SKIP }, async () => {
  const rig = new Rig();
  try {
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/version', localPath: PROC_FILE, contentType: 'text/plain' }]),
    });
    const built = await rig.exec(['pipeline', '--map', 'map.json', '--json']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const expected = fs.readFileSync(PROC_FILE);
    assert.ok(expected.length > 1, `${PROC_FILE} holds text`);
    const sha256 = createHash('sha256').update(expected).digest('hex');
    const records = fs.readdirSync(rig.path('snapshots', 'records'));
    assert.equal(records.length, 1);
    const record = JSON.parse(rig.read(`snapshots/records/${records[0]}`)) as { byteLength: number; sha256: string };
    assert.equal(record.byteLength, expected.length, 'the snapshot holds every byte a read of the file returns');
    assert.equal(record.sha256, sha256);
    assert.deepEqual(fs.readFileSync(rig.path('snapshots', 'bodies', sha256)), expected);
  } finally {
    rig.cleanup();
  }
});
