import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS, splitLongText } from '../../src/chunk/chunker.js';
import { codePointLength } from '../../src/chunk/text-boundaries.js';
import { EpistemeError } from '../../src/failure.js';
import type { Block, EvidenceDocument } from '../../src/document/types.js';
import { ALL_DOCS, FETCH_DOC, HTTP_DOC, makeDocument, PDF_DOC } from './fixtures.js';
import { seededRandom } from '../helpers/random.js';

test('small blocks of one section and one normativity merge; others stay apart', () => {
  const chunks = chunkDocument(HTTP_DOC, DEFAULT_CHUNK_OPTIONS);
  assert.deepEqual(
    chunks.map((c) => c.citation.blockIds),
    // b2 is informative (not merged with b1); b3+b4 share a section; b6 is blank and dropped.
    [['b1'], ['b2'], ['b3', 'b4'], ['b5']],
  );
  const merged = chunks[2]!;
  assert.equal(merged.chunkId, 'rfc9110#b3');
  assert.equal(merged.text, `${HTTP_DOC.blocks[2]!.text}\n\n${HTTP_DOC.blocks[3]!.text}`);
  assert.deepEqual(merged.citation.headingPath, ['rfc9110', '13. Conditional Requests', '13.1.1. If-Match']);
  assert.equal(merged.citation.fragment, 'field.if-match');
  assert.equal(merged.citation.snapshotId, 'snap-rfc9110');
  assert.equal(merged.citation.sourceUrl, 'https://httpwg.org/specs/rfc9110.html');
  assert.equal(merged.contentTrust, 'untrusted-source');
  assert.equal(merged.family, 'rfc');
});

test('a long block is cut within bounds, at sentence or word boundaries, with overlap', () => {
  const options = { maxChars: 300, overlapChars: 60 };
  const chunks = chunkDocument(FETCH_DOC, options).filter((c) => c.citation.blockIds[0] === 'algo');
  assert.ok(chunks.length > 5);
  const source = FETCH_DOC.blocks[0]!.text;
  chunks.forEach((chunk, i) => {
    assert.equal(chunk.chunkId, i === 0 ? 'fetch#algo' : `fetch#algo~${i}`);
    assert.ok(codePointLength(chunk.text) <= options.maxChars, `chunk ${i} too long`);
    const range = chunk.citation.textRange!;
    assert.equal(source.slice(range.start, range.end), chunk.text, 'textRange points at the chunk text');
    // Never inside a word: the characters around the cut are not both word characters.
    assert.ok(!/[\p{L}\p{N}]/u.test(source[range.start - 1] ?? ' ') || !/[\p{L}\p{N}]/u.test(source[range.start]!));
    assert.ok(!/[\p{L}\p{N}]/u.test(source[range.end] ?? ' ') || !/[\p{L}\p{N}]/u.test(source[range.end - 1]!));
    if (i > 0) {
      const previous = chunks[i - 1]!.citation.textRange!;
      assert.ok(range.start < previous.end, 'pieces overlap');
      assert.ok(previous.end - range.start <= options.overlapChars, 'overlap is bounded');
      assert.ok(range.end > previous.end, 'pieces make progress');
    }
  });
  assert.equal(chunks[chunks.length - 1]!.citation.textRange!.end, source.length, 'the whole block is covered');
  // Preference for sentence ends: every piece but the last ends with a full stop here.
  for (const chunk of chunks.slice(0, -1)) assert.match(chunk.text, /\.$/);
});

test('a word longer than maxChars is the only thing cut hard; nothing is lost', () => {
  const text = 'short words then ' + 'x'.repeat(130) + ' and more words after it';
  const pieces = splitLongText(text, { maxChars: 50, overlapChars: 10 });
  for (const piece of pieces) assert.ok(codePointLength(piece.text) <= 50);
  assert.equal(pieces[0]!.text, 'short words then');
  assert.equal(pieces[pieces.length - 1]!.end, text.length);
});

test('lengths are code points: astral characters count once and are never split', () => {
  const text = Array.from({ length: 60 }, () => '𝔸𝔹 ').join('');
  const pieces = splitLongText(text.trim(), { maxChars: 40, overlapChars: 0 });
  for (const piece of pieces) {
    assert.ok(codePointLength(piece.text) <= 40);
    assert.ok(piece.text.startsWith('𝔸'));
    assert.ok(piece.text.endsWith('𝔹'));
  }
});

