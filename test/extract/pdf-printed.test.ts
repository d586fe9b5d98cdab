import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { tablePdf, textWidth, type PageSpec, type TextSpec } from '../helpers/table-pdf.js';
import { wrap } from '../helpers/real-layouts.js';
import { pdfFromObjects } from '../hostile/hostile-documents.js';

/**
 * PDFs as the tools people use print them: a browser's "Save as PDF" of a specification, with its
 * header (date and title) and footer (the page's URL and "page/pages") set in the page's margin, left
 * of the text. Each case is a layout the sweep of real tools found read wrongly.
 */

const BODY = 12;

/** A browser-printed page: header and footer in 8 pt at x 24, the body from x 34. */
function printedPage(n: number, pages: number, body: TextSpec[]): PageSpec {
  return {
    texts: [
      { x: 24, top: 14, size: 8, text: '12/5/26, 6:50 AM' },
      { x: 250, top: 14, size: 8, text: 'Capture Standard' },
      ...body,
      { x: 24, top: 770, size: 8, text: 'file:///home/reader/specs/capture.html' },
      { x: 560, top: 770, size: 8, text: `${n}/${pages}` },
    ],
  };
}

function paragraph(texts: TextSpec[], top: number, text: string, runWords = 0): number {
  let y = top;
  for (const line of wrap(text, 520, BODY)) {
    if (runWords === 0) texts.push({ x: 34, top: y, size: BODY, text: line });
    else {
      // Runs of a few words each, every third one bold, as a browser writes a line that holds defined
      // terms: text runs of one font that abut are one run to pdfjs.
      const words = line.split(' ');
      let x = 34;
      for (let k = 0; k < words.length; k += runWords) {
        const run = words.slice(k, k + runWords).join(' ') + (k + runWords < words.length ? ' ' : '');
        texts.push({ x, top: y, size: BODY, text: run, bold: (k / runWords) % 3 === 1 });
        x += textWidth(run, BODY);
      }
    }
    y += 15;
  }
  return y + 10;
}

const PROSE =
  'A capture records the bytes a server sent for one source at one time, with the headers that say how to read them, ' +
  'so that a later reader can find the same words again.';

test("a browser's header and footer lines are no rows of a table at the top or the foot of a page", async () => {
  // Chromium prints "12/5/26, 6:50 AM ... MIME Sniffing Standard" above and "file:///...  13/26"
  // below every page; an unruled table set right under the header or above the footer took them as
  // its first or last row ("fi | le:///work/.../mimesniff.html 13/26").
  const pages: PageSpec[] = [];
  for (let n = 1; n <= 3; n++) {
    const body: TextSpec[] = [];
    const rows = [
      ['Bytes', 'Meaning'],
      ['0', 'Rate 32000'],
      ['1', 'Rate 40000'],
      ['2', 'Rate 48000'],
      ['3', 'Rate 56000'],
    ];
    rows.forEach(([a, b], k) => {
      body.push({ x: 34, top: 34 + k * 15, size: BODY, text: a! }, { x: 250, top: 34 + k * 15, size: BODY, text: b! });
    });
    let y = paragraph(body, 130, `${PROSE} Page ${n}.`);
    y = paragraph(body, y, PROSE);
    rows.forEach(([a, b], k) => {
      body.push(
        { x: 34, top: 680 + k * 15, size: BODY, text: a! },
        { x: 250, top: 680 + k * 15, size: BODY, text: k === 0 ? b! : `${b!} again` },
      );
    });
    pages.push(printedPage(n, 3, body));
  }
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/capture.pdf', 'application/pdf');
  const tables = doc.blocks.filter((b) => b.kind === 'table');
  assert.ok(tables.length >= 1, 'the tables are found');
  for (const t of tables) {
    assert.deepEqual(t.header, [['Bytes', 'Meaning']], t.text);
    assert.ok(!/6:50|file:|capture\.html|Capture Standard/.test(t.text), t.text);
  }
  assert.ok(!doc.blocks.some((b) => /6:50 AM|file:\/\/\//.test(b.text)), 'no header or footer in any block');
});

test("a heading mixing bold fonts (a variable, a code name) opens a section; the margin's header is no column's edge", async () => {
  // CSP3 printed: "4.1.1. Set response's CSP list" is bold with "response" in bold italic and "CSP
  // list" in bold code, at the body's size: no single font, so it was no heading. An unnumbered
  // heading 1.17 times the body at the text's left edge was measured against the header's x (24), left
  // of the text (34), and was no heading either.
  const pages: PageSpec[] = [];
  for (let n = 1; n <= 2; n++) {
    const body: TextSpec[] = [];
    let y = 40;
    if (n === 1) {
      body.push(
        { x: 34, top: y, size: BODY, text: '4.1.1. Set ', bold: true },
        { x: 100, top: y, size: BODY, text: 'response', mono: true },
        { x: 160, top: y, size: BODY, text: "'s CSP list", bold: true },
      );
      y = paragraph(body, y + 22, PROSE);
      y = paragraph(body, y, PROSE);
    } else {
      body.push({ x: 34, top: y, size: 14, text: 'Terms defined by this specification', bold: true });
      y = paragraph(body, y + 24, PROSE);
      y = paragraph(body, y, PROSE);
    }
    pages.push(printedPage(n, 2, body));
  }
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/capture.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.page]),
    [
      ['4.1.1', 1],
      [null, 2],
    ],
  );
  assert.match(doc.sections[0]!.heading, /^4\.1\.1\. Set response\s?'s CSP list$/);
  assert.equal(doc.sections[1]!.heading, 'Terms defined by this specification');
  const heading = new Map(doc.sections.map((s) => [s.id, s.heading]));
  for (const b of doc.blocks) assert.equal(heading.get(b.sectionId ?? ''), doc.sections[(b.page ?? 1) - 1]!.heading, b.text);
});

