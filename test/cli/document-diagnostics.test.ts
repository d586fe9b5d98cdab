import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleHtml } from '../helpers/rig.js';
import { Sandbox, assertFailure } from '../hostile/harness.js';

/**
 * Documents built with error diagnostics (an empty, encrypted or malformed PDF) are counted and
 * named in the summary and --json, and `--fail-on` sets the exit code: error by default, so CI sees
 * them; a no-op rebuild reports them the same way.
 */

const BOUNDS = { maxMs: 60_000, maxRssMb: 400 };
const MAP = JSON.stringify([
  { sourceUrl: 'https://example.test/good', localPath: 'good.html', contentType: 'text/html' },
  { sourceUrl: 'https://example.test/empty.pdf', localPath: 'empty.pdf', contentType: 'application/pdf' },
  { sourceUrl: 'https://example.test/broken.pdf', localPath: 'broken.pdf', contentType: 'application/pdf' },
]);

test('error diagnostics are counted, named and fail the run by default; --fail-on never and warning', async () => {
  const box = new Sandbox();
  try {
    box.write({ 'map.json': MAP, 'good.html': sampleHtml(1), 'empty.pdf': '', 'broken.pdf': '%PDF-1.4\ngarbage here\n%%EOF\n' });
    const first = await box.run(['extract', '--map', 'map.json', '--json']);
    assertFailure(first, { code: 'document-diagnostics', exit: 1, ...BOUNDS });
    const diagnostics = first.json!.data.diagnostics;
    assert.equal(diagnostics.documentsWithErrors, 2, JSON.stringify(diagnostics));
    assert.equal(diagnostics.failOn, 'error');
    const named = diagnostics.documents.map((d: { target: string }) => d.target).sort();
    assert.equal(named.length, 2);
    assert.ok(
      named.some((t: string) => t.startsWith('specs/') && /empty/.test(t)),
      named.join(),
    );
    assert.ok(diagnostics.documents.some((d: { codes: string[] }) => d.codes.includes('pdf-empty')));
    assert.match(first.json!.error!.message, /pdf-empty/);
    assert.match(first.json!.error!.hint!, /--fail-on/);
    // Built all the same: the documents are committed, and the targets say which carry what.
    assert.ok(first.json!.data.targets.every((t: { status: string }) => t.status !== 'failed'));

    // A full build, then a no-op build (the fast path), report and fail the same way.
    const full = await box.run(['build', '--map', 'map.json', '--json']);
    assertFailure(full, { code: 'document-diagnostics', exit: 1, ...BOUNDS });
    const again = await box.run(['build', '--map', 'map.json', '--json']);
    assertFailure(again, { code: 'document-diagnostics', exit: 1, ...BOUNDS });
    assert.equal(again.json!.data.actions, 0);
    assert.equal(again.json!.data.diagnostics.documentsWithErrors, 2);

    // --fail-on never: exit 0, and the human summary still names them.
    const never = await box.run(['build', '--map', 'map.json', '--fail-on', 'never']);
    assert.equal(never.code, 0, never.stderr);
    assert.match(never.stdout, /diagnostics: 2 document\(s\) with errors/);
    assert.match(never.stdout, /error +specs\/[^ ]*: 1 error\(s\) \(pdf-empty\)/);

    const bad = await box.run(['build', '--map', 'map.json', '--fail-on', 'sometimes', '--json']);
    assertFailure(bad, { code: 'usage-error', exit: 2, ...BOUNDS });
  } finally {
    box.cleanup();
  }
});

test('a clean corpus passes with --fail-on warning', async () => {
  const box = new Sandbox();
  try {
    box.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/good', localPath: 'good.html', contentType: 'text/html' }]),
      'good.html': sampleHtml(1),
    });
    const result = await box.run(['build', '--map', 'map.json', '--fail-on', 'warning', '--json']);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.json!.data.diagnostics.documentsWithErrors, 0);
    assert.deepEqual(result.json!.data.diagnostics.documents, []);
  } finally {
    box.cleanup();
  }
});
