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
        if (kind < 0.35) {
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
    const doc = await extractBytes(lines.join('\n'), 'https://example.test/frob.1.txt', 'text/plain');
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
  }
});