test('levels agree with and without an outline, and with the HTML page: the title 1, "1." 2, "1.1." 3', async () => {
  // A browser's outline mirrors h1 to h6, its one top entry the page's h1 (the title): its sections
  // came out a level deeper than the HTML extraction's (h2 "1. Introduction" level 3), while the same
  // page printed without an outline had "1. Introduction" at level 1, beside the title.
  const texts: TextSpec[] = [{ x: 34, top: 40, size: 26, text: 'Capture Standard', bold: true }];
  let y = paragraph(texts, 80, PROSE);
  texts.push({ x: 34, top: y, size: 20, text: '1. Introduction', bold: true });
  y = paragraph(texts, y + 30, PROSE);
  texts.push({ x: 34, top: y, size: 15, text: '1.1. Scope', bold: true });
  paragraph(texts, y + 24, PROSE);
  const pages = [printedPage(1, 1, texts)];
  const outline = [
    {
      title: 'Capture Standard',
      page: 1,
      top: 36,
      children: [{ title: '1. Introduction', page: 1, top: 150, children: [{ title: '1.1. Scope', page: 1, top: 220 }] }],
    },
  ];
  const levels = async (pdf: Uint8Array): Promise<[string, number][]> =>
    (await extractBytes(pdf, 'https://example.test/capture.pdf', 'application/pdf')).sections.map((s) => [s.heading, s.level]);
  const expected: [string, number][] = [
    ['Capture Standard', 1],
    ['1. Introduction', 2],
    ['1.1. Scope', 3],
  ];
  assert.deepEqual(await levels(tablePdf(pages, outline)), expected);
  assert.deepEqual(await levels(tablePdf(pages)), expected);
  // An h1 inside an example is another top entry: the first is the title still, the Info Title naming it.
  const example = [...outline, { title: 'Computer Starter Kit', page: 1, top: 300 }];
  assert.deepEqual(
    (
      await extractBytes(tablePdf(pages, example, { title: 'Capture Standard' }), 'https://example.test/c.pdf', 'application/pdf')
    ).sections.map((s) => [s.heading, s.level]),
    [...expected, ['Computer Starter Kit', 1]],
  );
  // An outline of several top entries (LaTeX's sections) has them at level 2, as before.
  const flat = [
    { title: '1. Introduction', page: 1, top: 150 },
    { title: '1.1. Scope', page: 1, top: 220 },
  ];
  assert.deepEqual(await levels(tablePdf(pages, flat)), [
    ['1. Introduction', 2],
    ['1.1. Scope', 2],
  ]);
});

