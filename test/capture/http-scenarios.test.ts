import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { Rig, assertNoStackTrace } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';
import { TestServer, staticRoute, page } from './server.js';

type TargetRow = {
  target: string;
  status: string;
  reasons: { reason: string }[];
  output?: string;
  error?: { code: string; message: string; details?: { reason?: string; url?: string; attempts?: number } };
};

const BOUNDS = [
  '--request-timeout-ms',
  '1500',
  '--connect-timeout-ms',
  '1500',
  '--retries',
  '1',
  '--retry-delay-ms',
  '20',
  '--max-retry-after-ms',
  '1500',
  '--max-response-bytes',
  '100000',
  '--max-redirects',
  '3',
  '--fetch-concurrency',
  '16',
];

function rows(result: { json: { data?: { targets?: TargetRow[] } } | null }): Map<string, TargetRow> {
  return new Map((result.json?.data?.targets ?? []).map((row) => [row.target, row]));
}

/** Each misbehaviour of the issue on its own path; each ends in a snapshot or a per-source error, in one run. */
test('every misbehaving server ends in a correct snapshot or a clear per-source error, and the other sources are unaffected', async () => {
  const rig = new Rig();
  const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x61));
  const server = await TestServer.start({
    '/good': staticRoute(() => page('Good', 'A well-behaved page about zebras.'), { etag: () => '"g1"' }),
    '/flaky': (_req, res, n) => {
      if (n === 1) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('busy');
        return;
      }
      staticRoute(() => page('Flaky', 'Served on the second attempt.'))(_req, res, n);
    },
    '/throttled': (_req, res, n) => {
      if (n === 1) {
        res.writeHead(429, { 'retry-after': '1' });
        res.end();
        return;
      }
      staticRoute(() => page('Throttled', 'Served after Retry-After.'))(_req, res, n);
    },
    '/patience': (_req, res) => {
      res.writeHead(429, { 'retry-after': '3600' });
      res.end();
    },
    '/drip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(timer));
    },
    '/huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // no Content-Length: only the stream bound can stop it
      const chunk = Buffer.alloc(16 * 1024, 0x62);
      let sent = 0;
      const pump = (): void => {
        while (sent < 50 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.byteLength;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    },
    '/bomb': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': String(bomb.byteLength) });
      res.end(bomb);
    },
    '/gzipped': (_req, res) => {
      const body = zlib.gzipSync(page('Gzipped', 'Compressed in transit.'));
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-encoding': 'gzip',
        'content-length': String(body.byteLength),
      });
      res.end(body);
    },
    '/loop': (req, res) => {
      const n = Number(new URL(req.url!, 'http://x').searchParams.get('n') ?? '0');
      res.writeHead(302, { location: `/loop?n=${n + 1}` });
      res.end();
    },
    '/hop1': (_req, res) => {
      res.writeHead(301, { location: '/hop2' });
      res.end();
    },
    '/hop2': (_req, res) => {
      res.writeHead(307, { location: '/good' });
      res.end();
    },
    '/to-file': (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    },
    '/to-ftp': (_req, res) => {
      res.writeHead(301, { location: 'ftp://127.0.0.1/pub/spec.txt' });
      res.end();
    },
    '/reset': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
      res.write(Buffer.alloc(5000, 0x63), () => setTimeout(() => res.socket?.resetAndDestroy(), 20));
    },
    '/short': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      res.write(Buffer.alloc(1000, 0x64), () => setTimeout(() => res.socket?.end(), 20));
    },
    '/gone': (_req, res) => {
      res.writeHead(410, { 'content-type': 'text/plain' });
      res.end('gone');
    },
    '/latin': (_req, res) => {
      const body = Buffer.from(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Caf\u00e9</title></head>' +
          '<body><h1>Caf\u00e9</h1><p>Cr\u00e8me br\u00fbl\u00e9e.</p></body></html>',
        'latin1',
      );
      res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1', 'content-length': String(body.byteLength) });
      res.end(body);
    },
  });
  try {
    const paths = [
      '/good',
      '/flaky',
      '/throttled',
      '/patience',
      '/drip',
      '/huge',
      '/bomb',
      '/gzipped',
      '/loop',
      '/hop1',
      '/to-file',
      '/to-ftp',
      '/reset',
      '/short',
      '/gone',
      '/latin',
    ];
    rig.write({ 'manifest.json': JSON.stringify(paths.map((p) => ({ url: server.url(p) }))) });
    const result = await rig.exec(['snapshot', '--manifest', 'manifest.json', ...BOUNDS, '--json']);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.equal(result.json!.error!.code, 'target-failed');
    const byTarget = rows(result);
    const id = (p: string): string => `snapshots/127-0-0-1${p.replace(/[^a-z0-9]+/g, '-')}.json`;
    const expectFailure: Record<string, string> = {
      '/patience': 'retry-after-too-long',
      '/drip': 'timeout',
      '/huge': 'too-large',
      '/bomb': 'too-large',
      '/loop': 'redirect-limit',
      '/to-file': 'redirect-scheme',
      '/to-ftp': 'redirect-scheme',
      '/reset': 'connection-reset',
      '/short': 'body-truncated',
      '/gone': 'http-status',
    };
    for (const p of paths) {
      const row = byTarget.get(id(p));
      assert.ok(row, `no row for ${p}: ${[...byTarget.keys()].join(', ')}`);
      if (expectFailure[p]) {
        assert.equal(row.status, 'failed', `${p}: ${JSON.stringify(row)}`);
        assert.equal(row.error!.code, 'source-failed', p);
        assert.equal(row.error!.details!.reason, expectFailure[p], `${p}: ${row.error!.message}`);
        assert.equal(row.error!.details!.url, server.url(p));
        assert.ok(row.error!.message.includes(server.url(p)), `${p}: message names the URL`);
      } else {
        assert.equal(row.status, 'built', `${p}: ${JSON.stringify(row)}`);
      }
    }
    // Retries: 503 then 200, 429 (Retry-After 1) then 200; the drip and the reset were tried twice (--retries 1).
    assert.equal(server.hits('/flaky'), 2);
    assert.equal(server.hits('/throttled'), 2);
    assert.equal(server.hits('/patience'), 1, 'a Retry-After over the cap is not waited for');
    assert.equal(server.hits('/drip'), 2);
    assert.equal(server.hits('/reset'), 2);
    assert.equal(server.hits('/gone'), 1, '4xx is not retried');
    assert.equal(byTarget.get(id('/reset'))!.error!.details!.attempts, 2);
    assert.ok(server.hits('/loop') === 4, `loop followed ${server.hits('/loop')} times`);

    // Failed sources commit nothing: only the bodies of the 6 good sources exist (/hop1 ends at /good: same
    // bytes, one body), and no index names the failures.
    const bodies = fs.readdirSync(rig.path('snapshots/bodies'));
    assert.equal(bodies.length, 5, bodies.join(', '));
    assert.equal(bodies.filter((name) => name.startsWith('.')).length, 0, 'no temp file left');
    assert.ok(!fs.existsSync(rig.path('snapshots/index.json')), 'the snapshot index is not committed while sources fail');

    // Redirects within the bound: the final URL is recorded; the gzip body is stored decoded.
    const record = (p: string): Record<string, any> => JSON.parse(rig.read(byTarget.get(id(p))!.output!));
    assert.equal(record('/hop1').observation.finalUrl, server.url('/good'));
    assert.deepEqual(record('/hop1').observation.redirects, [server.url('/hop2'), server.url('/good')]);
    assert.equal(record('/hop1').sha256, record('/good').sha256);
    assert.notEqual(record('/hop1').snapshotId, record('/good').snapshotId, 'the id names the source URL too');
    assert.equal(record('/gzipped').observation.contentEncoding, 'gzip');
    assert.match(fs.readFileSync(rig.path(`snapshots/bodies/${record('/gzipped').sha256}`), 'utf8'), /Compressed in transit/);
    assert.ok(
      record('/gzipped').observation.declaredLength < record('/gzipped').byteLength,
      'declared (wire) vs received (decoded) length',
    );

    // Charset: the header wins over <meta>, and both are recorded with which one was used.
    const latin = record('/latin');
    assert.equal(latin.charset, 'iso-8859-1');
    assert.equal(latin.charsetSource, 'header');
    assert.equal(latin.headerCharset, 'iso-8859-1');
    assert.equal(latin.documentCharset, 'utf-8');
    assert.equal(latin.contentType, 'text/html');
    assert.equal(latin.observation.contentTypeHeader, 'text/html; charset=ISO-8859-1');
    const good = record('/good');
    assert.equal(good.observation.status, 200);
    assert.equal(good.observation.etag, '"g1"');
    assert.equal(good.observation.declaredLength, good.byteLength);
    assert.equal(good.observation.receivedLength, good.byteLength);
    assert.match(good.observation.observedAt, /^\d{4}-\d\d-\d\dT/);
    assert.equal(good.captureMethod, 'http');

    // --allow-partial commits the index from the sources that succeeded; it is hash-valid.
    const partial = await rig.exec(['snapshot', '--manifest', 'manifest.json', ...BOUNDS, '--no-refresh', '--allow-partial', '--json']);
    assert.equal(partial.code, 1);
    const index = JSON.parse(rig.read('snapshots/index.json'));
    assert.equal(index.payload.entries.length, 6);
    assert.equal(index.payload.missingSources.length, 10);
    assert.ok(verifyCommittedGeneration(rig.dir) >= 6);
  } finally {
    await server.close();
    rig.cleanup();
  }
});

