import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SKIP_CORPUS, extractBytes, extractCorpusFile } from './helpers.js';
import { tablePdf, textWidth, type OutlineSpec, type PageSpec, type TextSpec } from '../helpers/table-pdf.js';
import { seededRandom } from '../helpers/random.js';
import { lectureCase } from '../helpers/lecture-pdf.js';

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

test('untagged lecture notes: every paragraph is filed under the heading it follows in reading order', async () => {
  // Subsections 1.2 times the body in bold, a heading at the foot of a page whose definition starts
  // the next page, running heads and page numbers, and a heading at the top of a right-hand column.
  const c = lectureCase();
  const doc = await extractBytes(c.pdf, 'https://example.test/lecture.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Lecture 4: Sorting and Searching', ...c.headings],
  );
  assert.deepEqual(
    doc.sections.filter((s) => s.number !== null).map((s) => [s.number, s.level]),
    c.headings.map((h) => {
      const number = h.split(' ')[0]!;
      // Under the title (level 1), as the h2 and h3 of an HTML page: "1" is level 2, "1.1" level 3.
      return [number, number.split('.').length + 1];
    }),
  );
  const heading = new Map(doc.sections.map((s) => [s.id, s.heading]));
  for (const [phrase, under] of c.expected) {
    const block = doc.blocks.find((b) => b.text.includes(phrase));
    assert.ok(block, `no block holds "${phrase}"`);
    assert.equal(heading.get(block.sectionId ?? ''), under, `"${phrase}"`);
  }
  // The running heads are page furniture: in no block, and no heading.
  assert.ok(!doc.blocks.some((b) => b.text.includes('Design and Analysis of Algorithms')));
  assert.equal(doc.title, 'Lecture 4: Sorting and Searching');
});

test('PDF superscripts and subscripts: ^ and _ before the script, parenthesised unless one run of letters or digits', async () => {
  // Each line is laid out run by run: [text, size, rise]; scripts are 7 pt against 10 pt text.
  const line = (top: number, pieces: [string, number, number?][]): TextSpec[] => {
    let x = 72;
    return pieces.map(([text, size, rise]) => {
      const spec = { x, top: top + (10 - size), size, text, rise: rise ?? 0 };
      x += textWidth(text, size);
      return spec;
    });
  };
  const texts = [
    ...line(100, [
      ['The largest exact integer is 2', 10],
      ['53', 7, 4],
      [' in a double.', 10],
    ]),
    ...line(120, [
      ['Each x', 10],
      ['i', 7, -2],
      [' is summed, and 2', 10],
      ['n+1', 7, 4],
      [' leaves.', 10],
    ]),
    ...line(140, [
      ['Water is H', 10],
      ['2', 7, -2],
      ['O, as cited', 10],
      ['1', 7, 4],
      ['.', 10],
    ]),
    // Smaller text on the baseline (small capitals, a unit) is no script.
    ...line(160, [
      ['Set in ', 10],
      ['SMALL CAPS', 7, 0],
      [' on the line.', 10],
    ]),
  ];
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/scripts.pdf', 'application/pdf');
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    [
      'The largest exact integer is 2^53 in a double.',
      'Each x_i is summed, and 2^(n+1) leaves.',
      'Water is H_2O, as cited^1.',
      'Set in SMALL CAPS on the line.',
    ],
  );
});

test('an outline entry whose title no line carries opens at its destination, not at the next page', async () => {
  // The heading line wraps ("1.5 Stability of" / "sorting algorithms"): no line equals the outline's
  // title. Its section must still hold the definition below it on the same page.
  const body = (top: number, text: string): TextSpec => ({ x: 72, top, size: 10, text });
  const texts: TextSpec[] = [
    { x: 72, top: 72, size: 12, text: 'Counting sort', bold: true },
    body(96, 'Counting sort tallies how often each key occurs.'),
    { x: 72, top: 130, size: 12, text: '1.5 Stability of', bold: true },
    { x: 72, top: 146, size: 12, text: 'sorting algorithms', bold: true },
    body(170, 'Definition 1.6. A sort is stable if equal keys keep their order.'),
  ];
  const outline = [
    { title: 'Counting sort', page: 1, top: 70 },
    { title: 'Stability of sorting algorithms', page: 1, top: 128 },
  ];
  const doc = await extractBytes(tablePdf([{ texts }], outline), 'https://example.test/outline.pdf', 'application/pdf');
  const heading = new Map(doc.sections.map((s) => [s.id, s.heading]));
  const definition = doc.blocks.find((b) => b.text.startsWith('Definition 1.6'));
  assert.equal(heading.get(definition?.sectionId ?? ''), 'Stability of sorting algorithms');
  const tally = doc.blocks.find((b) => b.text.startsWith('Counting sort tallies'));
  assert.equal(heading.get(tally?.sectionId ?? ''), 'Counting sort');
});