test('a table of contents with dot leaders is neither a table, nor sections, nor text', async () => {
  // LaTeX's \tableofcontents: section entries in bold with their page number at the right margin,
  // subsection entries with a dot leader to it. Its leaders were split into a table of "." cells
  // ("1.1 Scope . . . | . | . | ... | 1") that also took the first heading below it as a row, and
  // groff -ms's .TC page was the same; the HTML extractor drops a page's table of contents.
  const leader = '. . . . . . . . . . . . . . . . . . . . . . . . . . . . .';
  const toc: TextSpec[] = [{ x: 72, top: 60, size: 14, text: 'Contents', bold: true }];
  const entries: [string, string, number][] = [
    ['1', 'Introduction', 0],
    ['1.1', 'Scope', 1],
    ['1.2', 'Terminology', 1],
    ['2', 'Capturing sources', 0],
    ['2.1', 'Conditional requests', 1],
    ['2.2', 'Bounds', 1],
  ];
  entries.forEach(([number, title, depth], k) => {
    const top = 90 + k * 14;
    const x = 72 + depth * 16;
    toc.push({ x, top, size: 10, text: number, bold: depth === 0 }, { x: x + 24, top, size: 10, text: title, bold: depth === 0 });
    if (depth > 0) toc.push({ x: 230, top, size: 10, text: leader });
    toc.push({ x: 530, top, size: 10, text: '2', bold: depth === 0 });
  });
  const body: TextSpec[] = [];
  let y = 60;
  for (const [number, title, depth] of entries) {
    body.push({ x: 72, top: y, size: depth === 0 ? 14 : 12, text: `${number} ${title}`, bold: true });
    y += 24;
    for (const line of wrap(`The ${title.toLowerCase()} of captured sources is described here in a few words of prose.`, 460, 10)) {
      body.push({ x: 72, top: y, size: 10, text: line });
      y += 13;
    }
    y += 10;
  }
  const doc = await extractBytes(tablePdf([{ texts: toc }, { texts: body }]), 'https://example.test/toc.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.page]),
    [[null, 1], ...entries.map(([number]) => [number, 2])],
  );
  assert.equal(doc.sections[0]!.heading, 'Contents');
  assert.ok(!doc.blocks.some((b) => b.kind === 'table'), 'no table');
  assert.ok(!doc.blocks.some((b) => b.page === 1), doc.blocks.map((b) => b.text).join('\n'));
});

test('a table of contents entry whose title wraps leaves no line of it as text', async () => {
  // xcolor's list of figures: "10 Alternating row colors in tables: \\rowcolors vs." and below it, where
  // the titles start, "\\rowcolors* . . . 36". The first line has neither leader nor page number, so it
  // stayed a paragraph of the contents' section, a short chunk holding the title's every word that
  // outranked the page the title names.
  const leader = '. . . . . . . . . . . . . . . . . . . .';
  const toc: TextSpec[] = [{ x: 72, top: 60, size: 14, text: 'Contents', bold: true }];
  let top = 90;
  const entry = (number: string, lines: string[]): void => {
    toc.push({ x: 88, top, size: 10, text: number });
    lines.forEach((text, k) => {
      toc.push({ x: 112, top, size: 10, text });
      if (k === lines.length - 1) toc.push({ x: 330, top, size: 10, text: leader }, { x: 530, top, size: 10, text: '2' });
      top += 12;
    });
  };
  entry('1.1', ['Scope']);
  entry('1.2', ['Conditional requests for sources that', 'changed since the last capture']);
  entry('1.3', ['Bounds']);
  const body: TextSpec[] = [{ x: 72, top: 60, size: 14, text: '1 Capturing sources', bold: true }];
  let y = 90;
  for (const line of wrap('A capture records the bytes a server sent for one source at one time, in a few words of prose.', 460, 10)) {
    body.push({ x: 72, top: y, size: 10, text: line });
    y += 13;
  }
  const doc = await extractBytes(tablePdf([{ texts: toc }, { texts: body }]), 'https://example.test/toc.pdf', 'application/pdf');
  assert.deepEqual(
    doc.blocks.filter((b) => b.page === 1).map((b) => b.text),
    [],
  );
  assert.ok(doc.blocks.some((b) => b.page === 2 && b.text.startsWith('A capture records')));
});

