import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeActionResult, encodeActionResult } from '../../src/cache/action-result.js';
import { actionKey, sampledForVerify } from '../../src/cache/remote-cache.js';
import { Secrets, loadHeaders } from '../../src/cache/secrets.js';
import { displayUrl } from '../../src/config/cache-url.js';

const HASH = 'ab'.repeat(32);

describe('action cache entries (Bazel ActionResult subset)', () => {
  it('round-trips digests, including sizes past 2^32', () => {
    for (const sizeBytes of [0, 1, 127, 128, 300, 2 ** 31, 2 ** 40 + 7])
      assert.deepEqual(decodeActionResult(encodeActionResult([{ path: 'output', digest: { hash: HASH, sizeBytes } }])).get('output'), {
        hash: HASH,
        sizeBytes,
      });
  });

  it('matches the protobuf wire bytes of ActionResult{output_files:[{path:"output", digest:{hash, size_bytes:300}}]}', () => {
    const digest = Buffer.concat([Buffer.from([0x0a, 64]), Buffer.from(HASH), Buffer.from([0x10, 0xac, 0x02])]);
    const file = Buffer.concat([Buffer.from([0x0a, 6]), Buffer.from('output'), Buffer.from([0x12, digest.length]), digest]);
    assert.deepEqual(
      encodeActionResult([{ path: 'output', digest: { hash: HASH, sizeBytes: 300 } }]),
      Buffer.concat([Buffer.from([0x12, file.length]), file]),
    );
  });

  it('round-trips side outputs beside the output, in any order', () => {
    const side = { path: 'index-part.p1', digest: { hash: 'cd'.repeat(32), sizeBytes: 9 } };
    const decoded = decodeActionResult(encodeActionResult([side, { path: 'output', digest: { hash: HASH, sizeBytes: 5 } }]));
    assert.deepEqual([...decoded.keys()].sort(), ['index-part.p1', 'output']);
    assert.deepEqual(decoded.get('index-part.p1'), side.digest);
  });

  it('skips unknown fields and refuses truncated, foreign or ambiguous entries', () => {
    const entry = encodeActionResult([{ path: 'output', digest: { hash: HASH, sizeBytes: 5 } }]);
    // exit_code (field 4, varint) and stdout_raw (field 5, bytes) before the output file.
    assert.equal(decodeActionResult(Buffer.concat([Buffer.from([0x20, 0x00, 0x2a, 0x02, 0x68, 0x69]), entry])).get('output')!.sizeBytes, 5);
    for (const bad of [
      entry.subarray(0, entry.length - 1),
      Buffer.alloc(0),
      Buffer.concat([entry, entry]),
      Buffer.from('not a protobuf'),
      encodeActionResult([{ path: 'output', digest: { hash: 'zz'.repeat(32), sizeBytes: 1 } }]),
      encodeActionResult([{ path: 'other', digest: { hash: HASH, sizeBytes: 1 } }]),
    ]) {
      assert.throws(() => decodeActionResult(bad));
    }
  });
});

describe('action keys and verify sampling', () => {
  const components = {
    rule: 'extract',
    ruleVersion: 3,
    producerVersion: '1.0.0',
    options: { 'extract.a': '1', 'extract.b': '2' },
    inputs: { 'snapshots/x.json': HASH },
  };

  it('is a SHA-256 independent of property order, and changes with every component', () => {
    assert.match(actionKey(components), /^[0-9a-f]{64}$/);
    assert.equal(actionKey({ ...components, options: { 'extract.b': '2', 'extract.a': '1' } }), actionKey(components));
    for (const changed of [
      { ...components, ruleVersion: 4 },
      { ...components, producerVersion: '1.0.1' },
      { ...components, options: { 'extract.a': '2', 'extract.b': '2' } },
      { ...components, inputs: { 'snapshots/x.json': 'cd'.repeat(32) } },
    ]) {
      assert.notEqual(actionKey(changed), actionKey(components));
    }
  });

  it('samples by key: none at 0, all at 1, about the fraction in between, the same every time', () => {
    const keys = Array.from({ length: 2000 }, (_, i) => actionKey({ ...components, inputs: { x: String(i) } }));
    assert.equal(keys.filter((k) => sampledForVerify(k, 0)).length, 0);
    assert.equal(keys.filter((k) => sampledForVerify(k, 1)).length, 2000);
    const tenth = keys.filter((k) => sampledForVerify(k, 0.1)).length;
    assert.ok(tenth > 150 && tenth < 250, String(tenth));
    assert.deepEqual(
      keys.filter((k) => sampledForVerify(k, 0.1)),
      keys.filter((k) => sampledForVerify(k, 0.1)),
    );
  });
});

describe('cache headers and redaction', () => {
  it('reads Name: value lines from the environment, and redacts the values and bearer tokens', () => {
    const secrets = new Secrets();
    const headers = loadHeaders(
      { EPISTEME_REMOTE_CACHE_HEADERS: 'Authorization: Bearer abcdefgh12345678\n# comment\nX-Team: search' },
      secrets,
    );
    assert.deepEqual(headers, { authorization: 'Bearer abcdefgh12345678', 'x-team': 'search' });
    assert.equal(secrets.redact('sent Bearer abcdefgh12345678; token abcdefgh12345678'), 'sent [redacted]; token [redacted]');
  });

  it('names a malformed line by number without quoting it', () => {
    assert.throws(
      () => loadHeaders({ EPISTEME_REMOTE_CACHE_HEADERS: 'ok: 1\nno colon secretsecret' }, new Secrets()),
      (error: Error) => /Line 2/.test(error.message) && !error.message.includes('secretsecret'),
    );
  });

  it('shows a URL without user info or query', () => {
    assert.equal(displayUrl(new URL('https://ci:pw@cache.example/base/?token=x')), 'https://cache.example/base/');
  });
});
