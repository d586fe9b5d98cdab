import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig, assertNoStackTrace, sampleHtml } from '../helpers/rig.js';

/**
 * The build state records every workspace path with "/" only and discards a record holding a backslash
 * (src/graph/state-validation.ts). On POSIX a backslash is a name character, so an output folder or a
 * source whose workspace path holds one used to build once and then never be a no-op (every build warned
 * state-discarded). Such a path is refused where the config or the map is loaded, naming the field.
 */

const SOURCE = { sourceUrl: 'https://example.test/a/', contentType: 'text/html' };

test('an output folder holding a backslash is config-invalid naming the field, from the config and from a flag', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/a.html': sampleHtml(0),
      'map.json': JSON.stringify([{ ...SOURCE, localPath: 'src/a.html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', outputs: { snapshots: 'snap\\x' } }),
    });
    const fromConfig = await rig.exec(['build', '--json']);
    assertNoStackTrace(fromConfig);
    assert.equal(fromConfig.json!.error?.code, 'config-invalid', fromConfig.stdout);
    assert.deepEqual(fromConfig.json!.error!.details.problems, [
      'field outputs.snapshots: must be a relative path with "/" between folders (not absolute, no NUL, no backslash)',
    ]);

    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
    const fromFlag = await rig.exec(['snapshot', '--snapshots', 'snap\\x', '--json']);
    assert.equal(fromFlag.json!.error?.code, 'config-invalid', fromFlag.stdout);
    assert.equal(fromFlag.json!.error!.details.field, 'outputs.snapshots');
    assert.match(fromFlag.json!.error!.message, /holds a backslash: snap\\x/);
    assert.match(fromFlag.json!.error!.hint ?? '', /"\/" between folders/);
  } finally {
    rig.cleanup();
  }
});

test('a source whose workspace path holds a backslash is map-invalid naming the entry; with "/" the second build is a no-op', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/a\\b.html': sampleHtml(0),
      'src/a/b.html': sampleHtml(1),
      'docs\\x/map.json': JSON.stringify([{ ...SOURCE, localPath: 'page.html' }]),
      'docs\\x/page.html': sampleHtml(2),
      'map.json': JSON.stringify([{ ...SOURCE, localPath: 'src/a\\b.html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const inName = await rig.exec(['build', '--json']);
    assertNoStackTrace(inName);
    assert.equal(inName.json!.error?.code, 'map-invalid', inName.stdout);
    assert.deepEqual(inName.json!.error!.details.problems, [
      'entry 0, field localPath: src/a\\b.html holds a backslash; ' +
        'write "/" between folders, and rename a file or folder whose name holds one',
    ]);

    // The map's own folder puts the backslash into every path it names.
    const inFolder = await rig.exec(['build', '--map', 'docs\\x/map.json', '--json']);
    assert.equal(inFolder.json!.error?.code, 'map-invalid', inFolder.stdout);
    assert.match(
      inFolder.json!.error!.details.problems[0],
      /^entry 0, field localPath: page\.html holds a backslash in its path from the workspace root \(docs\\x\/page\.html\)/,
    );

    rig.write({ 'map.json': JSON.stringify([{ ...SOURCE, localPath: 'src/a/b.html' }]) });
    const first = await rig.exec(['build', '--json']);
    assert.equal(first.code, 0, first.stdout);
    const second = await rig.exec(['build', '--json']);
    assert.equal(second.code, 0, second.stdout);
    assert.deepEqual(second.json!.warnings, []);
    assert.ok(
      second.json!.data.targets.every((row: { status: string }) => row.status === 'up-to-date'),
      second.stdout,
    );
  } finally {
    rig.cleanup();
  }
});