test("a man page's headings hang left of its text (.SH level 2, .SS level 3); an option's term starts a paragraph", async () => {
  // groff -man through ps2pdf: .SH headings bold at the margin (72), .SS bold at 87, the text at 108
  // and .TP descriptions at 144, all at the body's size. grep(1), ls(1) and tar(1) had no section
  // at all, and each option's description ran into the next option's term ("... starting with .
  // -A, --almost-all").
  const pages: PageSpec[] = [];
  const texts = (n: number): TextSpec[] => [
    { x: 72, top: 38, size: 10, text: 'CAPTURE(1)' },
    { x: 272, top: 38, size: 10, text: 'User Commands' },
    { x: 500, top: 38, size: 10, text: 'CAPTURE(1)' },
    { x: 72, top: 758, size: 10, text: 'capture 1.0' },
    { x: 535, top: 758, size: 10, text: `${n}` },
  ];
  const one = texts(1);
  let y = 73;
  const line = (x: number, text: string, bold = false, list = one): void => {
    list.push({ x, top: y, size: 10, text, bold });
    y += 12;
  };
  const heading = (x: number, text: string, list = one): void => {
    y += 6;
    line(x, text, true, list);
  };
  heading(72, 'NAME');
  line(108, 'capture - record the bytes of a source for later reading');
  heading(72, 'SYNOPSIS');
  line(108, 'capture [OPTION]... URL...', true);
  heading(72, 'DESCRIPTION');
  line(108, 'Capture records each URL as a snapshot: its bytes, its headers and the time it was');
  line(108, 'fetched, so that a later extraction can be checked against what was read.');
  heading(87, 'Output control');
  for (const [term, description] of [
    ['-o, --output=DIR', 'write snapshots under DIR instead of the current folder'],
    ['-q, --quiet', 'print nothing but errors'],
    ['-v, --verbose', 'print each request and its answer'],
  ] as const) {
    line(108, term, true);
    line(144, description);
  }
  pages.push({ texts: one });
  const two = texts(2);
  y = 73;
  heading(87, 'Exit status:', two);
  line(108, '0 if every source was captured, 1 if some failed, 2 on a usage error.', false, two);
  heading(72, 'SEE ALSO', two);
  line(108, 'extract(1), query(1)', false, two);
  pages.push({ texts: two });
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/capture.1.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.heading, s.level]),
    [
      ['NAME', 2],
      ['SYNOPSIS', 2],
      ['DESCRIPTION', 2],
      ['Output control', 3],
      ['Exit status:', 3],
      ['SEE ALSO', 2],
    ],
  );
  const texts2 = doc.blocks.map((b) => b.text);
  assert.ok(texts2.includes('-q, --quiet'), texts2.join('\n'));
  assert.ok(texts2.includes('write snapshots under DIR instead of the current folder'), texts2.join('\n'));
  assert.ok(!texts2.some((t) => /CAPTURE\(1\)|User Commands/.test(t)), 'the running head is furniture');
});

