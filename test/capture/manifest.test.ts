import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifest } from '../../src/config/manifest.js';
import { loadWorkspace } from '../../src/config/workspace.js';
import { EpistemeError } from '../../src/failure.js';
import { DEFAULT_CAPTURE_BOUNDS } from '../../src/capture/bounds.js';
import { Rig, assertNoStackTrace } from '../helpers/rig.js';

function problemsOf(value: unknown): string {
  try {
    parseManifest(value, 'manifest.json');
  } catch (error) {
    assert.ok(error instanceof EpistemeError);
    assert.equal(error.code, 'manifest-invalid');
    return error.message;
  }
  assert.fail(`accepted: ${JSON.stringify(value)}`);
}

test('a valid manifest gives canonical http(s) sources with their optional fields', () => {
  const sources = parseManifest(
    [
      { url: 'HTTPS://Example.TEST:443' },
      { url: 'http://example.test:8080/a?b=1#sec', family: 'generic', authority: 'informative', extractor: 'text' },
    ],
    'manifest.json',
  );
  assert.deepEqual(
    sources.map((s) => s.spec),
    [
      { url: 'https://example.test/' },
      { url: 'http://example.test:8080/a?b=1#sec', family: 'generic', authority: 'informative', extractor: 'text' },
    ],
  );
  assert.deepEqual(parseManifest([], 'm'), []);
});

test('manifest problems name the entry and the field', () => {
  assert.match(problemsOf({ url: 'https://a.test/' }), /must be array/);
  assert.match(problemsOf([{ url: 'https://a.test/', colour: 'red' }]), /entry 0: unknown field "colour"/);
  assert.match(problemsOf([{ url: 'https://a.test/' }, {}]), /entry 1: missing required field "url"/);
  assert.match(problemsOf([{ url: 42 }]), /entry 0, field url: must be string/);
  assert.match(
    problemsOf([{ url: 'https://a.test/', authority: 'binding' }]),
    /entry 0, field authority: must be one of \["normative","informative"\]/,
  );
  assert.match(problemsOf([{ url: 'https://a.test/', extractor: 'doc' }]), /entry 0, field extractor/);
  assert.match(problemsOf([{ url: 'ftp://a.test/x' }]), /entry 0, field url: must be an http:\/\/ or https:\/\/ URL/);
  assert.match(problemsOf([{ url: 'https://user:pw@a.test/' }]), /entry 0, field url: URLs with credentials are not accepted/);
  assert.match(problemsOf([{ url: 'http://[::1' }]), /entry 0, field url: not a valid URL/);
  assert.match(
    problemsOf([{ url: 'https://a.test/', family: 'no-such-family' }]),
    /entry 0, field family: "no-such-family" is not a registered family \(known: .*generic/,
  );
  assert.match(problemsOf([{ url: 'https://a.test/' + 'x'.repeat(5000) }]), /entry 0, field url: must NOT have more than 4096 characters/);
  // Duplicates after canonicalisation: host case, default port, empty path.
  assert.match(
    problemsOf([{ url: 'https://a.test/' }, { url: 'HTTPS://A.TEST:443' }]),
    /entry 1, field url: duplicate of entry 0 \(both are https:\/\/a\.test\/\)/,
  );
  assert.match(problemsOf([{ url: 'http://a.test:80/x' }, { url: 'http://A.test/x' }]), /entry 1, field url: duplicate of entry 0/);
  // Every problem at once.
  const all = problemsOf([{ url: 'https://a.test/' }, { url: 'https://a.test' }, { url: 'https://b.test/', family: 'nope' }]);
  assert.match(all, /entry 1, field url: duplicate/);
  assert.match(all, /entry 2, field family/);
});

test('a workspace may have a manifest, a map or both; a URL in both is an error; limits.capture sets the bounds', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/a.html': '<p>a</p>',
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/a', localPath: 'src/a.html' }]),
      'manifest.json': JSON.stringify([{ url: 'https://example.test/b' }]),
      'clash.json': JSON.stringify([{ url: 'https://other.test/' }, { url: 'HTTPS://EXAMPLE.test:443/a' }]),
      'episteme.json': JSON.stringify({
        manualIngest: 'map.json',
        manifest: 'manifest.json',
        limits: { capture: { retries: 0, maxRedirects: 1 } },
      }),
    });
    const ws = await loadWorkspace(rig.dir, {});
    assert.deepEqual(
      ws.sources.map((s) => [s.documentId, s.capture.method]),
      [
        ['example-test-a', 'manual-ingest'],
        ['example-test-b', 'http'],
      ],
    );
    assert.equal(ws.manifestFile, 'manifest.json');
    assert.equal(ws.mapFile, 'map.json');
    assert.deepEqual(ws.limits.capture, { ...DEFAULT_CAPTURE_BOUNDS, retries: 0, maxRedirects: 1 });
    await assert.rejects(loadWorkspace(rig.dir, { manifest: 'clash.json' }), (error: EpistemeError) => {
      assert.equal(error.code, 'manifest-invalid');
      assert.match(error.message, /entry 1, field url: duplicate of manual-ingest map entry 0 \(both are https:\/\/example\.test\/a\)/);
      return true;
    });
    // From a subfolder, the workspace is the nearest episteme.json above it: --manifest there replaces the
    // config's manifest, and starts no second workspace in the subfolder.
    const fromBelow = await loadWorkspace(rig.path('src'), { manifest: '../manifest.json' });
    assert.equal(fromBelow.root, rig.dir);
    assert.deepEqual(
      fromBelow.sources.map((s) => s.spec.url),
      ['https://example.test/a', 'https://example.test/b'],
    );
  } finally {
    rig.cleanup();
  }
});

