import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compoundParts,
  indexTerms,
  stemPrefix,
  termsOfWord,
  tokenize,
  tokenizeLookingFor,
  tokenizeWithOffsets,
  wantedTermPositions,
} from '../../src/index/tokenizer.js';
import { DEV_CORPUS_MISSING, loadDevCorpus } from './corpus-helpers.js';
import { UNICODE_SAMPLES } from './unicode-samples.js';
import { isWordChar, PLAIN_NON_ASCII, wordRunsOf } from '../../src/chunk/text-boundaries.js';
import { STOP_TERMS, STOP_WORDS } from '../../src/query/stop-words.js';
import { containsPhrase } from '../../src/query/query-terms.js';
import { seededRandom } from '../helpers/random.js';

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

test('the word scan finds exactly the runs of letters, digits and marks, at their offsets, in any text', () => {
  // The scan splits text into words (text-boundaries.ts wordRunsOf); the definition is a
  // regex over code points. Texts here mix the edges: surrogate pairs (letters and not), lone
  // surrogates, marks with and without a base, gaps at both ends, ASCII and non-ASCII words.
  const alphabet = [
    'a',
    'Z',
    '7',
    ' ',
    '-',
    '.',
    '\u0301',
    'é',
    'ß',
    '東',
    '\u{1D400}',
    '\u{1F600}',
    '\uD800',
    '\uDC00',
    '\u00A0',
    '…',
    '\n',
    '_',
    'ﬁ',
    'Ｆ',
    '٣',
  ];
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const texts = ['', ' ', 'a', ' a ', '\u0301', '\uD800a', 'a\uDC00'];
  for (let i = 0; i < 400; i++) texts.push(Array.from({ length: next(24) }, () => alphabet[next(alphabet.length)]!).join(''));
  const lookingFor = ['a', 'e', 'z'];
  for (const text of texts) {
    const label = JSON.stringify(text);
    const words = [...text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)].map((match) => ({
      word: match[0],
      start: match.index,
      end: match.index + match[0].length,
    }));
    const spans = tokenizeWithOffsets(text);
    // Each span lies in one word, in order; a word with one term is exactly one span with its offsets.
    let at = 0;
    for (const { word, start, end } of words) {
      const terms = termsOfWord(word);
      const inWord: typeof spans = [];
      while (at < spans.length && spans[at]!.start >= start && spans[at]!.end <= end) inWord.push(spans[at++]!);
      assert.equal(inWord.length > 0, terms.length > 0, label);
      if (terms.length === 1) assert.deepEqual(inWord, [{ term: terms[0], start, end }], label);
      else
        assert.deepEqual(
          inWord.map((span) => span.term),
          terms,
          label,
        );
    }
    assert.equal(at, spans.length, `${label}: spans outside the words`);
    assert.deepEqual(
      tokenizeWithOffsets(text, lookingFor).map((span) => [span.start, span.end]),
      spans.map((span) => [span.start, span.end]),
      label,
    );
    const expectedTerms = words.flatMap(({ word }) => termsOfWord(word));
    assert.deepEqual(tokenize(text), expectedTerms, label);
    assert.equal(tokenizeLookingFor(text, lookingFor).length, expectedTerms.length, label);
  }
});

test('the plain-text set (split without Unicode classes) has no letter, digit or mark and splits as the Unicode class does', () => {
  const plain = new RegExp(`[${PLAIN_NON_ASCII}]`, 'u');
  const wordChar = /[\p{L}\p{N}\p{M}]/u;
  let checked = 0;
  for (let code = 0x80; code <= 0xffff; code++) {
    const char = String.fromCharCode(code);
    if (!plain.test(char)) continue;
    checked++;
    assert.ok(!wordChar.test(char), `U+${code.toString(16)} is a word character`);
    assert.equal(isWordChar(char), false);
  }
  assert.ok(checked > 500, `only ${checked} characters`);
  // The same words whichever split a text takes: curly quotes, dashes, § and × only (plain), and with one accented letter (Unicode).
  const text = '“Don’t” — see §4.2 × 3… the user‐agent’s «fetch» ¶';
  const words = (t: string) => t.split(/([\p{L}\p{N}\p{M}]+)/u).filter((_, i) => i % 2 === 1);
  assert.deepEqual(text.split(wordRunsOf(text)), text.split(/([\p{L}\p{N}\p{M}]+)/u));
  assert.notEqual(wordRunsOf(text), wordRunsOf(`${text} café`));
  assert.deepEqual(
    tokenize(text),
    words(text).map((word) => termsOfWord(word)[0]!),
  );
  for (const char of ['ª', '²', 'µ', 'º', '½', 'é', 'ß', '日', '\u0301']) assert.equal(isWordChar(char), true, char);
  for (const char of ['a', 'Z', '0', '9']) assert.equal(isWordChar(char), true, char);
  for (const char of [' ', '-', '_', '’', '§', '\u00a0', undefined]) assert.equal(isWordChar(char), false, String(char));
});

