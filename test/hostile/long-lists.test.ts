import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StagePool } from '../../src/graph/stage-pool.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../../src/extract/extract.js';
import { appendAll, maxOf, minOf } from '../../src/array-extremes.js';
import { extractBytes, snapshotFor } from '../extract/helpers.js';

/**
 * Lists as long as the input makes them: a spread into a call (`Math.min(...xs)`, `a.push(...xs)`)
 * passes each element on the stack and threw "Maximum call stack size exceeded" past about a hundred
 * thousand of them, an internal error ("a bug in Episteme") instead of a document. Extracted here on the
 * main thread, whose stack is smaller than a stage worker's: each input overflowed it before the fix.
 */

const N = 250_000;
const RFC_HEAD = 'Internet Engineering Task Force (IETF)\nRequest for Comments: 9998\nCategory: Standards Track\n\n1.  Introduction\n\n';
const RFC_URL = 'https://www.rfc-editor.org/rfc/rfc9998.txt';

test('minOf, maxOf and appendAll take lists longer than the stack', () => {
  const values = Array.from({ length: 1_000_000 }, (_, i) => (i * 7919) % 1_000_003);
  assert.equal(minOf(values), 0);
  assert.equal(
    maxOf(values),
    values.reduce((a, b) => Math.max(a, b)),
  );
  assert.equal(minOf([]), Infinity);
  assert.equal(maxOf([]), -Infinity);
  const target = [1];
  appendAll(target, values);
  assert.equal(target.length, values.length + 1);
  assert.equal(target[1], values[0]);
});

test(`${N} empty anchors before one paragraph (HTML and Markdown) name it: no stack overflow`, async () => {
  const anchors = Array.from({ length: N }, (_, i) => `<a id="a${i}"></a>`).join('');
  const html = await extractBytes(`<html><body><h1>T</h1>${anchors}<p>text</p></body></html>`, 'https://example.org/', 'text/html');
  const block = html.blocks.find((b) => b.text === 'text');
  assert.equal(block?.anchors?.length, N);
  assert.equal(block?.anchors?.[0]?.id, 'a0');
  const md = await extractBytes(`# T\n\n${anchors}\n\npara\n`, 'https://example.org/a.md', 'text/markdown');
  assert.equal(md.blocks.find((b) => b.text === 'para')?.anchors?.length, N);
});

test(`RFC text: one group of ${N} lines, and a paragraph continued across pages, are read without a stack overflow`, async () => {
  const doc = await extractBytes(`${RFC_HEAD}${'   a\n'.repeat(N)}`, RFC_URL, 'text/plain');
  assert.equal(doc.blocks.length, 1);
  assert.equal(doc.blocks[0]!.text.length, 2 * N - 1);
  // A form feed after each line: every group is one line, continuing the paragraph before it.
  const paged = await extractBytes(`${RFC_HEAD}${'   a\n\f\n'.repeat(N / 5)}`, RFC_URL, 'text/plain');
  assert.equal(paged.blocks.length, 1);
});

test('RFC text: two million blank lines take no more memory than their text does (a 256 MiB heap suffices)', async () => {
  // Each line was copied as `{ ...line, page, afterBreak }`: V8 gives each such object a hidden class of
  // its own, and every blank line was kept; 6 MB of newlines ran out of a 2 GiB heap.
  const body = new TextEncoder().encode(`${RFC_HEAD}   a\n${'\n'.repeat(2_000_000)}   b\n`);
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const started = performance.now();
    const snapshot = snapshotFor(RFC_URL, 'text/plain', body);
    const options = { ...DEFAULT_EXTRACT_OPTIONS };
    const result = await pool.run(
      { stage: 'extract', input: { documentId: 'blank', source: { url: RFC_URL }, snapshot, body, options } },
      { timeoutMs: 60_000, label: 'blank lines' },
    );
    const elapsed = performance.now() - started;
    const document = JSON.parse(new TextDecoder().decode(result.bytes)).payload as { blocks: { text: string }[] };
    assert.deepEqual(
      document.blocks.map((b) => b.text),
      ['a', 'b'],
    );
    assert.ok(elapsed < 20_000, `two million blank lines took ${elapsed.toFixed(0)} ms`);
  } finally {
    await pool.close();
  }
});

test(`RFC XML: an author with ${N} postal lines and a reference with ${N} refcontent elements: no stack overflow`, async () => {
  const xml = (postal: string, refcontent: string): string =>
    '<?xml version="1.0"?><rfc number="9999" version="3"><front><title>T</title><author fullname="A"><address><postal>' +
    `${postal}</postal></address></author></front><middle><section title="S"><t>x</t></section></middle><back><references>` +
    `<name>R</name><reference anchor="r"><front><title>X</title></front>${refcontent}</reference></references></back></rfc>`;
  const url = 'https://www.rfc-editor.org/rfc/rfc9999.xml';
  const postal = await extractBytes(xml('<postalLine>street</postalLine>'.repeat(N), ''), url, 'application/xml');
  assert.ok(postal.blocks.some((b) => b.text.includes('street')));
  const references = await extractBytes(xml('', '<refcontent>volume</refcontent>'.repeat(N)), url, 'application/xml');
  assert.ok(references.blocks.some((b) => b.text.includes('volume')));
});