test("a PDF's Info Title that is a file name is no title: the first page's heading is", async () => {
  const texts = [{ x: 72, top: 72, size: 20, text: 'Oral Argument Transcript' }];
  for (let i = 0; i < 8; i++) texts.push({ x: 72, top: 110 + i * 13, size: 10, text: `Line ${i + 1} of the running text of the record.` });
  const titleOf = async (title: string): Promise<string> =>
    (await extractBytes(tablePdf([{ texts }], [], { title }), 'https://example.test/t.pdf', 'application/pdf')).title;
  // As the dev corpus's SCOTUS transcript declares it, and as printing programs write it.
  for (const junk of ['10811.exe', 'report.docx', 'Microsoft Word - draft v2.doc', 'C:\\work\\minutes.rtf', 'scan0001.tif'])
    assert.equal(await titleOf(junk), 'Oral Argument Transcript', junk);
  // A declared title that names the document is the title, even with a dot or a slash in it.
  for (const real of ['Annual Report 2020', 'TCP/IP Illustrated', 'Node.js Internals', 'Microsoft Word - Annual Report'])
    assert.equal(await titleOf(real), real.replace('Microsoft Word - ', ''), real);
  const doc = await extractBytes(tablePdf([{ texts }], [], { title: '10811.exe' }), 'https://example.test/t.pdf', 'application/pdf');
  assert.equal((doc.metadata as Record<string, string>)['title'], '10811.exe', 'the metadata keeps the value as declared');
});

test('outline entries that carry their section number open at the heading line that prints it, once', async () => {
  // DocBook, Texinfo and hyperref's numbered bookmarks write the number into the outline title
  // ("2.1. Directory layout"): the heading line was taken for body text under the section that the
  // destination had opened, and the section had no number.
  const body = (top: number, text: string): TextSpec => ({ x: 72, top, size: 10, text });
  const texts: TextSpec[] = [
    { x: 72, top: 72, size: 14, text: '2. Unified system', bold: true },
    body(96, 'The system is made of a set of files read by every application.'),
    { x: 72, top: 130, size: 12, text: '2.1. Directory layout', bold: true },
    body(154, 'Each directory holds a packages folder of source files.'),
  ];
  const outline = [
    { title: '2. Unified system', page: 1, top: 60 },
    { title: '2.1. Directory layout', page: 1, top: 118 },
  ];
  const doc = await extractBytes(tablePdf([{ texts }], outline), 'https://example.test/numbered.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.heading, s.number, s.level]),
    [
      ['2. Unified system', '2', 2],
      ['2.1. Directory layout', '2.1', 2],
    ],
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['The system is made of a set of files read by every application.', 'Each directory holds a packages folder of source files.'],
  );
});

test('running heads and page numbers set well inside the page (LaTeX, groff) are furniture; body lines at the edge are not', async () => {
  // amsldoc's heads sit 12% from the top ("4  3. DISPLAYED EQUATIONS"), lppl's page numbers 13% from
  // the bottom, ssh(1) through groff and ps2pdf has "BSD  November 28, 2022  1" 11% from it: outside
  // the 8% band, they were text of whatever section they fell in. A page's first and last lines count
  // as its edge when they stand apart from the body by more than their height.
  const pages = [0, 1, 2].map((i) => {
    const texts: TextSpec[] = [
      { x: 72, top: 90, size: 9, text: `${2 * i + 4}` },
      { x: 300, top: 90, size: 9, text: '3. DISPLAYED EQUATIONS' },
      // The body's own first line is the same on pages 2 and 3 ("}" closing a listing): no head.
      { x: 72, top: 122, size: 10, text: i === 0 ? 'Equations are set in display.' : '}' },
    ];
    for (let k = 1; k < 40; k++)
      texts.push({ x: 72, top: 122 + k * 13, size: 10, text: `Line ${k} of page ${i + 1} says how equations are numbered.` });
    texts.push({ x: 72, top: 700, size: 10, text: 'BSD' }, { x: 290, top: 700, size: 10, text: `${i + 1}` });
    return { texts };
  });
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/heads.pdf', 'application/pdf');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(!text.includes('DISPLAYED'), text.slice(0, 300));
  assert.ok(!/\bBSD\b/.test(text), text.slice(-300));
  assert.ok(!doc.blocks.some((b) => /^\d+$/.test(b.text)), 'no page number is a block');
  assert.equal(doc.blocks.filter((b) => b.text.startsWith('}')).length, 2, 'the listing lines at the top of pages 2 and 3 stay');
  assert.ok(text.includes('Line 39 of page 3 says how equations are numbered.'));
});

test("a title page's title is no running head where the heads repeat it in smaller type", async () => {
  // Apache FOP's DocBook books (the FHS 3.0): "Filesystem Hierarchy Standard" at 25 pt atop page 1 and
  // at 10 pt atop each contents page. Compared by text alone, the title was a running head, dropped: the
  // document was titled and opened by the line below it ("LSB Workgroup, The Linux Foundation").
  const title: TextSpec[] = [
    { x: 123, top: 70, size: 25, text: 'Filesystem Hierarchy Standard' },
    { x: 145, top: 245, size: 17, text: 'LSB Workgroup, The Linux Foundation' },
  ];
  const contents = [1, 2].map((i) => {
    const texts: TextSpec[] = [{ x: 244, top: 34, size: 10, text: 'Filesystem Hierarchy Standard' }];
    for (let k = 0; k < 30; k++)
      texts.push({ x: 72, top: 80 + k * 14, size: 10, text: `Line ${k + 1} of page ${i + 1} of the standard's text.` });
    return { texts };
  });
  const doc = await extractBytes(tablePdf([{ texts: title }, ...contents]), 'https://example.test/fhs.pdf', 'application/pdf');
  assert.equal(doc.title, 'Filesystem Hierarchy Standard');
  assert.equal(doc.sections[0]?.heading, 'Filesystem Hierarchy Standard');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.equal(text.match(/Filesystem Hierarchy Standard/g), null, 'the heads on the contents pages stay furniture');
});

