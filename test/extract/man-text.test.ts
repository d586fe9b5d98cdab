import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Manual pages as `man` formats them for a terminal and people save them (`man frob > frob.txt`),
 * written in that layout for these tests: the title line, headings in capitals at column 0, the text
 * seven spaces in, option tags with their descriptions below (or beside a short tag), subsection
 * headings three spaces in, words hyphenated at a line's end with U+2010, the footer line.
 */
const bold = (text: string): string => [...text].map((c) => `${c}\b${c}`).join('');
const underline = (text: string): string => [...text].map((c) => `_\b${c}`).join('');

const PAGE = [
  'FROB(1)                      User Commands                      FROB(1)',
  '',
  bold('NAME'),
  '       frob - frobnicate files',
  '',
  bold('SYNOPSIS'),
  `       ${bold('frob')} [${underline('OPTION')}]... [${underline('FILE')}]...`,
  '',
  bold('DESCRIPTION'),
  '       Frobnicate  the  FILEs,  or  standard  input.  The  frobnication  is',
  '       applied  in  place  unless  an  output  file is given, and its depen\u2010',
  '       dencies are read first.',
  '',
  `       ${bold('-a')}, ${bold('--all')}`,
  '              frobnicate hidden files too',
  '',
  `       ${bold('-q')}     quiet: print nothing`,
  '',
  `       ${bold('--norc')} Do not read the startup file.`,
  '              It is read by default.',
  '',
  '   Environment',
  '       The environment is read as follows.',
  '       FROB_HOME',
  '              where the startup file lives',
  '       FROB_LEVEL',
  '              how hard to frobnicate',
  '       Other variables are ignored.',
  '',
  bold('EXAMPLES'),
  '       Frobnicate two files:',
  '',
  '           frob -a one.txt \\',
  '               two.txt',
  '',
  'GNU frobutils 1.0              December 2026                     FROB(1)',
  '',
].join('\n');

test('a manual page saved as text: its headings are sections, each item an entry, the title and footer lines furniture', async () => {
  const doc = await extractBytes(PAGE, 'https://example.test/frob.1.txt', 'text/plain');
  assert.equal(doc.title, 'frob - frobnicate files');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [1, 'NAME'],
      [1, 'SYNOPSIS'],
      [1, 'DESCRIPTION'],
      [2, '-a, --all'],
      [2, '-q'],
      [2, '--norc'],
      [2, 'Environment'],
      [3, 'FROB_HOME'],
      [3, 'FROB_LEVEL'],
      [1, 'EXAMPLES'],
    ],
  );
  const sectionOf = (start: string): string | undefined =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.startsWith(start))?.sectionId)?.heading;
  assert.equal(sectionOf('frob [OPTION]... [FILE]...'), 'SYNOPSIS', 'overstruck bold and underline read as their letters');
  assert.equal(sectionOf('frobnicate hidden files'), '-a, --all');
  assert.equal(sectionOf('quiet: print nothing'), '-q', 'a short tag with its description beside it');
  assert.equal(sectionOf('Do not read the startup file. It is read by default.'), '--norc', 'a tag one space before a sentence');
  assert.equal(sectionOf('where the startup file lives'), 'FROB_HOME', 'items without blank lines between them');
  assert.equal(sectionOf('how hard to frobnicate'), 'FROB_LEVEL');
  assert.equal(sectionOf('Other variables are ignored.'), 'Environment', 'text back at the page indent ends the item');
  const description = doc.blocks.find((b) => b.text.startsWith('Frobnicate the FILEs'))!;
  assert.match(description.text, /its dependencies are read first\.$/, 'a word hyphenated at a line end is one word');
  const example = doc.blocks.find((b) => b.text.startsWith('frob -a one.txt'))!;
  assert.equal(example.kind, 'code');
  assert.equal(example.text, 'frob -a one.txt \\\n    two.txt');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.doesNotMatch(text, /FROB\(1\)|User Commands|December 2026/, 'no title or footer line');
  assert.ok(!text.includes('\b'), 'no backspace');
});

test('plain text that does not open with a manual title line is read as plain text; overstrikes read as letters there too', async () => {
  const doc = await extractBytes(
    `Release notes\n\n${bold('Fixed')}: the frobnicator no longer loses ${underline('files')}.\n`,
    'https://example.test/notes.txt',
    'text/plain',
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['Release notes', 'Fixed: the frobnicator no longer loses files.'],
  );
});

