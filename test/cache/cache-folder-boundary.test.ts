import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Rig, assertNoStackTrace, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * A file:// remote cache is a folder the upload writes `ac/` and `cas/` into. Named inside one of the
 * workspace's own folders (an output folder, `.episteme/`), through a symbolic link or not, or inside
 * another workspace's output folder, it made the cache's entries files of that workspace: a tree no
 * clean build writes, and entries lost with `.episteme/`. A user-named place Episteme writes into is
 * refused there, as `index --out` is.
 */
test('a file:// remote cache inside a folder a workspace owns is refused before anything is written', async () => {
  const rig = new Rig();
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-cache-boundary-'));
  const other = new Rig();
  try {
    writeSmallWorkspace(rig, 2);
    const built = await rig.exec(['build', '--json']);
    assert.equal(built.code, 0, built.stdout);
    const reference = rig.artifacts();

    fs.symlinkSync(rig.path('chunks'), path.join(outside, 'to-chunks'));
    const refused: [string, string][] = [
      [pathToFileURL(rig.path('specs')).href, 'specs'],
      [pathToFileURL(rig.path('snapshots/bodies/cache')).href, 'snapshots'],
      [pathToFileURL(rig.path('.episteme/remote')).href, '.episteme'],
      [pathToFileURL(path.join(outside, 'to-chunks')).href, 'chunks'],
    ];
    for (const [url, owned] of refused) {
      const result = await rig.exec(['build', '--remote-cache', url, '--remote-cache-upload', '--json']);
      assertNoStackTrace(result);
      assert.equal(result.code, 2, `${url}: ${result.stdout}`);
      assert.equal(result.json!.error!.code, 'usage-error', url);
      assert.equal(result.json!.error!.details.flag, '--remote-cache');
      assert.match(result.json!.error!.message, new RegExp(`meets ${owned.replace('.', '\\.')},`), url);
      assert.match(result.json!.error!.hint!, /outside the workspace's output folders/);
    }
    for (const folder of ['specs', 'snapshots/bodies', '.episteme', 'chunks']) {
      for (const area of ['ac', 'cas', 'cache/ac']) assert.ok(!fs.existsSync(rig.path(folder, area)), `${folder}/${area} written`);
    }
    assert.deepEqual(rig.artifacts(), reference, 'the workspace is as a clean build left it');

    // The config's remoteCache is refused the same way, as config-invalid naming the field.
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', remoteCache: pathToFileURL(rig.path('chunks')).href }) });
    const configured = await rig.exec(['build', '--remote-cache-upload', '--json']);
    assert.equal(configured.code, 2, configured.stdout);
    assert.equal(configured.json!.error!.code, 'config-invalid');
    assert.equal(configured.json!.error!.details.field, 'remoteCache');

    // Another workspace's output folder (known by its owner marker) is refused too.
    writeSmallWorkspace(other, 1);
    const intoOther = await other.exec([
      'build',
      '--remote-cache',
      pathToFileURL(rig.path('chunks/x')).href,
      '--remote-cache-upload',
      '--json',
    ]);
    assert.equal(intoOther.code, 2, intoOther.stdout);
    assert.equal(intoOther.json!.error!.code, 'usage-error');

    // A folder of its own works: the upload fills it, and a restore from it equals the clean build.
    const cache = pathToFileURL(path.join(outside, 'cache')).href;
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
    const uploaded = await rig.exec(['build', '--remote-cache', cache, '--remote-cache-upload', '--json']);
    assert.equal(uploaded.code, 0, uploaded.stdout);
    assert.ok(fs.readdirSync(path.join(outside, 'cache', 'cas')).length > 0);
  } finally {
    rig.cleanup();
    other.cleanup();
    fs.rmSync(outside, { recursive: true, force: true });
  }
});
