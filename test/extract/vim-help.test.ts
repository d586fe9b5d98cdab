import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { seededRandom } from '../helpers/random.js';
import { endsInTagsAfterGap, helpModelineAt, isTagLine } from '../../src/extract/text/vim-help.js';

/**
 * Vim's help files (`runtime/doc/*.txt`) mark their structure with tags, not layout: a line of `=` before
 * each chapter, `*tag*` where `:help tag` jumps, a line of tags alone above each command or option. Each
 * tag is a citable id: chapters and entries are sections at their first tag, the others alternate ids.
 * Before, a help file was a run of paragraphs with no section at all.
 */
const URL = 'https://raw.githubusercontent.com/vim/vim/master/runtime/doc/search.txt';

const HELP = [
  '*search.txt*   For Vim version 9.0.  Last change: 2023 Feb 04',
  '',
  '',
  '\t\t  VIM REFERENCE MANUAL    by Bram Moolenaar',
  '',
  '',
  'Searching for text\t\t\t\t*text-searches*',
  '',
  'A few more explanations are in |usr_27.txt|.',
  '',
  '==============================================================================',
  '1. Search commands\t\t\t\t*search-commands*',
  '',
  '\t\t\t\t\t\t\t*/*',
  '/{pattern}[/]<CR>\tSearch forward for the [count]th occurrence of',
  '\t\t\t{pattern} |exclusive|.',
  '',
  '\t\t\t\t\t\t\t*star* *E348* *E349*',
  '*\t\t\tSearch forward for the word nearest to the cursor.',
  '',
  '\t\t\t\t\t\t\t*search-offset*',
  'These commands search for the pattern.  With an offset the cursor lands',
  'elsewhere.  Example: >',
  '\t/foo/e+1',
  '\t/bar/s-1',
  '<',
  'The offset is remembered.',
  '',
  '==============================================================================',
  '2. The definition of a pattern\t\t*search-pattern* *pattern*',
  '\t\t\t\t\t*regexp*',
  '',
  'A pattern is one or more branches.',
  '',
  'PERL COMPATIBILITY\t\t\t\t*perl-patterns*',
  '',
  'Vim patterns differ from Perl ones.',
  '',
  "\t\t\t\t\t\t*'magic'* *'ma'*",
  "'magic' 'ma'\t\tboolean\t(default on)",
  '\t\t\tChanges the special characters in patterns.',
  '',
  ' vim:tw=78:ts=8:noet:ft=help:norl:',
  '',
].join('\n');

test('a Vim help file: chapters after `===` rules and tagged entries are sections at their tags', async () => {
  const doc = await extractBytes(HELP, URL, 'text/plain');
  assert.equal(doc.title, 'search.txt');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.id, s.number ?? null, s.heading, s.alternateIds ?? []]),
    [
      [1, 'search.txt', null, 'search.txt', []],
      [2, 'text-searches', null, 'Searching for text', []],
      [2, 'search-commands', '1', 'Search commands', []],
      [3, '/', null, '/{pattern}[/]<CR>', []],
      [3, 'star', null, '*', ['E348', 'E349']],
      [3, 'search-offset', null, 'search-offset', []],
      [2, 'search-pattern', '2', 'The definition of a pattern', ['pattern', 'regexp']],
      [3, 'perl-patterns', null, 'PERL COMPATIBILITY', []],
      [4, "'magic'", null, "'magic' 'ma'", ["'ma'"]],
    ],
  );
  const inSection = (id: string) => doc.blocks.filter((b) => b.fragment === id || b.id.startsWith(`${id}~b`));
  // `|links|` read as their text; an entry's lines are its block.
  assert.deepEqual(
    inSection('/').map((b) => b.text),
    ['/{pattern}[/]<CR> Search forward for the [count]th occurrence of {pattern} exclusive.'],
  );
  // An example from ` >` to `<` is a code block; the text after it goes on as a paragraph.
  assert.deepEqual(
    inSection('search-offset').map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'These commands search for the pattern. With an offset the cursor lands elsewhere. Example:'],
      ['code', '/foo/e+1\n/bar/s-1'],
      ['paragraph', 'The offset is remembered.'],
    ],
  );
  // The modeline is an instruction to the editor, not text; the banner and the intro stay.
  const all = doc.blocks.map((b) => b.text).join('\n');
  assert.doesNotMatch(all, /ft=help/);
  assert.match(all, /VIM REFERENCE MANUAL/);
  assert.match(all, /A few more explanations are in usr_27\.txt\./);
});

