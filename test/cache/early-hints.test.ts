import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Rig, writeSmallWorkspace, assertNoStackTrace } from '../helpers/rig.js';

/**
 * A Bazel HTTP cache (PUT stores, GET answers 200 or 404) behind which every GET reply is preceded by
 * `103 Early Hints`, as a CDN or proxy in front of a cache may send. An interim response is not the
 * answer (RFC 9110 §15.2): a restoring build must read past it to the final one and get its hits.
 *
 * Uploads go to a node:http server; GETs to a raw one over the same store, writing each interim and
 * final response together in request order. (node:http writes a pipelined request's early hints as
 * soon as its handler runs, which under load can land inside the previous response's body.)
 */
async function earlyHintsCache(): Promise<{ uploadUrl: string; url: string; gets: () => number; close: () => Promise<void> }> {
  const store = new Map<string, Buffer>();
  let gets = 0;
  const uploads = http.createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      if (request.method === 'PUT') store.set(request.url ?? '', Buffer.concat(parts));
      response.writeHead(request.method === 'PUT' ? 201 : 404, { 'content-length': '0' }).end();
    });
  });
  const sockets = new Set<net.Socket>();
  const reads = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const path = /^GET (\S+) HTTP\/1\.1/.exec(pending.toString('latin1', 0, end))?.[1] ?? '';
        pending = pending.subarray(end + 4);
        gets += 1;
        const stored = store.get(path);
        const final =
          stored === undefined
            ? Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n')
            : Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${stored.length}\r\n\r\n`), stored]);
        socket.write(Buffer.concat([Buffer.from('HTTP/1.1 103 Early Hints\r\nLink: </cas/style.css>; rel=preload\r\n\r\n'), final]));
      }
    });
  });
  await new Promise<void>((resolve) => uploads.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => reads.listen(0, '127.0.0.1', resolve));
  return {
    uploadUrl: `http://127.0.0.1:${(uploads.address() as AddressInfo).port}/`,
    url: `http://127.0.0.1:${(reads.address() as AddressInfo).port}/`,
    gets: () => gets,
    close: async () => {
      uploads.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => uploads.close(() => resolve(undefined)));
      await new Promise((resolve) => reads.close(() => resolve(undefined)));
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
    const written = await writer.exec(['pipeline', '--remote-cache', cache.uploadUrl, '--remote-cache-upload', '--json']);
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
