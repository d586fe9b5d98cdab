import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, startCli } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';
import { TestServer, page } from './server.js';
import { waitUntil } from '../helpers/wait.js';

test('SIGKILL in the middle of a download leaves the previous commit intact, and the next run recovers', async () => {
  const rig = new Rig();
  let mode: 'v1' | 'slow-v2' | 'v2' = 'v1';
  const v2 = Buffer.from(page('Version two', 'y'.repeat(2 * 1024 * 1024)));
  const server = await TestServer.start({
    '/spec': (_req, res) => {
      if (mode === 'v1') {
        const body = page('Version one', 'The first version.');
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(body)), etag: '"v1"' });
        res.end(body);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(v2.byteLength), etag: '"v2"' });
      if (mode === 'v2') {
        res.end(v2);
        return;
      }
      // Slow: 64 KiB every 50 ms, so the download is still running when the test kills the client.
      let offset = 0;
      const timer = setInterval(() => {
        if (res.destroyed || offset >= v2.byteLength) {
          clearInterval(timer);
          return;
        }
        res.write(v2.subarray(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      }, 50);
      res.on('close', () => clearInterval(timer));
    },
  });
  try {
    rig.write({ 'manifest.json': JSON.stringify([{ url: server.url('/spec') }]) });
    const first = await rig.exec(['snapshot', '--manifest', 'manifest.json']);
    assert.equal(first.code, 0, first.stderr);
    const committedIndex = rig.read('snapshots/index.json');
    const committedState = rig.read('.episteme/state.json');

    mode = 'slow-v2';
    const child = startCli(['snapshot', '--manifest', 'manifest.json'], rig.dir);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Wait until part of the body has reached the temp file, then kill without warning.
    const partial = (): string | undefined =>
      fs
        .readdirSync(rig.path('snapshots/bodies'))
        .find((name) => name.startsWith('.episteme-tmp-') && fs.statSync(rig.path('snapshots/bodies', name)).size > 0);
    await waitUntil(() => partial() !== undefined, 'the download started', { timeoutMs: 20_000 });
    child.kill('SIGKILL');
    await exited;

    assert.equal(rig.read('snapshots/index.json'), committedIndex, 'the committed index is untouched');
    assert.ok(verifyCommittedGeneration(rig.dir) >= 1, 'every file the committed index names is intact');
    const index = JSON.parse(committedIndex);
    assert.ok(fs.existsSync(rig.path('snapshots', index.payload.entries[0].body)), 'the previous body is still there');
    assert.equal(fs.readdirSync(rig.path('snapshots/records')).length, 1, 'no partial snapshot record');
    assert.equal(rig.read('.episteme/state.json'), committedState);

    mode = 'v2';
    const next = await rig.exec(['snapshot', '--manifest', 'manifest.json', '--json']);
    assert.equal(next.code, 0, next.stdout);
    assert.deepEqual(
      fs.readdirSync(rig.path('snapshots/bodies')).filter((name) => name.startsWith('.')),
      [],
      'the partial download was swept',
    );
    const after = JSON.parse(rig.read('snapshots/index.json'));
    assert.notEqual(after.payload.entries[0].snapshotId, index.payload.entries[0].snapshotId);
    assert.ok(verifyCommittedGeneration(rig.dir) >= 1);
  } finally {
    await server.close();
    rig.cleanup();
  }
});
