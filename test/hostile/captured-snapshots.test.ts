import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, assertBounded, treeChecksum, type MeasuredResult } from './harness.js';
import { sampleHtml } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';
import { TestServer, page, staticRoute } from '../capture/server.js';

/**
 * Issue 9 section 1: captured snapshots cannot be recomputed. A one-off --manifest or --map on the
 * command line of a configured workspace builds another graph; it must not delete what the configured
 * inputs captured, and the next configured build must not recapture it. Deleting captures of sources
 * outside the inputs takes `--prune-snapshots`.
 */

const BOUNDS = { maxMs: 30_000, maxRssMb: 400 };

/** Every file under the snapshot folder's records, bodies and observations, with its bytes' checksum. */
function captured(ws: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of ['records', 'bodies', 'observations']) {
    const full = path.join(ws, 'snapshots', dir);
    if (!fs.existsSync(full)) continue;
    for (const name of fs.readdirSync(full).sort()) files.set(`${dir}/${name}`, treeChecksum(path.join(full, name)));
  }
  return files;
}

function assertContains(now: Map<string, string>, earlier: Map<string, string>, label: string): void {
  for (const [file, sum] of earlier) assert.equal(now.get(file), sum, `${label}: captured ${file} lost or changed`);
}

function snapshotStatuses(result: MeasuredResult): Record<string, string> {
  const targets = result.json!.data.targets as { target: string; rule: string; status: string }[];
  return Object.fromEntries(targets.filter((t) => t.rule === 'snapshot').map((t) => [t.target, t.status]));
}

function indexedUrls(ws: string, dir: string): string[] {
  const index = JSON.parse(fs.readFileSync(path.join(ws, dir, 'index.json'), 'utf8')) as { payload: { entries: { sourceUrl: string }[] } };
  return index.payload.entries.map((e) => e.sourceUrl).sort();
}

function writeWorkspace(box: Sandbox, server: TestServer): void {
  box.write({
    'src/doc0.html': sampleHtml(0),
    'src/doc1.html': sampleHtml(1),
    'src/other.html': sampleHtml(5),
    'map.json': JSON.stringify([0, 1].map((i) => ({ sourceUrl: `https://example.test/doc${i}/`, localPath: `src/doc${i}.html` }))),
    'manifest.json': JSON.stringify([{ url: server.url('/kept') }]),
    'other-map.json': JSON.stringify([{ sourceUrl: 'https://example.test/other/', localPath: 'src/other.html' }]),
    'oneoff-manifest.json': JSON.stringify([{ url: server.url('/oneoff') }]),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json', manifest: 'manifest.json' }),
  });
}

test('a one-off --manifest or --map never deletes what the configured inputs captured, and the next build recaptures nothing', async () => {
  const server = await TestServer.start({
    '/kept': staticRoute(() => page('Kept', 'captured by the configured manifest'), { etag: () => '"k1"' }),
    '/oneoff': staticRoute(() => page('One-off', 'captured by a one-off manifest'), { etag: () => '"o1"' }),
  });
  const box = new Sandbox();
  const clean = new Sandbox();
  try {
    writeWorkspace(box, server);
    const first = await box.run(['build', '--json']);
    assert.equal(first.code, 0, first.stdout);
    assert.equal(server.hits('/kept'), 1);
    const configured = captured(box.ws);
    assert.ok(configured.size >= 7, `captured: ${[...configured.keys()].join(', ')}`);
    const outside = box.outside();

    // One-off manifest: the configured HTTP source leaves the graph, and its capture stays.
    const viaManifest = await box.run(['build', '--manifest', 'oneoff-manifest.json', '--json']);
    assert.equal(viaManifest.code, 0, viaManifest.stdout);
    assertBounded(viaManifest, BOUNDS);
    assert.equal(server.hits('/oneoff'), 1);
    assertContains(captured(box.ws), configured, 'after --manifest');
    // The committed indexes describe the one-off graph only.
    for (const dir of ['snapshots', 'specs', 'chunks'])
      assert.ok(!indexedUrls(box.ws, dir).includes(server.url('/kept')), `${dir}/index.json still names /kept`);
    verifyCommittedGeneration(box.ws);
    const afterManifest = captured(box.ws);

    // One-off map: the configured local sources leave the graph, and their captures stay.
    const viaMap = await box.run(['build', '--map', 'other-map.json', '--json']);
    assert.equal(viaMap.code, 0, viaMap.stdout);
    assertBounded(viaMap, BOUNDS);
    assertContains(captured(box.ws), afterManifest, 'after --map');
    assert.deepEqual(indexedUrls(box.ws, 'specs'), ['https://example.test/other/', server.url('/kept')].sort());

    // Back to the configured inputs: every configured snapshot is up to date, nothing is fetched.
    const back = await box.run(['build', '--json']);
    assert.equal(back.code, 0, back.stdout);
    assertBounded(back, BOUNDS);
    assert.equal(server.hits('/kept'), 1, 'the configured HTTP source was recaptured');
    const statuses = snapshotStatuses(back);
    assert.equal(Object.keys(statuses).length, 3);
    for (const [target, status] of Object.entries(statuses)) assert.equal(status, 'up-to-date', `${target} was ${status}`);
    assertContains(captured(box.ws), afterManifest, 'after the configured build');
    assert.equal(box.outside(), outside, 'something outside the workspace changed');

    // Its derived outputs and indexes are those of a clean build of the configured inputs (snapshot
    // records carry their capture time, so the snapshot index is compared by the snapshot ids it names).
    writeWorkspace(clean, server);
    assert.equal((await clean.run(['build'])).code, 0);
    const derived = (ws: string) => treeChecksum(ws, { skip: (relative) => !/^(specs|chunks)(\/|$)/.test(relative) });
    assert.equal(derived(box.ws), derived(clean.ws), 'derived outputs differ from a clean build');
    const snapshotIds = (ws: string) =>
      (
        JSON.parse(fs.readFileSync(path.join(ws, 'snapshots', 'index.json'), 'utf8')) as {
          payload: { entries: { documentId: string; snapshotId: string }[] };
        }
      ).payload.entries.map((e) => `${e.documentId} ${e.snapshotId}`);
    assert.deepEqual(snapshotIds(box.ws), snapshotIds(clean.ws));

    // Deleting the captures of sources outside the inputs is explicit.
    const pruned = await box.run(['build', '--prune-snapshots', '--json']);
    assert.equal(pruned.code, 0, pruned.stdout);
    const left = captured(box.ws);
    assertContains(left, configured, 'after --prune-snapshots');
    assert.deepEqual([...left.keys()], [...configured.keys()], 'captures of sources outside the inputs survived --prune-snapshots');
    assert.ok(
      (pruned.json!.data.removed as string[]).some((file) => file.startsWith('snapshots/observations/')),
      'the one-off observation log was pruned',
    );
    verifyCommittedGeneration(box.ws);
    assert.equal(box.outside(), outside);
  } finally {
    box.cleanup();
    clean.cleanup();
    await server.close();
  }
});