test("a heading's tags go on on the lines below it; a line after the last rule without a tag is text; a modeline ends a line", async () => {
  const manual = [
    '*usr_03.txt*\tFor Vim version 9.0.  Last change: 2020 Dec 17',
    '',
    'Expression evaluation\t\t\t*expression* *expr*',
    '\t\t\t\t\t\t*E1002*',
    'Expressions are evaluated as they are written.',
    '',
    '==============================================================================',
    '*03.1*\tWord movement',
    '',
    'To move the cursor forward one word, use the "w" command.',
    '',
    '==============================================================================',
    '',
    'Next chapter: |usr_04.txt|  Making small changes',
    '',
    'Copyright: see |manual-copyright|  vim:tw=78:ts=8:noet:ft=help:norl:',
  ].join('\n');
  const doc = await extractBytes(manual, URL, 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.id, s.heading, s.alternateIds ?? []]),
    [
      [1, 'usr_03.txt', 'usr_03.txt', []],
      [2, 'expression', 'Expression evaluation', ['expr', 'E1002']],
      [2, '03.1', 'Word movement', []],
    ],
  );
  const texts = doc.blocks.map((b) => b.text);
  assert.ok(texts.includes('Expressions are evaluated as they are written.'));
  assert.ok(texts.includes('Next chapter: usr_04.txt Making small changes'));
  assert.equal(texts[texts.length - 1], 'Copyright: see manual-copyright');
  // After a rule without a tag, the text is the file's, not the last chapter's.
  assert.deepEqual(
    doc.blocks.slice(-2).map((b) => b.id.split('~')[0]),
    ['usr_03.txt', 'usr_03.txt'],
  );
});

test('a text with `*stars*` that is no help file (no modeline) is read as plain text', async () => {
  const doc = await extractBytes(HELP.replace(' vim:tw=78:ts=8:noet:ft=help:norl:', ''), URL, 'text/plain');
  assert.equal(doc.sections.length, 0);
});

test('a help file of one line (its tag, then the modeline) or with a form feed in its first line is one section', async () => {
  // The extractor read the file's tag again from a first line already cut at the modeline or the form
  // feed (`*x.txt*` alone, which is no first line of a help file) and failed on it.
  for (const source of ['*x.txt* vim:ft=help\n', '*x.txt*\fFor Vim version 9.0\n\nText.\n vim:ft=help:\n']) {
    const doc = await extractBytes(source, URL, 'text/plain');
    assert.deepEqual(
      doc.sections.map((s) => [s.level, s.id]),
      [[1, 'x.txt']],
      JSON.stringify(source),
    );
    assert.doesNotMatch(doc.blocks.map((b) => b.text).join('\n'), /ft=help/);
  }
});

