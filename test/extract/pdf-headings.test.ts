import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SKIP_CORPUS, extractBytes, extractCorpusFile } from './helpers.js';
import { tablePdf } from '../helpers/table-pdf.js';

/**
 * Headings of a PDF come from its outline when it has one; otherwise they are guessed from type size,
 * and the document's declared limits say so (and, for a tagged PDF, that its structure tree was not
 * read), so a reader knows how far to trust the section tree.
 */

test('an untagged PDF without an outline declares that its headings were guessed from font size', async () => {
  const texts = [{ x: 72, top: 72, size: 20, text: 'Evidence handling' }];
  for (let i = 0; i < 12; i++)
    texts.push({
      x: 72,
      top: 110 + i * 13,
      size: 10,
      text: `Body line ${i + 1} of running text about captured sources and their evidence.`,
    });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/guess.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Evidence handling'],
  );
  assert.ok(doc.limits.includes('pdf-headings-guessed-from-font-size'), doc.limits.join());
  assert.ok(!doc.limits.includes('pdf-structure-tree-not-used'), doc.limits.join());
});

test('outline headings are not declared as guessed; a tagged PDF says its structure tree is unused', { skip: SKIP_CORPUS }, async () => {
  const outline = await extractCorpusFile('pdf/pdflatex-outline.pdf');
  assert.ok(!outline.limits.includes('pdf-headings-guessed-from-font-size'), outline.limits.join());
  const tagged = await extractCorpusFile('pdf/word365_structure.pdf');
  assert.ok(tagged.limits.includes('pdf-headings-guessed-from-font-size'), tagged.limits.join());
  assert.ok(tagged.limits.includes('pdf-structure-tree-not-used'), tagged.limits.join());
});