test('pages and spans are kept in citations', () => {
  const chunks = chunkDocument(PDF_DOC, DEFAULT_CHUNK_OPTIONS);
  assert.deepEqual(
    chunks.map((c) => c.citation.pages),
    [[1, 2]],
  );
  assert.deepEqual(chunks[0]!.citation.span, { first: { page: 1, start: 0, end: 60 }, last: { page: 2, start: 0, end: 40 } });
  const single = chunkDocument(PDF_DOC, { maxChars: 80, overlapChars: 0 });
  assert.deepEqual(
    single.map((c) => c.citation.pages),
    [[1], [2]],
  );
  assert.deepEqual(single[1]!.citation.span, { page: 2, start: 0, end: 40 });
});

const RFC_SECTION = {
  id: 'production',
  fragment: 'production',
  heading: '2.2. RFC Production Center',
  level: 1,
  number: '2.2',
  parentId: null,
};
const LEAD_IN =
  "The RFC Production Center function is performed by a paid contractor, and the contractor's responsibilities include the following:";
const listOf = (n: number): string =>
  Array.from({ length: n }, (_, i) => `${i + 1}. Forwarding records of edits number ${i + 1} to the RFC Publisher;`).join('\n');

test('a lead-in travels with the first piece of the long block it introduces, never alone', () => {
  const list = listOf(30);
  const doc = makeDocument({
    documentId: 'rfc6635',
    sections: [RFC_SECTION],
    blocks: [
      { id: 'b0', text: 'The RFC Editor function is split into three parts, described below.' },
      { id: 'b1', text: LEAD_IN },
      { id: 'b2', text: list, kind: 'list' },
    ],
  });
  const options = { maxChars: 600, overlapChars: 100 };
  const chunks = chunkDocument(doc, options);
  // Why: a 19-word lead-in alone ranks for the section's words but shows none of its content.
  assert.deepEqual(chunks[0]!.citation.blockIds, ['b0']);
  const first = chunks[1]!;
  assert.equal(first.chunkId, 'rfc6635#b1');
  assert.deepEqual(first.citation.blockIds, ['b1', 'b2']);
  assert.ok(first.text.startsWith(`${LEAD_IN}\n\n1. Forwarding records`), first.text);
  assert.ok(codePointLength(first.text) <= options.maxChars);
  // textRange is the piece of the cut block (the chunk's last), after the whole lead-in.
  assert.equal(first.citation.textRange!.start, 0);
  assert.equal(first.text, `${LEAD_IN}\n\n${list.slice(0, first.citation.textRange!.end)}`);
  const rest = chunks.slice(2);
  assert.ok(rest.length > 0);
  rest.forEach((chunk, i) => {
    assert.equal(chunk.chunkId, `rfc6635#b2~${i + 1}`);
    assert.deepEqual(chunk.citation.blockIds, ['b2']);
  });
  assert.equal(rest[rest.length - 1]!.citation.textRange!.end, list.length, 'the whole list is covered');
});

test('a lead-in that would end a full chunk starts the next one with the block it introduces', () => {
  const doc = makeDocument({
    documentId: 'dom',
    sections: [RFC_SECTION],
    blocks: [
      { id: 'p', text: `${'Earlier prose about nodes and trees. '.repeat(12).trim()}` },
      { id: 'lead', text: 'To remove a node, run these steps:' },
      { id: 'algo', text: listOf(5), kind: 'list' },
      { id: 'other', text: 'A lead-in of another section:', sectionId: 'other' },
    ],
  });
  doc.sections.push({ id: 'other', fragment: 'other', heading: 'Other', level: 1, number: null, parentId: null });
  const chunks = chunkDocument(doc, { maxChars: 600, overlapChars: 0 });
  assert.deepEqual(
    chunks.map((chunk) => chunk.citation.blockIds),
    // The last block ends with a colon but nothing of its section follows: it stays where it is.
    [['p'], ['lead', 'algo'], ['other']],
  );
  // A lead-in longer than half a chunk stays with what precedes it when the next block must be cut.
  const longLead = `${'A long introduction that says a great deal. '.repeat(8).trim()} It ends with:`;
  const cut = chunkDocument(
    makeDocument({
      documentId: 'x',
      sections: [RFC_SECTION],
      blocks: [
        { id: 'a', text: longLead },
        { id: 'b', text: listOf(30) },
      ],
    }),
    { maxChars: 600, overlapChars: 0 },
  );
  assert.deepEqual(cut[0]!.citation.blockIds, ['a']);
  assert.deepEqual(cut[1]!.citation.blockIds, ['b']);
});