test('a running head a tenth of a point larger on another page is the same size', async () => {
  // Sizes were compared in whole points, rounded: 10.45 pt and 10.55 pt (a head scaled on one page,
  // not on the next) were 10 and 11, and the head on each page was text; 10 and 10.4 were one size.
  for (const [a, b] of [
    [10.45, 10.55],
    [10, 10.4],
    [10.5, 10.9],
  ] as const) {
    const pages = [a, b].map((size, i) => {
      const texts: TextSpec[] = [{ x: 244, top: 34, size, text: 'Capture Format Handbook' }];
      for (let k = 0; k < 30; k++)
        texts.push({ x: 72, top: 80 + k * 14, size: 10, text: `Line ${k + 1} of page ${i + 1} of the handbook.` });
      return { texts };
    });
    const doc = await extractBytes(tablePdf(pages), 'https://example.test/handbook.pdf', 'application/pdf');
    const text = [...doc.sections.map((s) => s.heading), ...doc.blocks.map((b) => b.text)].join('\n');
    assert.equal(text.match(/Capture Format Handbook/g), null, `heads at ${a} and ${b} pt are furniture`);
    assert.ok(text.includes('Line 30 of page 2 of the handbook.'));
  }
});

test("a head naming a section one page long beside its page's number is furniture; a numbered heading atop a page is not", async () => {
  // The LittleCMS tutorial (Word) heads each page with its section's title and number: "Black point
  // compensation 27", "... 28", then "Black preserving intents 29", a section one page long. The first two
  // repeat; the third has text of its own, and was read as a line of the section before it. It carries
  // its page's number as the other heads do, in their size. A heading "6 Limits" in 14 pt atop page 6,
  // which has no head, where the numbers agree, is larger than the heads: still a heading.
  const heads = ['Black point compensation', 'Black point compensation', 'Black preserving intents', 'Linear spaces', 'Linear spaces', ''];
  const pages = heads.map((head, i) => {
    const texts: TextSpec[] =
      head === ''
        ? [{ x: 72, top: 28, size: 14, text: '6 Limits', bold: true }]
        : [{ x: 400, top: 28, size: 11, text: `${head} ${i + 1}` }];
    for (let k = 0; k < 30; k++)
      texts.push({ x: 72, top: 100 + k * 14, size: 10, text: `Line ${k + 1} of page ${i + 1} of the tutorial's text.` });
    return { texts };
  });
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/tutorial.pdf', 'application/pdf');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.equal(text.match(/Black p|Linear spaces/g), null, text.slice(0, 400));
  assert.ok(
    doc.sections.some((s) => s.heading === '6 Limits' || s.heading === 'Limits'),
    JSON.stringify(doc.sections.map((s) => s.heading)),
  );
  assert.ok(text.includes('Line 30 of page 6 of the tutorial'));
});

test('a PDF with an outline and no Info Title is titled by its first page, not by its first section', async () => {
  // shared-mime-info-spec.pdf (DocBook through dblatex) declares no Title: it was titled "1.
  // Introduction", its first outline entry, while its first page prints "Shared MIME-info Database".
  const texts: TextSpec[] = [
    { x: 160, top: 64, size: 24, text: 'Shared MIME-info' },
    { x: 160, top: 94, size: 24, text: 'Database' },
    { x: 230, top: 140, size: 16, text: 'Thomas Leonard' },
    { x: 72, top: 200, size: 16, text: '1. Introduction', bold: true },
  ];
  for (let i = 0; i < 10; i++) texts.push({ x: 72, top: 230 + i * 13, size: 10, text: `Body line ${i + 1} of the specification's text.` });
  const outline = [{ title: '1. Introduction', page: 1, top: 190 }];
  const doc = await extractBytes(tablePdf([{ texts }], outline), 'https://example.test/spec.pdf', 'application/pdf');
  assert.equal(doc.title, 'Shared MIME-info Database');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['1. Introduction'],
  );
  // A declared title still wins.
  const declared = await extractBytes(
    tablePdf([{ texts }], outline, { title: 'MIME database' }),
    'https://example.test/s.pdf',
    'application/pdf',
  );
  assert.equal(declared.title, 'MIME database');
});

