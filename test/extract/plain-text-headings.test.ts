import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { seededRandom } from '../helpers/random.js';

/**
 * A plain text that is no RFC still marks its headings as its writer meant them: underlined lines
 * (Markdown's and reStructuredText's setext headings, in a `.txt`) and a numbered outline at column 0
 * (the xz file format's specification: `2.1.1. Stream Header`). Each opens a section, a numbered one
 * `section-N` at the depth its number gives; the contents list (indented), a numbered list out of the
 * outline's order, and a numbered sentence stay text; a text with neither stays one run of blocks.
 */
const URL = 'https://formats.example.test/spec.txt';

const OUTLINE = [
  'The .ab File Format',
  '===================',
  '',
  'Version 1.0',
  '',
  '        0. Preface',
  '        1. Conventions',
  '           1.1. Byte and Its Representation',
  '',
  '0. Preface',
  '',
  '        This document describes the .ab file format.',
  '',
  '1. Conventions',
  '',
  '        The key words are to be read as in RFC 2119.',
  '',
  '1.1. Byte and Its Representation',
  '',
  '        In this document, a byte is always 8 bits.',
  '',
  '3. Steps out of order',
  '',
  '        A decoder checks the magic bytes first.',
  '',
  '1.2. Multibyte Integers',
  '',
  '        Integers are stored little endian.',
  '',
  '2. Encode the header first.',
  '',
  '2. Overall Structure',
  '',
  '        A file is one or more streams.',
  '',
].join('\n');

test('a numbered outline at column 0 is sections: section-N at its depth, under an underlined title', async () => {
  const doc = await extractBytes(OUTLINE, URL, 'text/plain');
  assert.equal(doc.title, 'The .ab File Format');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.id, s.number ?? null, s.heading]),
    [
      [1, doc.sections[0]!.id, null, 'The .ab File Format'],
      [2, 'section-0', '0', 'Preface'],
      [2, 'section-1', '1', 'Conventions'],
      [3, 'section-1.1', '1.1', 'Byte and Its Representation'],
      [3, 'section-1.2', '1.2', 'Multibyte Integers'],
      [2, 'section-2', '2', 'Overall Structure'],
    ],
  );
  const sectionOf = (start: string): string | null | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.startsWith(start))?.sectionId)?.id;
  assert.equal(sectionOf('In this document, a byte'), 'section-1.1');
  // A number out of the outline's order, and a numbered sentence, are text of the section they are in.
  assert.equal(sectionOf('3. Steps out of order'), 'section-1.1');
  assert.equal(sectionOf('A decoder checks'), 'section-1.1');
  assert.equal(sectionOf('2. Encode the header first.'), 'section-1.2');
  assert.equal(sectionOf('A file is one or more'), 'section-2');
  // The contents list is indented: code in the title's section, not headings.
  assert.equal(sectionOf('0. Preface\n1. Conventions'), doc.sections[0]!.id);
});

/**
 * curl's FAQ numbers its chapters at column 0 and indents its questions, and their answers, by two
 * spaces: "  5.1 Is libcurl thread-safe?". A subsection's number indented a little is a heading of the
 * outline; a contents list (consecutive lines), a first-level number indented, a number indented past
 * four spaces, and an indented number out of the outline's order stay text.
 */
const FAQ = [
  'FAQ',
  '',
  ' 1. Philosophy',
  '  1.1 What is cURL?',
  '  1.2 What is libcurl?',
  '',
  ' 2. Install Related Problems',
  '  2.1 configure fails when using static libraries',
  '',
  '1. Philosophy',
  '',
  '  1.1 What is cURL?',
  '',
  '  cURL is a tool for transferring data.',
  '',
  '  1.2 What is libcurl?',
  '',
  '  libcurl is a library for transferring data.',
  '',
  '  7.5 percent of all questions are about libcurl.',
  '',
  '        1.3 An example deeply indented',
  '',
  '2. Install Related Problems',
  '',
  '  2.1 configure fails when using static libraries',
  '',
  '  Link with the static libraries in the right order.',
  '',
].join('\n');

