import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { Rig, assertNoStackTrace, type CliResult } from '../helpers/rig.js';
import { HostileCache, type Behaviour, type CacheRequest } from '../helpers/hostile-cache.js';
import { BuildState } from '../../src/graph/state.js';
import { actionKey } from '../../src/cache/remote-cache.js';
import { decodeActionResult, encodeActionResult } from '../../src/cache/action-result.js';
import { PipelinedGets } from '../../src/cache/http-pipeline.js';
import { initFastHash } from '../../src/store/hash.js';

await initFastHash();

/**
 * The remote cache against a server that means harm (helpers/hostile-cache.ts, raw sockets on
 * 127.0.0.1): one that drips its body or its head, claims huge sizes, sends chunked bodies that never
 * end, serves entries built with other options under this workspace's keys, sits behind a URL with a
 * query, or stops taking uploads. Every build must end by its own bounds (--remote-cache-timeout, the
 * sizes it sets), with the bytes of a clean build; the server counts what it was made to send.
 */

/**
 * Three documents of one section each, with paragraphs a 1,200-character chunk groups and a 300 one
 * keeps apart; the first also has a paragraph longer than 1,200 characters, cut into overlapping pieces.
 */
function writeWorkspace(rig: Rig, options: Record<string, unknown> = {}): void {
  const map: { sourceUrl: string; localPath: string; contentType: string }[] = [];
  const files: Record<string, string> = {};
  for (let i = 0; i < 3; i += 1) {
    const paragraphs = Array.from(
      { length: 5 },
      (_, p) =>
        `<p>Paragraph ${p} of document ${i} about topic${i} and conditional requests: ` +
        `${'the cache must answer within its deadline and never more than it claims. '.repeat(2)}zebra${i}${p}.</p>`,
    ).join('\n');
    const long = i === 0 ? `\n<p>${Array.from({ length: 40 }, (_, n) => `Sentence ${n} of the long paragraph.`).join(' ')}</p>` : '';
    files[`src/doc${i}.html`] =
      `<!DOCTYPE html><html><head><title>Document ${i}</title></head><body>\n<h1>Document ${i}</h1>\n` +
      `${paragraphs}${long}\n<p>See <a href="https://example.test/other">another document</a>.</p>\n</body></html>\n`;
    map.push({ sourceUrl: `https://example.test/doc${i}/`, localPath: `src/doc${i}.html`, contentType: 'text/html' });
  }
  files['map.json'] = JSON.stringify(map, null, 2);
  files['episteme.json'] = JSON.stringify({ manualIngest: 'map.json', options });
  rig.write(files);
}

const CACHEABLE = 7; // 3 extract, 3 chunk, 1 search index

function warnings(result: CliResult, code: string): { code: string; message: string }[] {
  return result.json!.warnings.filter((w: { code: string }) => w.code === code);
}

/** Action key of every target of a built workspace, by target. */
function keys(rig: Rig): Map<string, string> {
  const state = BuildState.load(rig.path('.episteme'), true);
  return new Map([...state.targets].map(([name, record]) => [name, actionKey(record.components)]));
}