test("a bulleted item's wrapped lines, hung under its text, are one list item; a line back at the bullet ends it", async () => {
  // amsldoc's feature list: "• A convenient way to define new 'operator name' commands analogous to"
  // then "\sin and \lim, including proper side spacing..." under the text, right of the bullet. The
  // indent read as a new paragraph's, so every item lost its later lines to a paragraph of their own.
  const texts: TextSpec[] = [{ x: 72, top: 72, size: 10, text: 'The package offers these features:' }];
  const items = [
    ['A convenient way to define new operator name commands analogous to', 'sin and lim, with proper side spacing.'],
    ['Multiple substitutes for the eqnarray environment to make various', 'kinds of alignments easier to set.'],
  ];
  let top = 90;
  for (const [first, second] of items) {
    texts.push({ x: 82, top, size: 10, text: '\u2022' }, { x: 92, top, size: 10, text: first! });
    texts.push({ x: 92, top: top + 12, size: 10, text: second! });
    top += 28;
  }
  // shared-mime-info-spec.pdf: the paragraph after the list starts back at the bullet's x.
  texts.push({ x: 82, top: top, size: 10, text: 'Further, the databases have been merged into one package.' });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/list.pdf', 'application/pdf');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'The package offers these features:'],
      ['list', `\u2022 ${items[0]!.join(' ')}`],
      ['list', `\u2022 ${items[1]!.join(' ')}`],
      ['paragraph', 'Further, the databases have been merged into one package.'],
    ],
  );
});

test('a raised capital kerned back into the letter before it is part of the word (the LaTeX logo), not a superscript', async () => {
  // lppl.pdf, amsldoc.pdf: TeX sets "L", a smaller raised "A" moved left over the L, then "TEX": every
  // "LaTeX" read "L^ATEX", a word no query for LaTeX finds. A superscript starts where its base ends.
  const a = 72 + textWidth('The L', 10) - 3.6;
  const tex = a + textWidth('A', 7) - 1.5;
  const exponent = tex + textWidth('TEX Project Public License covers 2', 10);
  const texts: TextSpec[] = [
    { x: 72, top: 100, size: 10, text: 'The L' },
    { x: a, top: 103, size: 7, text: 'A', rise: 2 },
    { x: tex, top: 100, size: 10, text: 'TEX Project Public License covers 2' },
    { x: exponent, top: 103, size: 7, text: '53', rise: 4 },
    { x: exponent + textWidth('53', 7), top: 100, size: 10, text: ' files.' },
  ];
  for (let i = 0; i < 6; i++) texts.push({ x: 72, top: 130 + i * 13, size: 10, text: `Body line ${i + 1} of the license text.` });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/logo.pdf', 'application/pdf');
  assert.equal(doc.blocks[0]!.text, 'The LATEX Project Public License covers 2^53 files.');
});

test('without an outline, an unnumbered line 1.15 times the body in a font of its own opens a section', async () => {
  // lppl.pdf sets its sections with \subsection* ("Preamble", "Definitions": 12 pt bold on a 10 pt
  // body): below the 1.25 of a heading guessed from size alone and without a number, none was found
  // and the license was one section. A line that size in the body's own font stays text, and so does
  // a centred author line (multicolumn.pdf's "Your Name"): headings start at their column's edge.
  const texts: TextSpec[] = [{ x: 270, top: 50, size: 12, text: 'Jane Author', bold: true }];
  let top = 72;
  for (const heading of ['Preamble', 'Definitions']) {
    texts.push({ x: 72, top, size: 12, text: heading, bold: true });
    top += 20;
    for (let i = 0; i < 5; i++) {
      texts.push({ x: 72, top, size: 10, text: `${heading} line ${i + 1} of the license, set in the body's type.` });
      top += 12;
    }
    top += 10;
  }
  texts.push({ x: 72, top, size: 12, text: 'A larger line in the body font' });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/lppl.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Preamble', 'Definitions'],
  );
  const heading = new Map(doc.sections.map((s) => [s.id, s.heading]));
  assert.equal(heading.get(doc.blocks.find((b) => b.text.startsWith('Definitions line 1'))?.sectionId ?? ''), 'Definitions');
});

test('a listing set in a monospaced font the body is not set in is one code block, its lines and indentation kept', async () => {
  // shared-mime-info-spec.pdf's XML examples, camlidl's IDL declarations, ltnews's LaTeX input: each
  // listing was a paragraph, its lines run together ("<mime-type ...> <comment>...</comment> ...").
  const texts: TextSpec[] = [{ x: 72, top: 72, size: 10, text: 'A package file looks like this:' }];
  const listing = ['<?xml version="1.0"?>', '<mime-info>', '  <mime-type type="text/x-diff">', '    <comment>Differences</comment>'];
  listing.push('  </mime-type>', '</mime-info>');
  listing.forEach((line, i) => {
    const indent = line.length - line.trimStart().length;
    texts.push({ x: 90 + indent * 6, top: 90 + i * 11, size: 10, text: line.trimStart(), mono: true });
  });
  texts.push({ x: 72, top: 90 + listing.length * 11 + 6, size: 10, text: 'Each package file names the types it adds.' });
  for (let i = 0; i < 6; i++)
    texts.push({ x: 72, top: 190 + i * 13, size: 10, text: `Body line ${i + 1} of the specification, set in the body's type.` });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/code.pdf', 'application/pdf');
  assert.deepEqual(
    doc.blocks.slice(0, 3).map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'A package file looks like this:'],
      ['code', listing.join('\n')],
      ['paragraph', 'Each package file names the types it adds.'],
    ],
  );
});

