import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { tablePdf, textWidth, type PageSpec, type TextSpec } from '../helpers/table-pdf.js';
import { wrap } from '../helpers/real-layouts.js';

/**
 * Paragraphs as LaTeX, Texinfo, groff and word processors set them: continued over a page or column
 * break, hung under a label, headed by a line the outline spells otherwise. Each case is a layout the
 * sweep of real PDFs (clsguide, R-data, find(1) through gropdf, grep(1) through ps2pdf, bzip2's manual
 * through LibreOffice) found read wrongly.
 */

const SIZE = 10;
const LEADING = 12;

/** One line justified between x and right: its words spread so that its last one ends at right. */
function justified(texts: TextSpec[], x: number, right: number, top: number, line: string, bold = false): void {
  const words = line.split(' ');
  const ink = words.reduce((n, w) => n + textWidth(w, SIZE), 0);
  const space = words.length > 1 ? (right - x - ink) / (words.length - 1) : 0;
  let at = x;
  for (const w of words) {
    texts.push({ x: at, top, size: SIZE, text: w, bold });
    at += textWidth(w, SIZE) + space;
  }
}

/**
 * A paragraph set as TeX sets it: every line justified to the measure but its last; returns the top
 * after it. `runs` 'line' writes each line as one run (pdfTeX's words often are one text item).
 */
function texParagraph(
  texts: TextSpec[],
  x: number,
  right: number,
  top: number,
  text: string,
  indent = 15,
  runs: 'words' | 'line' = 'words',
): number {
  const lines = wrap(text, right - x - indent, SIZE);
  lines.forEach((line, k) => {
    const at = k === 0 ? x + indent : x;
    if (k < lines.length - 1 && runs === 'words') justified(texts, at, right, top + k * LEADING, line);
    else texts.push({ x: at, top: top + k * LEADING, size: SIZE, text: line });
  });
  return top + lines.length * LEADING + 6;
}

const FILLER =
  'The class file declares its options and processes them before it loads the packages it needs, so that an option ' +
  'given to the document class reaches every package that declares it as well.';

/** Running head and page number of a LaTeX page, well inside it. */
function furniture(n: number): TextSpec[] {
  return [
    { x: 72, top: 60, size: 9, text: 'Writing classes and packages' },
    { x: 300, top: 740, size: 9, text: String(n) },
  ];
}

test('a paragraph the page ends mid-sentence goes on at the next page: one block, its span from page to endPage', async () => {
  // R-data's "... to give nrows, the number" / "of rows to be read" and bzip2's manual (LibreOffice)
  // "... should point at the data to be" / "compressed" were two blocks each, the sentence cut in two at
  // the page break; a hyphenated word broken there ("continu-" / "es") was two words.
  const one: TextSpec[] = [...furniture(1)];
  let top = 100;
  for (let k = 0; k < 3; k++) top = texParagraph(one, 72, 540, top, FILLER);
  top = texParagraph(one, 72, 540, top, FILLER.replace(/\.$/, ''));
  const last = 'and the sentence that the page break cuts in two continu-';
  justified(one, 72, 540, top - 6, last);
  const two: TextSpec[] = [...furniture(2)];
  let next = texParagraph(two, 72, 540, 100, 'es on this page, where the paragraph ends with its sentence.', 0);
  // A page ending mid-sentence before a caption or a heading-less paragraph with a capital stays apart.
  const stop: TextSpec[] = [...furniture(3)];
  texParagraph(stop, 72, 540, 100, 'Figure 2 shows the options a class declares.', 0);
  next = texParagraph(two, 72, 540, next, FILLER);
  justified(two, 72, 540, next - 6, 'a last line that ends without a full stop and with the page');
  const doc = await extractBytes(
    tablePdf([{ texts: one }, { texts: two }, { texts: stop }]),
    'https://example.test/pages.pdf',
    'application/pdf',
  );
  const across = doc.blocks.find((b) => b.text.includes('the page break cuts'));
  assert.ok(across, doc.blocks.map((b) => b.text).join('\n'));
  assert.match(across.text, /cuts in two continues on this page, where the paragraph ends with its sentence\.$/);
  assert.equal(across.page, 1);
  assert.equal(across.span?.page, 1);
  assert.equal(across.span?.endPage, 2);
  assert.ok(!doc.blocks.some((b) => b.text.startsWith('es on this page')), 'the continuation is no block of its own');
  const figure = doc.blocks.find((b) => b.text.startsWith('Figure 2'));
  assert.equal(figure?.page, 3, 'a capital at the next page starts a block');
  assert.ok(doc.blocks.some((b) => b.text.endsWith('ends without a full stop and with the page')));
  assert.ok(!doc.blocks.some((b) => b.text.includes('Writing classes and packages')), 'running heads stay out');
});

