import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig, assertNoStackTrace } from '../helpers/rig.js';
import { TestServer, staticRoute, page } from '../capture/server.js';

/**
 * Answers a server can give that are not an HTTP response at all. got's own request timeout ends when
 * got considers the exchange over, so each of these must end by Episteme's own bound.
 */
test('a 101 Switching Protocols to a plain GET fails that source at once; the capture does not wait for ever', async () => {
  const rig = new Rig();
  const server = await TestServer.start({
    '/good': staticRoute(() => page('Good', 'A well-behaved page about zebras.')),
    // The server takes the socket over, as a WebSocket endpoint would, and never sends an HTTP response.
    '/upgrade': (_req, res) => {
      res.socket!.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    },
  });
  try {
    rig.write({ 'manifest.json': JSON.stringify([{ url: server.url('/good') }, { url: server.url('/upgrade') }]) });
    const started = Date.now();
    const result = await rig.exec(
      ['snapshot', '--manifest', 'manifest.json', '--request-timeout-ms', '20000', '--retries', '2', '--allow-partial', '--json'],
      { killAfterMs: 60_000 },
    );
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.ok(Date.now() - started < 20_000, `the 101 was not waited out to the request timeout (${Date.now() - started} ms)`);
    const rows = new Map<string, any>(result.json!.data.targets.map((row: any) => [row.target, row]));
    const failed = rows.get('snapshots/127-0-0-1-upgrade.json');
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal(failed.error.code, 'source-failed');
    assert.equal(failed.error.details.reason, 'http-status');
    assert.equal(failed.error.details.status, 101);
    assert.equal(failed.error.details.attempts, 1, 'a protocol switch is the answer, not a failure to retry');
    assert.match(failed.error.message, /101 \(Switching Protocols\)/);
    assert.match(failed.error.hint, /not a full response/);
    assert.equal(rows.get('snapshots/127-0-0-1-good.json').status, 'built', 'the other source is captured');
    assert.equal(server.hits('/upgrade'), 1);
  } finally {
    await server.close();
    rig.cleanup();
  }
});

test('a response that is not valid HTTP fails with protocol-error at once: no retry, a hint that is not "run again later"', async () => {
  const rig = new Rig();
  const server = await TestServer.start({
    // Two different Content-Lengths (a smuggling pattern), a control character in a header, a head past 16 KiB.
    '/two-lengths': (_req, res) => {
      res.socket!.end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n0123456789');
    },
    '/control': (_req, res) => {
      res.socket!.end('HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\x1b[31mx\r\nContent-Length: 5\r\n\r\nhello');
    },
    '/big-head': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'x-padding': 'a'.repeat(40_000) });
      res.end(page('Big', 'A head past the parser bound.'));
    },
  });
  try {
    const paths = ['/two-lengths', '/control', '/big-head'];
    rig.write({ 'manifest.json': JSON.stringify(paths.map((p) => ({ url: server.url(p) }))) });
    const result = await rig.exec(['snapshot', '--manifest', 'manifest.json', '--retries', '2', '--retry-delay-ms', '10', '--json'], {
      killAfterMs: 60_000,
    });
    assertNoStackTrace(result);
    assert.equal(result.code, 1);
    const rows = new Map<string, any>(result.json!.data.targets.map((row: any) => [row.target, row]));
    for (const p of paths) {
      const row = rows.get(`snapshots/127-0-0-1-${p.slice(1)}.json`);
      assert.equal(row.error.details.reason, 'protocol-error', `${p}: ${row.error.message}`);
      assert.equal(row.error.details.attempts, 1, `${p}: the same bytes come back on a retry`);
      assert.equal(server.hits(p), 1, p);
      assert.match(row.error.hint, /not answer in valid HTTP/);
      assert.ok(!row.error.message.includes('\x1b'), 'the message carries no raw escape');
    }
  } finally {
    await server.close();
    rig.cleanup();
  }
});
