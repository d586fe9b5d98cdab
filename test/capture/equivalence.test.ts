import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';
import { TestServer, staticRoute, page } from './server.js';

/** Reads a stage's single document through its committed index. */
function only(rig: Rig, dir: string): Record<string, any> {
  const index = JSON.parse(rig.read(`${dir}/index.json`));
  assert.equal(index.payload.entries.length, 1);
  return JSON.parse(rig.read(`${dir}/${index.payload.entries[0].file}`));
}

test('manual ingest and HTTP capture of the same representation give the same snapshot id and the same evidence', async () => {
  const body = page('Shared', 'The same bytes, captured two ways, about conditional requests.');
  const server = await TestServer.start({
    '/shared': staticRoute(() => body, { contentType: 'text/html; charset=utf-8', etag: () => '"s"' }),
  });
  const viaHttp = new Rig();
  const viaFile = new Rig();
  try {
    const url = server.url('/shared');
    viaHttp.write({ 'manifest.json': JSON.stringify([{ url }]) });
    viaFile.write({
      'shared.html': body,
      'map.json': JSON.stringify([{ sourceUrl: url, localPath: 'shared.html', contentType: 'text/html', charset: 'utf-8' }]),
    });
    assert.equal((await viaHttp.exec(['pipeline', '--manifest', 'manifest.json'])).code, 0);
    assert.equal((await viaFile.exec(['pipeline', '--map', 'map.json'])).code, 0);

    const httpIndex = JSON.parse(viaHttp.read('snapshots/index.json')).payload.entries[0];
    const fileIndex = JSON.parse(viaFile.read('snapshots/index.json')).payload.entries[0];
    assert.equal(httpIndex.snapshotId, fileIndex.snapshotId);
    assert.equal(httpIndex.body, fileIndex.body);
    assert.deepEqual([httpIndex.captureMethod, fileIndex.captureMethod], ['http', 'manual-ingest']);

    const httpDoc = only(viaHttp, 'specs').payload;
    const fileDoc = only(viaFile, 'specs').payload;
    assert.deepEqual([httpDoc.provenance.captureMethod, fileDoc.provenance.captureMethod], ['http', 'manual-ingest']);
    delete httpDoc.provenance.captureMethod;
    delete fileDoc.provenance.captureMethod;
    assert.deepEqual(httpDoc, fileDoc, 'only the capture method tells them apart');
    assert.deepEqual(only(viaHttp, 'chunks').payload, only(viaFile, 'chunks').payload);
  } finally {
    await server.close();
    viaHttp.cleanup();
    viaFile.cleanup();
  }
});