/** A Location with a user name or password would send them (Authorization: Basic) and record them. */
test('a redirect to a URL with credentials fails with redirect-credentials; the credentials are neither sent nor stored', async () => {
  const rig = new Rig();
  const server = await TestServer.start({
    '/ok': staticRoute(() => page('Ok', 'Behind a redirect with credentials.')),
    '/good': staticRoute(() => page('Good', 'A page without redirects.')),
  });
  server.route('/cred', (_req, res) => {
    res.writeHead(302, { location: server.url('/ok').replace('//', '//user:s3cr3t-word@') });
    res.end();
  });
  server.route('/cred-ftp', (_req, res) => {
    res.writeHead(302, { location: 'ftp://user:s3cr3t-word@127.0.0.1/file' });
    res.end();
  });
  try {
    const paths = ['/cred', '/cred-ftp', '/good'];
    rig.write({ 'manifest.json': JSON.stringify(paths.map((p) => ({ url: server.url(p) }))) });
    for (const extra of [[], ['--allow-partial']]) {
      const result = await rig.exec(['snapshot', '--manifest', 'manifest.json', ...BOUNDS, ...extra, '--json']);
      assertNoStackTrace(result);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      const byTarget = rows(result);
      const cred = byTarget.get('snapshots/127-0-0-1-cred.json')!;
      assert.equal(cred.status, 'failed', JSON.stringify(cred));
      assert.equal(cred.error!.details!.reason, 'redirect-credentials', cred.error!.message);
      assert.match((cred.error as { hint?: string }).hint ?? '', /credentials/);
      assert.equal(byTarget.get('snapshots/127-0-0-1-cred-ftp.json')!.error!.details!.reason, 'redirect-scheme');
      assert.notEqual(byTarget.get('snapshots/127-0-0-1-good.json')!.status, 'failed');
      assert.doesNotMatch(result.stdout + result.stderr, /s3cr3t/, 'no message shows the password');
    }
    assert.equal(server.hits('/ok'), 0, 'the redirect is not followed');
    assert.ok(!server.requests.some((request) => request.headers.authorization !== undefined), 'no Authorization header sent');
    const leaks: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(full);
        else if (entry.name !== 'manifest.json' && fs.readFileSync(full, 'latin1').includes('s3cr3t')) leaks.push(full);
      }
    };
    walk(rig.dir);
    assert.deepEqual(leaks, [], 'no stored file holds the credentials');
    assert.ok(fs.existsSync(rig.path('snapshots/index.json')), '--allow-partial committed the good source');
  } finally {
    await server.close();
    rig.cleanup();
  }
});

