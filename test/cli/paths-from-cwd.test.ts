import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sampleHtml } from '../helpers/rig.js';
import { Sandbox, assertFailure } from '../hostile/harness.js';

/**
 * Run from a folder below the workspace (`--config ../episteme.json`), human messages name workspace
 * files by their path from that folder, so a path can be pasted into a shell or passed back as a
 * target; --json keeps target names (paths from the workspace root), which are identifiers.
 */

const BOUNDS = { maxMs: 60_000, maxRssMb: 400 };

function writeWorkspace(box: Sandbox): void {
  box.write({
    'episteme.json': JSON.stringify({ manualIngest: 'sources/map.json' }),
    'sources/map.json': JSON.stringify([
      { sourceUrl: 'https://example.test/good', localPath: 'good.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/broken.pdf', localPath: 'broken.pdf', contentType: 'application/pdf' },
    ]),
    'sources/good.html': sampleHtml(1),
    'sources/broken.pdf': '%PDF-1.4\ngarbage here\n%%EOF\n',
    'notes/README': 'a folder of the author, below the workspace root\n',
  });
}

test('from a subfolder, the summary and errors name workspace files by their path from the current folder', async () => {
  const box = new Sandbox();
  try {
    writeWorkspace(box);
    const cwd = path.join(box.ws, 'notes');
    const human = await box.run(['build', '--config', '../episteme.json', '--verbose'], { cwd });
    assert.equal(human.code, 1, human.stderr);
    // Every target line of the summary, and the error, name files as ../<output>.
    const targetLines = human.stdout.split('\n').filter((line) => /^\s+(built|error|unchanged|up-to-date)\s/.test(line));
    assert.ok(targetLines.length >= 8, human.stdout);
    for (const line of targetLines) assert.match(line, /\s\.\.\/(snapshots|specs|chunks)\//, line);
    assert.match(human.stderr, /^error \[document-diagnostics\]: .*\.\.\/specs\/\S*broken\S*\.json \(pdf-malformed\)/m);

    // --json keeps the target names: identifiers from the workspace root.
    const json = await box.run(['build', '--config', '../episteme.json', '--json', '--fail-on', 'never'], { cwd });
    assert.equal(json.code, 0, json.stderr);
    const names: string[] = json.json!.data.targets.map((t: { target: string }) => t.target);
    assert.ok(names.includes('chunks/search-index.json'), names.join());
    assert.ok(
      names.every((name) => !name.startsWith('..')),
      names.join(),
    );
    const broken = json.json!.data.diagnostics.documents[0].target as string;
    assert.match(broken, /^specs\//);

    // The path a message showed can be passed back as a target, and so can the target name.
    for (const target of [`../${broken}`, broken]) {
      const one = await box.run(['build', '--config', '../episteme.json', '--json', '--fail-on', 'never', target], { cwd });
      assert.equal(one.code, 0, `${target}: ${one.stderr}`);
      assert.deepEqual(
        one.json!.data.targets.map((t: { target: string }) => t.target).filter((t: string) => t.startsWith('specs/')),
        [broken],
      );
    }
    // A path that names no output is still an unknown target, with the hint saying both forms.
    const unknown = await box.run(['build', '--config', '../episteme.json', '--json', '../sources/good.html'], { cwd });
    assertFailure(unknown, { code: 'unknown-target', exit: 2, ...BOUNDS });
    assert.match(unknown.json!.error!.hint!, /from another folder, paths to those outputs/);
  } finally {
    box.cleanup();
  }
});
