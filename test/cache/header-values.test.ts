import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rig, writeSmallWorkspace, assertNoStackTrace } from '../helpers/rig.js';
import { HostileCache } from '../helpers/hostile-cache.js';
import { HttpStore } from '../../src/cache/http-store.js';
import { Secrets } from '../../src/cache/secrets.js';
import { CacheUnavailable } from '../../src/cache/store.js';

/**
 * Header values for the remote cache (EPISTEME_REMOTE_CACHE_HEADERS and its file) must be what an HTTP
 * field value may hold (RFC 9110 §5.5: printable ASCII, space, tab, and obs-text 0x80-0xFF). Anything
 * else is refused when the headers are read, as config-invalid, without quoting the value (a token);
 * and should a request still be refused as node:http builds it, that is an outage of the cache, never
 * a failed build. Against a raw-socket server on 127.0.0.1 that records each request's head as sent.
 */
const SECRET = 'tok-5c1e9a7f3b2d4e6081a3';

describe('remote cache header values', () => {
  let server: HostileCache;
  const rigs: Rig[] = [];
  const rig = (): Rig => {
    const made = new Rig('episteme-header-values-');
    writeSmallWorkspace(made, 3);
    rigs.push(made);
    return made;
  };
  before(async () => {
    server = await new HostileCache().start();
  });
  after(async () => {
    await server.stop();
    for (const r of rigs) r.cleanup();
  });

  it('refuses a value with a control character or a character beyond Latin-1 as config-invalid, naming no part of it', async () => {
    const values: [string, string][] = [
      ['a bell', `Bearer ${SECRET}\u0007`],
      ['an escape sequence', `\u001b[31m${SECRET}`],
      ['DEL', `${SECRET}\u007f`],
      ['a lone carriage return', `${SECRET}\rx`],
      ['a smart quote', `\u201c${SECRET}\u201d`],
      ['an emoji', `${SECRET}\u{1f511}`],
    ];
    const headersFile = path.join(rig().dir, 'headers');
    for (const [label, value] of values) {
      for (const how of ['environment', 'file'] as const) {
        const line = `X-Cache-Token: ${value}`;
        if (how === 'file') fs.writeFileSync(headersFile, `# the cache's token\n${line}\n`);
        const env =
          how === 'file'
            ? { ...process.env, EPISTEME_REMOTE_CACHE_HEADERS_FILE: headersFile }
            : { ...process.env, EPISTEME_REMOTE_CACHE_HEADERS: line };
        const result = await rig().exec(['build', '--remote-cache', server.url(), '--json'], { env });
        const where = `${label}, from the ${how}`;
        assert.equal(result.code, 2, `${where}: ${result.stdout}${result.stderr}`);
        assert.equal(result.json!.error!.code, 'config-invalid', where);
        assert.match(result.json!.error!.message, /header X-Cache-Token holds (a control character|a character beyond Latin-1)/, where);
        assertNoStackTrace(result);
        assert.ok(!`${result.stdout}${result.stderr}`.includes(SECRET), `${where}: the value was quoted`);
      }
    }
    assert.equal(server.requests.length, 0, 'a request went out with a refused header');
  });

  it('sends a Latin-1 (obs-text) value as one byte per character, over pipelined GETs and PUTs alike', async () => {
    const value = `Jos\u00e9 ${SECRET}`;
    const first = server.requests.length;
    const writer = rig();
    const result = await writer.exec(['build', '--remote-cache', server.url(), '--remote-cache-upload', '--json'], {
      env: { ...process.env, EPISTEME_REMOTE_CACHE_HEADERS: `X-Cache-Token: ${value}` },
    });
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.json!.data.remoteCache.uploaded, 7, result.stdout);
    const sent = Buffer.from(`x-cache-token: ${value}`, 'latin1').toString('latin1');
    for (const method of ['GET', 'PUT']) {
      const requests = server.requests.slice(first).filter((request) => request.method === method);
      assert.ok(requests.length > 0, `no ${method}`);
      for (const request of requests) assert.ok(request.head.toLowerCase().includes(sent.toLowerCase()), `${method} head: ${request.head}`);
    }
  });

  it('makes a request that node:http refuses as it builds it an outage of the cache, not an unexpected error', async () => {
    const hash = 'ab'.repeat(32);
    const before = server.requests.length;
    // Headers that bypass the check at load (a store built directly): node:http refuses them synchronously.
    for (const base of [server.url('refused/'), server.url('refused/').replace('http://', 'https://')]) {
      const store = new HttpStore(new URL(base), {
        headers: { 'x-cache-token': `a\u0007${SECRET}` },
        secrets: new Secrets(),
        timeoutMs: 5000,
      });
      try {
        await assert.rejects(store.put('cas', hash, Buffer.from('blob')), (error: Error) => {
          assert.ok(error instanceof CacheUnavailable, `${base}: ${error.name}: ${error.message}`);
          assert.match(error.message, /could not be sent/);
          return true;
        });
        // The outage holds for the rest of the build: later requests fail at once, the same way.
        await assert.rejects(store.put('ac', hash, Buffer.from('entry')), CacheUnavailable);
        if (base.startsWith('https:')) await assert.rejects(store.get('cas', hash, 10), CacheUnavailable);
      } finally {
        store.close();
      }
    }
    assert.equal(server.requests.length, before, 'a refused request reached the server');
  });
});