test('tokenizeLookingFor of plain text (one pass over its characters) keeps every wanted term at its position', () => {
  const random = seededRandom(17);
  const pieces = ['Conditional', 'conditions', 'REQUEST', 'requested', 'requests', 'cache', 'x2', '42', 'Fetch', 'a', 'is'];
  const gaps = [' ', ', ', '. ', '—', ' “', '” ', '’s ', ' § ', '\n', '-', '_', ' × ', '(', ') '];
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  for (let n = 0; n < 200; n++) {
    const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => pick(gaps) + pick(pieces)).join('') + pick(gaps);
    const wanted = [pick(pieces), pick(pieces)].map((word) => tokenize(word)[0]!);
    const prefixes = wanted.map(stemPrefix);
    const full = tokenize(text);
    const looking = tokenizeLookingFor(text, prefixes);
    assert.equal(looking.length, full.length, text);
    full.forEach((term, i) => {
      if (looking[i] !== '') assert.equal(looking[i], term, text);
      if (wanted.includes(term)) assert.equal(looking[i], term, `${text} @${i}`);
    });
  }
});

/**
 * The terms of `text` as a query looking for `wanted` reads it, one per position: each word's terms
 * (tokenize), except a compound word whose own term is not wanted and one of whose parts is: its parts.
 */
function readFor(text: string, wanted: readonly string[]): string[] {
  const words = text.split(wordRunsOf(text)).filter((_, i) => i % 2 === 1 && _ !== '');
  return words.flatMap((word) => {
    const terms = termsOfWord(word);
    const parts = compoundParts(word);
    if (parts !== null && !wanted.includes(terms[0]!) && parts.some((part) => wanted.includes(part))) return [...parts];
    return [...terms];
  });
}

/** tokenizeWithOffsets with `wanted` gives the wanted terms of readFor, each at the offsets of its word. */
function checkSpans(text: string, wanted: readonly string[], context: string): void {
  const spans = tokenizeWithOffsets(text, wanted.map(stemPrefix), new Set(wanted));
  assert.deepEqual(
    spans.map((span) => span.term).filter((term) => wanted.includes(term)),
    readFor(text, wanted).filter((term) => wanted.includes(term)),
    context,
  );
  // A wanted ASCII word or part is highlighted as its whole word: a snippet is never cut inside one.
  const asciiWord = /^[A-Za-z0-9]+$/;
  for (const span of spans) {
    if (!wanted.includes(span.term) || !asciiWord.test(text.slice(span.start, span.end))) continue;
    assert.ok(span.start === 0 || !isWordChar(text[span.start - 1]!), `${context}: span starts inside a word`);
    assert.ok(span.end === text.length || !isWordChar(text[span.end]!), `${context}: span ends inside a word`);
  }
}

/**
 * wantedTermPositions must give what readFor() gives: the wanted terms in order, each pair of them
 * at their exact distance when it is at most the window, and farther than the window otherwise.
 */
function checkWantedPositions(text: string, wanted: string[], window: number, context: string): void {
  const full = readFor(text, wanted);
  const expected = full.flatMap((term, i) => (wanted.includes(term) ? [[term, i] as const] : []));
  const { terms, positions } = wantedTermPositions(text, wanted.map(stemPrefix), new Set(wanted), window);
  assert.deepEqual(
    terms,
    expected.map(([term]) => term),
    context,
  );
  for (let i = 0; i < expected.length; i++) {
    for (let j = i + 1; j < expected.length; j++) {
      const distance = expected[j]![1] - expected[i]![1];
      const got = positions[j]! - positions[i]!;
      if (distance <= window) assert.equal(got, distance, `${context} @${i},${j}`);
      else assert.ok(got > window, `${context} @${i},${j}: ${got} for ${distance}`);
    }
  }
}