test("a spec's small and lower-case numbered headings open sections; its margin's self-link pilcrows are no text", async () => {
  // CSP3 printed without an outline: "6.1.1. child-src" (bold, its title a code name in lower case)
  // and "6.1.1.1. child-src Pre-request check" (h5, 0.83 of the body) were paragraphs, 74 of its 154
  // headings; Bikeshed's "¶" self-links, printed left of each paragraph, were in the text ("¶ 1.
  // Generate anonymous flex items") and made the column's edge, so an h3 at the text's edge was none.
  const texts: TextSpec[] = [{ x: 34, top: 40, size: 26, text: 'Content Security Policy', bold: true }];
  let y = 90;
  const block = (heading: TextSpec[], gap: number): void => {
    for (const t of heading) texts.push({ ...t, top: y });
    // In a font of its own, as Chromium prints the self-link (its run stays apart from the text's).
    texts.push({ x: 26, top: y + gap, size: BODY, text: '\u00b6', bold: true });
    y = paragraph(texts, y + gap, PROSE);
  };
  block([{ x: 34, top: 0, size: 14, text: 'Changes since the last draft', bold: true }], 24);
  block(
    [
      { x: 34, top: 0, size: BODY, text: '6.1.1. ', bold: true },
      { x: 72, top: 0, size: BODY, text: 'child-src', mono: true },
    ],
    22,
  );
  block(
    [
      { x: 34, top: 0, size: 10, text: '6.1.1.1. ', bold: true },
      { x: 76, top: 0, size: 10, text: 'child-src', mono: true },
      { x: 136, top: 0, size: 10, text: ' Pre-request check', bold: true },
    ],
    20,
  );
  const next: TextSpec[] = [];
  paragraph(next, 40, PROSE);
  const pages = [printedPage(1, 2, texts), printedPage(2, 2, next)];
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/csp.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.level]),
    [
      [null, 1],
      [null, 2],
      ['6.1.1', 4],
      ['6.1.1.1', 5],
    ],
  );
  assert.equal(doc.blocks.length, 4);
  for (const b of doc.blocks) assert.equal(b.text, PROSE);
});

test('a heading set just below an unruled table, larger than its rows, is no row of it', async () => {
  // LaTeX's tabular at the end of a subsection, then "\section{Extracting evidence}": the heading's
  // number and title, left of the centred table, made two more columns and were its last row
  // ("3 | Extracting evidence |  | ").
  // Positions as pdflatex set them (article, 11 pt): the left column flush left, the others flush right.
  const texts: TextSpec[] = [{ x: 126, top: 60, size: 10.9, text: 'Every capture is bounded in size and time.' }];
  const rows = [
    ['Bound', 'Default', 'Maximum'],
    ['Response bytes', '64 MiB', '2 GiB'],
    ['Request time', '60 s', '3600 s'],
    ['Redirects', '10', '20'],
  ];
  rows.forEach((row, k) => {
    row.forEach((cell, c) => {
      const x = c === 0 ? 215 : [335, 395][c - 1]! - textWidth(cell, 10.9);
      texts.push({ x, top: 82 + k * 13.6, size: 10.9, text: cell });
    });
  });
  texts.push({ x: 126, top: 151, size: 14.35, text: '3', bold: true });
  texts.push({ x: 150, top: 151, size: 14.35, text: 'Extracting evidence', bold: true });
  texts.push({ x: 126, top: 179, size: 10.9, text: 'Extraction reads a snapshot and produces sections, blocks and citations.' });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/bounds.pdf', 'application/pdf');
  const table = doc.blocks.find((b) => b.kind === 'table');
  assert.ok(table, 'the table is found');
  assert.deepEqual([...(table.header as string[][]), ...(table.rows as string[][])], rows);
  assert.deepEqual(
    doc.sections.map((s) => [s.heading, s.number]),
    [['3 Extracting evidence', '3']],
  );
});

