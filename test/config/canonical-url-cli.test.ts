import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig, sampleHtml } from '../helpers/rig.js';

/** Issue 9 section 9, end to end: equivalent URLs are one source in a map, in a manifest and across both. */
const equivalentUrlsAreOneSource =
  'an empty fragment (and every other equivalence) is the same source: duplicates within and across the map and the manifest, ' +
  'one document id';
test(equivalentUrlsAreOneSource, async () => {
  const rig = new Rig();
  try {
    rig.write({ 'src/a.html': sampleHtml(1), 'src/b.html': sampleHtml(2) });
    const pairs: [string, string][] = [
      ['https://a.example/#', 'https://a.example/'],
      ['https://a.example/x#', 'HTTPS://A.EXAMPLE:443/./x'],
      ['https://a.example/%7euser', 'https://a.example/~user'],
    ];
    for (const [one, two] of pairs) {
      rig.write({
        'map.json': JSON.stringify([
          { sourceUrl: one, localPath: 'src/a.html' },
          { sourceUrl: two, localPath: 'src/b.html' },
        ]),
      });
      const inMap = await rig.exec(['build', '--map', 'map.json', '--dry-run', '--json']);
      assert.equal(inMap.json!.error?.code, 'map-invalid', `${one} / ${two}`);
      assert.match(inMap.json!.error!.message, /entry 1, field sourceUrl: duplicate of entry 0/);

      rig.write({ 'manifest.json': JSON.stringify([{ url: one }, { url: two }]) });
      const inManifest = await rig.exec(['build', '--manifest', 'manifest.json', '--dry-run', '--json']);
      assert.equal(inManifest.json!.error?.code, 'manifest-invalid');

      rig.write({
        'map.json': JSON.stringify([{ sourceUrl: one, localPath: 'src/a.html' }]),
        'manifest.json': JSON.stringify([{ url: two }]),
      });
      const across = await rig.exec(['build', '--map', 'map.json', '--manifest', 'manifest.json', '--dry-run', '--json']);
      assert.equal(across.json!.error?.code, 'manifest-invalid');
      assert.match(across.json!.error!.message, /duplicate of manual-ingest map entry 0/);
    }
    // The id and the recorded URL do not depend on the spelling.
    const ids: string[] = [];
    for (const url of ['https://a.example/#', 'https://a.example/']) {
      rig.write({ 'map.json': JSON.stringify([{ sourceUrl: url, localPath: 'src/a.html' }]) });
      const built = await rig.exec(['build', '--map', 'map.json', '--json']);
      assert.equal(built.code, 0, built.stdout);
      const index = JSON.parse(rig.read('specs/index.json')) as { payload: { entries: { documentId: string; sourceUrl: string }[] } };
      assert.equal(index.payload.entries[0]!.sourceUrl, 'https://a.example/');
      ids.push(index.payload.entries[0]!.documentId);
      if (ids.length === 2) assert.equal(built.json!.data.actions, 0, 'the second spelling rebuilt something');
    }
    assert.equal(ids[0], ids[1]);
  } finally {
    rig.cleanup();
  }
});