test('wantedTermPositions gives the wanted terms of tokenize() at their distances up to the window', () => {
  const random = seededRandom(23);
  const pieces = ['Conditional', 'conditions', 'REQUEST', 'requested', 'requests', 'Requ', 'cache', 'x2', '42', 'Fetch', 'a', 'is'];
  // Compound words (compoundParts), and words that are their parts.
  pieces.push('MRCPv2', 'requestCache', 'CacheRequests', 'fetch2', 'MRCP', 'v');
  const gaps = [' ', ', ', '. ', '—', ' “', '” ', '’s ', ' § ', '\n', '-', '_', ' × ', '(', ') ', '   ', ' é ', ' 日本 '];
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  for (let n = 0; n < 400; n++) {
    const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => pick(gaps) + pick(pieces)).join('') + pick(gaps);
    const wanted = [...new Set([pick(pieces), pick(pieces), pick(pieces)].slice(0, 1 + (n % 3)).map((word) => tokenize(word)[0]!))];
    checkWantedPositions(text, wanted, 1 + (n % 6), text);
    const prefixes = wanted.map(stemPrefix);
    checkSpans(text, wanted, text);
    // A phrase of the wanted words (as rankChunks checks phrases): the same answer as over every term.
    const phrase = [wanted[0]!, ...wanted];
    const { terms, positions } = wantedTermPositions(text, prefixes, new Set(wanted), 1);
    for (const candidate of [phrase, wanted, phrase.slice(1, 3)].filter((p) => p.length > 1))
      assert.equal(containsPhrase(terms, candidate, positions), containsPhrase(readFor(text, wanted), candidate), `phrase: ${text}`);
  }
});

test('wantedTermPositions agrees with the reference reading on dev-corpus chunk texts, compound parts wanted too', async (t) => {
  const docs = await loadDevCorpus();
  if (docs === undefined) return t.skip(DEV_CORPUS_MISSING);
  const random = seededRandom(29);
  const texts = docs.flatMap((doc) => doc.blocks.map((block) => block.text)).filter((_, i) => i % 13 === 0);
  let partsWanted = 0;
  for (const [n, text] of texts.entries()) {
    const { terms, words, length } = indexTerms(text);
    if (words === 0) continue;
    // Terms of the words, and (where the text has compounds) one of their parts; symbols take no position.
    const wanted = [...new Set([0, 1].map(() => terms[Math.floor(random() * words)]!))];
    if (length > words) {
      wanted.push(terms[words + Math.floor(random() * (length - words))]!);
      partsWanted++;
    }
    checkWantedPositions(text, [...new Set(wanted)], 5, `text ${n} ${JSON.stringify(wanted)}`);
    checkSpans(text, [...new Set(wanted)], `text ${n}`);
  }
  assert.ok(partsWanted > 50, `${partsWanted} texts with a compound part wanted`);
});