test('an algorithm is not cut between a step that ends with a colon and its substeps, when another step will do', () => {
  const steps: { path: string }[] = [];
  const lines: string[] = [];
  for (let i = 1; i <= 12; i++) {
    steps.push({ path: String(i) });
    lines.push(`${i}. If the widget number ${i} is non-null, then:`);
    for (let j = 1; j <= 2; j++) {
      steps.push({ path: `${i}.${j}` });
      lines.push(`  ${i}.${j}. Set the widget's state number ${j} to the value of the step.`);
    }
  }
  const block: Block = {
    id: 'algo',
    sectionId: 'fetching',
    fragment: 'fetching',
    text: lines.join('\n'),
    kind: 'algorithm',
    normativity: 'normative',
    steps,
  };
  for (let maxChars = 200; maxChars <= 400; maxChars += 25) {
    const chunks = chunkDocument({ ...FETCH_DOC, blocks: [block] }, { maxChars, overlapChars: 0 });
    assert.ok(chunks.length > 2);
    for (const chunk of chunks.slice(0, -1)) assert.doesNotMatch(chunk.text, /:$/, `${maxChars}: ${chunk.text.slice(-60)}`);
  }
});

test('text laid out in lines is cut at line starts, and no piece starts inside a word', () => {
  const example = Array.from(
    { length: 40 },
    (_, i) => `       Channel-Identifier:32AECB23433801@speakverify${i}\n       Content-Type:application/nlsml+xml`,
  ).join('\n');
  const prose = Array.from({ length: 60 }, (_, i) => `header Channel-Identifier:32AECB${i}@speakverify is-sent`).join(' ');
  for (let overlapChars = 20; overlapChars <= 100; overlapChars += 8) {
    const pieces = splitLongText(example, { maxChars: 300, overlapChars });
    assert.ok(pieces.length > 5);
    for (const piece of pieces) {
      // Pieces are trimmed: the text before a piece's start is the line's indentation and a line feed.
      assert.match(example.slice(0, piece.start), /(^|\n) *$/, `starts inside a line: ${piece.text.slice(0, 40)}`);
      assert.match(example.slice(piece.end), /^($|\n)/, `ends inside a line: ${piece.text.slice(-40)}`);
    }
    // Prose without line breaks: an overlap starts at a word after whitespace, not after a hyphen, colon or @.
    for (const piece of splitLongText(prose, { maxChars: 200, overlapChars }).slice(1)) {
      assert.match(prose[piece.start - 1]!, /\s/, `starts inside a word: ${piece.text.slice(0, 40)}`);
    }
  }
});

test('chunking is deterministic and ids are unique across the fixture corpus', () => {
  for (const options of [DEFAULT_CHUNK_OPTIONS, { maxChars: 100, overlapChars: 50 }, { maxChars: 40, overlapChars: 0 }]) {
    const first = ALL_DOCS.flatMap((doc) => chunkDocument(doc, options));
    const second = ALL_DOCS.flatMap((doc) => chunkDocument(doc, options));
    assert.deepEqual(first, second);
    assert.equal(new Set(first.map((c) => c.chunkId)).size, first.length);
  }
});

test('invalid options are usage errors', () => {
  assert.throws(
    () => chunkDocument(HTTP_DOC, { maxChars: 10, overlapChars: 0 }),
    (e) => e instanceof EpistemeError && e.code === 'usage-error',
  );
  assert.throws(
    () => chunkDocument(HTTP_DOC, { maxChars: 100, overlapChars: 51 }),
    (e) => e instanceof EpistemeError && e.code === 'usage-error',
  );
  assert.throws(
    () => chunkDocument(HTTP_DOC, { maxChars: 100.5, overlapChars: 0 }),
    (e) => e instanceof EpistemeError && e.code === 'usage-error',
  );
});

/**
 * Cutting a long block is linear in its sentences and steps: a block of 4n takes about 4x a block of
 * n. Each piece once scanned every sentence start before it, and every anchor and step line of its
 * block (10-20x at 4n). The best CPU time of seven runs, each counted as at least FLOOR_MS; the bound tells linear from
 * quadratic on a loaded machine, not fast from slow.
 */