test("a two-column page's paragraph cut at the foot of its first column goes on at the top of the second", async () => {
  // pdfTeX's two-column articles (multicolumn.pdf, TUGboat) and the Federal Register's three columns:
  // "... Donec nonummy" / "pellentesque ante." were two blocks.
  const texts: TextSpec[] = [];
  let top = 90;
  while (top < 640) top = texParagraph(texts, 50, 290, top, FILLER, 15, 'line');
  texts.push({ x: 50, top: top - 6, size: SIZE, text: 'and a sentence its foot cuts after the word' });
  let right = 90;
  right = texParagraph(texts, 322, 562, right, 'between columns, and ends in the second one.', 0, 'line');
  while (right < 640) right = texParagraph(texts, 322, 562, right, FILLER, 15, 'line');
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/columns.pdf', 'application/pdf');
  const block = doc.blocks.find((b) => b.text.includes('cuts after the word'));
  assert.ok(block, doc.blocks.map((b) => b.text).join('\n'));
  assert.match(block.text, /cuts after the word between columns, and ends in the second one\.$/);
  assert.ok(!doc.blocks.some((b) => b.text.startsWith('between columns')));
});

test('a hanging item (groff .TP, a LaTeX description) is one block with its indented lines; the next label starts the next', async () => {
  // find(1) through gropdf: "-P Never follow symbolic links. ... When find examines or prints infor-"
  // at the margin, "mation about files ..." indented 36 points under it: the hanging lines were a block
  // apart from their first line (an indent under 40 points read as a paragraph's first-line indent).
  const texts: TextSpec[] = [];
  const item = (top: number, tag: string, body: string, textX: number | null): number => {
    // textX null: the label runs into the text (a LaTeX description), which hangs 20 points in.
    // Helvetica's widths measure the bold label: a word space and a little more keep it apart.
    const after = textX ?? 72 + textWidth(tag, SIZE) * 1.1 + 4;
    const first = wrap(body, 540 - after, SIZE);
    const head = first[0]!;
    const rest = wrap(body.slice(head.length + 1), 540 - (textX ?? 92), SIZE);
    texts.push({ x: 72, top, size: SIZE, text: tag, bold: true });
    justified(texts, after, 540, top, head);
    rest.forEach((line, k) => {
      const y = top + (k + 1) * LEADING;
      if (k < rest.length - 1) justified(texts, textX ?? 92, 540, y, line);
      else texts.push({ x: textX ?? 92, top: y, size: SIZE, text: line });
    });
    return top + (rest.length + 1) * LEADING;
  };
  let top = 90;
  top = texParagraph(texts, 72, 540, top, FILLER, 0);
  top = item(
    top + 8,
    '-P',
    'Never follow symbolic links. This is the default behaviour. When find examines or prints ' +
      'information about files, and the file is a symbolic link, the information used shall be taken ' +
      'from the properties of the symbolic link itself.',
    108,
  );
  top = item(
    top,
    '-L',
    'Follow symbolic links. When find examines or prints information about files, the information ' +
      'used shall be taken from the properties of the file to which the link points, not from the link ' +
      'itself.',
    108,
  );
  top = item(
    top + 8,
    'Options',
    'The file declares and processes its options, each with the code that runs when a document asks ' +
      'for it, and the default code that runs for any other option the document gives.',
    null,
  );
  item(
    top,
    'More declarations',
    'This is where the file does most of its work: declaring new variables, commands and fonts; and ' +
      'loading other files that the class needs.',
    null,
  );
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/hanging.pdf', 'application/pdf');
  const starts = doc.blocks.map((b) => b.text.slice(0, 12));
  for (const [label, end] of [
    ['-P Never', 'of the symbolic link itself.'],
    ['-L Follow', 'not from the link itself.'],
    ['Options The', 'any other option the document gives.'],
    ['More declarations This', 'other files that the class needs.'],
  ] as const) {
    const block = doc.blocks.find((b) => b.text.startsWith(label));
    assert.ok(block, `${label}: ${starts.join(' | ')}`);
    assert.ok(block.text.endsWith(end), block.text);
  }
  assert.equal(doc.blocks.length, 5, starts.join(' | '));
});

