import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * A blob larger than 8 MiB from the remote cache is streamed to `.episteme/cache/remote-blobs/`, renamed
 * to `<sha256>.<n>` once verified, then read and removed (remote-cache.ts). A build killed between the
 * rename and the read (a read of up to 8 x limits.maxFileBytes, so not a short window: seen in a loop of
 * SIGKILLs against restores of a 25 MB blob) left that file for good: the start-up sweep removed only
 * temp names, and only when the state had been touched, which a kill before the first record is not.
 */
test('blob files a killed restore left in .episteme/cache/remote-blobs are removed by the next build that runs', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig, 2);
    const built = await rig.exec(['build']);
    assert.equal(built.code, 0, built.stderr);
    const reference = rig.artifacts();

    const blobs = rig.path('.episteme/cache/remote-blobs');
    const hash = 'ab'.repeat(32);
    const left = [`${hash}.1`, `.episteme-tmp-4242-7-${hash}.2`];
    fs.mkdirSync(blobs, { recursive: true });
    for (const name of left) fs.writeFileSync(`${blobs}/${name}`, Buffer.alloc(64 * 1024, 1));
    fs.mkdirSync(`${blobs}/a-folder`); // not a file: left alone, as every sweep does

    // An edit: the build runs (the state itself is as the last clean commit left it).
    fs.appendFileSync(rig.path('src/doc0.html'), '<p>An edit after the kill.</p>');
    const next = await rig.exec(['build', '--json']);
    assert.equal(next.code, 0, next.stdout);
    assert.deepEqual(fs.readdirSync(blobs), ['a-folder'], 'the leftover blobs are gone');
    assert.notDeepEqual(rig.artifacts(), reference);
  } finally {
    rig.cleanup();
  }
});