test('an aligned listing (a grammar) is one code block keeping its alignment; a table of code names stays a table', async () => {
  // RFC 6265 and CSP3 printed from HTML: their ABNF, with its "=" and comments aligned, was read as
  // unruled tables ("cookie-pair | = | cookie-name ..."), and a listing's inner spaces were lost.
  const texts: TextSpec[] = [];
  let y = 40;
  for (let k = 0; k < 4; k++) y = paragraph(texts, y, PROSE, 3);
  const grammar: [string, string][] = [
    ['cookie-pair', '= cookie-name "=" cookie-value'],
    ['cookie-name', '= token'],
    ['cookie-value', '= *cookie-octet / ( DQUOTE *cookie-octet DQUOTE )'],
    ['cookie-octet', '= %x21 / %x23-2B / %x2D-3A'],
    ['', '; US-ASCII characters excluding CTLs'],
  ];
  for (const [name, rule] of grammar) {
    if (name !== '') texts.push({ x: 44, top: y, size: 10, text: name, mono: true });
    if (rule === '= token') {
      // A link in the listing, in a font of its own too rare to be measured as monospaced.
      texts.push(
        { x: 44 + 6 * 14, top: y, size: 10, text: '= ', mono: true },
        { x: 44 + 6 * 16, top: y, size: 10, text: 'token', bold: true },
      );
    } else texts.push({ x: 44 + 6 * 14, top: y, size: 10, text: rule, mono: true });
    y += 13;
  }
  y = paragraph(texts, y + 12, PROSE, 3);
  const handlers = [
    ['onloadstart', 'loadstart'],
    ['onprogress', 'progress'],
    ['onabort', 'abort'],
    ['onload', 'load'],
  ];
  for (const [attribute, type] of handlers) {
    texts.push({ x: 44, top: y, size: 10, text: attribute!, mono: true }, { x: 250, top: y, size: 10, text: type!, mono: true });
    y += 15;
  }
  paragraph(texts, y + 12, PROSE, 3);
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/cookies.pdf', 'application/pdf');
  const code = doc.blocks.filter((b) => b.kind === 'code');
  assert.equal(code.length, 1, doc.blocks.map((b) => `${b.kind}: ${b.text}`).join('\n'));
  assert.equal(code[0]!.text, grammar.map(([name, rule]) => `${name.padEnd(14)}${rule}`).join('\n'));
  const tables = doc.blocks.filter((b) => b.kind === 'table');
  assert.equal(tables.length, 1);
  assert.deepEqual([...(tables[0]!.header as string[][]), ...(tables[0]!.rows as string[][])], handlers);
});

test("a browser's print of a spec's contents list (markers before section numbers) is dropped, the heading after it kept", async () => {
  // Chromium and LibreOffice print Bikeshed's table of contents as the nested ordered lists it is:
  // "1. 4.1 MIME type representation". Its entries were list blocks that ranked for every heading.
  const texts: TextSpec[] = [{ x: 34, top: 40, size: 18, text: 'Table of Contents', bold: true }];
  const entries: [number, string][] = [
    [0, '1. 1 Introduction'],
    [0, '2. 2 Capturing sources'],
    [1, '1. 2.1 Conditional requests'],
    [1, '2. 2.2 Bounds'],
    [0, '3. 3 Answering queries'],
    [0, '4. Acknowledgments'],
    [0, '5. References'],
  ];
  entries.forEach(([depth, text], k) => {
    texts.push({ x: 54 + depth * 24, top: 70 + k * 15, size: BODY, text });
  });
  texts.push({ x: 34, top: 190, size: 18, text: '1. Introduction', bold: true });
  paragraph(texts, 220, PROSE);
  const next: TextSpec[] = [];
  paragraph(next, 40, PROSE);
  const doc = await extractBytes(
    tablePdf([printedPage(1, 2, texts), printedPage(2, 2, next)]),
    'https://example.test/c.pdf',
    'application/pdf',
  );
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Table of Contents', '1. Introduction'],
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    [PROSE, PROSE],
  );
});