test('a subsection number indented a little, as a FAQ indents its questions, is a heading of the outline', async () => {
  const doc = await extractBytes(FAQ, 'https://faq.example.test/FAQ.txt', 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.id, s.heading]),
    [
      [1, 'section-1', 'Philosophy'],
      [2, 'section-1.1', 'What is cURL?'],
      [2, 'section-1.2', 'What is libcurl?'],
      [1, 'section-2', 'Install Related Problems'],
      [2, 'section-2.1', 'configure fails when using static libraries'],
    ],
  );
  const sectionOf = (start: string): string | null | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.trim().startsWith(start))?.sectionId)?.id;
  assert.equal(sectionOf('cURL is a tool'), 'section-1.1');
  assert.equal(sectionOf('7.5 percent'), 'section-1.2', 'an indented number out of order is text');
  assert.equal(sectionOf('1.3 An example'), 'section-1.2', 'a number indented past four spaces is text');
  assert.equal(sectionOf('Link with the static'), 'section-2.1');
});

test('underlined headings are sections, levels in the order their underline characters first appear', async () => {
  const text = [
    '<!-- generated from Markdown -->',
    '',
    'Container Specification',
    '=======================',
    '',
    'Introduction',
    '------------',
    '',
    'A container holds chunks.',
    '',
    'Chunk Header',
    '~~~~~~~~~~~~',
    'Each chunk starts with a FourCC.',
    '',
    'File Layout',
    '-----------',
    '',
    'Files are little endian.',
    '',
  ].join('\n');
  const doc = await extractBytes(text, URL, 'text/plain');
  // The title underlined first names the document, not the comment on the first line.
  assert.equal(doc.title, 'Container Specification');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [1, 'Container Specification'],
      [2, 'Introduction'],
      [3, 'Chunk Header'],
      [2, 'File Layout'],
    ],
  );
  const chunkHeader = doc.sections.find((s) => s.heading === 'Chunk Header')!;
  assert.equal(doc.blocks.find((b) => b.text === 'Each chunk starts with a FourCC.')?.sectionId, chunkHeader.id);
  assert.ok(!doc.blocks.some((b) => b.text.includes('~~~~')), 'an underline is no text');
});

test('plain text without underlines or a numbered outline has no sections; two numbered lines are no outline', async () => {
  const text = [
    'Release notes',
    '',
    '1. Faster start',
    '',
    'The tool starts in half the time.',
    '',
    '2. Smaller files',
    '',
    'Files are a third smaller.',
    '',
  ].join('\n');
  const doc = await extractBytes(text, URL, 'text/plain');
  assert.equal(doc.title, 'Release notes');
  assert.deepEqual(doc.sections, []);
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['Release notes', '1. Faster start', 'The tool starts in half the time.', '2. Smaller files', 'Files are a third smaller.'],
  );
});

/**
 * Generated outlines: a random tree of numbered headings (up to four deep), each with a body paragraph,
 * and numbered sentences and out-of-order numbered lines scattered in the bodies, reads as exactly that
 * tree of sections, each paragraph in the section it follows (or as no sections, under three headings).
 */