const LINEAR_RATIO = 10;
/** The bound for 8n against n: linear is 8x, quadratic 64x. */
const EIGHTFOLD_LINEAR_RATIO = 20;
const FLOOR_MS = 10;

function cpuMs(run: () => unknown): number {
  // CPU time, not wall time: on a loaded machine a run waits for a core for as long as it runs.
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The ratio of the best CPU times of `large` and `small`, their runs alternated, so a burst of load or
 * a collection of the other run's garbage falls on both sizes rather than on one.
 */
function bestRatio(large: () => unknown, small: () => unknown): number {
  let bestLarge = Number.POSITIVE_INFINITY;
  let bestSmall = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 7; i++) {
    bestSmall = Math.min(bestSmall, cpuMs(small));
    bestLarge = Math.min(bestLarge, cpuMs(large));
  }
  return Math.max(bestLarge, FLOOR_MS) / Math.max(bestSmall, FLOOR_MS);
}

test('a block of 8n sentences is cut in about 8x the time of n sentences', () => {
  // 8n against n, not 4n: linear is 8x and quadratic 64x, far on either side of the bound (at 4n a loaded
  // CI machine once measured 10.1x against 10, where linear is 4x and quadratic 16x).
  const block = (n: number): string => Array.from({ length: n }, (_, i) => `Sentence ${i} says a little about the widget.`).join(' ');
  const small = block(10_000);
  const large = block(80_000);
  const ratio = bestRatio(
    () => splitLongText(large, DEFAULT_CHUNK_OPTIONS),
    () => splitLongText(small, DEFAULT_CHUNK_OPTIONS),
  );
  assert.ok(ratio <= EIGHTFOLD_LINEAR_RATIO, `8n sentences took ${ratio.toFixed(1)}x n sentences`);
});

test('an algorithm of 4n steps is chunked in about 4x the time of n steps, every step cited', () => {
  const algorithm = (n: number): EvidenceDocument => {
    const steps = Array.from({ length: n }, (_, i) => ({ path: String(i + 1), id: `step-${i + 1}` }));
    const text = `To run the widget:\n${steps.map((s) => `${s.path}. Let the value be the widget of step ${s.path}.`).join('\n')}`;
    const block: Block = {
      id: 'algo',
      sectionId: 'fetching',
      fragment: 'fetching',
      text,
      kind: 'algorithm',
      normativity: 'normative',
      steps,
    };
    return { ...FETCH_DOC, blocks: [block] };
  };
  const small = algorithm(10_000);
  const large = algorithm(40_000);
  const chunks = chunkDocument(small, DEFAULT_CHUNK_OPTIONS);
  assert.equal(chunks[0]!.citation.steps?.first, '1');
  assert.equal(chunks[chunks.length - 1]!.citation.steps?.last, '10000');
  const ratio = bestRatio(
    () => chunkDocument(large, DEFAULT_CHUNK_OPTIONS),
    () => chunkDocument(small, DEFAULT_CHUNK_OPTIONS),
  );
  assert.ok(ratio <= LINEAR_RATIO, `4n steps took ${ratio.toFixed(1)}x n steps`);
});

test('a PDF table over 4n pages is chunked in about 4x the time of n pages, each piece on its own pages', () => {
  const table = (pages: number): EvidenceDocument => {
    const rows = Array.from({ length: pages * 40 }, (_, i) => `ALERT_${i} | ${i} | reason number ${i}`);
    const pageStarts: { page: number; start: number }[] = [];
    let start = 0;
    rows.forEach((row, i) => {
      if (i > 0 && i % 40 === 0) pageStarts.push({ page: i / 40 + 1, start });
      start += row.length + 1;
    });
    const block: Block = {
      id: 'alerts',
      sectionId: 's1',
      fragment: null,
      text: rows.join('\n'),
      kind: 'table',
      normativity: 'informative',
    };
    return { ...FETCH_DOC, blocks: [{ ...block, page: 1, pageStarts }] };
  };
  const small = table(500);
  const large = table(2_000);
  const chunks = chunkDocument(small, DEFAULT_CHUNK_OPTIONS);
  // Each piece is on the pages its rows are on: the first on page 1, the last on page 500 only.
  assert.equal(chunks[0]!.citation.pages?.[0], 1);
  assert.deepEqual(chunks[chunks.length - 1]!.citation.pages, [500]);
  for (const chunk of chunks) {
    const rowPage = (text: string): number => Math.floor(Number(/ALERT_(\d+)/.exec(text)![1]) / 40) + 1;
    const pages = chunk.citation.pages!;
    const last = chunk.text
      .split('\n')
      .filter((line) => line.startsWith('ALERT_'))
      .pop()!;
    assert.equal(pages[pages.length - 1], rowPage(last), `${chunk.chunkId} ends on the page of its last row`);
  }
  const ratio = bestRatio(
    () => chunkDocument(large, DEFAULT_CHUNK_OPTIONS),
    () => chunkDocument(small, DEFAULT_CHUNK_OPTIONS),
  );
  assert.ok(ratio <= LINEAR_RATIO, `4n pages took ${ratio.toFixed(1)}x n pages`);
});