test("a two-column page's gutter is the one between the columns, not the one before a contents column's page numbers", async () => {
  // LaTeX's twocolumn article opens with its table of contents in the left column: the gap between
  // the dot leaders and the page numbers was taken for the column gutter, so each page number became
  // a word of the right column's line beside it ("open the cited document at 1 the cited place").
  const texts: TextSpec[] = [{ x: 72, top: 60, size: 14, text: 'Contents', bold: true }];
  for (let k = 0; k < 16; k++) {
    const top = 86 + k * 12;
    texts.push({ x: 72, top, size: 10, text: `${Math.floor(k / 4) + 1}.${(k % 4) + 1}` });
    texts.push({ x: 96, top, size: 10, text: `Topic ${k + 1} . . . . . . . . . . . . . . . . . . . .` });
    texts.push({ x: 284, top, size: 10, text: `${Math.floor(k / 4) + 1}` });
  }
  texts.push({ x: 310, top: 60, size: 14, text: '1 Introduction', bold: true });
  const words = wrap(`${PROSE} ${PROSE}`, 228, 10);
  words.forEach((line, k) => {
    texts.push({ x: 310, top: 86 + k * 12, size: 10, text: line });
  });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/twocol.pdf', 'application/pdf');
  const body = doc.blocks.filter((b) => b.kind === 'paragraph').map((b) => b.text);
  assert.deepEqual(body, [`${PROSE} ${PROSE}`]);
});

test("a bullet glyph that its font maps to no character (LaTeX's \\textbullet from a bitmap font) marks a list item", async () => {
  // pdflatex without the cm-super fonts sets \textbullet from a Type 3 bitmap font (TS1 code 0x88,
  // glyph /a136) with no Unicode mapping: pdfjs reads U+0088, a C1 control. The marker was no bullet,
  // so each wrapped item split in two paragraphs, the first starting with the control character.
  let content = 'BT /F1 10 Tf 72 740 Td (Every source has two properties that matter for citations.) Tj ET\n';
  const item = (y: number, text: string, bullet: boolean): void => {
    if (bullet) content += `BT /F2 10 Tf 86 ${y} Td <88> Tj ET\n`;
    content += `BT /F1 10 Tf 98 ${y} Td (${text}) Tj ET\n`;
  };
  item(710, 'A source is identified by its canonical URL, never by a local file', true);
  item(697, 'name or a temporary location.', false);
  item(684, 'A snapshot is immutable once recorded.', true);
  content += 'BT /F1 10 Tf 72 650 Td (Both hold for every capture method.) Tj ET\n';
  const pdf = type3GlyphPdf(content, 136);
  const doc = await extractBytes(pdf, 'https://example.test/bullets.pdf', 'application/pdf');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'Every source has two properties that matter for citations.'],
      ['list', '\u2022 A source is identified by its canonical URL, never by a local file name or a temporary location.'],
      ['list', '\u2022 A snapshot is immutable once recorded.'],
      ['paragraph', 'Both hold for every capture method.'],
    ],
  );
});

test("a bullet glyph in a taller box than its item's text neither makes the item a heading nor lowers its text", async () => {
  // Ghostscript sets LaTeX's itemize bullet from a Type 3 font whose glyph maps to no character (pdfjs
  // reads U+0000) in a box 1.5 times the text's height, its baseline above the text's. The line was
  // measured by that box: each item was a guessed heading, its text a lowered script ("\ufffd_(altering
  // the content of a string of text)", xfig's user guide printed by Ghostscript 9.27).
  let content = '';
  const prose = [
    'The Edit tool allows you to view or change the properties of an object',
    'using a dialog popup. The most common edits are',
  ];
  prose.forEach((line, k) => {
    content += `BT /F1 10 Tf 72 ${740 - 12 * k} Td (${line}) Tj ET\n`;
  });
  const items = [
    'altering the content of a string of text',
    'changing text justification left, right or center',
    'changing the width of a line',
  ];
  items.forEach((text, k) => {
    const y = 700 - 20 * k;
    content += `BT /F2 15.4 Tf 86 ${y + 4.5} Td <00> Tj ET\nBT /F1 10 Tf 98 ${y} Td (${text}) Tj ET\n`;
  });
  content += 'BT /F1 10 Tf 72 630 Td (Each edit applies to the selected object only, never to its group.) Tj ET\n';
  const pdf = type3GlyphPdf(content, 0);
  const doc = await extractBytes(pdf, 'https://example.test/gs-bullets.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    [],
  );
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text]),
    [
      ['paragraph', `${prose[0]} ${prose[1]}`],
      ...items.map((text) => ['list', `\u2022 ${text}`]),
      ['paragraph', 'Each edit applies to the selected object only, never to its group.'],
    ],
  );
});