test('endsInTagsAfterGap equals /\\S(?:\\t|\\s{2,})\\s*(?:\\*[^\\s*|"]+\\*\\s*)+$/', () => {
  const random = seededRandom(41);
  const re = /\S(?:\t|\s{2,})\s*(?:\*[^\s*|"]+\*\s*)+$/;
  const alphabet = ['*', '*', '*a*', 'a', 'b', ' ', ' ', '\t', '\u00a0', '|', '"'];
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    const length = Math.floor(random() * 12);
    for (let k = 0; k < length; k++) s += alphabet[Math.floor(random() * alphabet.length)]!;
    assert.equal(endsInTagsAfterGap(s), re.test(s), JSON.stringify(s));
  }
});

test('a line of 200,000 tags set apart by two spaces, or with 200,000 spaces before its tags, is read in linear time', {
  timeout: 20_000,
}, async () => {
  // Each took time quadratic in the line (40,000 tags: 13 s; 200,000 would take minutes).
  const head = '*x.txt*\tFor Vim version 9.0\n\n';
  const tail = '\n vim:tw=78:ts=8:noet:ft=help:norl:\n';
  const tags = `${head}Title${'  *a*'.repeat(200_000)}  x\n${tail}`;
  const spaces = `${head}Title${' '.repeat(200_000)}*a*x *b*\n${tail}`;
  for (const source of [tags, spaces]) {
    const doc = await extractBytes(source, URL, 'text/plain');
    assert.equal(doc.sections.length, 1);
  }
  const heading = await extractBytes(`${head}Title${' '.repeat(200_000)}*t1*  *t2*\n\nText.\n${tail}`, URL, 'text/plain');
  assert.deepEqual(
    heading.sections.map((s) => [s.level, s.id, s.heading, s.alternateIds ?? []]),
    [
      [1, 'x.txt', 'x.txt', []],
      [2, 't1', 'Title', ['t2']],
    ],
  );
});

test('isTagLine equals /^\\s*(?:\\*[^\\s*|"]+\\*\\s*)+$/', () => {
  const random = seededRandom(42);
  const re = /^\s*(?:\*[^\s*|"]+\*\s*)+$/;
  const alphabet = ['*', '*', '*a*', 'a', ' ', ' ', '\t', '\u00a0', '|', '"'];
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    const length = Math.floor(random() * 12);
    for (let k = 0; k < length; k++) s += alphabet[Math.floor(random() * alphabet.length)]!;
    assert.equal(isTagLine(s), re.test(s), JSON.stringify(s));
  }
});

test('a line of a million tags, or a heading ending in a word of a million tags, is read (no RangeError)', async () => {
  // The expressions for a line of tags kept a backtracking entry per tag: "Maximum call stack size exceeded".
  const head = '*x.txt*\tFor Vim version 9.0\n\n';
  const tail = '\n vim:tw=78:ts=8:noet:ft=help:norl:\n';
  const many = Array.from({ length: 1_000_000 }, (_, i) => `*t${i}*`);
  const entry = await extractBytes(`${head}*first*\n${many.join(' ')}\nText.\n${tail}`, URL, 'text/plain');
  assert.deepEqual(
    entry.sections.map((s) => [s.id, s.alternateIds?.length ?? 0]),
    [
      ['x.txt', 0],
      ['first', 1_000_000],
    ],
  );
  const heading = await extractBytes(`${head}Title  ${many.join(' ')}\n\nText.\n${tail}`, URL, 'text/plain');
  assert.deepEqual(
    heading.sections.map((s) => [s.id, s.heading, s.alternateIds?.length ?? 0]),
    [
      ['x.txt', 'x.txt', 0],
      ['t0', 'Title', 999_999],
    ],
  );
  // Tags with no white space between them (`*t0**t1*`) are no tags (Vim's helpStar): a line of text.
  const joined = await extractBytes(`${head}Title  ${many.join('')}\n\nText.\n${tail}`, URL, 'text/plain');
  assert.equal(joined.sections.length, 1);
});

test('helpModelineAt equals line.search(/(?:^|\\s)vim?:.*\\bft=help\\b/)', () => {
  const random = seededRandom(43);
  const re = /(?:^|\s)vim?:.*\bft=help\b/;
  const alphabet = [' ', ' ', 'vi:', 'vim:', 'vim', 'ft=help', 'ft=helpx', 'x', ':', '\u2028', '\u2029', '\t', 'set '];
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    const length = Math.floor(random() * 10);
    for (let k = 0; k < length; k++) s += alphabet[Math.floor(random() * alphabet.length)]!;
    assert.equal(helpModelineAt(s), s.search(re), JSON.stringify(s));
  }
});

test('a last line of 200,000 `vi:` before a U+2028 and the modeline is read in linear time', { timeout: 20_000 }, async () => {
  // The modeline's expression ran from each `vi:` to the U+2028 before giving up: quadratic (80,000: 24 s).
  const source = `*x.txt*\tFor Vim version 9.0\n\nText.\n${' vi:'.repeat(200_000)}\u2028 vim:ft=help\n`;
  const doc = await extractBytes(source, URL, 'text/plain');
  assert.deepEqual(
    doc.sections.map((s) => s.id),
    ['x.txt'],
  );
  assert.doesNotMatch(doc.blocks.map((b) => b.text).join('\n'), /ft=help/);
});
