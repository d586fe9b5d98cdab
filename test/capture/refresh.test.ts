import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig } from '../helpers/rig.js';
import { TestServer, staticRoute, page } from './server.js';

type TargetRow = { target: string; status: string; reasons: { reason: string; by?: string }[]; output?: string };

function statusOf(result: { json: { data?: { targets?: TargetRow[] } } | null }): Record<string, string> {
  return Object.fromEntries((result.json?.data?.targets ?? []).map((t) => [t.target, t.status]));
}

function ran(result: { json: { data?: { targets?: TargetRow[] } } | null }): string[] {
  return (result.json?.data?.targets ?? [])
    .filter((t) => t.status === 'built' || t.status === 'unchanged')
    .map((t) => t.target)
    .sort();
}

const A = 'snapshots/127-0-0-1-a.json';
const B = 'snapshots/127-0-0-1-b.json';
const C = 'snapshots/127-0-0-1-c.json';

const refreshIsConditional =
  'refresh is conditional: ETag and Last-Modified give 304, the same bytes change nothing, new bytes rebuild only that source';
test(refreshIsConditional, async () => {
  const rig = new Rig();
  const bodies = {
    a: page('Alpha', 'Alpha text about okapis.'),
    b: page('Beta', 'Beta text about tapirs.'),
    c: page('Gamma', 'Gamma text about quokkas.'),
  };
  const server = await TestServer.start({
    // a: ETag only; b: Last-Modified only; c: no validators at all (a refresh refetches the bytes).
    '/a': staticRoute(() => bodies.a, { etag: () => `"a-${bodies.a.length}"` }),
    '/b': staticRoute(() => bodies.b, {
      lastModified: () => (bodies.b.includes('pangolins') ? 'Wed, 02 Sep 2026 10:00:00 GMT' : 'Tue, 01 Sep 2026 10:00:00 GMT'),
    }),
    '/c': staticRoute(() => bodies.c),
  });
  try {
    rig.write({
      'manifest.json': JSON.stringify(['/a', '/b', '/c'].map((p) => ({ url: server.url(p) }))),
      'episteme.json': JSON.stringify({ manifest: 'manifest.json' }),
    });
    const first = await rig.exec(['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(first.json!.data.counts.built, 13);
    // Everything but the observation logs, which record each observation and are inputs of nothing.
    const outputs = (): Map<string, string> =>
      new Map([...rig.artifacts()].filter(([file]) => !file.startsWith('snapshots/observations/')));
    const artifacts = outputs();
    const records = fs.readdirSync(rig.path('snapshots/records')).sort();
    assert.equal(records.length, 3);

    // Without --refresh the recorded snapshots pin everything: no request at all.
    const pinned = await rig.exec(['build', '--json']);
    assert.equal(pinned.json!.data.actions, 0);
    assert.equal(server.requests.length, 3);

    // --refresh: conditional requests; 304 for a and b, same bytes for c; all three unchanged, nothing downstream runs.
    const refreshed = await rig.exec(['build', '--refresh', '--json']);
    assert.equal(refreshed.code, 0, refreshed.stdout);
    assert.deepEqual(ran(refreshed), [A, B, C]);
    assert.deepEqual([statusOf(refreshed)[A], statusOf(refreshed)[B], statusOf(refreshed)[C]], ['unchanged', 'unchanged', 'unchanged']);
    const byPath = (p: string) => server.requests.filter((r) => r.path === p);
    assert.equal(byPath('/a')[1]!.headers['if-none-match'], `"a-${bodies.a.length}"`);
    assert.equal(byPath('/b')[1]!.headers['if-modified-since'], 'Tue, 01 Sep 2026 10:00:00 GMT');
    assert.equal(byPath('/c')[1]!.headers['if-none-match'], undefined);
    assert.deepEqual(outputs(), artifacts, 'no byte changed: no new snapshot, document or chunk');
    assert.deepEqual(fs.readdirSync(rig.path('snapshots/records')).sort(), records);
    const log = JSON.parse(rig.read('snapshots/observations/127-0-0-1-a.json'));
    assert.deepEqual(
      log.observations.map((o: { outcome: string; status: number }) => `${o.outcome}:${o.status}`),
      ['new:200', 'not-modified:304'],
    );
    const logC = JSON.parse(rig.read('snapshots/observations/127-0-0-1-c.json'));
    assert.deepEqual(
      logC.observations.map((o: { outcome: string }) => o.outcome),
      ['new', 'same'],
    );

    // Changed content: a new snapshot id for b only, and only b's chain and the aggregates rebuild.
    const before = JSON.parse(rig.read(`snapshots/${fs.readdirSync(rig.path('snapshots')).find((f) => f === 'index.json')}`));
    bodies.b = page('Beta', 'Beta text about tapirs and a new paragraph on pangolins.');
    const changed = await rig.exec(['build', '--refresh', '--json']);
    assert.equal(changed.code, 0, changed.stdout);
    const status = statusOf(changed);
    assert.equal(status[B], 'built');
    assert.equal(status['specs/127-0-0-1-b.json'], 'built');
    assert.equal(status['chunks/127-0-0-1-b.json'], 'built');
    for (const other of ['specs/127-0-0-1-a.json', 'specs/127-0-0-1-c.json', 'chunks/127-0-0-1-a.json', 'chunks/127-0-0-1-c.json'])
      assert.equal(status[other], 'up-to-date', other);
    const after = JSON.parse(rig.read('snapshots/index.json'));
    const idOf = (index: { payload: { entries: { documentId: string; snapshotId: string }[] } }, doc: string) =>
      index.payload.entries.find((e) => e.documentId === doc)!.snapshotId;
    assert.notEqual(idOf(after, '127-0-0-1-b'), idOf(before, '127-0-0-1-b'));
    assert.equal(idOf(after, '127-0-0-1-a'), idOf(before, '127-0-0-1-a'));
    const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'pangolins', '--json']);
    assert.equal(query.json!.data.hits.length, 1);
    assert.equal(query.json!.data.hits[0].citation.snapshotId, idOf(after, '127-0-0-1-b'));

    // --max-age: a fresh snapshot is not refetched; --max-age 0 refetches (conditionally) every one.
    const requests = server.requests.length;
    const young = await rig.exec(['build', '--max-age', '3600', '--json']);
    assert.equal(young.json!.data.actions, 0);
    assert.equal(server.requests.length, requests);
    const old = await rig.exec(['build', '--max-age', '0', '--json']);
    assert.deepEqual(ran(old), [A, B, C]);
    assert.equal(server.requests.length, requests + 3);
    const dry = await rig.exec(['build', '--dry-run', '--refresh', '--json']);
    const row = (dry.json!.data.targets as TargetRow[]).find((t) => t.target === A)!;
    assert.equal(row.status, 'dirty');
    assert.deepEqual(row.reasons, [{ reason: 'refresh-requested', by: 'refresh', ageSeconds: null, maxAgeSeconds: null }]);
    assert.equal(server.requests.length, requests + 3, 'a dry run fetches nothing');
  } finally {
    await server.close();
    rig.cleanup();
  }
});