test("generated manual pages: every word read once, in order; each item's description in the entry headed by its tag", async () => {
  const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
  for (let seed = 1; seed <= 40; seed++) {
    const random = seededRandom(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    let serial = 0;
    // Each word is unique (a serial number), so order and count can be checked.
    const words = (n: number): string[] => Array.from({ length: n }, () => `${pick(WORDS)}${serial++}`);
    const wrap = (indent: number, ws: string[]): string[] => {
      const out: string[] = [];
      for (let i = 0; i < ws.length; i += 6) out.push(' '.repeat(indent) + ws.slice(i, i + 6).join(' '));
      return out;
    };
    const lines = ['FROB(1)                      User Commands                      FROB(1)', '', 'NAME', '       frob - frobnicate'];
    const expectedWords: string[] = ['NAME', 'frob', '-', 'frobnicate'];
    const expectedEntries: [string, string][] = [];
    for (let s = 0; s < 1 + Math.floor(random() * 3); s++) {
      lines.push('', `SECTION${s}`);
      expectedWords.push(`SECTION${s}`);
      for (let item = 0; item < 1 + Math.floor(random() * 4); item++) {
        const blank = random() < 0.5;
        if (blank || item === 0) lines.push('');
        const kind = random();
        if (kind >= 0.9) {
          // A bulleted item (`.IP \(bu`): a list's item, its mark read as the list's '-'.
          const text = words(3 + Math.floor(random() * 10));
          lines.push(`       ${pick(['o', '\u2022', '1.'])}      ${text.slice(0, 4).join(' ')}`, ...wrap(14, text.slice(4)));
          expectedWords.push('-', ...text);
          if (!blank) lines.push('');
        } else if (kind < 0.35) {
          const text = words(3 + Math.floor(random() * 14));
          lines.push(...wrap(7, text));
          expectedWords.push(...text);
        } else {
          const tag = `--opt${serial++}`;
          const description = words(2 + Math.floor(random() * 12));
          if (kind < 0.7) lines.push(`       ${tag}`, ...wrap(14, description));
          else lines.push(`       ${tag}  ${description.slice(0, 3).join(' ')}`, ...wrap(14, description.slice(3)));
          expectedWords.push(tag, ...description);
          expectedEntries.push([tag, description[0]!]);
          if (!blank) lines.push('');
        }
      }
    }
    lines.push('', 'GNU frobutils 1.0              December 2026                     FROB(1)', '');
    // The same page saved as text, and published in a web page's <pre> with its tags in bold.
    const html = `<!doctype html><html><head><title>frob(1)</title></head><body><pre>\n${lines
      .map((l) =>
        l
          .replace(/&/g, '&amp;')
          .replace(/</g, '&lt;')
          .replace(/(--opt\d+)/g, '<b>$1</b>'),
      )
      .join('\n')}</pre></body></html>`;
    for (const [source, type] of [
      [lines.join('\n'), 'text/plain'],
      [html, 'text/html'],
    ] as const) {
      const doc = await extractBytes(source, `https://example.test/frob.1.${type === 'text/html' ? 'html' : 'txt'}`, type);
      const read = [
        ...doc.sections.map((s) => ({ at: s.span!.start as number, text: s.heading })),
        ...doc.blocks.map((b) => ({ at: b.span!.start as number, text: b.text })),
      ]
        .sort((a, b) => a.at - b.at)
        .flatMap((x) => x.text.split(/\s+/).filter((w) => w !== ''));
      assert.deepEqual(read, expectedWords, `seed ${seed}:\n${lines.join('\n')}`);
      for (const [tag, first] of expectedEntries) {
        const block = doc.blocks.find((b) => b.text.split(' ').includes(first))!;
        assert.equal(doc.sections.find((s) => s.id === block.sectionId)?.heading, tag, `seed ${seed}: ${first} under ${tag}`);
      }
      for (const block of doc.blocks) {
        // Spans are the source's: the block's last word is written where its span ends.
        const last = block.text.split(/\s+/).at(-1)!;
        const written = source.slice(block.span!.start as number, block.span!.end as number);
        assert.ok(written.replace(/<\/?b>/g, '').endsWith(last), `seed ${seed} ${type}: ${JSON.stringify(written)} ends with ${last}`);
      }
    }
  }
});

test('bulleted and numbered items of a manual page are list items in their section, not entries named by their mark', async () => {
  const page = [
    'FROB(1)                      User Commands                      FROB(1)',
    '',
    'DESCRIPTION',
    '       frob performs the following steps:',
    '',
    '       o      Read the input files and',
    '              check their headers.',
    '',
    '       o      Write the output.',
    '',
    '       1.     First numbered.',
    '       2.     Second numbered.',
    '',
    '       --level',
    '              how hard',
    '',
    'GNU frobutils 1.0              December 2026                     FROB(1)',
  ].join('\n');
  const doc = await extractBytes(page, 'https://example.test/frob.1.txt', 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['DESCRIPTION', '--level'],
  );
  const lists = doc.blocks.filter((b) => b.kind === 'list');
  assert.deepEqual(
    lists.map((b) => [b['ordered'], (b['items'] as { text: string }[]).map((i) => i.text)]),
    [
      [false, ['Read the input files and check their headers.', 'Write the output.']],
      [true, ['First numbered.', 'Second numbered.']],
    ],
  );
  assert.ok(lists.every((b) => b.sectionId === doc.sections[0]!.id));
});

test("a manual page in a web page's <pre> is read as the page; a page quoting one in a longer text keeps it as an example", async () => {
  const pre = [
    'CLEANUP(8)                                                          CLEANUP(8)',
    '',
    '<b>NAME</b>',
    '       cleanup - canonicalize and enqueue &lt;mail&gt;',
    '',
    '<b>CONFIGURATION PARAMETERS</b>',
    '       <b><a href="postconf.5.html#header_checks">header_checks</a> (empty)</b>',
    '              Optional  lookup  tables  for  content  inspection  of  primary',
    '              non-MIME message headers.',
    '',
    '                                                                    CLEANUP(8)',
  ].join('\n');
  const page = `<html><head><title>Postfix manual - cleanup(8)</title></head><body><pre>\n${pre}\n</pre></body></html>`;
  const doc = await extractBytes(page, 'https://example.test/cleanup.8.html', 'text/html');
  assert.equal(doc.title, 'cleanup - canonicalize and enqueue <mail>');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [1, 'NAME'],
      [1, 'CONFIGURATION PARAMETERS'],
      [2, 'header_checks (empty)'],
    ],
  );
  const description = doc.blocks.find((b) => b.text.startsWith('Optional lookup tables'))!;
  assert.equal(doc.sections.find((s) => s.id === description.sectionId)?.heading, 'header_checks (empty)');
  assert.equal(
    page
      .slice(description.span!.start as number, description.span!.end as number)
      .trim()
      .slice(-8),
    'headers.',
  );
  assert.ok(!doc.blocks.some((b) => b.kind === 'code'));

  const prose = '<p>A manual page has a title line, headings and an indented text. '.repeat(20);
  const article = `<html><body><h1>Reading manual pages</h1>${prose}</p><pre>\n${pre}\n</pre></body></html>`;
  const quoted = await extractBytes(article, 'https://example.test/reading-man.html', 'text/html');
  assert.deepEqual(
    quoted.sections.map((s) => s.heading),
    ['Reading manual pages'],
  );
  assert.ok(quoted.blocks.some((b) => b.kind === 'code' && b.text.includes('CLEANUP(8)')));
});

