import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSymbolTerm, symbolSpans, symbolText } from '../../src/index/symbol-terms.js';
import { indexTerms, tokenize } from '../../src/index/tokenizer.js';
import { seededRandom } from '../helpers/random.js';

const symbols = (text: string): string[] => symbolSpans(text).map((span) => symbolText(span.term));

test('operators are runs of ASCII symbols as the text writes them', () => {
  assert.deepEqual(symbols('What is the ->> operator in SQLite?'), ['->>']);
  assert.deepEqual(symbols('$_ $/ <=> && || != tr/// <<~EOT ::before'), ['$_', '$/', '<=>', '&&', '||', '!=', '///', '<<~', '::']);
  assert.deepEqual(symbols('(?<=pattern) and (?!x)'), ['?<=', '?!']);
});

test('brackets, quotes and sentence punctuation around a symbol are not part of it', () => {
  assert.deepEqual(symbols('f(x), g(y); a[i] {b} "x" \'y\' `z`.'), []);
  assert.deepEqual(symbols('use "->>"; see (->>). Then ->>, or ->>!'), ['->>', '->>', '->>', '->>']);
  // A run that ends a word keeps two characters: $? and ?? are operators, $@? is $@ asked about.
  assert.deepEqual(symbols('What is $@? And $? or ?? here.'), ['$@', '$?', '??']);
});

test('ellipses, leaders and drawings are not operators; single symbols are not either', () => {
  assert.deepEqual(symbols('a...b ... Contents ........ 5 +------+ |=====| - + * / $ @'), []);
});

test('a backslash escape keeps its letter and its case', () => {
  const spans = symbolSpans('\\K or \\k, (\\d+) and \\\\');
  assert.deepEqual(
    spans.map((span) => symbolText(span.term)),
    ['\\K', '\\k', '\\d', '\\\\'],
  );
  assert.deepEqual(
    spans.map((span) => [span.start, span.end]),
    [
      [0, 2],
      [6, 8],
      [11, 13],
      [20, 22],
    ],
  );
});

test('symbol terms are fullwidth forms: never a word term, never ASCII punctuation in the index', () => {
  const terms = indexTerms('The ->> operator, "quoted" | piped || and \\K.').terms;
  const symbolic = terms.filter(isSymbolTerm);
  assert.deepEqual(symbolic.map(symbolText), ['->>', '||', '\\K']);
  for (const term of terms) assert.doesNotMatch(term, /[\s"\\|]/, term);
  // Fullwidth text is folded to ASCII words, so no word is ever a symbol term.
  assert.deepEqual(tokenize('ＡＢＣ －＞＞').filter(isSymbolTerm), []);
});

test('symbols do not lengthen a text: its length counts words and parts only', () => {
  const plain = indexTerms('the json operator returns text');
  const withSymbols = indexTerms('the json ->> operator returns text ->> <=>');
  assert.equal(withSymbols.length, plain.length);
  assert.equal(withSymbols.words, plain.words);
  assert.equal(withSymbols.terms.length, plain.terms.length + 3);
});

test('a dash before a one-letter word is an option with its case; in or before a longer word it is none', () => {
  const text = '-N or -n, (-v) and "-q"; e-mail, x-y, a -1, -Mrm, --random, -x_y, -é and [-P].';
  assert.deepEqual(
    symbolSpans(text).map((span) => [symbolText(span.term), text.slice(span.start, span.end)]),
    [
      ['-N', '-N'],
      ['-n', '-n'],
      ['-v', '-v'],
      ['-q', '-q'],
      ['--', '--'],
      ['-P', '-P'],
    ],
  );
});

test('generated texts: every symbol term is the text at its span, 2 to 4 symbols or an escape, never a bracket or quote', () => {
  const next = seededRandom(33);
  const alphabet = [
    'a',
    'Z',
    '7',
    ' ',
    ' ',
    '\n',
    'é',
    '->',
    '<=>',
    '$@',
    '::',
    '(',
    ')',
    '"',
    "'",
    '`',
    ',',
    ';',
    '.',
    '?',
    '!',
    '\\',
    '=',
    '|',
    '-',
  ];
  for (let round = 0; round < 2000; round++) {
    const length = 1 + Math.floor(next() * 30);
    const text = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]!).join('');
    let previousEnd = 0;
    for (const span of symbolSpans(text)) {
      const written = symbolText(span.term);
      assert.equal(text.slice(span.start, span.end), written, JSON.stringify(text));
      assert.ok(span.start >= previousEnd, `spans in order, not overlapping: ${JSON.stringify(text)}`);
      previousEnd = span.end;
      assert.doesNotMatch(written, /[()[\]{}"'`\s]/, JSON.stringify(text));
      const isEscape = /^\\[0-9A-Za-z]$/.test(written) || (/^-[A-Za-z]$/.test(written) && !/[0-9A-Za-z_]/.test(text.charAt(span.end)));
      assert.ok(isEscape || (written.length >= 2 && written.length <= 4 && /^[!-/:-@[-`{-~]+$/.test(written)), written);
      assert.ok(!/^\.+$/.test(written), written);
      assert.ok(isSymbolTerm(span.term));
    }
    // The terms of a text are those of its spans, and a query finds them as the index counts them.
    assert.deepEqual(
      indexTerms(text).terms.filter(isSymbolTerm),
      symbolSpans(text).map((span) => span.term),
    );
  }
});
