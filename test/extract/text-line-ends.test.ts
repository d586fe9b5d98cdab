import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDocument } from '../../src/extract/extract.js';
import { MAX_TEXT_TITLE } from '../../src/extract/text/text-extractor.js';
import type { EvidenceDocument } from '../../src/document/types.js';
import { extractBytes } from './helpers.js';

/**
 * Plain text ends its lines with LF, CRLF or a lone CR (classic Mac OS files): the three read alike,
 * and each block's span covers the source text it came from. Before, a CR-only RFC was one line,
 * dropped as page furniture (no section, no block), and any other CR-only text one paragraph.
 */

const RFC = ['Request for Comments: 9999', '', 'Abstract', '', '   Some text zzcr.', '', '1.  Intro', '', '   More zzcr text.', ''];
const PLAIN = ['Hello there', 'second line', '', 'Para two', '', '    code line', '    second code line', ''];

const shape = (doc: EvidenceDocument) => ({
  title: doc.title,
  sections: doc.sections.map((s) => [s.heading, s.number, s.span?.['line']]),
  blocks: doc.blocks.map((b) => [b.kind, b.text, b.span?.['line'], b.span?.['endLine']]),
});

/** Each block's span, cut from the source, holds its text's words. */
function assertSpansCoverText(doc: EvidenceDocument, source: string, label: string): void {
  for (const b of doc.blocks) {
    const span = b.span as { start: number; end: number };
    const words = source.slice(span.start, span.end).split(/\s+/).filter(Boolean).join(' ');
    assert.equal(words, b.text.split(/\s+/).filter(Boolean).join(' '), `${label}: ${b.id}`);
  }
}

for (const [name, lines, url] of [
  ['an RFC', RFC, 'https://www.rfc-editor.org/rfc/rfc9999.txt'],
  ['a plain text', PLAIN, 'https://example.org/notes.txt'],
] as const) {
  test(`${name} with CR-only or CRLF line ends reads as with LF, spans on the source`, async () => {
    const lf = await extractBytes(lines.join('\n'), url, 'text/plain');
    assert.ok(lf.blocks.length >= 2, 'the LF form has blocks');
    for (const [end, label] of [
      ['\r', 'CR'],
      ['\r\n', 'CRLF'],
    ] as const) {
      const source = lines.join(end);
      const doc = await extractBytes(source, url, 'text/plain');
      assert.deepEqual(validateDocument(doc), { ok: true });
      assert.deepEqual(shape(doc), shape(lf), label);
      assertSpansCoverText(doc, source, label);
      // One code unit per line end: CR-only spans are the LF spans.
      if (end === '\r')
        assert.deepEqual(
          doc.blocks.map((b) => b.span),
          lf.blocks.map((b) => b.span),
        );
    }
  });
}

test('a plain text of one long line is titled by its start, cut at MAX_TEXT_TITLE; the line stays in its block', async () => {
  const line = 'word '.repeat(100_000).trim();
  const doc = await extractBytes(line, 'https://example.org/one-line.txt', 'text/plain');
  assert.equal(doc.title.length, MAX_TEXT_TITLE - 1);
  assert.ok(doc.title.endsWith('word…'), doc.title.slice(-20));
  assert.equal(doc.blocks[0]!.text, line);
  const short = await extractBytes('A short title\n\nBody.', 'https://example.org/short.txt', 'text/plain');
  assert.equal(short.title, 'A short title');
});
