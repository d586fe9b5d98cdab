import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Rig, SHARED_SKIP, sharedDir } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';

function corpusWorkspace(rig: Rig): void {
  const map = path.join(sharedDir()!, 'corpus', 'dev', 'manual-ingest.json');
  rig.write({ 'episteme.json': JSON.stringify({ manualIngest: map }) });
}

test('the whole dev corpus builds through the CLI, in-process and on workers alike, and answers cited queries', {
  skip: SHARED_SKIP,
  timeout: 600_000,
}, async () => {
  const one = new Rig();
  const many = new Rig();
  try {
    corpusWorkspace(one);
    corpusWorkspace(many);
    // Three PDFs of the corpus are built with error diagnostics (empty, encrypted, malformed): by
    // default the run reports them and exits 1 (--fail-on error); --fail-on never makes it exit 0.
    const serial = await one.exec(['build', '--jobs', '1', '--json']);
    assert.equal(serial.code, 1, serial.stdout.slice(0, 2000) + serial.stderr);
    assert.equal(serial.json!.error!.code, 'document-diagnostics');
    assert.equal(serial.json!.data.counts.failed, 0);
    assert.equal(serial.json!.data.diagnostics.documentsWithErrors, 3);
    const parallel = await many.exec(['build', '--jobs', '2', '--fail-on', 'never', '--json']);
    assert.equal(parallel.code, 0, parallel.stdout.slice(0, 2000) + parallel.stderr);
    assert.deepEqual(parallel.json!.data.diagnostics.documents.flatMap((d: { codes: string[] }) => d.codes).sort(), [
      'pdf-empty',
      'pdf-encrypted',
      'pdf-malformed',
    ]);
    assert.deepEqual(many.artifacts(), one.artifacts(), 'parallel build bytes equal the one-worker build');
    assert.ok(verifyCommittedGeneration(one.dir) >= 3 * 32);

    const documents = JSON.parse(one.read('specs/index.json')) as { payload: { entries: { sourceUrl: string; file: string }[] } };
    assert.equal(documents.payload.entries.length, 32);
    const diagnosticsOf = (needle: string) => {
      const entry = documents.payload.entries.find((e) => e.sourceUrl.endsWith(needle))!;
      const doc = JSON.parse(one.read(`specs/${entry.file}`)) as { payload: { diagnostics: { code: string; severity: string }[] } };
      return doc.payload.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);
    };
    assert.deepEqual(diagnosticsOf('/empty.pdf'), ['pdf-empty']);
    assert.deepEqual(diagnosticsOf('/password-example.pdf'), ['pdf-encrypted']);
    assert.deepEqual(diagnosticsOf('/malformed-from-issue-932.pdf'), ['pdf-malformed']);

    const again = await one.exec(['build', '--json']);
    assert.equal(again.json!.data.actions, 0);

    const http = await one.exec([
      'query',
      '--index',
      'chunks/search-index.json',
      '--term',
      'conditional request',
      '--family',
      'rfc',
      '--limit',
      '3',
      '--json',
    ]);
    assert.equal(http.code, 0);
    assert.equal(http.json!.data.hits.length, 3);
    for (const hit of http.json!.data.hits) {
      assert.match(hit.citation.sourceUrl, /rfc9110/);
      assert.ok(hit.citation.fragment && hit.citation.snapshotId.startsWith('snap-'));
    }
    const pdf = await one.exec(['query', '--index', 'chunks/search-index.json', '--term', 'firearm', '--term', 'transcript', '--json']);
    assert.equal(pdf.code, 0, pdf.stdout);
    const pdfHits = (pdf.json!.data.hits as { citation: { sourceUrl: string; pages?: number[] } }[]).filter((hit) =>
      hit.citation.sourceUrl.endsWith('.pdf'),
    );
    assert.ok(pdfHits.length > 0);
    assert.ok(
      pdfHits.every((hit) => (hit.citation.pages ?? []).length > 0),
      'PDF hits cite their pages',
    );
  } finally {
    one.cleanup();
    many.cleanup();
  }
});
