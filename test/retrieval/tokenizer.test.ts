import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stemPrefix, termsOfWord, tokenize, tokenizeLookingFor, tokenizeWithOffsets } from '../../src/index/tokenizer.js';
import { loadDevCorpus } from './corpus-helpers.js';
import { UNICODE_SAMPLES } from './unicode-samples.js';
import { STOP_TERMS, STOP_WORDS } from '../../src/query/stop-words.js';

/** Expected terms of each UNICODE_SAMPLES entry (reviewed by hand; the cross-runtime test checks the same on Deno and Bun). */
const EXPECTED: string[][] = [
  ['cafe', 'resum', 'naiv', 'cooper', 'facad', 'angstrom', 'deja', 'vu'],
  ['strass', 'gross', 'mass', 'οδοσ', 'οδυσσευσ', 'σοφοσ', 'σοφοσ', 'istanbul', 'istanbul', 'ı', 'i'],
  ['file', 'flow', '1', '2', 'viii', 'fullwidth', 'カタ', 'タカ', 'カナ', '1', '4', 'x2', 'h2o'],
  [
    '東京',
    '京都',
    '都に',
    'に住',
    '住ん',
    'んで',
    'でい',
    'いま',
    'ます',
    '漢字',
    '字か',
    'かな',
    'なカ',
    'カタ',
    'タカ',
    'カナ',
    'ナ交',
    '交じ',
    'じり',
    'り文',
    'デー',
    'ータ',
    'タベ',
    'ベー',
    'ース',
  ],
  [
    'ภา',
    'าษ',
    'ษา',
    'าไ',
    'ไท',
    'ทย',
    'ยไ',
    'ไม่',
    'ม่มี',
    'มีก',
    'กา',
    'าร',
    'รเ',
    'เว้',
    'ว้น',
    'นว',
    'วร',
    'รร',
    'รค',
    'คร',
    'ระ',
    'ะห',
    'หว่',
    'ว่า',
    'าง',
    'งคํ',
    'คํา',
    'ພາ',
    'າສ',
    'ສາ',
    'າລ',
    'ລາ',
    'າວ',
    'ភាសា',
    'សាខ្',
    'ខ្មែ',
    'មែរ',
    'မြန်',
    'န်မာ',
    'မာဘာ',
    'ဘာသာ',
  ],
  ['العربية', 'مع', 'التشكيل', 'كَتَبَ', 'الكِتَابُ', 'עברית', 'עם', 'ניקוד', 'שָׁלוֹם', 'हिन्दी', 'देवनागरी', 'संयुक्ताक्षर', 'क्षत्रिय'],
  ['emoji', 'and', 'astral', 'abc', '𠀋𠀎', 'mix', 'with', 'word', 'resum', 'ok'],
  [
    'digit',
    '2024',
    '3',
    '14',
    '0x1f',
    'ipv6',
    '1',
    'rfc9110',
    'http2',
    'utf',
    '8',
    'e',
    'g',
    'fetch',
    'spec',
    'whatwg',
    'org',
    'i',
    'e',
    '1',
    '000',
    '000',
  ],
  ['combin', 'a', 'e', 'o', 'decompos', 'precompos', 'a', 'e', 'o', 'hangul', '한국어', '텍스트', 'ᄀᄁ'],
  ['russian', 'елка', 'ежик', 'щука', 'ukrainian', 'іжак', 'ґанок', 'serbian', 'ђурђевак'],
  ['word', 'that', 'stem', 'run', 'run', 'ran', 'gener', 'gener', 'connect', 'connect'],
  ['a', 'veri', 'long', 'token', 'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd', 'then', 'normal', 'word'],
];

test('tokenizer output for the Unicode samples', () => {
  assert.equal(EXPECTED.length, UNICODE_SAMPLES.length);
  UNICODE_SAMPLES.forEach((text, i) => {
    assert.deepEqual(tokenize(text), EXPECTED[i], text);
  });
});

test('offsets point at the words the terms come from, in the original text', () => {
  UNICODE_SAMPLES.forEach((text, i) => {
    const spans = tokenizeWithOffsets(text);
    assert.deepEqual(
      spans.map((s) => s.term),
      EXPECTED[i],
      text,
    );
    for (const span of spans) {
      assert.ok(span.start < span.end && span.end <= text.length);
      assert.match(text.slice(span.start, span.end), /^[\p{L}\p{N}\p{M}]+$/u);
    }
  });
  const [tokyo] = tokenizeWithOffsets('東京都');
  assert.deepEqual(tokyo, { term: '東京', start: 0, end: 2 });
});

test('tokenizing twice gives the same terms (no state leaks between calls)', () => {
  const text = UNICODE_SAMPLES.join(' ');
  assert.deepEqual(tokenize(text), tokenize(text));
  assert.deepEqual(tokenize('Ünïcödé ascii Ünïcödé'), ['unicod', 'ascii', 'unicod']);
});

test('the written-out stop terms are exactly the stop words tokenized', () => {
  const tokenized = new Set(STOP_WORDS.split(' ').flatMap((word) => tokenize(word)));
  assert.deepEqual([...STOP_TERMS].sort(), [...tokenized].sort());
});

test('stemPrefix: every word starts with the stem prefix of its term, so looking for terms never misses one', async () => {
  // Porter's rewrites (step 1b adds "e", 1c turns y to i, steps 2-4 replace suffixes) on purpose.
  const tricky = (
    'generalizations relational conditional conditionally happy happiness sensibility hopping filing agreed oscillators ' +
    'feed digitizer operator hopeful electrical formalize adjustable irritant replacement adoption bowdlerize radically ' +
    'callousness rational traditional analogousli vietnamization predication decisiveness hopefulness formaliti sensitiviti ' +
    'cries ties caresses ponies cats plastered motoring sing conflated troubled sized hissing fizzed failing filing happy ' +
    'sky probate rate cease controll roll'
  ).split(' ');
  const dev = (await loadDevCorpus()) ?? [];
  const words = new Set(tricky);
  for (const doc of dev) for (const block of doc.blocks) for (const word of block.text.match(/[A-Za-z0-9]+/g) ?? []) words.add(word);
  for (const word of words) {
    const term = termsOfWord(word)[0]!;
    assert.ok(word.toLowerCase().startsWith(stemPrefix(term)), `${word} -> ${term}`);
  }
  // The lookups agree with full tokenization wherever they stem, and give '' only for words that are not wanted.
  const text = `${[...words].slice(0, 3000).join(' ')} naïve Straße 東京タワー x2119`;
  const wanted = ['condit', 'happi', 'sensibl', 'file', 'straß', 'naiv', 'x2119'].map((term) => tokenize(term)[0]!);
  const prefixes = wanted.map(stemPrefix);
  const full = tokenize(text);
  const looking = tokenizeLookingFor(text, prefixes);
  assert.equal(looking.length, full.length);
  full.forEach((term, i) => {
    if (looking[i] !== '') assert.equal(looking[i], term);
    if (wanted.includes(term)) assert.equal(looking[i], term, `position ${i}`);
  });
  const spans = tokenizeWithOffsets(text);
  assert.deepEqual(
    tokenizeWithOffsets(text, prefixes).map((span, i) => (span.term === '' ? { ...span, term: spans[i]!.term } : span)),
    spans,
  );
});