test("a glyph read as a C0 control (a browser's .notdef for an emoji) is U+FFFD in the text, never a NUL", async () => {
  // Chromium prints an emoji it has no font for ("U+1F914 (🤔)" in the Infra Standard) as .notdef,
  // which pdfjs reads as U+0000: 72 NULs were in the URL Standard's printed text.
  const content =
    'BT /F1 10 Tf 72 740 Td (The code point rendered as ) Tj ET\nBT /F2 10 Tf 201 740 Td <00> Tj ET\n' +
    'BT /F1 10 Tf 208 740 Td (is represented as U+1F914.) Tj ET\n';
  const pdf = type3GlyphPdf(content, 0);
  const doc = await extractBytes(pdf, 'https://example.test/emoji.pdf', 'application/pdf');
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['The code point rendered as \ufffd is represented as U+1F914.'],
  );
});

test("the first page's first heading in its largest type is the title, level 1, even under 1.6 times the body", async () => {
  // pdflatex's article at 11 pt: the \LARGE title is 17.28 pt, 1.58 times the body, and was level 2,
  // a sibling of "Contents" (14.4 pt) and of the numbered sections.
  const texts: TextSpec[] = [
    { x: 172, top: 100, size: 17.28, text: 'Evidence Capture for Offline Retrieval' },
    { x: 280, top: 140, size: 12, text: 'A. Writer' },
    { x: 72, top: 200, size: 14.4, text: 'Contents', bold: true },
    { x: 72, top: 240, size: 14.4, text: '1 Introduction', bold: true },
  ];
  for (let k = 0; k < 10; k++)
    texts.push({ x: 72, top: 270 + k * 13.6, size: 10.95, text: `Line ${k + 1} of the introduction's running text.` });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/article.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.heading, s.level]),
    [
      ['Evidence Capture for Offline Retrieval', 1],
      ['Contents', 2],
      ['1 Introduction', 2],
    ],
  );
});

test('a run sized past the largest number is no text, and the rest of its page is read', async () => {
  // A font size of 400 digits is Infinity to pdfjs: its glyphs are placed at NaN. Compared as neither
  // above nor below any run, they joined every run of the page into one line with no place, and the
  // page read as empty (no block, no warning).
  const huge = `1${'0'.repeat(400)}`;
  const content = [
    `BT /F1 ${huge} Tf 72 740 Td (Nowhere) Tj ET`,
    ...Array.from({ length: 6 }, (_, k) => `BT /F1 11 Tf 72 ${700 - k * 16} Td (Line ${k + 1} of the page is read.) Tj ET`),
    `BT ${huge} 0 0 ${huge} 72 500 Tm /F1 12 Tf (Nowhere either) Tj ET`,
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  const doc = await extractBytes(pdfFromObjects(objects), 'https://example.test/huge.pdf', 'application/pdf');
  const text = doc.blocks.map((b) => b.text).join('\n');
  for (let k = 1; k <= 6; k++) assert.ok(text.includes(`Line ${k} of the page is read.`), text);
  assert.equal(/Nowhere/.test(text), false);
});

/**
 * A one-page PDF of `content` (a content stream) with Helvetica as /F1 and, as /F2, a Type 3 font of
 * one glyph at `code` that maps to no character: what pdflatex's bitmap \textbullet and Ghostscript's
 * bullets and a browser's .notdef look like to pdfjs.
 */
function type3GlyphPdf(content: string, code: number): Uint8Array {
  const glyph = '0 0 0 0 0 0 d1 0 0 m 1 0 l 1 1 l h f';
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}endstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a${code} 7 0 R >> ` +
      `/Encoding << /Type /Encoding /Differences [${code} /a${code}] >> ` +
      `/FirstChar ${code} /LastChar ${code} /Widths [500] /Resources << >> >>`,
    `<< /Length ${glyph.length} >>\nstream\n${glyph}\nendstream`,
  ]);
}