test("an outline entry spelt otherwise than its printed heading (LaTeX's logo, its quotes) opens at that heading line", async () => {
  // clsguide's outline says "1.1 Writing classes and packages for LaTeX2e" and "2.2 Using `docstrip' and
  // `doc'"; the page prints "LATEX 2e" (a raised small A) and typeset quotes: the sections opened at
  // their destinations and the heading lines stayed behind as paragraphs of them.
  const tops: number[][] = [];
  const pages: PageSpec[] = [1, 2].map((n) => {
    const texts: TextSpec[] = [...furniture(n)];
    let top = 100;
    texts.push({ x: 72, top, size: 14, text: `${n} Classes`, bold: true });
    top = texParagraph(texts, 72, 540, top + 24, FILLER, 0) + 6;
    const logo = top;
    texts.push({ x: 72, top, size: 12, text: `${n}.1 Writing classes for L`, bold: true });
    const x = 72 + textWidth(`${n}.1 Writing classes for L`, 12) - 3;
    texts.push({ x, top: top - 1, size: 9, text: 'A', bold: true, rise: 2 });
    texts.push({ x: x + 6, top, size: 12, text: 'TEX 2e', bold: true });
    top = texParagraph(texts, 72, 540, top + 22, FILLER, 0) + 6;
    tops.push([logo, top]);
    texts.push({ x: 72, top, size: 12, text: `${n}.2 Using 'docstrip' and 'doc'`, bold: true });
    texParagraph(texts, 72, 540, top + 22, FILLER, 0);
    return { texts };
  });
  const outline = [1, 2].map((n) => ({
    title: `${n} Classes`,
    page: n,
    top: 100,
    children: [
      { title: `${n}.1 Writing classes for LaTeX2e`, page: n, top: tops[n - 1]![0]! },
      { title: `${n}.2 Using \`docstrip' and \`doc'`, page: n, top: tops[n - 1]![1]! },
    ],
  }));
  const doc = await extractBytes(tablePdf(pages, outline), 'https://example.test/logo.pdf', 'application/pdf');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(!/Writing classes for L/.test(text), text);
  assert.ok(!/Using 'docstrip'/.test(text), text);
  for (const n of [1, 2]) {
    const logo = doc.sections.find((s) => s.heading === `${n}.1 Writing classes for LaTeX2e`);
    assert.ok(logo?.span?.y !== undefined, `section ${n}.1 opens at its heading line: ${JSON.stringify(logo?.span)}`);
    const quotes = doc.sections.find((s) => s.heading.startsWith(`${n}.2 Using`));
    assert.ok(quotes?.span?.y !== undefined, `section ${n}.2 opens at its heading line`);
    assert.equal(doc.blocks.filter((b) => b.sectionId === logo.id).length, 1);
  }
});

test('a watermark set at an angle on every page is furniture: no heading, no words in the text it crosses', async () => {
  // A TUGboat preprint prints "draft" at 55 degrees in 199-point type across every page: each page
  // opened a level-1 section "draft". Rotated text on one page only (an axis label) stays text.
  const pages: PageSpec[] = [1, 2, 3].map((n) => {
    const texts: TextSpec[] = [{ x: 72, top: 72, size: 14, text: `${n} Section ${n}`, bold: true }];
    let top = 100;
    for (let k = 0; k < 3; k++) top = texParagraph(texts, 72, 540, top, FILLER);
    const label = n === 1 ? 'BT /F1 10 Tf 0 1 -1 0 60 300 Tm (Load in kilonewtons) Tj ET\n' : '';
    return { texts, raw: `BT /F1 120 Tf 0.57 0.82 -0.82 0.57 200 250 Tm (draft ${n}) Tj ET\n${label}` };
  });
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/watermark.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['1 Section 1', '2 Section 2', '3 Section 3'],
  );
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(!/draft/.test(text), text);
  assert.ok(text.includes('Load in kilonewtons'), 'rotated text on one page stays');
  assert.equal(doc.blocks.filter((b) => b.text === FILLER).length, 9, text);
});