test('a numbered line in a listing is output or a line number, not a heading, unless a dot ends its number', async () => {
  // zoo's vignette: an R session printed "9 NA 7 6 5 6 NA" in Courier, read as section 9; mdwtab's macro
  // listings numbered each line ("2 \\newcount\\tab@state"): 93 headings. Speex's manual reprints an RFC
  // in Courier, its headings numbered "3.1. RTP Speex Header Fields".
  const texts: TextSpec[] = [{ x: 72, top: 72, size: 10, text: 'Missing values are kept:' }];
  const session = ['R> z1', '2004-01-05 2004-01-14 2004-01-19', '9 NA 7 6 5 6 NA', '2004-02-16 2004-02-20', '8 9 NA'];
  session.forEach((line, i) => {
    texts.push({ x: 90, top: 90 + i * 11, size: 10, text: line, mono: true });
  });
  let top = 90 + session.length * 11 + 8;
  texts.push({ x: 72, top, size: 10, text: 'The last value is carried forward by the function na.locf.' });
  top += 20;
  texts.push({ x: 72, top, size: 10, text: 'The reprinted memo follows.' });
  for (const line of ['   RTP payload formats are described below.', '3.1. RTP Speex Header Fields', '   The RTP header is used as is.']) {
    top += 26;
    texts.push({ x: line.startsWith(' ') ? 90 : 72, top, size: 10, text: line.trimStart(), mono: true });
  }
  top += 20;
  for (let i = 0; i < 6; i++)
    texts.push({ x: 72, top: top + i * 13, size: 10, text: `Body line ${i + 1} of the vignette, set in the body's type as prose is.` });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/vignette.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['3.1. RTP Speex Header Fields'],
  );
  assert.ok(doc.blocks.some((b) => b.text.includes('9 NA 7 6 5 6 NA') && b.text.includes('8 9 NA')));
});

test("numbered headings below the outline's depth open sections under the entry they extend", async () => {
  // clsguide's bookmarks stop at subsections (hyperref follows the contents' depth): its
  // \subsubsection lines "2.7.1 Loading other files" to "2.7.4 Useful hooks", bold at body size, were
  // paragraphs of "2.7 General style". A bold numbered line whose number does not extend the open
  // entry's, or a sentence that starts with a version number, stays text.
  const body = (top: number, text: string): TextSpec => ({ x: 72, top, size: 10, text });
  const texts: TextSpec[] = [
    { x: 72, top: 72, size: 14, text: '2 Writing classes', bold: true },
    body(96, 'Classes and packages are written in the same way.'),
    { x: 72, top: 120, size: 12, text: '2.7 General style', bold: true },
    body(140, 'Some general advice about writing classes and packages.'),
    { x: 72, top: 164, size: 10, text: '2.7.1 Loading other files', bold: true },
    body(180, 'Use the commands the kernel provides to load other files.'),
    body(194, '2.7.2 is the version that first loaded them this way.'),
    { x: 72, top: 218, size: 10, text: '2.7.2 Make it robust', bold: true },
    body(234, 'Test the class with every option it declares.'),
    { x: 72, top: 258, size: 10, text: '3.1 Not an entry below 2.7', bold: true },
    body(274, 'A numbered bold line outside the open entry stays text.'),
  ];
  const outline = [{ title: '2 Writing classes', page: 1, top: 70, children: [{ title: '2.7 General style', page: 1, top: 118 }] }];
  const doc = await extractBytes(tablePdf([{ texts }], outline), 'https://example.test/depth.pdf', 'application/pdf');
  const style = doc.sections.find((s) => s.heading === '2.7 General style');
  const loading = doc.sections.find((s) => s.heading === '2.7.1 Loading other files');
  const robust = doc.sections.find((s) => s.heading === '2.7.2 Make it robust');
  assert.ok(style && loading && robust, doc.sections.map((s) => s.heading).join(' | '));
  assert.equal(loading.level, style.level + 1);
  assert.equal(loading.parentId, style.id);
  assert.equal(robust.parentId, style.id);
  const kernel = doc.blocks.find((b) => b.text.startsWith('Use the commands'));
  assert.equal(kernel?.sectionId, loading.id);
  assert.ok(
    doc.blocks.some((b) => b.text.includes('2.7.2 is the version')),
    'a sentence starting with a number is text',
  );
  assert.ok(doc.blocks.some((b) => b.text === '3.1 Not an entry below 2.7'));
});

/**
 * A heading guessed from its type that is too long for its column wraps onto the lines below it, as
 * FOP sets the SCons user guide: "1.3. Building and Installing SCons on Any Sys-" / "tem", a chapter
 * number set larger than its title beside "Building and Linking with Li-" / "braries", and a code name
 * in a font of its own on the second line. Each wrapped line was a heading of its own, one level up
 * ("tem"). Lines in the body's type, a heading after body text, and a number of its own are not
 * continuations.
 */