test('generated outlines, subsections indented up to 4 spaces, read as their tree; other numbered lines are text', async () => {
  const next = seededRandom(36);
  for (let round = 0; round < 40; round++) {
    const lines: string[] = ['Generated Format', ''];
    const expected: [number, string, string][] = [];
    const bodies: [string, string][] = [];
    const walk = (prefix: number[], depth: number): void => {
      const count = 1 + Math.floor(next() * (depth === 0 ? 4 : 3));
      for (let k = 1; k <= count; k++) {
        const number = [...prefix, k];
        const id = `section-${number.join('.')}`;
        // A subsection's number may be indented up to four spaces (curl's FAQ indents them by two).
        const indent = depth > 0 ? ' '.repeat(Math.floor(next() * 5)) : '';
        lines.push(`${indent}${number.join('.')}. Heading ${number.join(' ')}`, '');
        expected.push([number.length, id, `Heading ${number.join(' ')}`]);
        const body = `Body of ${number.join('-')} says what it means.`;
        lines.push(`        ${body}`, '');
        bodies.push([body, id]);
        if (next() < 0.3) lines.push(`${90 + Math.floor(next() * 9)}. Stray numbered line`, '');
        if (next() < 0.3) lines.push(`${k}. A numbered sentence ends in a full stop.`, '');
        // Indented further, or a first-level number indented: text.
        if (next() < 0.3) lines.push(`${' '.repeat(5 + Math.floor(next() * 4))}${number.join('.')}.1 Deeper indented line`, '');
        if (next() < 0.3) lines.push(`  ${k + 1}. Indented first-level line`, '');
        if (depth < 3 && next() < 0.5) walk(number, depth + 1);
      }
    };
    walk([], 0);
    const doc = await extractBytes(lines.join('\n'), URL, 'text/plain');
    // Fewer than three numbered headings are no outline: the text has no sections.
    const outline = expected.length >= 3;
    assert.deepEqual(
      doc.sections.map((s) => [s.level, s.id, s.heading]),
      outline ? expected : [],
      `round ${round}`,
    );
    if (outline)
      for (const [body, id] of bodies) assert.equal(doc.blocks.find((b) => b.text === body)?.sectionId, id, `round ${round}: ${body}`);
  }
});

/** A GNU Info file as makeinfo writes it: the directory entry, nodes behind U+001F separators, menus, the tag table. */
const INFO = [
  'This is frob.info, produced by makeinfo version 6.8 from',
  'frob.texi.',
  '',
  'INFO-DIR-SECTION Utilities',
  'START-INFO-DIR-ENTRY',
  '* frob: (frob).       Frobnicate files.',
  'END-INFO-DIR-ENTRY',
  '',
  '\u001f',
  'File: frob.info,  Node: Top,  Next: Invoking,  Up: (dir)',
  '',
  'GNU Frob',
  '********',
  '',
  'This manual documents frob.',
  '',
  '* Menu:',
  '',
  '* Invoking::          How to run frob.',
  '* Exit status::       What frob returns.',
  '',
  ' --- The Detailed Node Listing ---',
  '',
  'Invoking frob',
  '',
  '* Options::           Every option.',
  '',
  '\u001f',
  'File: frob.info,  Node: Invoking,  Next: Exit status,  Prev: Top,  Up: Top',
  '',
  '1 Invoking frob',
  '***************',
  '',
  'Run frob with the files to frobnicate.',
  '',
  '\u001f',
  'File: frob.info,  Node: Exit status,  Prev: Invoking,  Up: Top',
  '',
  '2 Exit status',
  '*************',
  '',
  '* Menu:',
  '',
  '* Exit codes::        Each code.',
  '',
  'Frob exits with status 0 when every file was frobnicated.',
  '',
  '\u001f',
  'Tag Table:',
  'Node: Top\u007f120',
  'Node: Invoking\u007f400',
  '\u001f',
  'End Tag Table',
  '',
  '\u001f',
  'Local Variables:',
  'coding: utf-8',
  'End:',
].join('\n');

test("a GNU Info file: its nodes' headers, menus, directory entry and tag table are navigation, not text", async () => {
  // A menu may open a node (bc's "4 Statements"): the text after it is the node's, not the menu's.
  const doc = await extractBytes(INFO, 'https://example.test/frob.info', 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [1, 'GNU Frob'],
      [1, '1 Invoking frob'],
      [1, '2 Exit status'],
    ],
  );
  assert.equal(doc.title, 'GNU Frob');
  const headingOf = (id: string | null): string | undefined => doc.sections.find((s) => s.id === id)?.heading;
  assert.deepEqual(
    doc.blocks.map((b) => [headingOf(b.sectionId), b.text]),
    [
      ['GNU Frob', 'This manual documents frob.'],
      ['1 Invoking frob', 'Run frob with the files to frobnicate.'],
      ['2 Exit status', 'Frob exits with status 0 when every file was frobnicated.'],
    ],
  );
  const last = doc.blocks.at(-1)!;
  assert.equal(INFO.slice(last.span!.start as number, last.span!.end as number), last.text, 'spans stay the source');

  // Without a node separator, the same lines are text.
  const plain = await extractBytes('Notes\n\n* Menu:\n\n* One:: the first.\n', 'https://example.test/notes.txt', 'text/plain');
  assert.deepEqual(
    plain.blocks.map((b) => b.text),
    ['Notes', '* Menu:', '* One:: the first.'],
  );
});

