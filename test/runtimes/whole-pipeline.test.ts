import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, Rig, SHARED_SKIP, sharedDir } from '../helpers/rig.js';
import { allRuntimes, ensureRuntimes, type Runtime } from '../helpers/runtimes.js';
import { TestServer } from '../capture/server.js';
import { fixturesDir } from '../extract/helpers.js';

/**
 * The whole CLI pipeline on Node 20, Node 24, Deno and Bun: manual ingest of part of the dev corpus
 * (HTML, plain text, RFC XML, a PDF and a Markdown fixture), HTTP capture of more of it (HTML, text, PDF) from one
 * loopback server, extract, chunk, index, query and diff, each command run as a user runs it
 * (`<runtime> bin/episteme.cjs ...`). Every file each runtime writes, and every query's output, must
 * be byte-identical to Node 20's. A subset of the dev corpus, so the suite stays at a few minutes.
 */
/** A MANUAL file named so is one of test/fixtures/extract/, the others are the dev corpus's. */
const FIXTURE_PREFIX = 'fixture:';
const inputName = (file: string): string => path.basename(file.replace(FIXTURE_PREFIX, ''));
const MANUAL = [
  ['https://www.w3.org/TR/2012/CR-CSP-20121115/', 'w3c/2012-11-15-CSP-1-0-CR.html', 'text/html'],
  ['https://www.ietf.org/archive/id/draft-west-webappsec-csp-reg-04.txt', 'rfc/draft-west-webappsec-csp-reg-04.txt', 'text/plain'],
  ['https://www.rfc-editor.org/rfc/rfc6635.xml', 'rfc/rfc6635.xml', 'application/xml'],
  ['https://example.test/multicolumn.pdf', 'pdf/multicolumn.pdf', 'application/pdf'],
  // A fixture of this project (markdown-it and github-slugger on every runtime), not a corpus file.
  ['https://github.com/example/gadget-sensors/blob/main/explainer.md', FIXTURE_PREFIX + 'explainer.md', 'text/markdown'],
] as const;
const SERVED = [
  ['/infra.html', 'whatwg/infra.html', 'text/html; charset=utf-8'],
  ['/rfc6635.txt', 'rfc/rfc6635.txt', 'text/plain; charset=utf-8'],
  ['/scotus-transcript-p1.pdf', 'pdf/scotus-transcript-p1.pdf', 'application/pdf'],
] as const;
const QUERIES = [
  'content security policy',
  '"origin server"',
  'ordered map',
  'justice',
  'report-uri directive',
  'gadget sensor permission',
];

/** Files the runtime wrote, path -> bytes; the build's private state (.episteme/) is not an artifact. */
function artifacts(dir: string): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      // The owner marker names the workspace that owns a folder, a different one per run.
      if (child === '.episteme' || child === 'input' || entry.name === '.episteme-owner') continue;
      if (entry.isDirectory()) walk(child);
      else found.set(child, readFileSync(path.join(dir, child)));
    }
  };
  walk('');
  return found;
}

/**
 * A capture's observation time is the clock's, not the content's (the spec says so), so two runs
 * record different times: in a snapshot record, that record's hash in the snapshot index and the
 * index's fingerprint over them. Those, and only those, are masked; everything derived from the
 * snapshots must match byte for byte.
 */
function withoutObservationTime(text: string): string {
  return text
    .replace(/"observedAt":"[^"]*"/g, '"observedAt":"<time>"')
    .replace(
      /("input":"snapshots\/127-0-0-1-[^"]*","before":(?:null|"[0-9a-f]+"),"after":")[0-9a-f]+"/g,
      '$1<hash of a record with an observation time>"',
    );
}
function maskSnapshotFile(name: string, bytes: Buffer): string {
  const text = withoutObservationTime(bytes.toString('utf8'));
  if (name !== 'snapshots/index.json') return text;
  const index = JSON.parse(text) as { fingerprint: string; payload: { entries: { captureMethod: string; sha256: string }[] } };
  index.fingerprint = '<hash over observation times>';
  for (const entry of index.payload.entries)
    if (entry.captureMethod === 'http') entry.sha256 = '<hash of a record with an observation time>';
  return JSON.stringify(index);
}

