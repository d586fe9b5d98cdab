import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { PipelinedGets, type PipelineOptions } from '../../src/cache/http-pipeline.js';

/**
 * The pipelined GET client against real servers on 127.0.0.1: node:http (Content-Length and chunked
 * bodies, a keep-alive limit that closes connections mid-pipeline) and raw sockets (garbage, silence).
 */
function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

function client(port: number, overrides: Partial<PipelineOptions> = {}): { gets: PipelinedGets; outages: string[] } {
  const outages: string[] = [];
  const gets = new PipelinedGets({
    host: '127.0.0.1',
    port,
    headers: { authorization: 'Bearer t0ken-value' },
    timeoutMs: 5000,
    connections: 2,
    depth: 16,
    onOutage: (message) => {
      outages.push(message);
      gets.fail(message);
    },
    ...overrides,
  });
  return { gets, outages };
}

describe('pipelined GETs', () => {
  let server: http.Server;
  let port: number;
  const seenAuth = new Set<string>();
  let connections = 0;
  before(async () => {
    server = http.createServer((request, response) => {
      seenAuth.add(String(request.headers.authorization));
      const n = Number(request.url!.split('/').pop());
      const body = `body of ${n} `.repeat(1 + (n % 50));
      if (request.url!.startsWith('/missing/')) {
        response.writeHead(404, { 'content-length': '9' }).end('not found');
      } else if (n % 3 === 0) {
        // No length: node sends it chunked, in several chunks.
        response.writeHead(200);
        response.write(body.slice(0, 5));
        response.end(body.slice(5));
      } else {
        response.writeHead(200, { 'content-length': String(Buffer.byteLength(body)) }).end(body);
      }
    });
    // The server closes every connection after 7 requests (Connection: close), mid-pipeline.
    server.maxRequestsPerSocket = 7;
    server.on('connection', () => (connections += 1));
    port = await listen(server);
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('answers every request with its own body, across chunked bodies and connections the server closes', async () => {
    const { gets, outages } = client(port);
    const results = await Promise.all(Array.from({ length: 300 }, (_, n) => gets.get(`/cas/${n}`, 1 << 20)));
    results.forEach((result, n) => {
      assert.equal(result.status, 200);
      assert.equal(result.body!.toString(), `body of ${n} `.repeat(1 + (n % 50)), `request ${n}`);
    });
    const missing = await gets.get('/missing/1', 1 << 20);
    assert.equal(missing.status, 404);
    assert.deepEqual(outages, []);
    assert.deepEqual([...seenAuth], ['Bearer t0ken-value']);
    assert.ok(connections >= 300 / 7, `${connections} connections for 300 requests at 7 per connection`);
    gets.close();
  });

  it('drops a body larger than asked for (a miss) and answers the requests behind it', async () => {
    const { gets, outages } = client(port, { connections: 1 });
    const [small, large, next] = await Promise.all([gets.get('/cas/1', 1000), gets.get('/cas/49', 10), gets.get('/cas/2', 1000)]);
    assert.equal(small.body!.toString(), 'body of 1 '.repeat(2));
    assert.equal(large.status, 200);
    assert.equal(large.body, null);
    assert.equal(next.body!.toString(), 'body of 2 '.repeat(3));
    assert.deepEqual(outages, []);
    gets.close();
  });

  it('reports an unreadable response and a silent server as outages, and sends nothing after', async () => {
    const sockets: net.Socket[] = [];
    const garbage = net.createServer((socket) => {
      sockets.push(socket);
      socket.end('SPDY/9 what\r\n\r\n');
    });
    const silent = net.createServer((socket) => sockets.push(socket));
    try {
      const cases: [string, number, RegExp][] = [
        ['garbage', await listen(garbage), /unreadable response/],
        ['silent', await listen(silent), /timed out after 300 ms/],
      ];
      for (const [label, p, pattern] of cases) {
        const { gets, outages } = client(p, { timeoutMs: 300 });
        const settled = await Promise.allSettled([gets.get('/ac/1', 100), gets.get('/ac/2', 100)]);
        assert.ok(
          settled.every((s) => s.status === 'rejected'),
          label,
        );
        assert.equal(outages.length, 1, `${label}: ${JSON.stringify(outages)}`);
        assert.match(outages[0]!, pattern, label);
        await assert.rejects(gets.get('/ac/3', 100), /./, `${label}: a request after the outage was sent`);
        gets.close();
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => garbage.close(resolve));
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('reports a refused connection as an outage', async () => {
    const probe = net.createServer();
    const p = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
    const { gets, outages } = client(p);
    await assert.rejects(gets.get('/ac/1', 100));
    assert.equal(outages.length, 1);
    assert.match(outages[0]!, /ECONNREFUSED/);
  });
});

describe('interim 1xx responses', () => {
  /**
   * A raw server answering each pipelined GET with interim responses before the final one (RFC 9110
   * §15.2), in the same write as the final response for some requests and in a write of its own for
   * others, so the client sees an interim head alone and must wait for the final one.
   */
  function interimServer(interim: (n: number) => string): net.Server {
    return net.createServer((socket) => {
      socket.on('error', () => undefined);
      let buffer = '';
      let n = 0;
      socket.on('data', (data: Buffer) => {
        buffer += data.toString('latin1');
        for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
          const target = buffer.slice(4, buffer.indexOf(' ', 4));
          buffer = buffer.slice(end + 4);
          n += 1;
          const final = target.startsWith('/missing/')
            ? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'
            : `HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(target)}\r\n\r\n${target}`;
          if (n % 2 === 0) socket.write(interim(n) + final);
          else {
            socket.write(interim(n));
            socket.write(final);
          }
        }
      });
    });
  }

  it('skips 103 Early Hints and 100 Continue and gives each request its own final response', async () => {
    const server = interimServer(
      (n) => 'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n' + (n % 3 === 0 ? 'HTTP/1.1 100 Continue\r\n\r\n' : ''),
    );
    try {
      const { gets, outages } = client(await listen(server), { connections: 1, depth: 32 });
      const paths = Array.from({ length: 100 }, (_, n) => (n % 10 === 7 ? `/missing/${n}` : `/cas/${n}`));
      const results = await Promise.all(paths.map((p) => gets.get(p, 1000)));
      results.forEach((result, n) => {
        if (paths[n]!.startsWith('/missing/')) assert.equal(result.status, 404, paths[n]);
        else {
          assert.equal(result.status, 200, paths[n]);
          assert.equal(result.body!.toString(), paths[n]);
        }
      });
      assert.deepEqual(outages, []);
      gets.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reports 101 Switching Protocols, which no GET asked for, as an unreadable response', async () => {
    const server = interimServer(() => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    try {
      const { gets, outages } = client(await listen(server));
      await assert.rejects(gets.get('/cas/1', 1000));
      assert.equal(outages.length, 1);
      assert.match(outages[0]!, /unreadable response \(101 Switching Protocols/);
      gets.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