test('a form feed is a line end to the test for a manual page as to its reader: no page is taken for one it cannot read', async () => {
  // The test read `X\fFROB(1) ... FROB(1)` as one title line; the reader, cutting lines at the form
  // feed, found `X` first and threw (TypeError: reading '1' of null), from a .txt and from an HTML <pre>.
  const cut = 'X\fFROB(1)     User Commands     FROB(1)\nNAME\n       frob - frobnicate files\n';
  const asText = await extractBytes(cut, 'https://example.test/frob.txt', 'text/plain');
  assert.deepEqual(asText.sections, []);
  const inPre = await extractBytes(`<html><body><pre>${cut}</pre></body></html>`, 'https://example.test/frob.html', 'text/html');
  assert.ok(inPre.blocks.length > 0);
  // A form feed between the title line and the first heading ends the title line, as a line end does.
  const fed = await extractBytes(
    'FROB(1)     User Commands     FROB(1)\fNAME\n       frob - frobnicate files\n',
    'https://example.test/frob.txt',
    'text/plain',
  );
  assert.deepEqual(
    fed.sections.map((s) => s.heading),
    ['NAME'],
  );
  assert.equal(fed.title, 'frob - frobnicate files');
});

test("Tcl's and Tk's pages box NAME and SYNOPSIS between rules: the rules are furniture, the page is still a manual page", async () => {
  for (const rule of ['_'.repeat(78), '\u2500'.repeat(78)]) await ruledPage(rule);
});

async function ruledPage(rule: string): Promise<void> {
  const page = [
    'bind(3tk)                    Tk Built-In Commands                    bind(3tk)',
    '',
    rule,
    '',
    'NAME',
    '       bind - Arrange for X events to invoke Tcl scripts',
    '',
    'SYNOPSIS',
    '       bind tag ?sequence? ?+??script?',
    rule,
    '',
    'INTRODUCTION',
    '       The bind command associates Tcl scripts with X events.',
    '',
    '   MODIFIERS',
    '       Modifiers consist of any of the following values.',
    '',
    'Tk                                   8.0                            bind(3tk)',
  ].join('\n');
  const doc = await extractBytes(page, 'https://example.test/bind.3tk.txt', 'text/plain');
  assert.equal(doc.title, 'bind - Arrange for X events to invoke Tcl scripts');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [1, 'NAME'],
      [1, 'SYNOPSIS'],
      [1, 'INTRODUCTION'],
      [2, 'MODIFIERS'],
    ],
  );
  assert.ok(!doc.blocks.some((b) => b.text.includes(rule.slice(0, 4))), JSON.stringify(doc.blocks.map((b) => b.text)));
  assert.ok(doc.blocks.every((b) => b.kind === 'paragraph'));
}
