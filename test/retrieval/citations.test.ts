import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import type { EvidenceDocument } from '../../src/document/types.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS, loadSearchIndex } from '../../src/index/search-index.js';
import { runQuery } from '../../src/query/query.js';
import { extractBytes, fixturesDir } from '../extract/helpers.js';
import { textPdf } from '../hostile/hostile-documents.js';

/**
 * Citations point at the text: the fragment of a hit is the nearest source id at or before the
 * matched words (a <dfn id>, a step's id, a numbered paragraph, any element id inside the section),
 * while sectionId and headingPath still name the section; and every extractor's chunks have a
 * heading path of the same shape (document title first, then the sections).
 */
const SPEC =
  `<!doctype html><html><head><title>Gadget Standard</title></head><body>
<h1>Gadget</h1>
<section id="processing">
<h2>3. Processing model</h2>
<p id="p-intro">Opening words about lanterns. A <dfn id="concept-widget">widget</dfn> is a quokka of the page, ` +
  `and a widget shows marmalade.</p>
<div class="algorithm" id="algo-run">
<p>To run a gadget:</p>
<ol>
<li id="step-1">Let result be null.</li>
<li id="step-2">If the gadget is asleep, wake the pelican.</li>
<li id="step-3">Return the zeppelin.</li>
</ol>
</div>
<p>A paragraph without an id mentions the walrus.</p>
</section>
</body></html>`;

function indexOf(docs: EvidenceDocument[], options = DEFAULT_CHUNK_OPTIONS) {
  return loadSearchIndex(
    buildSearchIndex(
      docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, options) })),
      { chunkIndexFingerprint: 'fp', missingSources: [] },
      DEFAULT_INDEX_OPTIONS,
    ),
    'citations',
  );
}

test('a citation carries the nearest source id at or before the match, and still names the section', async () => {
  const doc = await extractBytes(SPEC, 'https://example.test/gadget/', 'text/html');
  // The extractor records ids inside blocks with their offsets into the block text (the block's own id is its fragment).
  const intro = doc.blocks.find((block) => block.text.startsWith('Opening words'))!;
  assert.equal(intro.fragment, 'p-intro');
  assert.deepEqual(
    intro.anchors?.map((anchor) => [anchor.id, intro.text.slice(anchor.start, anchor.start + 6)]),
    [['concept-widget', 'widget']],
  );
  for (const options of [DEFAULT_CHUNK_OPTIONS, { maxChars: 60, overlapChars: 20 }]) {
    const index = indexOf([doc], options);
    const cite = (word: string) => {
      const [hit] = runQuery(index, { terms: [word], limit: 1, offset: 0, maxSnippetChars: 200, maxTotalChars: 1000 }).hits;
      assert.ok(hit !== undefined, word);
      return hit.citation;
    };
    const context = JSON.stringify(options);
    assert.equal(cite('lanterns').fragment, 'p-intro', context);
    assert.equal(cite('quokka').fragment, 'concept-widget', context);
    assert.equal(cite('marmalade').fragment, 'concept-widget', context);
    assert.equal(cite('pelican').fragment, 'step-2', context);
    assert.equal(cite('zeppelin').fragment, 'step-3', context);
    // No id of its own: the enclosing section's.
    assert.equal(cite('walrus').fragment, 'processing', context);
    for (const word of ['quokka', 'pelican', 'walrus']) {
      const citation = cite(word);
      assert.equal(citation.sectionId, 'processing', `${context} ${word}`);
      assert.deepEqual(citation.headingPath, ['Gadget Standard', 'Processing model'], `${context} ${word}`);
    }
  }
});

test('every extractor gives heading paths of one shape: the document title, then the sections', async () => {
  const inputs: [string, string | Uint8Array, string, string][] = [
    ['whatwg html', readFileSync(path.join(fixturesDir, 'whatwg-bikeshed.html'), 'utf8'), 'https://widget.spec.whatwg.org/', 'text/html'],
    ['respec html', readFileSync(path.join(fixturesDir, 'w3c-respec.html'), 'utf8'), 'https://www.w3.org/TR/gadget/', 'text/html'],
    [
      'rfc html',
      readFileSync(path.join(fixturesDir, 'rfc-xml2rfc.html'), 'utf8'),
      'https://www.rfc-editor.org/rfc/rfc9999.html',
      'text/html',
    ],
    [
      'rfc xml',
      readFileSync(path.join(fixturesDir, 'rfc-v2.xml'), 'utf8'),
      'https://www.rfc-editor.org/rfc/rfc9998.xml',
      'application/xml',
    ],
    ['generic xml', readFileSync(path.join(fixturesDir, 'generic.xml'), 'utf8'), 'https://example.test/manual.xml', 'application/xml'],
    [
      'rfc text',
      readFileSync(path.join(fixturesDir, 'rfc-paginated.txt'), 'utf8'),
      'https://www.rfc-editor.org/rfc/rfc9997.txt',
      'text/plain',
    ],
    [
      'plain text',
      'Notes on Gadgets\n\nGadgets are small. They help.\n\nMore text follows here.\n',
      'https://example.test/notes.txt',
      'text/plain',
    ],
    ['pdf', textPdf(2, 5), 'https://example.test/report.pdf', 'application/pdf'],
  ];
  for (const [name, body, url, contentType] of inputs) {
    const doc = await extractBytes(body, url, contentType);
    const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
    assert.ok(chunks.length > 0, name);
    const sectionHeadings = new Map(doc.sections.map((section) => [section.id, section.heading]));
    for (const chunk of chunks) {
      const headingPath = chunk.citation.headingPath;
      if (doc.title === '') assert.ok(headingPath.length === 0 || sectionHeadings.has(chunk.citation.sectionId ?? ''), name);
      else assert.equal(headingPath[0], doc.title, `${name}: ${chunk.chunkId} starts with the title`);
      // The title is not repeated by a top-level section that is the title's own heading.
      assert.notEqual(headingPath[1]?.toLowerCase(), doc.title.toLowerCase(), `${name}: ${chunk.chunkId}`);
      // The last entry is the chunk's own section.
      if (chunk.citation.sectionId !== null && headingPath.length > 1)
        assert.equal(headingPath.at(-1), sectionHeadings.get(chunk.citation.sectionId), name);
    }
  }
});