test('manifest errors through the CLI: exit 2, a structured envelope, stdin within --max-input-bytes', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'bad.json': JSON.stringify([{ url: 'https://a.test/' }, { url: 'https://a.test:443' }]),
      'bad-config.json': JSON.stringify({ manifest: 'bad.json', limits: { capture: { retries: -1 } } }),
    });
    const cases: { args: string[]; input?: string; code: string; message?: RegExp }[] = [
      {
        args: ['snapshot', '--manifest', 'bad.json', '--json'],
        code: 'manifest-invalid',
        message: /entry 1, field url: duplicate of entry 0/,
      },
      {
        args: ['snapshot', '--manifest', '-', '--json'],
        input: '[{"url": "file:///etc/passwd"}]',
        code: 'manifest-invalid',
        message: /entry 0, field url/,
      },
      { args: ['snapshot', '--manifest', '-', '--json'], input: '[{"url": ', code: 'manifest-invalid', message: /not valid JSON/ },
      {
        args: ['snapshot', '--manifest', '-', '--max-input-bytes', '10', '--json'],
        input: '[{"url": "https://a.test/"}]',
        code: 'input-too-large',
      },
      { args: ['snapshot', '--manifest', 'missing.json', '--json'], code: 'input-not-found' },
      { args: ['build', '--config', 'bad-config.json', '--json'], code: 'config-invalid', message: /limits\.capture\.retries/ },
      { args: ['snapshot', '--manifest', 'bad.json', '--retries', 'many', '--json'], code: 'usage-error' },
    ];
    for (const c of cases) {
      const result = await rig.exec(c.args, c.input !== undefined ? { input: c.input } : {});
      assert.equal(result.code, 2, `${c.args.join(' ')}: ${result.stdout}${result.stderr}`);
      assertNoStackTrace(result);
      assert.equal(result.json!.error!.code, c.code, result.json!.error!.message);
      if (c.message) assert.match(result.json!.error!.message, c.message);
    }
    const help = await rig.exec(['snapshot', '--help']);
    for (const flag of [
      '--manifest',
      '--refresh',
      '--max-age',
      '--request-timeout-ms',
      '--connect-timeout-ms',
      '--max-response-bytes',
      '--retries',
      '--retry-delay-ms',
      '--max-retry-after-ms',
      '--max-redirects',
      '--max-sources',
      '--fetch-concurrency',
    ]) {
      assert.match(help.stdout, new RegExp(`${flag}\\b`), flag);
    }
    assert.match(help.stdout, /default 60000/);
    assert.match(help.stdout, /default 67108864/);
  } finally {
    rig.cleanup();
  }
});