/**
 * A text made from a structured source (xmlto's text of a DocBook book, as the X11 protocol standard
 * ships) numbers its chapters as `Chapter 1.` with no-break spaces and prints its sections as bare
 * lines; its table of contents names them all, indented below their chapter.
 */
test('chapters numbered `Chapter N.` and `Appendix A.`, and the bare section lines the contents name, are sections', async () => {
  const nb = '\u00a0';
  const text = [
    'Wire Protocol',
    '',
    'Table of Contents',
    '',
    'Acknowledgements',
    '1. Formats',
    '',
    '    Request Format',
    '    Reply Format',
    '',
    '2. Errors',
    'A. Encoding',
    '',
    '    Errors',
    '    Requests',
    '',
    'Acknowledgements',
    '',
    'Many people helped.',
    '',
    `Chapter${nb}1.${nb}Formats`,
    '',
    'Table of Contents',
    '',
    'Request Format',
    'Reply Format',
    '',
    'Every message has a header.',
    '',
    'Request Format',
    '',
    'A request starts with its opcode.',
    '',
    'Reply Format',
    '',
    'A reply starts with 1.',
    '',
    `Chapter${nb}2.${nb}Errors`,
    '',
    'An error names the failing request.',
    '',
    `Appendix${nb}A.${nb}Encoding`,
    '',
    'Errors',
    '',
    'Each error is 32 bytes.',
    '',
    'Requests',
    '',
    'Each request is padded to 4 bytes.',
    '',
  ].join('\n');
  const doc = await extractBytes(text, URL, 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.number ?? null, s.heading]),
    [
      [1, null, 'Table of Contents'],
      [1, null, 'Acknowledgements'],
      [1, '1', 'Formats'],
      [2, null, 'Table of Contents'],
      [2, null, 'Request Format'],
      [2, null, 'Reply Format'],
      [1, '2', 'Errors'],
      [1, 'A', 'Encoding'],
      [2, null, 'Errors'],
      [2, null, 'Requests'],
    ],
  );
  const sectionOf = (t: string): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text === t)?.sectionId)?.heading;
  assert.equal(sectionOf('A request starts with its opcode.'), 'Request Format');
  assert.equal(sectionOf('Each error is 32 bytes.'), 'Errors');
  assert.equal(doc.sections.find((s) => s.heading === 'Errors' && s.level === 2)?.parentId, doc.sections.find((s) => s.number === 'A')?.id);
  // Each table of contents heads a section holding its list, the document's apparatus, which the next
  // heading closes; no word is lost.
  const contents = doc.sections.filter((s) => s.heading === 'Table of Contents');
  assert.deepEqual(
    contents.map((s) => s.normativityReason),
    ['heading:table of contents', 'heading:table of contents'],
  );
  const list = doc.blocks.find((b) => b.text === 'Request Format Reply Format');
  assert.equal(list?.sectionId, contents[1]!.id);
  assert.equal(doc.sections.find((s) => s.heading === 'Request Format')?.parentId, doc.sections.find((s) => s.number === '1')?.id);
  assert.equal(doc.blocks.find((b) => b.text === 'A request starts with its opcode.')?.normativityReason, 'default-authority');
});