test('a heading that wraps onto the next lines is one heading, its lines joined', async () => {
  const body = (top: number, n: number): TextSpec[] =>
    Array.from({ length: n }, (_, i) => ({
      x: 72,
      top: top + i * 12,
      size: 10,
      text: `Body text line ${i + 1} explains how the tool builds programs from their sources.`,
    }));
  const page: TextSpec[] = [
    { x: 72, top: 60, size: 40, text: '4', bold: true },
    { x: 110, top: 76, size: 20, text: 'Building and Linking with Li-', bold: true },
    { x: 72, top: 100, size: 20, text: 'braries', bold: true },
    ...body(140, 4),
    { x: 72, top: 200, size: 16, text: '4.1. Building and Installing the Tool on Any Sys-', bold: true },
    { x: 72, top: 219, size: 16, text: 'tem', bold: true },
    ...body(250, 3),
    { x: 72, top: 300, size: 16, text: '4.2. Deciding When a File Has Changed: the', bold: true },
    { x: 72, top: 319, size: 16, text: 'Decider', mono: true },
    // Courier: 0.6 of the size per character.
    { x: 72 + 8 * 0.6 * 16, top: 319, size: 16, text: 'Function', bold: true },
    ...body(350, 3),
    { x: 72, top: 400, size: 16, text: '4.3. Linking', bold: true },
    { x: 72, top: 419, size: 16, text: '4.4. Loading', bold: true },
    ...body(450, 3),
  ];
  const doc = await extractBytes(tablePdf([{ texts: page }]), 'https://example.test/user-guide.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [2, '4 Building and Linking with Libraries'],
      [3, '4.1. Building and Installing the Tool on Any System'],
      [3, '4.2. Deciding When a File Has Changed: the Decider Function'],
      [3, '4.3. Linking'],
      [3, '4.4. Loading'],
    ],
  );
  const sectionOf = (start: string): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.startsWith(start))?.sectionId)?.heading;
  assert.equal(sectionOf('Body text line 1'), '4 Building and Linking with Libraries');
});

test("a title page's title wrapped onto a line centred under it is one heading; a centred line of its own below is not", async () => {
  // The LittleCMS tutorial (Word): "How to use the engine in your" / "applications", each line centred,
  // then the version "2.14". The second line was a heading of its own, so the document's first section
  // was headed by half its title.
  // In Courier (0.6 of the size per character), a font of its own, so that the centring is exact.
  const centred = (top: number, size: number, text: string): TextSpec => ({
    x: 306 - (0.6 * size * text.length) / 2,
    top,
    size,
    text,
    mono: true,
  });
  const texts: TextSpec[] = [
    centred(330, 26, 'How to use the engine in your'),
    centred(360, 26, 'applications'),
    centred(390, 26, '2.14'),
    centred(700, 10, 'https://www.example.test'),
  ];
  const body: TextSpec[] = [{ x: 72, top: 60, size: 16, text: 'Introduction', bold: true }];
  for (let i = 0; i < 20; i++) body.push({ x: 72, top: 90 + i * 13, size: 10, text: `Body line ${i + 1} of the tutorial's introduction.` });
  const doc = await extractBytes(tablePdf([{ texts }, { texts: body }]), 'https://example.test/tutorial.pdf', 'application/pdf');
  assert.equal(doc.sections[0]?.heading, 'How to use the engine in your applications', JSON.stringify(doc.sections.map((s) => s.heading)));
  assert.ok(!doc.sections.some((s) => s.heading === 'applications'));
  assert.ok(
    doc.blocks.some((b) => b.text === '2.14'),
    'the version is no part of the title',
  );
});

test('an outline entry without a destination (a group) opens where its first child does; the entries after it are read', async () => {
  // Prawn's manual: each chapter's "Basics", "Shapes" ... hold their children and point nowhere. Left
  // without a page, the first one held back every entry after it: 706 blocks from page 14 to the end
  // were in "Graphics", and the 100 sections after it opened empty at the end of the document.
  const page = (title: string, n: number): PageSpec => {
    const texts: TextSpec[] = [{ x: 72, top: 60, size: 16, text: title, bold: true }];
    for (let i = 0; i < 8; i++)
      texts.push({ x: 72, top: 90 + i * 13, size: 10, text: `Line ${i + 1} about ${title.toLowerCase()} on page ${n}.` });
    return { texts };
  };
  const pages = [page('Graphics', 1), page('Helper', 2), page('Fill and stroke', 3), page('Text', 4), page('Positioned text', 5)];
  const outline = [
    {
      title: 'Graphics',
      page: 1,
      top: 60,
      children: [
        {
          title: 'Basics',
          top: 0,
          children: [
            { title: 'Helper', page: 2, top: 60 },
            { title: 'Fill and stroke', page: 3, top: 60 },
          ],
        },
      ],
    },
    {
      title: 'Text',
      page: 4,
      top: 60,
      children: [{ title: 'Basics', children: [{ title: 'Positioned text', page: 5, top: 60 }] }],
    },
  ];
  const doc = await extractBytes(tablePdf(pages, outline), 'https://example.test/manual.pdf', 'application/pdf');
  const sectionOf = (start: string): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.startsWith(start))?.sectionId)?.heading;
  assert.equal(sectionOf('Line 1 about helper'), 'Helper');
  assert.equal(sectionOf('Line 1 about fill and stroke'), 'Fill and stroke');
  assert.equal(sectionOf('Line 1 about text'), 'Text');
  assert.equal(sectionOf('Line 1 about positioned text'), 'Positioned text');
  const basics = doc.sections.filter((s) => s.heading === 'Basics');
  assert.equal(basics.length, 2);
  assert.ok(
    basics.every((b) => doc.sections.some((s) => s.parentId === b.id)),
    'each group holds its children',
  );
});