test('compound words: their parts are indexed beside the word, and a query finds a part at its place', () => {
  const cases: [string, string[] | null][] = [
    ['MRCPv2', ['mrcp', 'v2']],
    ['textContent', ['text', 'content']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['getElementById', ['get', 'element', 'by', 'id']],
    ['sha256', ['sha', '256']],
    ['ES2015', ['es', '2015']],
    ['IPv6', ['ip', 'v6']],
    ['SameSite', ['same', 'site']],
    ['HTTPs', null],
    ['000A', null],
    ['2xx', null],
    ['h1', null],
    ['x509', null],
    ['HTTP', null],
    ['Conditional', null],
    ['requests', null],
    ['2119', null],
    ['naïve', null],
  ];
  for (const [word, parts] of cases) assert.deepEqual(compoundParts(word), parts, word);
  // A word longer than a term can be (a hash, base64) is no compound, and looking for parts in a huge
  // one does not walk back through it for every hit (that was quadratic in the word's length).
  assert.equal(compoundParts('aB'.repeat(33)), null);
  assert.deepEqual(
    compoundParts('aB'.repeat(16)),
    Array.from({ length: 17 }, (_, i) => (i === 0 ? 'a' : i === 16 ? 'b' : 'ba')),
  );
  const blob = 'xYz'.repeat(40_000);
  assert.deepEqual(indexTerms(`see ${blob} here`).terms.length, 3);
  assert.deepEqual(wantedTermPositions(`see ${blob} here`, ['yz', 'her'], new Set(['yz', 'here']), 5).terms, ['here']);
  assert.deepEqual(
    tokenizeWithOffsets(`see ${blob} here`, ['yz'], new Set(['yz'])).filter((span) => span.term === 'yz'),
    [],
  );
  // The index counts the words' terms, then the compounds' parts; a text without compounds as tokenize() counts it.
  assert.deepEqual(indexTerms('An MRCPv2 session'), { terms: ['an', 'mrcpv2', 'session', 'mrcp', 'v2'], words: 3, length: 5 });
  const plain = 'Conditional requests, naïve 東京 caches';
  assert.deepEqual(indexTerms(plain), { terms: tokenize(plain), words: tokenize(plain).length, length: tokenize(plain).length });
  // A query looking for a part reads the compound as its parts, one position each.
  const text = 'An MRCPv2 session sets textContent.';
  // Positions are relative (the plain-text scan counts from the first candidate word): distances matter.
  const distances = (read: { terms: string[]; positions: number[] }) => ({
    terms: read.terms,
    distances: read.positions.map((position) => position - read.positions[0]!),
  });
  for (const sample of [text, `${text} é`]) {
    const wanted = ['mrcp', 'session'];
    assert.deepEqual(
      distances(wantedTermPositions(sample, wanted.map(stemPrefix), new Set(wanted), 5)),
      { terms: wanted, distances: [0, 2] },
      sample,
    );
    const phrase = ['text', 'content'];
    const read = wantedTermPositions(sample, phrase.map(stemPrefix), new Set(phrase), 1);
    assert.equal(containsPhrase(read.terms, phrase, read.positions), true, sample);
    // The whole word still matches itself, as one position.
    const whole = [tokenize('MRCPv2')[0]!, 'session'];
    assert.deepEqual(
      distances(wantedTermPositions(sample, whole.map(stemPrefix), new Set(whole), 5)),
      { terms: whole, distances: [0, 1] },
      sample,
    );
  }
  const [span] = tokenizeWithOffsets(text, ['mrc'], new Set(['mrcp'])).filter((s) => s.term === 'mrcp');
  assert.deepEqual(span, { term: 'mrcp', start: 3, end: 9 });
});

test('a word part of combining marks alone (a variation selector, an accent after a space) has no term, never the empty term', () => {
  for (const text of ['\u0301', '\ufe0f', 'flag 🏳\ufe0f\u200d🌈 here', 'cafe \u0301 au lait', '\u0301\u0302\u0303', 'x\u200d\ufe0f']) {
    const label = JSON.stringify(text);
    assert.ok(!tokenize(text).includes(''), label);
    assert.ok(!indexTerms(text).terms.includes(''), label);
    assert.ok(!tokenizeWithOffsets(text).some((span) => span.term === ''), label);
  }
  assert.deepEqual(tokenize('\u0301'), []);
  assert.deepEqual(tokenize('flag \ufe0f here'), ['flag', 'here']);
  // A mark on a letter stays part of its word (folded for Latin, kept for other scripts).
  assert.deepEqual(tokenize('cafe\u0301'), ['cafe']);
});

test('an invisible word joiner (soft hyphen, ZWJ, ZWNJ, word joiner) inside a word leaves it one word; a zero-width space splits', () => {
  // A reader sees "pas\u00ADsword" (HTML's &shy;) as "password": a query for it must find it, and the
  // highlight covers the whole word. Unicode's word breaking (UAX #29 WB4) ignores these inside a word.
  for (const joiner of ['\u00AD', '\u200C', '\u200D', '\u2060', '\u00AD\u00AD']) {
    const text = `The pas${joiner}sword is long.`;
    assert.deepEqual(tokenize(text), tokenize('The password is long.'), JSON.stringify(joiner));
    const spans = tokenizeWithOffsets(text).filter((span) => span.term === 'password');
    assert.deepEqual(
      spans.map((span) => text.slice(span.start, span.end)),
      [`pas${joiner}sword`],
    );
    assert.deepEqual(tokenizeLookingFor(text, ['pass']), tokenizeLookingFor('The password is long.', ['pass']));
  }
  // Alone or at a word's edge it is no word; the zero-width space is a word break (UAX #29).
  assert.deepEqual(tokenize('\u00AD a\u00AD \u200Db'), ['a', 'b']);
  assert.deepEqual(tokenize('pass\u200Bword'), ['pass', 'word']);
});