test('outlines numbered `1.1:` under `Chapter 1:` (a FAQ), and an annex’s clauses `A.1`, `A.2.1`, are sections', async () => {
  const faq = [
    'Shell FAQ',
    '',
    'Chapter 1: Introducing the shell',
    '',
    '1.1: Sources of information',
    '',
    'Read the manual first.',
    '',
    '1.2: What is it?',
    '',
    'A command interpreter.',
    '',
    'Chapter 2: How does it differ from others?',
    '',
    '2.1: Differences from sh',
    '',
    'Arrays start at one.',
    '',
  ].join('\n');
  const doc = await extractBytes(faq, URL, 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.id, s.heading]),
    [
      [1, 'section-1', 'Introducing the shell'],
      [2, 'section-1.1', 'Sources of information'],
      [2, 'section-1.2', 'What is it?'],
      [1, 'section-2', 'How does it differ from others?'],
      [2, 'section-2.1', 'Differences from sh'],
    ],
  );
  const annex = [
    '                 Annex A',
    '',
    'A.1 The Package Standard',
    '',
    '1   This clause outlines the package Standard.',
    '',
    'A.2 The Package Ada',
    '',
    '1   Ada is the parent of the others.',
    '',
    'A.2.1 The Package Ada.Calendar',
    '',
    '1   Calendar gives the time of day.',
    '',
    'A simple example',
    '',
    'B.1 Out of order',
    '',
  ].join('\n');
  const annexDoc = await extractBytes(annex, URL, 'text/plain');
  assert.deepEqual(
    annexDoc.sections.map((s) => [s.level, s.id, s.heading]),
    [
      [2, 'section-A.1', 'The Package Standard'],
      [2, 'section-A.2', 'The Package Ada'],
      [3, 'section-A.2.1', 'The Package Ada.Calendar'],
    ],
  );
  assert.ok(annexDoc.blocks.some((b) => b.text === 'A simple example'));
  assert.ok(annexDoc.blocks.some((b) => b.text === 'B.1 Out of order'));
});

test('a table of contents whose entries are not lines of their own later, or fewer than three, names no heading', async () => {
  // Nor does it head a section when no heading follows it: the rest of the text is no part of it.
  const text = [
    'Notes',
    '',
    'Contents',
    '',
    'Setup',
    'Usage',
    'Limits',
    '',
    'Setup is quick. Usage is simple.',
    '',
    'Limits',
    '',
    'There are some.',
    '',
  ].join('\n');
  const doc = await extractBytes(text, URL, 'text/plain');
  assert.deepEqual(doc.sections, []);
});

/**
 * Generated texts whose headings only their table of contents names: a random tree of bare titles (up
 * to three deep, indented in the contents), each heading a body paragraph, with one-line paragraphs
 * that no entry names scattered between. Every title is a section at its depth, in order, and every
 * paragraph is in the section it follows.
 */
test('generated tables of contents name exactly their bare heading lines, at the depth they indent them', async () => {
  const next = seededRandom(40);
  const words = ['Request', 'Reply', 'Format', 'Errors', 'Keys', 'Events', 'Setup', 'Limits', 'Fields', 'Encoding'];
  for (let round = 0; round < 30; round++) {
    const titles: [number, string][] = [];
    const walk = (depth: number): void => {
      const count = 1 + Math.floor(next() * 3);
      for (let k = 0; k < count; k++) {
        const title = `${words[Math.floor(next() * words.length)]} ${words[Math.floor(next() * words.length)]} ${titles.length}`;
        titles.push([depth, title]);
        if (depth < 3 && next() < 0.4) walk(depth + 1);
      }
    };
    walk(1);
    while (titles.length < 3) titles.push([1, `Appendix ${titles.length}`]);
    const lines = ['Generated Protocol', '', 'Table of Contents', ''];
    for (const [depth, title] of titles) lines.push(`${'    '.repeat(depth - 1)}${title}`);
    lines.push('');
    const bodies: [string, string][] = [];
    titles.forEach(([, title], i) => {
      lines.push(title, '');
      const body = `Body of ${title}, which says what it is about.`;
      bodies.push([body, title]);
      lines.push(body, '');
      if (next() < 0.3) lines.push(`Decoy line ${i}`, '', `More text after decoy ${i}.`, '');
    });
    const doc = await extractBytes(lines.join('\n'), URL, 'text/plain');
    const named = doc.sections.filter((s) => s.heading !== 'Table of Contents');
    assert.deepEqual(
      named.map((s) => [s.level, s.heading]),
      titles,
      `round ${round}`,
    );
    for (const [body, title] of bodies) {
      const block = doc.blocks.find((b) => b.text === body);
      assert.equal(doc.sections.find((s) => s.id === block?.sectionId)?.heading, title, `round ${round}: ${body}`);
    }
  }
});