test('an outline entry whose page shows no line with its title, and whose destination is the whole page, opens at that page', async () => {
  // Prawn's manual heads each example's page with its file name ("repeatable_content/stamp.rb"), not the
  // outline's "Stamp", and points at the page (/Fit): the section opened a page late, at the next page's top.
  const page = (head: string, words: string): PageSpec => {
    const texts: TextSpec[] = [{ x: 72, top: 60, size: 12, text: head }];
    for (let i = 0; i < 8; i++) texts.push({ x: 72, top: 90 + i * 13, size: 10, text: `Line ${i + 1} about ${words}.` });
    return { texts };
  };
  const pages = [page('Repeatable content', 'repeating'), page('repeatable_content/stamp.rb', 'stamps'), page('numbering.rb', 'numbers')];
  const outline = [
    { title: 'Repeatable content', page: 1, top: 60 },
    { title: 'Stamp', page: 2 },
    { title: 'Page numbering', page: 3 },
  ];
  const doc = await extractBytes(tablePdf(pages, outline), 'https://example.test/manual.pdf', 'application/pdf');
  const sectionOf = (start: string): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.startsWith(start))?.sectionId)?.heading;
  assert.equal(sectionOf('Line 1 about stamps'), 'Stamp');
  assert.equal(sectionOf('Line 1 about numbers'), 'Page numbering');
  assert.equal(sectionOf('Line 1 about repeating'), 'Repeatable content');
});

test('generated outlines (groups that point nowhere, entries at whole pages): each page is read in the entry opened last', async () => {
  // PDF extractor 13. Every page opens with its own untitled head line; the outline names sections whose
  // titles no line carries, some pointing at a whole page (/Fit), some at a height, groups at nothing.
  const random = seededRandom(13);
  for (let round = 0; round < 12; round++) {
    const count = 3 + Math.floor(random() * 5);
    const pages: PageSpec[] = [];
    for (let p = 1; p <= count; p++) {
      const texts: TextSpec[] = [{ x: 72, top: 60, size: 12, text: `file${p}.rb` }];
      for (let i = 0; i < 6; i++) texts.push({ x: 72, top: 90 + i * 13, size: 10, text: `Line ${i + 1} of page p${p}q here.` });
      pages.push({ texts });
    }
    // One entry per page, in page order; some wrapped in a group without a destination.
    const outline: OutlineSpec[] = [];
    for (let p = 1; p <= count; p++) {
      const entry: OutlineSpec = random() < 0.5 ? { title: `Part ${p}`, page: p } : { title: `Part ${p}`, page: p, top: 60 };
      outline.push(random() < 0.4 ? { title: `Group ${p}`, children: [entry] } : entry);
    }
    const doc = await extractBytes(tablePdf(pages, outline), 'https://example.test/book.pdf', 'application/pdf');
    for (let p = 1; p <= count; p++) {
      const block = doc.blocks.find((b) => b.text.includes(`p${p}q`))!;
      const section = doc.sections.find((s) => s.id === block.sectionId)!;
      assert.equal(section.heading, `Part ${p}`, `round ${round}, page ${p}: ${JSON.stringify(outline)}`);
    }
  }
});

test('without an outline, a line in bold body type standing alone over the text it heads opens a section one level below', async () => {
  // The Federal Register sets its headings ("Background", "Proposed AD Requirements") in Helvetica Bold
  // at the size of its Melior text: the rule's 16 headings were none, and its 18 pages one section. A
  // glossary's term runs straight into its definition, a bold sentence leads into a listing, a bold row
  // spreads its cells: those stay text.
  const texts: TextSpec[] = [{ x: 72, top: 60, size: 14, text: '1. Proposed Rules', bold: true }];
  let top = 84;
  const body = (label: string, lines = 4): void => {
    for (let i = 0; i < lines; i++) {
      texts.push({ x: 72, top, size: 10, text: `${label} line ${i + 1} of the rule, set in the body's type here.` });
      top += 12;
    }
  };
  for (const heading of ['Background', 'Proposed AD Requirements']) {
    top += 8;
    texts.push({ x: 72, top, size: 10, text: heading, bold: true });
    top += 16;
    body(heading);
  }
  top += 8;
  texts.push({ x: 72, top, size: 10, text: 'Execution Environment', bold: true });
  top += 12;
  body('Glossary', 2);
  top += 8;
  texts.push({ x: 72, top, size: 10, text: 'This is the definition of the factory', bold: true });
  top += 16;
  body('Listing', 2);
  top += 8;
  texts.push({ x: 72, top, size: 10, text: 'Name', bold: true }, { x: 200, top, size: 10, text: 'Size', bold: true });
  top += 16;
  body('Table', 2);
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/rule.pdf', 'application/pdf');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [2, '1. Proposed Rules'],
      [3, 'Background'],
      [3, 'Proposed AD Requirements'],
    ],
  );
  const heading = new Map(doc.sections.map((s) => [s.id, s.heading]));
  assert.equal(heading.get(doc.blocks.find((b) => b.text.startsWith('Background line 1'))?.sectionId ?? ''), 'Background');
  assert.ok(
    doc.blocks.some((b) => b.text.startsWith('Execution Environment')),
    'a glossary term stays text',
  );
  assert.ok(
    doc.blocks.some((b) => b.text.startsWith('This is the definition of the factory')),
    'a bold sentence stays text',
  );
});