function run(runtime: Runtime, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.command, [...runtime.prefix, CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface RuntimeResult {
  files: Map<string, Buffer>;
  outputs: string[];
}

async function wholePipeline(runtime: Runtime, corpus: string, manifestUrls: string[]): Promise<RuntimeResult> {
  const rig = new Rig('episteme-runtime-');
  try {
    rig.write({
      'map.json': JSON.stringify(
        MANUAL.map(([sourceUrl, file, contentType]) => ({ sourceUrl, localPath: `input/${inputName(file)}`, contentType })),
      ),
      'manifest.json': JSON.stringify(manifestUrls.map((url) => ({ url }))),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    for (const [, file] of MANUAL) {
      const from = file.startsWith(FIXTURE_PREFIX) ? path.join(fixturesDir, file.slice(FIXTURE_PREFIX.length)) : path.join(corpus, file);
      cpSync(from, rig.path('input', inputName(file)));
    }
    const outputs: string[] = [];
    const step = async (args: string[]): Promise<string> => {
      const result = await run(runtime, args, rig.dir);
      assert.equal(result.code, 0, `${runtime.label}: episteme ${args.join(' ')} exited ${result.code}\n${result.stderr}${result.stdout}`);
      // Nothing on stderr: no runtime warning (deprecations, permission prompts) reaches the user.
      assert.equal(result.stderr, '', `${runtime.label}: episteme ${args.join(' ')} wrote to stderr`);
      outputs.push(`$ ${args.join(' ')}\n${result.stdout}`);
      return result.stdout;
    };
    // The manual corpus first, kept as the "before" side of the diff.
    for (const stage of ['manual-ingest', 'extract', 'chunk', 'index']) await step([stage, '--json']);
    cpSync(rig.path('specs'), rig.path('before-specs'), { recursive: true });
    // Then the HTTP sources join it.
    writeFileSync(rig.path('episteme.json'), JSON.stringify({ manualIngest: 'map.json', manifest: 'manifest.json' }));
    for (const stage of ['snapshot', 'extract', 'chunk', 'index']) await step([stage, '--json']);
    await step(['diff', '--before', 'before-specs', '--json']);
    for (const term of QUERIES) {
      await step(['query', '--index', 'chunks/search-index.json', '--term', term, '--limit', '5', '--json']);
      await step(['query', '--index', 'chunks/search-index.json', '--term', term, '--limit', '3', '--explain']);
    }
    return { files: artifacts(rig.dir), outputs };
  } finally {
    rig.cleanup();
  }
}

test('the whole pipeline writes the same bytes and answers the same on Node 20, Node 24, Deno and Bun', {
  skip: SHARED_SKIP,
  timeout: 900_000,
}, async (t) => {
  const skipReason = ensureRuntimes();
  if (skipReason !== undefined) {
    t.skip(skipReason);
    return;
  }
  const corpus = path.join(sharedDir()!, 'corpus', 'dev');
  const bodies = new Map(SERVED.map(([route, file, contentType]) => [route, { body: readFileSync(path.join(corpus, file)), contentType }]));
  const server = await TestServer.start(
    Object.fromEntries(
      [...bodies].map(([route, { body, contentType }]) => [
        route,
        (_req, res) => {
          // Fixed headers (no Date): every runtime must record the same representation.
          res.sendDate = false;
          res.writeHead(200, {
            'content-type': contentType,
            etag: `"${route.length}-${body.length}"`,
            'last-modified': 'Tue, 01 Sep 2026 00:00:00 GMT',
          });
          res.end(body);
        },
      ]),
    ),
  );
  t.after(() => server.close());
  const urls = SERVED.map(([route]) => server.url(route));
  const [reference, ...others] = allRuntimes();
  const expected = await wholePipeline(reference!, corpus, urls);
  // The run did what it says: every kind of source became a document, and the queries found evidence.
  const specNames = [...expected.files.keys()].filter((name) => name.startsWith('specs/') && !name.endsWith('index.json'));
  assert.equal(specNames.length, MANUAL.length + SERVED.length, specNames.join(', '));
  assert.ok(expected.files.has('diffs/diff.json'));
  assert.match(expected.outputs.join('\n'), /"snapshotId":"snap-/);
  const totalBytes = [...expected.files.values()].reduce((sum, bytes) => sum + bytes.length, 0);
  t.diagnostic(`${reference!.label}: ${expected.files.size} files, ${totalBytes} bytes`);
  for (const runtime of others) {
    const actual = await wholePipeline(runtime, corpus, urls);
    assert.deepEqual([...actual.files.keys()].sort(), [...expected.files.keys()].sort(), `${runtime.label}: different files`);
    for (const [name, bytes] of expected.files) {
      const other = actual.files.get(name)!;
      if (name.startsWith('snapshots/') && name.endsWith('.json'))
        assert.equal(maskSnapshotFile(name, other), maskSnapshotFile(name, bytes), `${runtime.label}: ${name}`);
      else assert.ok(other.equals(bytes), `${runtime.label}: ${name} differs from ${reference!.label}`);
    }
    assert.deepEqual(
      actual.outputs.map(withoutObservationTime),
      expected.outputs.map(withoutObservationTime),
      `${runtime.label}: command output differs`,
    );
    t.diagnostic(`${runtime.label}: ${actual.files.size} files identical`);
  }
});