test('generated PDF blocks continued over pages: every chunk is on exactly the pages its own text is on', () => {
  // Blocks (paragraphs and tables) whose later pages begin at random offsets, grouped and cut at random
  // bounds. A chunk's pages are those whose text it holds: the page its text starts on and each page
  // that begins inside it; its fragment for a match at its start is its first page.
  const random = seededRandom(41);
  for (let round = 0; round < 40; round++) {
    let page = 1;
    const blocks: Block[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let b = 0; b < count; b++) {
      const lines = Array.from({ length: 3 + Math.floor(random() * 40) }, (_, i) => `row ${b}-${i} holds words here`);
      const text = lines.join('\n');
      const first = page;
      const pageStarts: { page: number; start: number }[] = [];
      let start = 0;
      lines.forEach((line, i) => {
        if (i > 0 && random() < 0.15) pageStarts.push({ page: ++page, start });
        start += line.length + 1;
      });
      const kind = random() < 0.5 ? 'table' : 'paragraph';
      blocks.push({ id: `b${b}`, sectionId: 's1', fragment: null, text, kind, normativity: 'informative', page: first, pageStarts });
      if (random() < 0.5) page++;
    }
    // The page of each character of the document's blocks, to check chunks against.
    const pageAt = (block: Block, at: number): number => {
      let p = block.page!;
      for (const s of block.pageStarts ?? []) if (s.start <= at) p = s.page;
      return p;
    };
    const maxChars = 80 + Math.floor(random() * 600);
    const chunks = chunkDocument({ ...FETCH_DOC, blocks }, { maxChars, overlapChars: Math.floor(maxChars / 5) });
    for (const chunk of chunks) {
      const expected = new Set<number>();
      const ids = chunk.citation.blockIds;
      for (const id of ids) {
        const block = blocks.find((x) => x.id === id)!;
        const range = ids.length === 1 && chunk.citation.textRange ? chunk.citation.textRange : { start: 0, end: block.text.length };
        for (let at = range.start; at < range.end; at++) if (block.text[at] !== '\n') expected.add(pageAt(block, at));
      }
      assert.deepEqual(
        chunk.citation.pages,
        [...expected].sort((a, b) => a - b),
        `round ${round}, ${chunk.chunkId}`,
      );
    }
  }
});

/**
 * A definition list as one block (Texinfo's option tables): each entry a term line, then its text, its
 * id at the term; with `definitionIds`, its definition has an id too (xml2rfc's `<dd id>`).
 */
function entryList(entries: { id: string; term: string; text: string }[], definitionIds = false): Block {
  let text = '';
  const anchors: { id: string; start: number }[] = [];
  for (const entry of entries) {
    if (text !== '') text += '\n';
    anchors.push({ id: entry.id, start: text.length });
    text += `${entry.term}\n`;
    if (definitionIds) anchors.push({ id: `${entry.id}-definition`, start: text.length });
    text += entry.text;
  }
  const list = entries.map((entry) => ({ terms: [entry.term], definitions: [entry.text] }));
  return {
    id: 'list',
    sectionId: 's1',
    fragment: 'History',
    text,
    kind: 'definition-list',
    normativity: 'informative',
    anchors,
    entries: list,
  };
}