const snapshotRefreshesByDefault =
  'episteme snapshot refreshes by default, reads the manifest from stdin, reports progress per source, ' +
  'and --no-refresh fetches nothing';
test(snapshotRefreshesByDefault, async () => {
  const rig = new Rig();
  const server = await TestServer.start({ '/a': staticRoute(() => page('Alpha', 'x'.repeat(3000)), { etag: () => '"a1"' }) });
  try {
    const manifest = JSON.stringify([{ url: server.url('/a'), family: 'generic', authority: 'informative', extractor: 'html' }]);
    const first = await rig.exec(['snapshot', '--manifest', '-', '--progress', 'always'], { input: manifest });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, new RegExp(`GET ${server.url('/a')}: 200, \\d+ bytes declared`));
    assert.match(first.stderr, new RegExp(`GET ${server.url('/a')}: done, 200, \\d{4} bytes`));
    const second = await rig.exec(['snapshot', '--manifest', '-', '--progress', 'always', '--json'], { input: manifest });
    assert.equal(second.code, 0);
    assert.deepEqual(ran(second), [A]);
    assert.equal(statusOf(second)[A], 'unchanged');
    const events = second.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; status?: number });
    assert.ok(
      events.some((e) => e.event === 'capture-response' && e.status === 304),
      second.stderr,
    );
    const none = await rig.exec(['snapshot', '--manifest', '-', '--no-refresh', '--json'], { input: manifest });
    assert.equal(none.json!.data.actions, 0);
    assert.equal(server.hits('/a'), 2);
    const index = JSON.parse(rig.read('snapshots/index.json'));
    assert.equal(index.payload.entries[0].captureMethod, 'http');
  } finally {
    await server.close();
    rig.cleanup();
  }
});

test('a source over --max-sources fails with max-sources-per-run and is fetched by the next run', async () => {
  const rig = new Rig();
  const server = await TestServer.start({
    '/a': staticRoute(() => page('Alpha', 'a')),
    '/b': staticRoute(() => page('Beta', 'b')),
    '/c': staticRoute(() => page('Gamma', 'c')),
  });
  try {
    rig.write({ 'manifest.json': JSON.stringify(['/a', '/b', '/c'].map((p) => ({ url: server.url(p) }))) });
    const first = await rig.exec(['snapshot', '--manifest', 'manifest.json', '--max-sources', '2', '--json']);
    assert.equal(first.code, 1);
    const failed = (first.json!.data.targets as { target: string; status: string; error?: { details?: { reason?: string } } }[]).filter(
      (t) => t.status === 'failed',
    );
    assert.deepEqual(
      failed.map((t) => [t.target, t.error!.details!.reason]),
      [[C, 'max-sources-per-run']],
    );
    assert.equal(server.hits('/c'), 0);
    const second = await rig.exec(['snapshot', '--manifest', 'manifest.json', '--max-sources', '2', '--no-refresh', '--json']);
    assert.equal(second.code, 0, second.stdout);
    assert.deepEqual(ran(second), [C, 'snapshots/index.json']);
  } finally {
    await server.close();
    rig.cleanup();
  }
});
