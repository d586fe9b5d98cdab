import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleHtml } from '../helpers/rig.js';
import { TestServer } from '../capture/server.js';
import { Sandbox, assertBounded, assertFailure } from '../hostile/harness.js';

/**
 * extract, chunk, index and manual-ingest run offline: an HTTP source without a recorded snapshot is
 * snapshot-missing (exit 2) naming the URL and the command that captures it, and the loopback server
 * the manifest points at is never contacted. Only snapshot, build and pipeline capture.
 */

const BOUNDS = { maxMs: 60_000, maxRssMb: 400 };

test('offline stages never contact the network: a missing snapshot is snapshot-missing pointing at snapshot or build', async () => {
  const server = await TestServer.start({
    '/doc.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(sampleHtml(1));
    },
  });
  const box = new Sandbox();
  try {
    // The workspace config names the manifest, so every command (manual-ingest included) sees it.
    box.write({
      'manifest.json': JSON.stringify([{ url: server.url('/doc.html') }]),
      'episteme.json': JSON.stringify({ manifest: 'manifest.json' }),
    });
    const outside = box.outside();
    for (const args of [['extract'], ['chunk'], ['index'], ['manual-ingest']]) {
      const result = await box.run([...args, '--json']);
      assertFailure(result, { code: 'snapshot-missing', exit: 2, ...BOUNDS });
      assert.match(result.json!.error!.message, /127\.0\.0\.1.*doc\.html/, `${args[0]}: the message names the URL`);
      assert.match(result.json!.error!.hint!, /episteme snapshot/, `${args[0]}: the hint names the capturing command`);
      assert.match(result.json!.error!.hint!, /episteme build/);
      assert.equal(server.requests.length, 0, `${args[0]} contacted the network`);
    }
    // Human form: the same code and fix on stderr.
    const human = await box.run(['extract', '--manifest', 'manifest.json']);
    // manual-ingest records local files only: it does not take a manifest.
    assertFailure(await box.run(['manual-ingest', '--manifest', 'manifest.json', '--json']), { code: 'usage-error', exit: 2, ...BOUNDS });
    assert.equal(human.code, 2);
    assert.match(human.stderr, /error \[snapshot-missing\]/);
    assert.match(human.stderr, /hint: .*episteme snapshot/);
    assert.equal(server.requests.length, 0);
    assert.equal(box.outside(), outside, 'nothing written outside the workspace');

    // Captured once by `snapshot`, every offline stage then works from the recording alone.
    const captured = await box.run(['snapshot', '--json']);
    assertBounded(captured, BOUNDS);
    assert.equal(captured.code, 0, captured.stderr);
    assert.equal(server.hits('/doc.html'), 1);
    for (const args of [['extract'], ['chunk'], ['index']]) {
      const result = await box.run([...args, '--json']);
      assert.equal(result.code, 0, `${args[0]}: ${result.stdout}${result.stderr}`);
    }
    assert.equal(server.hits('/doc.html'), 1, 'the offline stages fetched nothing');
    assert.equal(box.outside(), outside);
  } finally {
    await server.close();
    box.cleanup();
  }
});

test('offline stages do not take the capture flags', async () => {
  const box = new Sandbox();
  try {
    for (const command of ['extract', 'chunk', 'index', 'manual-ingest']) {
      for (const flag of ['--refresh', '--max-age=10']) {
        const result = await box.run([command, flag, '--json']);
        assertFailure(result, { code: 'usage-error', exit: 2, ...BOUNDS });
      }
    }
  } finally {
    box.cleanup();
  }
});