test('a two-column page with a float across both columns at its top still reads column by column', async () => {
  // TUGboat's page 3 sets a table across both columns above them: its cells cross the gutter, no gutter
  // was found and each line read across both columns ("... bibliogra- write the corresponding ...").
  const texts: TextSpec[] = [];
  // Its rows cross the gutter from well left of it to well right of it.
  for (let r = 0; r < 8; r++)
    texts.push({ x: 200, top: 80 + r * 12, size: SIZE, text: `Element ${r} has the default font of its style ${r}` });
  const left =
    'The left column tells how a bibliography style chooses the language of each entry from its field, and how the ' +
    'entry switches to the hyphenation patterns of that language while it is typeset.';
  const right =
    'The right column tells how new languages are added: a file of strings for each one, named after the language, ' +
    'that the package loads when a document asks for that language.';
  let l = 200;
  let r = 200;
  for (let k = 0; k < 3; k++) {
    l = texParagraph(texts, 50, 290, l, left, 15, 'line');
    r = texParagraph(texts, 322, 562, r, right, 15, 'line');
  }
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/float.pdf', 'application/pdf');
  const blocks = doc.blocks.map((b) => b.text);
  assert.equal(blocks.filter((t) => t === left).length, 3, blocks.join('\n'));
  assert.equal(blocks.filter((t) => t === right).length, 3, blocks.join('\n'));
});

test("a tagged list's one-line items, their tags in the body's font, are one block each", async () => {
  // find(1) through gropdf lists -printf's directives as .TP items with tags shorter than the indent:
  // "%F   Type of the filesystem ...", "%g   File's group name ...", each line at the same x, with no
  // space between them: the whole list was one paragraph.
  const texts: TextSpec[] = [];
  const items: [string, string][] = [
    ['%F', 'Type of the filesystem the file is on; this value can be used for -fstype.'],
    ['%g', "File's group name, or numeric group ID if the group has no name."],
    [
      '%h',
      "Dirname; the Leading directories of the file's name (all but the last element). If the file name contains no " +
        "slashes (since it is in the current directory) the %h specifier expands to '.'.",
    ],
    ['%H', 'Starting-point under which file was found.'],
    [
      '%k',
      'The amount of disk space used for this file in 1 KB blocks. Since disk space is allocated in multiples of the ' +
        'filesystem block size this is usually greater than %s/1024, but it can also be smaller if the file is sparse.',
    ],
  ];
  let top = 100;
  for (const [tag, text] of items) {
    texts.push({ x: 108, top, size: SIZE, text: tag });
    const lines = wrap(text, 540 - 144, SIZE);
    lines.forEach((line, k) => {
      if (k < lines.length - 1) justified(texts, 144, 540, top, line);
      else texts.push({ x: 144, top, size: SIZE, text: line });
      top += LEADING;
    });
  }
  // A paragraph whose lines carry a margin note beside them is no list ("New feature", "1995/12/01").
  top += 2 * LEADING;
  texts.push({ x: 108, top, size: SIZE, text: 'This group of commands can be used to create your own document class' });
  texts.push({ x: 480, top, size: 8, text: 'New feature' });
  texts.push({ x: 108, top: top + LEADING, size: SIZE, text: 'or package by building on existing classes or packages.' });
  texts.push({ x: 480, top: top + LEADING, size: 8, text: '1995/12/01' });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/tags.pdf', 'application/pdf');
  const blocks = doc.blocks.map((b) => b.text);
  assert.deepEqual(
    blocks.slice(0, 5),
    items.map(([tag, text]) => `${tag} ${text}`),
    blocks.join('\n'),
  );
  assert.equal(blocks.length, 6, blocks.join('\n'));
});

test("a man page's item continued on the next page, whose left edge lacks the headings, is one block", async () => {
  // find(1) through gropdf: page 1 sets "OPTIONS" at x 72 and the -H item at 108, hanging at 144; page 2
  // has no heading, its left edge is 108. The item's next line at 144 is the same x on both pages,
  // though not the same indent from each page's edge.
  const one: TextSpec[] = [{ x: 72, top: 80, size: SIZE, text: 'OPTIONS', bold: true }];
  one.push({ x: 108, top: 100, size: SIZE, text: '-H', bold: true });
  justified(one, 126, 540, 100, 'Do not follow symbolic links, except while processing the command line arguments.');
  for (let k = 1; k < 50; k++)
    justified(one, 144, 540, 100 + k * LEADING, `line ${k} of the item says which file the information is taken from when it`);
  const two: TextSpec[] = [{ x: 144, top: 100, size: SIZE, text: 'examines a symbolic link on the command line.' }];
  texParagraph(two, 108, 540, 100 + LEADING + 8, FILLER, 0);
  const doc = await extractBytes(tablePdf([{ texts: one }, { texts: two }]), 'https://example.test/man.pdf', 'application/pdf');
  const item = doc.blocks.find((b) => b.text.startsWith('-H Do not follow'));
  assert.ok(item?.text.endsWith('taken from when it examines a symbolic link on the command line.'), item?.text.slice(-200));
  assert.equal(item?.span?.endPage, 2);
});