test('a 2xx other than 200 or a 3xx that is not followed: http-status with a hint to check the URL, not to run again later', async () => {
  const rig = new Rig();
  const server = await TestServer.start({
    '/empty': (_req, res) => {
      res.writeHead(204);
      res.end();
    },
    '/partial': (_req, res) => {
      res.writeHead(206, { 'content-type': 'text/html', 'content-range': 'bytes 0-9/100' });
      res.end('<!DOCTYPE ');
    },
    '/choices': (_req, res) => {
      res.writeHead(300, { 'content-type': 'text/html' });
      res.end('<p>pick one</p>');
    },
    '/down': (_req, res) => {
      res.writeHead(500);
      res.end();
    },
  });
  try {
    const paths = ['/empty', '/partial', '/choices', '/down'];
    rig.write({ 'manifest.json': JSON.stringify(paths.map((p) => ({ url: server.url(p) }))) });
    const result = await rig.exec(['snapshot', '--manifest', 'manifest.json', ...BOUNDS, '--retries', '0', '--json']);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const byTarget = rows(result);
    for (const [p, status] of [
      ['/empty', 204],
      ['/partial', 206],
      ['/choices', 300],
    ] as const) {
      const error = byTarget.get(`snapshots/127-0-0-1${p.replace('/', '-')}.json`)!.error as TargetRow['error'] & { hint?: string };
      assert.equal(error.details!.reason, 'http-status', p);
      assert.match(error.hint ?? '', new RegExp(`answered ${status}, not a full response: check that the url .* status 200`), p);
    }
    const down = byTarget.get('snapshots/127-0-0-1-down.json')!.error as TargetRow['error'] & { hint?: string };
    assert.match(down.hint ?? '', /The server failed: run again later/, 'a 5xx keeps its hint');
  } finally {
    await server.close();
    rig.cleanup();
  }
});
