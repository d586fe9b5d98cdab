import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StagePool } from '../../src/graph/stage-pool.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../../src/extract/extract.js';
import { PDF_BOUNDS } from '../../src/extract/input-bounds.js';
import { snapshotFor } from '../extract/helpers.js';
import { deepFieldPdf, deepOutlinePdf } from './hostile-documents.js';

/**
 * Trees of a PDF that pdfjs cannot bear deep, measured before pdfjs reads them (pdf-streams.ts
 * pdfTreeDepths): an outline 20,000 levels deep (2.6 MB) overflowed the stack in pdfjs's copy of it,
 * an uncaught error that failed the source as a bug in Episteme; a form field under 20,000 parents
 * (1.8 MB) ran past the PDF time bound (pdfjs builds each field's name from its whole chain). Past
 * PDF_BOUNDS.maxTreeDepth the tree is not read, with a warning; the page's text is.
 */

const URL = 'https://hostile.test/tree.pdf';

interface Extracted {
  blocks: { text: string }[];
  sections: { heading: string }[];
  diagnostics: { code: string; severity: string }[];
  fields?: unknown;
}

async function extractInPool(pool: StagePool, body: Uint8Array): Promise<{ document: Extracted; ms: number }> {
  const started = performance.now();
  const result = await pool.run(
    {
      stage: 'extract',
      input: {
        documentId: 'tree',
        source: { url: URL },
        snapshot: snapshotFor(URL, 'application/pdf', body),
        body,
        options: { ...DEFAULT_EXTRACT_OPTIONS },
      },
    },
    { timeoutMs: 120_000, label: 'deep tree', pdf: true },
  );
  return { document: JSON.parse(new TextDecoder().decode(result.bytes)).payload as Extracted, ms: performance.now() - started };
}

test('a PDF outline nested 20,000 deep is not read (warning pdf-outline-too-deep); one at the bound is', async () => {
  const pool = new StagePool(1, { maxHeapMb: 1024 });
  try {
    const { document } = await extractInPool(pool, deepOutlinePdf(20_000));
    assert.deepEqual(
      document.diagnostics.map((d) => `${d.severity} ${d.code}`),
      ['warning pdf-outline-too-deep'],
    );
    assert.ok(document.blocks.some((b) => b.text.includes('Hello evidence text')));
    const atBound = await extractInPool(pool, deepOutlinePdf(PDF_BOUNDS.maxTreeDepth));
    assert.ok(!atBound.document.diagnostics.some((d) => d.code === 'pdf-outline-too-deep'));
    assert.ok(
      atBound.document.sections.some((s) => s.heading === 'Entry 0'),
      'an outline at the bound still makes sections',
    );
  } finally {
    await pool.close();
  }
});

test('a PDF form field under 8,000 parents is not read (warning pdf-fields-too-deep), in linear time', async () => {
  const pool = new StagePool(1, { maxHeapMb: 1024 });
  try {
    const { document, ms } = await extractInPool(pool, deepFieldPdf(8_000));
    assert.deepEqual(
      document.diagnostics.map((d) => `${d.severity} ${d.code}`),
      ['warning pdf-fields-too-deep'],
    );
    assert.ok(document.blocks.some((b) => b.text.includes('Hello evidence text')));
    // pdfjs took about 40 s for these fields' names (quadratic); the rest of the page takes well under one.
    assert.ok(ms < 15_000, `took ${ms.toFixed(0)} ms`);
  } finally {
    await pool.close();
  }
});