test('without an outline, numbered titles ending in a full stop open sections when the document sets them so on three pages', async () => {
  // Plain TeX (PARI/GP's tutorial) sets "1. Greetings!." and "12.1. Elements.": the title in bold, the
  // stop after it in roman. Its 60 pages were one section. A page of bold numbered steps ("1. Open the
  // file.") is not such a style: one page only, so those stay text.
  const titled = (page: number, number: string, title: string, size: number): TextSpec[] => {
    const label = `${number} ${title}`;
    return [
      { x: 72, top: 72, size, text: label, bold: true },
      { x: 72 + textWidth(label, size), top: 72, size, text: '.' },
      ...Array.from({ length: 5 }, (_, i) => ({
        x: 72,
        top: 100 + i * 13,
        size: 10,
        text: `Text ${i + 1} of part p${page}q, in roman type.`,
      })),
    ];
  };
  const pages: PageSpec[] = [
    { texts: titled(1, '1.', 'Greetings!', 12) },
    { texts: titled(2, '2.', 'Warming up', 12) },
    { texts: titled(3, '2.1.', 'Elements', 10) },
    { texts: titled(4, '3.', 'The Remaining Types, bnr', 12) },
  ];
  const doc = await extractBytes(tablePdf(pages), 'https://example.test/tutorial.pdf', 'application/pdf');
  const sectionOf = (page: number): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.includes(`p${page}q`))?.sectionId)?.heading;
  assert.equal(sectionOf(1), '1. Greetings!.');
  assert.equal(sectionOf(2), '2. Warming up.');
  assert.equal(sectionOf(3), '2.1. Elements.');
  assert.equal(sectionOf(4), '3. The Remaining Types, bnr.');

  const steps: TextSpec[] = [{ x: 72, top: 60, size: 10, text: 'Before you start, do these steps in order.' }];
  ['1. Open the file.', '2. Save a copy.', '3. Close the editor.'].forEach((step, i) => {
    steps.push({ x: 72, top: 90 + i * 40, size: 10, text: step, bold: true });
    steps.push({ x: 72, top: 104 + i * 40, size: 10, text: `Details of step ${i + 1} follow here in roman type.` });
  });
  const plain = await extractBytes(tablePdf([{ texts: steps }]), 'https://example.test/steps.pdf', 'application/pdf');
  assert.ok(!plain.sections.some((s) => /Open the file/.test(s.heading)), JSON.stringify(plain.sections.map((s) => s.heading)));
  assert.ok(plain.blocks.some((b) => b.text.includes('1. Open the file.')));
});

test('without an outline, a numbered title whose words are in a font of their own is a heading, its number in the body type', async () => {
  // amsart (the mvtnorm paper in R News) centres "1. A Simple Example": the number in roman, the title
  // in small capitals, at body size. Its 6 pages were no section. A formula after a number is no title.
  const texts: TextSpec[] = [];
  let top = 72;
  const section = (number: string, title: string, label: string): void => {
    const x = 200;
    texts.push({ x, top, size: 10, text: number }, { x: x + textWidth(`${number} `, 10), top, size: 10, text: title, bold: true });
    top += 20;
    for (let i = 0; i < 3; i++) {
      texts.push({ x: 72, top, size: 10, text: `Text ${i + 1} of ${label}, set in the body's roman type here.` });
      top += 12;
    }
    top += 10;
  };
  section('1.', 'A Simple Example', 'p1q');
  section('2.', 'Details', 'p2q');
  texts.push({ x: 72, top, size: 10, text: '2' }, { x: 90, top, size: 10, text: 'x_(n-1) + s^2', bold: true });
  top += 16;
  texts.push({ x: 72, top, size: 10, text: 'Text after the formula, set in the body type again.' });
  const doc = await extractBytes(tablePdf([{ texts }]), 'https://example.test/paper.pdf', 'application/pdf');
  const sectionOf = (label: string): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.includes(label))?.sectionId)?.heading;
  assert.equal(sectionOf('p1q'), '1. A Simple Example');
  assert.equal(sectionOf('p2q'), '2. Details');
  assert.ok(!doc.sections.some((s) => s.heading.includes('x_(n-1)')), JSON.stringify(doc.sections.map((s) => s.heading)));
});
