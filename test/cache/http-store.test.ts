import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type * as net from 'node:net';
import { HttpStore } from '../../src/cache/http-store.js';
import { Secrets } from '../../src/cache/secrets.js';
import { CacheUnavailable } from '../../src/cache/store.js';

/**
 * PUTs over node:http's keep-alive pool against a real server on 127.0.0.1 that drops a connection
 * when a second request arrives on it, as a server does whose idle timeout or request limit closes
 * a kept-alive connection just as the client reuses it.
 */
const hash = (n: number): string => n.toString(16).padStart(64, '0');

describe('HTTP cache store: kept-alive connections the server closed', () => {
  let server: http.Server;
  let base: URL;
  let mode: 'drop-reused' | 'drop-all' = 'drop-reused';
  const stored = new Map<string, string>();
  let requests = 0;
  before(async () => {
    const served = new WeakMap<net.Socket, number>();
    server = http.createServer((request, response) => {
      requests += 1;
      const count = (served.get(request.socket) ?? 0) + 1;
      served.set(request.socket, count);
      if (mode === 'drop-all' || count > 1) {
        request.socket.destroy();
        return;
      }
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        stored.set(request.url!, Buffer.concat(parts).toString());
        response.writeHead(201, { 'content-length': '0' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/cache/`);
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('sends a PUT once more on a fresh connection when the reused one was closed, without an outage', async () => {
    const store = new HttpStore(base, { headers: {}, secrets: new Secrets(), timeoutMs: 5000 });
    try {
      requests = 0;
      for (let n = 1; n <= 3; n++) await store.put('cas', hash(n), Buffer.from(`blob ${n}`));
      assert.equal(stored.get(`/cache/cas/${hash(3)}`), 'blob 3');
      assert.deepEqual(
        [1, 2, 3].map((n) => stored.get(`/cache/cas/${hash(n)}`)),
        ['blob 1', 'blob 2', 'blob 3'],
      );
      // Each PUT after the first was dropped once on its reused connection, then sent again.
      assert.equal(requests, 5);
    } finally {
      store.close();
    }
  });

  it('still reports an outage when a fresh connection is dropped too (no endless retries)', async () => {
    mode = 'drop-all';
    const store = new HttpStore(base, { headers: {}, secrets: new Secrets(), timeoutMs: 5000 });
    try {
      requests = 0;
      await assert.rejects(store.put('cas', hash(9), Buffer.from('blob 9')), CacheUnavailable);
      assert.equal(requests, 1);
    } finally {
      store.close();
      mode = 'drop-reused';
    }
  });
});
