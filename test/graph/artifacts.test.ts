import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { Rig, writeSmallWorkspace } from '../helpers/rig.js';
import { validateArtifact } from '../../src/generated/validators.js';
import { parseArtifact, type ArtifactKind } from '../../src/store/artifact.js';
import { loadSearchIndex } from '../../src/index/search-index.js';

const derivedArtifactsAreClean =
  'every derived artifact validates against the artifact schema, verifies its fingerprint and holds no absolute path, ' +
  'PID or timestamp';
test(derivedArtifactsAreClean, async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const derived = [...rig.artifacts(['specs', 'chunks']).keys(), 'snapshots/index.json'];
    assert.ok(derived.length >= 9);
    for (const file of derived) {
      const text = rig.read(file);
      const parsed = JSON.parse(text) as { artifact: ArtifactKind; formatVersion: number };
      assert.ok(validateArtifact(parsed), `${file}: ${JSON.stringify(validateArtifact.errors)}`);
      if (parsed.artifact === 'search-index') loadSearchIndex(Buffer.from(text), file);
      else parseArtifact(text, parsed.artifact, parsed.formatVersion, file);
      assert.ok(!text.includes(rig.dir) && !text.includes(os.tmpdir()), `${file} contains an absolute path`);
      assert.doesNotMatch(text, /\b20\d\d-\d\d-\d\dT\d\d:\d\d/, `${file} contains a timestamp`);
      assert.ok(!text.includes(`"pid"`), `${file} contains a pid`);
    }
    // Snapshot records are captured metadata, not derived artifacts, but carry no local paths either.
    for (const record of fs.readdirSync(rig.path('snapshots/records'))) {
      assert.ok(!rig.read(`snapshots/records/${record}`).includes(rig.dir));
    }
  } finally {
    rig.cleanup();
  }
});

test('the same sources built in another folder give the same bytes', async () => {
  const a = new Rig('episteme-a-');
  const b = new Rig('episteme-bb-');
  try {
    writeSmallWorkspace(a);
    writeSmallWorkspace(b);
    assert.equal((await a.exec(['build'])).code, 0);
    assert.equal((await b.exec(['build', '--jobs', '1'])).code, 0);
    assert.deepEqual(a.artifacts(), b.artifacts());
  } finally {
    a.cleanup();
    b.cleanup();
  }
});