describe('remote cache against a hostile server', () => {
  const rigs: Rig[] = [];
  const servers: HostileCache[] = [];
  const rig = (options: Record<string, unknown> = {}): Rig => {
    const made = new Rig('episteme-hostile-cache-');
    writeWorkspace(made, options);
    rigs.push(made);
    return made;
  };
  const server = async (behaviour?: (request: CacheRequest) => Behaviour, basePath = '/'): Promise<HostileCache> => {
    const made = await new HostileCache(behaviour, basePath).start();
    servers.push(made);
    return made;
  };
  /** A clean build without any cache: what every build below must equal. */
  let reference: Map<string, string>;
  /** A cache filled by an honest upload of the reference workspace. */
  let honest: HostileCache;

  before(async () => {
    const plain = rig();
    assert.equal((await plain.exec(['build', '--json'])).code, 0);
    reference = plain.artifacts();
    honest = await server();
    const writer = rig();
    const written = await writer.exec(['build', '--remote-cache', honest.url(), '--remote-cache-upload', '--json']);
    assert.equal(written.json!.data.remoteCache.uploaded, CACHEABLE, written.stdout);
  });
  after(async () => {
    for (const s of servers) await s.stop();
    for (const r of rigs) r.cleanup();
  });

  /** A server holding the honest entries, misbehaving as `behaviour` says for the requests it picks. */
  async function serving(behaviour: (request: CacheRequest) => Behaviour | null): Promise<HostileCache> {
    const made = await server((request) => behaviour(request) ?? { kind: 'store' });
    for (const [name, bytes] of honest.store) made.store.set(name, bytes);
    return made;
  }

  /** A build against `cache` that must end on its own, equal to a clean build (of a workspace with `options`). */
  async function buildsClean(
    cache: HostileCache,
    label: string,
    extra: string[] = [],
    options: Record<string, unknown> = {},
    clean: Map<string, string> = reference,
  ): Promise<CliResult> {
    const r = rig(options);
    const result = await r.exec(['build', '--remote-cache', cache.url(), '--remote-cache-timeout', '1', '--json', ...extra]);
    assert.equal(result.code, 0, `${label}: ${result.stdout}${result.stderr}`);
    assertNoStackTrace(result);
    assert.deepEqual(r.artifacts(), clean, `${label}: the build differs from a clean build`);
    return result;
  }

  it('a server that drips its body or its head, or never answers, costs one deadline and one warning', { timeout: 120_000 }, async () => {
    const cases: [string, Behaviour][] = [
      ['drip body', { kind: 'drip-body', everyMs: 100 }],
      ['drip head', { kind: 'drip-head', everyMs: 100 }],
      ['silent', { kind: 'silent' }],
    ];
    for (const [label, behaviour] of cases) {
      for (const area of ['ac', 'cas']) {
        const cache = await serving((request) => (request.area === area ? behaviour : null));
        const result = await buildsClean(cache, `${label} (${area})`);
        const unavailable = warnings(result, 'remote-cache-unavailable');
        assert.equal(unavailable.length, 1, `${label} (${area}): ${JSON.stringify(result.json!.warnings)}`);
        assert.match(unavailable[0]!.message, /timed out after 1000 ms/, label);
        assert.equal(result.json!.data.remoteCache.unavailable, true);
        await cache.stop();
      }
    }
  });

  it('an entry claiming a huge blob is refused before any download', { timeout: 60_000 }, async () => {
    const cache = await serving((request) => (request.area === 'cas' ? { kind: 'endless-chunked', chunkBytes: 1 } : null));
    for (const [name, bytes] of cache.store) {
      if (!name.startsWith('ac/')) continue;
      const outputs = [...decodeActionResult(bytes)].map(([path, digest]) => ({ path, digest: { ...digest, sizeBytes: 2 ** 50 } }));
      cache.store.set(name, encodeActionResult(outputs));
    }
    const result = await buildsClean(cache, 'huge claimed size');
    assert.equal(result.json!.data.remoteCache.rejected, CACHEABLE, result.stdout);
    assert.match(warnings(result, 'remote-cache-entry-rejected')[0]!.message, /largest entry this build would write/);
    assert.equal(cache.requests.filter((r) => r.area === 'cas').length, 0, 'a blob larger than any artifact was asked for');
    assert.equal(cache.hostileBytesSent, 0);
  });

  it('endless chunked bodies are cut off at the size the client set', { timeout: 60_000 }, async () => {
    for (const area of ['ac', 'cas']) {
      const cache = await serving((request) => (request.area === area ? { kind: 'endless-chunked', chunkBytes: 1 } : null));
      const result = await buildsClean(cache, `endless chunked (${area})`);
      // Nothing was restored from a body that never ended, and the server was cut off: what it managed
      // to send is bounded by the sizes the client set (64 KiB an action result, the blobs' own sizes),
      // plus what socket buffers hold.
      assert.equal(result.json!.data.remoteCache.hits, 0, result.stdout);
      assert.ok(cache.hostileBytesSent < 64 * 1024 * 1024, `${area}: the server sent ${cache.hostileBytesSent} bytes`);
      await cache.stop();
    }
  });

  it('a chunked body in many small reads is parsed in linear time (within one deadline)', { timeout: 60_000 }, async () => {
    const chunkBytes = 4;
    const total = 4 * 1024 * 1024;
    const frame = Buffer.from(`${chunkBytes.toString(16)}\r\n${'y'.repeat(chunkBytes)}\r\n`, 'latin1');
    const raw = net.createServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
        let sent = 0;
        // Small writes, one per turn: the client sees thousands of reads of a few frames each.
        const pump = (): void => {
          if (socket.destroyed) return;
          if (sent >= total) {
            socket.write('0\r\n\r\n');
            return;
          }
          socket.write(Buffer.concat(Array.from({ length: 256 }, () => frame)));
          sent += 256 * chunkBytes;
          setImmediate(pump);
        };
        pump();
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const outages: string[] = [];
    const gets = new PipelinedGets({
      host: '127.0.0.1',
      port: (raw.address() as net.AddressInfo).port,
      headers: {},
      timeoutMs: 20_000,
      connections: 1,
      depth: 1,
      onOutage: (message) => {
        outages.push(message);
        gets.fail(message);
      },
    });
    try {
      const response = await gets.get(`/cas/${'a'.repeat(64)}`, total);
      assert.deepEqual(outages, []);
      assert.equal(response.status, 200);
      assert.equal(response.body?.length, total);
      assert.ok(response.body!.every((byte) => byte === 0x79));
    } finally {
      gets.close();
      raw.close();
    }
  });

  it('entries built with other options are refused: chunk options, BM25 parameters, extraction options', {
    timeout: 240_000,
  }, async () => {
    // [label, this workspace's options, the options the poisoner's entries were built with, the rule]
    const variants: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
      ['chunk maxChars 300', {}, { chunk: { maxChars: 300, overlapChars: 50 } }, 'chunk'],
      // Chunks that fit this workspace's maxChars, cut with another overlap: told apart only by the options recorded.
      ['chunk overlapChars 0 alone', {}, { chunk: { maxChars: 1200, overlapChars: 0 } }, 'chunk'],
      // 1,200-character chunks in a 3,000-character workspace: the small documents are cut alike by both.
      ['chunks of maxChars 1200 in a 3000 workspace', { chunk: { maxChars: 3000, overlapChars: 150 } }, {}, 'chunk'],
      ['BM25 k1 2, b 0.5', {}, { index: { k1: 2, b: 0.5 } }, 'search-index'],
      ['extraction without links', {}, { extract: { links: false } }, 'extract'],
    ];
    for (const [label, own, options, rule] of variants) {
      const target = rig(own);
      assert.equal((await target.exec(['build', '--json'])).code, 0);
      const targetKeys = keys(target);
      const clean = target.artifacts();
      const variantCache = await server();
      const variant = rig(options);
      const uploaded = await variant.exec(['build', '--remote-cache', variantCache.url(), '--remote-cache-upload', '--json']);
      assert.equal(uploaded.json!.data.remoteCache.uploaded, CACHEABLE, uploaded.stdout);
      const variantKeys = keys(variant);
      // The poisoner: this workspace's keys answered with the variant's entries, target by target.
      const poisoned = await server();
      for (const [name, bytes] of variantCache.store) if (name.startsWith('cas/')) poisoned.store.set(name, bytes);
      for (const [name, key] of targetKeys) {
        const entry = variantCache.store.get(`ac/${variantKeys.get(name)}`);
        if (entry !== undefined) poisoned.store.set(`ac/${key}`, entry);
      }
      const result = await buildsClean(poisoned, label, [], own, clean);
      const rows = result.json!.data.targets as { target: string; rule: string; restored?: boolean }[];
      const restoredOfRule = rows.filter((row) => row.rule === rule && row.restored === true);
      assert.deepEqual(restoredOfRule, [], `${label}: restored ${JSON.stringify(restoredOfRule)}`);
      assert.ok(result.json!.data.remoteCache.rejected >= 1, `${label}: ${result.stdout}`);
      if (rule === 'chunk') {
        const refusals = warnings(result, 'remote-cache-entry-rejected').filter((w) => /cut with chunk options/.test(w.message));
        assert.equal(refusals.length, 3, `${label}: ${JSON.stringify(result.json!.warnings)}`);
      }
      await variantCache.stop();
      await poisoned.stop();
    }
  });

  it('a cache URL with a base path and a query: every request keeps both, messages name the right URL', { timeout: 60_000 }, async () => {
    const token = 'tok-5e1f0a9c7b3d';
    const cache = await server(undefined, '/base/');
    const url = `http://127.0.0.1:${cache.port}/base?token=${token}`;
    const writer = rig();
    const written = await writer.exec(['build', '--remote-cache', url, '--remote-cache-upload', '--json']);
    assert.equal(written.json!.data.remoteCache.uploaded, CACHEABLE, written.stdout);
    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', url, '--json']);
    assert.equal(restored.json!.data.remoteCache.hits, CACHEABLE, restored.stdout);
    assert.deepEqual(clone.artifacts(), reference);
    assert.ok(cache.requests.length > 0);
    for (const request of cache.requests)
      assert.match(request.target, new RegExp(`^/base/(ac|cas)/[0-9a-f]{64}\\?token=${token}$`), request.target);
    // A refusal names the entry's URL as it is, without the query (it may hold a credential).
    cache.behaviour = () => ({ kind: 'status', status: 503 });
    const refused = await rig().exec(['build', '--remote-cache', url, '--json']);
    const message = warnings(refused, 'remote-cache-unavailable')[0]!.message;
    assert.match(message, new RegExp(`http://127\\.0\\.0\\.1:${cache.port}/base/ac/`), message);
    assert.doesNotMatch(message, /baseac|tok-/, message);
  });

  it('uploads cut off by a stalled server are counted, and a later upload build sends what is missing', { timeout: 120_000 }, async () => {
    let puts = 0;
    const cache = await server((request) => {
      if (request.method !== 'PUT') return { kind: 'store' };
      puts += 1;
      return puts <= 4 ? { kind: 'store' } : { kind: 'silent' };
    });
    const writer = rig();
    const cut = await writer.exec([
      'build',
      '--remote-cache',
      cache.url(),
      '--remote-cache-upload',
      '--remote-cache-timeout',
      '1',
      '--json',
    ]);
    assert.equal(cut.code, 0, cut.stdout);
    const stats = cut.json!.data.remoteCache;
    assert.ok(stats.notUploaded > 0, cut.stdout);
    assert.equal(stats.uploaded + stats.notUploaded, CACHEABLE, cut.stdout);
    const human = await rig().exec(['build', '--remote-cache', cache.url(), '--remote-cache-upload', '--remote-cache-timeout', '1']);
    assert.match(human.stdout + human.stderr, /not uploaded/);
    // The server takes uploads again: the built workspace, with nothing to build, uploads what is missing.
    cache.behaviour = () => ({ kind: 'store' });
    const again = await writer.exec(['build', '--remote-cache', cache.url(), '--remote-cache-upload', '--json']);
    assert.equal(again.code, 0, again.stdout);
    assert.equal(again.json!.data.counts.built, 0, again.stdout);
    assert.equal(again.json!.data.remoteCache.uploaded, stats.notUploaded, again.stdout);
    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', cache.url(), '--json']);
    assert.equal(restored.json!.data.remoteCache.hits, CACHEABLE, restored.stdout);
    assert.deepEqual(clone.artifacts(), reference);
  });
});
