import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Rig, writeSmallWorkspace, assertNoStackTrace } from '../helpers/rig.js';

/**
 * A Bazel HTTP cache (PUT stores, GET answers 200 or 404) that sends `103 Early Hints` before every
 * GET reply, as a CDN or proxy in front of a cache may. An interim response is not the answer
 * (RFC 9110 §15.2): a restoring build must read past it to the final one and get its hits.
 */
async function earlyHintsCache(): Promise<{ url: string; gets: () => number; close: () => Promise<void> }> {
  const store = new Map<string, Buffer>();
  let gets = 0;
  const server = http.createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const key = request.url ?? '';
      if (request.method === 'PUT') {
        store.set(key, Buffer.concat(parts));
        response.writeHead(201, { 'content-length': '0' }).end();
        return;
      }
      gets += 1;
      response.writeEarlyHints({ link: '</cas/style.css>; rel=preload' });
      const stored = store.get(key);
      if (stored === undefined) response.writeHead(404, { 'content-length': '0' }).end();
      else response.writeHead(200, { 'content-length': String(stored.length) }).end(stored);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    gets: () => gets,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('a remote cache that sends 103 Early Hints before each GET reply: the restoring pipeline gets every hit', async () => {
  const cache = await earlyHintsCache();
  const writer = new Rig('episteme-early-hints-');
  const clone = new Rig('episteme-early-hints-');
  try {
    writeSmallWorkspace(writer, 3);
    writeSmallWorkspace(clone, 3);
    const written = await writer.exec(['pipeline', '--remote-cache', cache.url, '--remote-cache-upload', '--json']);
    assert.equal(written.code, 0, written.stdout);
    assert.equal(written.json!.data.remoteCache.uploaded, 7, JSON.stringify(written.json!.warnings));

    const restored = await clone.exec(['pipeline', '--remote-cache', cache.url, '--json']);
    assertNoStackTrace(restored);
    assert.equal(restored.code, 0, restored.stdout);
    assert.deepEqual(restored.json!.warnings, [], 'no remote-cache-unavailable');
    assert.equal(restored.json!.data.remoteCache.hits, 7);
    assert.equal(restored.json!.data.remoteCache.misses, 0);
    assert.ok(cache.gets() > 7, `${cache.gets()} GETs`);
    assert.deepEqual(clone.artifacts(), writer.artifacts(), 'a build from the cache differs from a local build');
  } finally {
    await cache.close();
    writer.cleanup();
    clone.cleanup();
  }
});
