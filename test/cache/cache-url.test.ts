import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Rig, writeSmallWorkspace, assertNoStackTrace, type CliResult } from '../helpers/rig.js';
import { HostileCache } from '../helpers/hostile-cache.js';
import { parseCacheUrl } from '../../src/config/cache-url.js';

/**
 * A remote cache URL that parses as a URL but cannot be used as given (a malformed percent-escape in
 * its user info or its folder, an encoded / or NUL in a folder, a host in a file:// URL) is a usage
 * error for --remote-cache and config-invalid for the config's remoteCache: never an internal error,
 * never quoting the credential, and with a hint that, followed, gives a URL that works. Against a
 * raw-socket server on 127.0.0.1 that records each request's head.
 */
const PASSWORD = 'S3cret-5c1e9a7f3b2d';

describe('remote cache URLs', () => {
  let server: HostileCache;
  let folder: string;
  const rigs: Rig[] = [];
  const rig = (remoteCache?: string): Rig => {
    const made = new Rig('episteme-cache-url-');
    writeSmallWorkspace(made, 2);
    if (remoteCache !== undefined) made.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', remoteCache }) });
    rigs.push(made);
    return made;
  };
  before(async () => {
    server = await new HostileCache().start();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-cache-url-'));
  });
  after(async () => {
    await server.stop();
    fs.rmSync(folder, { recursive: true, force: true });
    for (const r of rigs) r.cleanup();
  });

  const unusable = (): [string, string, RegExp][] => [
    [
      'a password with a malformed escape',
      server.url().replace('http://', `http://ci:${PASSWORD}%ZZ@`),
      /its password has a malformed percent-escape/,
    ],
    ['a user name with a malformed escape', server.url().replace('http://', `http://${PASSWORD}%G1:x@`), /its user name has a malformed/],
    ['an encoded / in a folder', `${pathToFileURL(folder).href}/a%2Fb`, /encoded \/ \(%2F\)/],
    ['a malformed escape in a folder', `${pathToFileURL(folder).href}/a%ZZ`, /malformed percent-escape/],
    ['an encoded NUL in a folder', `${pathToFileURL(folder).href}/a%00b`, /encoded NUL/],
    ['a host in a file:// URL', 'file://cache.example/var/cache', /not one on host cache\.example/],
    ['another scheme', 'ftp://cache.example/', /a ftp:\/\/ URL, not/],
  ];

  function refused(result: CliResult, code: string, label: string, why: RegExp): void {
    assert.equal(result.code, 2, `${label}: ${result.stdout}${result.stderr}`);
    assert.equal(result.json!.error!.code, code, label);
    assert.match(result.json!.error!.message, why, label);
    assertNoStackTrace(result);
    assert.ok(!`${result.stdout}${result.stderr}`.includes(PASSWORD), `${label}: the credential was shown`);
  }

  it('refuses each, given as --remote-cache, as a usage error', async () => {
    for (const [label, url, why] of unusable()) {
      const result = await rig().exec(['build', '--remote-cache', url, '--json']);
      refused(result, 'usage-error', label, why);
      assert.ok(result.json!.error!.hint, label);
    }
  });

  it('refuses each, given as the config remoteCache, as config-invalid naming the field', async () => {
    for (const [label, url, why] of unusable()) {
      const result = await rig(url).exec(['build', '--json']);
      refused(result, 'config-invalid', label, why);
      assert.equal(result.json!.error!.details.field, 'remoteCache', label);
    }
  });

  it('takes the URLs the hints describe: a % written as %25 in the user info, a plain folder path', async () => {
    const percent = server.url().replace('http://', `http://ci:${PASSWORD}%25ZZ@`);
    const first = server.requests.length;
    const http = await rig().exec(['build', '--remote-cache', percent, '--json']);
    assert.equal(http.code, 0, http.stdout);
    assert.equal(http.json!.data.remoteCache.unavailable, false);
    const sent = server.requests.slice(first);
    assert.ok(sent.length > 0);
    const basic = `authorization: basic ${Buffer.from(`ci:${PASSWORD}%ZZ`).toString('base64').toLowerCase()}`;
    for (const request of sent) assert.ok(request.head.toLowerCase().includes(basic), request.head);
    assert.ok(!http.stdout.includes(PASSWORD), 'the credential was shown');

    const plain = await rig().exec(['build', '--remote-cache', `${pathToFileURL(folder).href}/a`, '--remote-cache-upload', '--json']);
    assert.equal(plain.code, 0, plain.stdout);
    assert.equal(plain.json!.data.remoteCache.uploaded, 5);
    assert.ok(fs.readdirSync(path.join(folder, 'a', 'ac')).length === 5);
  });

  it('refuses an unusable URL before anything runs: on an up-to-date workspace, in a dry run, for an empty shard', async () => {
    const built = rig();
    assert.equal((await built.exec(['build', '--json'])).code, 0);
    const usable = `${pathToFileURL(folder).href}/shared`;
    for (const [label, url] of <[string, string][]>[
      ['another scheme', 'ftp://nope/'],
      ['a malformed escape', server.url().replace('http://', `http://ci:${PASSWORD}%ZZ@`)],
    ]) {
      // Each command line with a usable URL, then the same with this one: only the URL decides.
      for (const args of [
        ['build'],
        ['pipeline'],
        ['build', '--dry-run'],
        ['build', '--shard', '1/2', '--remote-cache-upload'],
        ['build', '--shard', '2/2', '--remote-cache-upload'],
      ]) {
        const control = await built.exec([...args, '--remote-cache', usable, '--json']);
        assert.equal(control.code, 0, `${args.join(' ')} with a usable URL: ${control.stdout}`);
        const result = await built.exec([...args, '--remote-cache', url, '--json']);
        refused(result, 'usage-error', `${label}: ${args.join(' ')}`, /is unusable/);
      }
    }
    // The config's: refused when read, whatever the flags (--no-remote-cache included).
    built.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', remoteCache: 'ftp://nope/' }) });
    for (const args of [['build'], ['build', '--no-remote-cache'], ['pipeline']])
      refused(await built.exec([...args, '--json']), 'config-invalid', `config: ${args.join(' ')}`, /is unusable/);
  });

  it('parses what it takes into its parts: decoded user info, an absolute folder', () => {
    const http = parseCacheUrl('https://ci:p%40ss@cache.example/base?token=x');
    assert.ok('kind' in http && http.kind === 'http');
    assert.deepEqual([http.username, http.password], ['ci', 'p@ss']);
    const local = parseCacheUrl('file:///var/cache/a%20b');
    assert.ok('kind' in local && local.kind === 'folder');
    assert.equal(local.folder, '/var/cache/a b');
    assert.ok(!('kind' in parseCacheUrl('not a url')));
  });
});