test('a long list of entries is cut where an entry begins, not after its term; the piece cites the entry', () => {
  const sentence = 'The history lines are written to the file as each command runs. ';
  const block = entryList([
    { id: 'index-INC_005fAPPEND_005fHISTORY', term: 'INC_APPEND_HISTORY <D>', text: sentence.repeat(14).trim() },
    {
      id: 'index-SHARE_005fHISTORY',
      term: 'SHARE_HISTORY <K>',
      text: `This option both imports new commands. ${sentence.repeat(8).trim()}`,
    },
  ]);
  const chunks = chunkDocument({ ...FETCH_DOC, blocks: [block] }, DEFAULT_CHUNK_OPTIONS);
  assert.equal(chunks.length, 2);
  // Not "...runs.\nSHARE_HISTORY <K>" then its text: the second entry starts the second piece, whole.
  assert.ok(!chunks[0]!.text.includes('SHARE_HISTORY'), chunks[0]!.text.slice(-60));
  assert.ok(chunks[1]!.text.startsWith('SHARE_HISTORY <K>\nThis option'), chunks[1]!.text.slice(0, 60));
  assert.equal(chunks[1]!.citation.fragment, 'History');
  assert.deepEqual(chunks[1]!.anchors, [[0, 'index-SHARE_005fHISTORY']]);
});

test('generated entry lists: every piece that starts at an entry holds only that entry and what follows; nothing is lost', () => {
  const random = seededRandom(78);
  const words = ['option', 'history', 'file', 'shell', 'command', 'the', 'is', 'set', 'when', 'lines'];
  const sentence = (): string => {
    const n = 4 + Math.floor(random() * 14);
    const w = Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!);
    return `${w.join(' ')}.`;
  };
  for (let round = 0; round < 60; round++) {
    const entries = Array.from({ length: 2 + Math.floor(random() * 12) }, (_, k) => ({
      id: `index-OPT_${k}`,
      term: `OPT_${k} <${'KDCZ'[k % 4]}>`,
      // Some with a line of their own inside the text, some with an inline id (a term's <dfn>) in it.
      text: Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) => (i > 0 && random() < 0.1 ? '\n' : '') + sentence()).join(' '),
    }));
    const block = entryList(entries, round % 2 === 1);
    // An id inside a sentence is no entry start.
    const inline = block.text.indexOf(' shell ');
    if (inline > 0) block.anchors!.push({ id: 'dfn-shell', start: inline + 1 });
    block.anchors!.sort((a, b) => a.start - b.start);
    const maxChars = 200 + Math.floor(random() * 1400);
    const options = { maxChars, overlapChars: Math.floor(maxChars / 8) };
    const chunks = chunkDocument({ ...FETCH_DOC, blocks: [block] }, options);
    // Where each entry begins: its term's id (a definition's id is inside the entry).
    const starts = new Map(block.anchors!.filter((a) => /^index-OPT_\d+$/.test(a.id)).map((a) => [a.start, a.id]));
    let covered = 0;
    let primary = 0;
    chunks.forEach((chunk, i) => {
      const range = chunk.citation.textRange ?? { start: 0, end: block.text.length };
      assert.ok(codePointLength(chunk.text) <= maxChars);
      assert.equal(block.text.slice(covered, range.start).trim(), '', `round ${round}: text lost before piece ${i}`);
      covered = Math.max(covered, range.end);
      if (i > 0) {
        // A cut where an entry begins: the next piece starts there, with no overlap into the entry before.
        let next = chunks[i - 1]!.citation.textRange!.end;
        while (/\s/.test(block.text[next] ?? '')) next++;
        const entry = starts.get(next);
        if (entry !== undefined) {
          assert.equal(range.start, next, `round ${round}: piece ${i} overlaps the entry before`);
          assert.deepEqual(chunk.anchors?.[0], [0, entry]);
        }
      }
      // A piece never ends with a term line whose entry starts in the second half of its window (the text
      // after its cut, up to maxChars): its text would start the next piece.
      const lastLine = chunk.text.slice(chunk.text.lastIndexOf('\n') + 1);
      const lastLineStart = range.end - lastLine.length;
      if (i < chunks.length - 1 && starts.has(lastLineStart)) {
        assert.ok(lastLineStart - primary <= Math.ceil(maxChars / 2), `round ${round}: piece ${i} ends with a term`);
      }
      primary = range.end;
      while (/\s/.test(block.text[primary] ?? '')) primary++;
    });
    assert.equal(covered, block.text.length);
    // Cuts at entries happen wherever an entry starts in a window's second half: at least some do here.
    if (entries.length > 6 && maxChars < 600)
      assert.ok(
        chunks.some((c, i) => i > 0 && starts.has(c.citation.textRange!.start)),
        `round ${round}`,
      );
  }
});
