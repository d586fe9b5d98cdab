import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { EpistemeError } from '../../src/failure.js';
import {
  buildSearchIndex,
  chunkRow,
  DEFAULT_INDEX_OPTIONS,
  loadSearchIndex,
  type LoadedSearchIndex,
} from '../../src/index/search-index.js';
import { namingTerms, runQuery, type QueryRequest } from '../../src/query/query.js';
import { ALL_DOCS, makeDocument } from './fixtures.js';
import { checkSnippet } from './corpus-helpers.js';
import { makeSnippet } from '../../src/query/snippet.js';
import type { Section } from '../../src/document/types.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { rulesDir } from '../../src/extract/package-paths.js';
import { SHIPPED_DOCUMENT_TYPES, SHIPPED_FAMILIES } from '../../src/cli/query.js';

function fixtureIndex(options = DEFAULT_CHUNK_OPTIONS): LoadedSearchIndex {
  const docs = ALL_DOCS.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, options) }));
  return loadSearchIndex(buildSearchIndex(docs, { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS), 'fixture');
}

const INDEX = fixtureIndex();

function ask(terms: string[], extra: Partial<QueryRequest> = {}): ReturnType<typeof runQuery> {
  return runQuery(INDEX, { terms, limit: 10, offset: 0, maxSnippetChars: 400, maxTotalChars: 4000, ...extra });
}

test('stemmed terms match across inflections; the most specific chunk ranks first', () => {
  const response = ask(['conditional requests']);
  // b1 and b2 contain both words: b2 is shorter, so BM25F alone puts it first, but b1 says the
  // phrase itself ("A conditional request is"), where b2 has a word between ("Conditional GET
  // requests"), and proximity puts b1 first; b3+b4 contain them once in a longer chunk; the fetch
  // chunks contain only "request". b2 is in b1's section (13), so it follows the first hits of the
  // other sections that score near it (each section once first), with its points: above b3's; the
  // fetch chunks, a quarter of its points or less, follow it.
  const ids = response.hits.map((h) => h.chunkId);
  assert.deepEqual(ids.slice(0, 2), ['rfc9110#b1', 'rfc9110#b3']);
  const repeat = ids.indexOf('rfc9110#b2');
  assert.equal(repeat, 2, ids.join(' '));
  assert.ok(Number(response.hits[3]!.score) * 4 < Number(response.hits[repeat]!.score), ids.join(' '));
  assert.ok(response.hits.slice(1, repeat).every((h) => h.citation.sectionId !== 'conditional.requests'));
  assert.ok(Number(response.hits[repeat]!.score) > Number(response.hits[1]!.score));
  assert.ok(response.total >= 3);
  const top = response.hits[repeat]!;
  assert.equal(top.rank, repeat + 1);
  assert.match(top.score, /^\d+\.\d{4}$/);
  assert.deepEqual(top.citation.headingPath, ['rfc9110', '13. Conditional Requests']);
  assert.equal(top.citation.snapshotId, 'snap-rfc9110');
  assert.equal(top.contentTrust, 'untrusted-source');
  // Highlights point at the query words inside the snippet.
  for (const [start, end] of top.snippet.highlights) {
    assert.match([...top.snippet.text].slice(start, end).join(''), /^(conditional|request)s?$/i);
  }
});

test('filters: family, authority, document type and normativity', () => {
  assert.deepEqual(new Set(ask(['request'], { family: ['whatwg'] }).hits.map((h) => h.family)), new Set(['whatwg']));
  assert.ok(ask(['request'], { family: ['whatwg'] }).hits.every((h) => h.chunkId.startsWith('fetch#')));
  assert.equal(ask(['background checks'], { authority: ['normative'] }).total, 0);
  assert.equal(ask(['background checks'], { authority: ['informative'], documentType: ['pdf'] }).total, 1);
  const informative = ask(['conditional'], { normativity: ['informative'] });
  assert.deepEqual(
    informative.hits.map((h) => h.chunkId),
    ['rfc9110#b2'],
  );
  assert.equal(ask(['conditional'], { normativity: ['example'] }).total, 0);
});

test('an unknown --family or --document-type is a usage error listing the values the index holds', () => {
  const cases: [Partial<QueryRequest>, string[]][] = [
    [{ family: ['whatwg', 'nope'] }, ['generic', 'rfc', 'whatwg']],
    [{ documentType: ['specification'] }, [...new Set(ALL_DOCS.map((doc) => doc.documentType))].sort()],
  ];
  for (const [extra, held] of cases) {
    assert.throws(
      () => ask(['request'], extra),
      (error: unknown) =>
        error instanceof EpistemeError &&
        error.code === 'usage-error' &&
        error.message.includes(`the index holds ${held.join(', ')}.`) &&
        JSON.stringify(error.details?.['held']) === JSON.stringify(held),
    );
  }
  // Known values keep filtering (zero hits is then a real answer).
  assert.equal(ask(['zzzunmatched'], { family: ['rfc'] }).total, 0);
});

test('--help names the families and document types the shipped rules give', () => {
  const dir = rulesDir()!;
  const rules = readdirSync(dir).filter((name) => name.endsWith('.json'));
  const defaults = rules.map(
    (name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { id: string; defaults: { documentType: string } },
  );
  assert.deepEqual(SHIPPED_FAMILIES, defaults.map((rule) => rule.id).sort());
  assert.deepEqual(SHIPPED_DOCUMENT_TYPES, [...new Set(defaults.map((rule) => rule.defaults.documentType))].sort());
});

test('quoted phrases must occur as a phrase', () => {
  assert.deepEqual(
    ask(['"strong comparison function"']).hits.map((h) => h.chunkId),
    ['rfc9110#b3'],
  );
  assert.equal(ask(['"comparison strong"']).total, 0);
  // Outside quotes the same words are alternatives.
  assert.ok(ask(['comparison strong']).total >= 1);
  // A quoted single word is required ("caching" stems like "cache"); other words only add to the score.
  const required = ask(['"cache" conditional']);
  assert.deepEqual(
    required.hits.map((h) => h.chunkId),
    ['rfc9110#b2', 'rfc9110#b5'],
  );
});

test('Unicode: accents, ß, final sigma and CJK bigrams', () => {
  assert.deepEqual(
    ask(['cafe resume naive']).hits.map((h) => h.chunkId),
    ['fetch#ex1'],
  );
  assert.deepEqual(
    ask(['STRASSE']).hits.map((h) => h.chunkId),
    ['fetch#ex1'],
  );
  assert.deepEqual(
    ask(['οδος']).hits.map((h) => h.chunkId),
    ['fetch#ex1'],
  );
  const cjk = ask(['東京']);
  assert.deepEqual(
    cjk.hits.map((h) => h.chunkId),
    ['fetch#ex1'],
  );
  const hit = cjk.hits[0]!;
  const [start, end] = hit.snippet.highlights[0]!;
  assert.equal([...hit.snippet.text].slice(start, end).join(''), '東京');
});

test('limit, offset and ranks page through one stable ranking', () => {
  const all = ask(['the'], { limit: 100 });
  assert.ok(all.total >= 5);
  const pages = [0, 2, 4].map((offset) => ask(['the'], { limit: 2, offset }));
  assert.deepEqual(
    pages.flatMap((p) => p.hits.map((h) => h.chunkId)),
    all.hits.slice(0, 6).map((h) => h.chunkId),
  );
  assert.deepEqual(
    pages[1]!.hits.map((h) => h.rank),
    [3, 4],
  );
  assert.equal(ask(['the'], { limit: 0 }).hits.length, 0);
  assert.equal(ask(['the'], { limit: 0 }).total, all.total);
});

test('equal scores are ordered by chunk id', () => {
  const text = 'Identical text about origin servers.';
  const docs = ['zeta', 'alpha', 'mid'].map((documentId) =>
    makeDocument({ documentId, sections: [], blocks: [{ id: 'b', sectionId: null, text }] }),
  );
  const index = loadSearchIndex(
    buildSearchIndex(
      docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) })),
      { chunkIndexFingerprint: 'fp', missingSources: [] },
      DEFAULT_INDEX_OPTIONS,
    ),
    'ties',
  );
  const response = runQuery(index, {
    terms: ['origin server'],
    limit: 10,
    offset: 0,
    maxSnippetChars: 100,
    maxTotalChars: 1000,
    collapse: false,
  });
  assert.deepEqual(
    response.hits.map((h) => h.chunkId),
    ['alpha#b', 'mid#b', 'zeta#b'],
  );
  assert.equal(new Set(response.hits.map((h) => h.score)).size, 1);
  assert.equal(response.collapsed, 0);
  // Collapsed (the default): one hit, at the first of the tied chunks, listing the others.
  const collapsed = runQuery(index, { terms: ['origin server'], limit: 10, offset: 0, maxSnippetChars: 100, maxTotalChars: 1000 });
  assert.deepEqual(
    collapsed.hits.map((h) => [h.chunkId, h.samePassage?.map((same) => same.chunkId)]),
    [['alpha#b', ['mid#b', 'zeta#b']]],
  );
  assert.equal(collapsed.total, 1);
  assert.equal(collapsed.collapsed, 2);
});

test('max-chars bounds each snippet and the whole page, cutting at word boundaries with an ellipsis where text was cut', () => {
  const response = ask(['redirect'], { maxSnippetChars: 60, maxTotalChars: 100 });
  let sum = 0;
  let cut = 0;
  for (const hit of response.hits) {
    const length = [...hit.snippet.text].length;
    assert.ok(length <= 60);
    sum += length;
    const row = Array.from({ length: INDEX.chunkCount }, (_, i) => chunkRow(INDEX, i)).find((r) => r[0] === hit.chunkId)!;
    checkSnippet(hit.snippet, row[9], hit.chunkId);
    if (hit.snippet.cutBefore || hit.snippet.cutAfter) cut++;
    assert.ok(hit.snippet.highlights.length > 0);
  }
  assert.ok(cut > 0, 'some snippet was cut');
  assert.ok(sum <= 100);
  assert.equal(response.truncated, true);
  assert.equal(ask(['redirect'], { maxSnippetChars: 60, maxTotalChars: 10_000 }).truncated, false);
});

test('a snippet starts at the sentence of its first query word, so what the words say is not cut off', () => {
  // Infra's "Code points": a long list of noncharacters, then the definition the question asks for.
  const list = Array.from({ length: 40 }, (_, i) => `U+${(i + 1).toString(16).toUpperCase()}FFFE`).join(', ');
  const text =
    `A noncharacter is a code point in the range U+FDD0 to U+FDEF, inclusive, or ${list}. ` +
    'ASCII whitespace is U+0009 TAB, U+000A LF, U+000C FF, U+000D CR, or U+0020 SPACE. ' +
    'An ASCII digit is a code point in the range U+0030 (0) to U+0039 (9), inclusive, and so on and so forth.';
  const snippet = makeSnippet(text, new Set(['ascii', 'whitespac']), 120);
  assert.ok(snippet.text.startsWith('…ASCII whitespace is U+0009 TAB'), snippet.text);
  assert.match(snippet.text, /U\+0020 SPACE\./);
});

test('a snippet cut before its match starts at a word after whitespace, not inside "Channel-Identifier:..."', () => {
  const text =
    'S->C: MRCP/2.0 ... 314161 200 COMPLETE Channel-Identifier:32AECB23433801@speakverify ' +
    'Voiceprint-Identifier:johnsmith.voiceprint Adapt-Model:true and the channel format';
  let moved = 0;
  for (let maxChars = 30; maxChars <= 120; maxChars++) {
    const snippet = makeSnippet(text, new Set(['format']), maxChars);
    assert.ok(snippet.highlights.length > 0, `${maxChars}`);
    if (!snippet.cutBefore) continue;
    moved++;
    assert.match(text[snippet.chunkOffset - 1]!, /\s/, `${maxChars}: ${snippet.text}`);
  }
  assert.ok(moved > 50);
  // A window that starts at its query word keeps it, however the word is preceded.
  for (let maxChars = 12; maxChars <= 40; maxChars++) {
    const snippet = makeSnippet('averyveryverylongprefixword-format y z w v u t', new Set(['format']), maxChars);
    assert.ok(snippet.highlights.length > 0, `${maxChars}: ${snippet.text}`);
  }
});

test('a tiny --max-snippet-chars still shows a highlighted word, or says it could not and how many chars it needs', () => {
  const hitsFor = (maxSnippetChars: number) => ask(['redirect'], { maxSnippetChars, limit: 3 }).hits;
  // "redirect" in the middle of a text: 8 letters plus an ellipsis on each side.
  for (const hit of hitsFor(10)) {
    assert.equal(hit.snippet.noHighlight, undefined, hit.chunkId);
    assert.ok([...hit.snippet.text].length <= 10);
    const [start, end] = hit.snippet.highlights[0]!;
    assert.match([...hit.snippet.text].slice(start, end).join(''), /^redirect/i);
  }
  for (const hit of hitsFor(5)) {
    assert.equal(hit.snippet.text, '');
    assert.deepEqual(hit.snippet.highlights, []);
    const note = hit.snippet.noHighlight;
    assert.ok(note !== undefined && note.reason === 'bound-too-small', hit.chunkId);
    // The bound it names is enough, and one less is not.
    assert.ok(note.minChars > 5);
    const row = Array.from({ length: INDEX.chunkCount }, (_, i) => chunkRow(INDEX, i)).find((r) => r[0] === hit.chunkId)!;
    assert.ok(makeSnippet(row[9], new Set(['redirect']), note.minChars).highlights.length > 0);
    assert.equal(makeSnippet(row[9], new Set(['redirect']), note.minChars - 1).highlights.length, 0);
  }
  // A word only the heading path says: the snippet is text without a highlight, and says why.
  const sections: Section[] = [{ id: 's', fragment: 's', heading: 'Quokka facts', level: 1, number: null, parentId: null }];
  const index = loadSearchIndex(
    buildSearchIndex(
      [
        {
          documentId: 'h',
          chunks: chunkDocument(
            makeDocument({ documentId: 'h', sections, blocks: [{ id: 'b', sectionId: 's', text: 'Small marsupials live on islands.' }] }),
            DEFAULT_CHUNK_OPTIONS,
          ),
        },
      ],
      { chunkIndexFingerprint: 'fp', missingSources: [] },
      DEFAULT_INDEX_OPTIONS,
    ),
    'heading',
  );
  const [headingHit] = runQuery(index, { terms: ['quokka'], limit: 1, offset: 0, maxSnippetChars: 400, maxTotalChars: 1000 }).hits;
  assert.deepEqual(headingHit!.snippet.noHighlight, { reason: 'not-in-text' });
  assert.equal(headingHit!.snippet.text, 'Small marsupials live on islands.');
});

test('queries without searchable words, unknown words and bad bounds', () => {
  assert.equal(ask(['!!!']).total, 0);
  assert.equal(ask(['zzzunknownword']).total, 0);
  assert.equal(ask(['"zzzunknownword conditional"']).total, 0);
  for (const bad of [{ limit: -1 }, { offset: 1.5 }, { maxSnippetChars: 0 }, { maxTotalChars: 0 }]) {
    assert.throws(
      () => ask(['x'], bad),
      (e) => e instanceof EpistemeError && e.code === 'usage-error',
    );
  }
});

test('words that both name a document rank the document, not its passages: their proximity is shared by its chunks', () => {
  // "in JSON Schema draft-03": every passage of draft-zyp-json-schema-03 that repeats its name had the
  // name's words side by side and outranked the passage that answers (the divisibleBy attribute).
  const url = 'https://example.org/json-schema/draft-03.xml';
  const named = makeDocument({
    documentId: 'json-schema-draft-03',
    sourceUrl: url,
    sections: [
      { id: 'intro', fragment: 'intro', heading: 'Introduction', level: 2, parentId: null, number: '1', normativity: 'informative' },
      { id: 'divisor', fragment: 'divisor', heading: 'Divisor', level: 2, parentId: null, number: '2', normativity: 'normative' },
    ],
    blocks: [
      {
        id: 'intro~b1',
        sectionId: 'intro',
        text:
          'JSON Schema draft 03 is the third draft. JSON Schema draft 03 keywords describe instances; a JSON Schema draft 03 ' +
          'validator reads them, and each number keyword of JSON Schema draft 03 is listed in its own section below.',
      },
      {
        id: 'divisor~b1',
        sectionId: 'divisor',
        text:
          'The divisor keyword constrains a number instance: the instance is valid when dividing it by the divisor leaves ' +
          'no remainder. The value of the keyword must not be zero. This keyword applies only to number instances.',
      },
    ],
  });
  const other = makeDocument({
    documentId: 'validator-notes',
    sections: [{ id: 'notes', fragment: 'notes', heading: 'Notes', level: 2, parentId: null, number: null, normativity: 'informative' }],
    blocks: [
      { id: 'notes~b1', sectionId: 'notes', text: 'Our validator supports JSON Schema draft 03 and later drafts, number checks included.' },
    ],
  });
  const docs = [named, other].map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
  const index = loadSearchIndex(
    buildSearchIndex(docs, { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS),
    'fixture',
  );
  const result = runQuery(index, {
    terms: ['What is the divisor of a number in JSON Schema draft 03?'],
    limit: 10,
    offset: 0,
    maxSnippetChars: 400,
    maxTotalChars: 4000,
    explain: true,
  });
  const ofNamed = result.hits.filter((hit) => hit.citation.documentId === 'json-schema-draft-03');
  assert.deepEqual(
    ofNamed.map((hit) => hit.citation.sectionId),
    ['divisor', 'intro'],
  );
  // The naming pairs give both of its chunks the same points; another document's passage keeps its own.
  const namingPoints = (hit: (typeof result.hits)[number]): string =>
    JSON.stringify(
      hit
        .explain!.proximity.filter((pair) => pair.terms.every((term) => ['json', 'schema', 'draft', '03'].includes(term)))
        .map((pair) => [pair.terms, pair.points]),
    );
  assert.equal(namingPoints(ofNamed[0]!), namingPoints(ofNamed[1]!));
  assert.notEqual(namingPoints(ofNamed[0]!), '[]');
  const notes = result.hits.find((hit) => hit.citation.documentId === 'validator-notes')!;
  assert.notEqual(namingPoints(notes), namingPoints(ofNamed[0]!));
});

test('the words naming a document are read from its source URL as stored: escapes decoded, the scheme left out', () => {
  // A source URL is stored normalised: spaces and letters outside ASCII percent-escaped.
  assert.deepEqual([...namingTerms('https://example.org/Content%20Security%20Policy')], ['exampl', 'org', 'content', 'secur', 'polici']);
  assert.deepEqual(
    [...namingTerms('https://en.example.org/wiki/Caf%C3%A9_au_lait')],
    ['en', 'exampl', 'org', 'wiki', 'cafe', 'au', 'lait'],
  );
  // Not UTF-8: the ASCII escapes decode, the others stay as written.
  assert.deepEqual([...namingTerms('http://example.org/a%20b%E9')], ['exampl', 'org', 'a', 'b', 'e9']);
  assert.equal(namingTerms('https://example.org/caching').has('http'), false);
  const long = `https://example.org/${'%41%'.repeat(100_000)}`;
  const started = performance.now();
  assert.equal(namingTerms(long).size > 0, true);
  assert.ok(performance.now() - started < 2000);
});

test('a document named by escaped words of its URL shares their proximity among its chunks, listed in pair order', () => {
  // Stored as "Content%20Security%20Policy": its words are content, security and policy. The passage
  // repeating the name had them side by side and outranked the one about nonces.
  const named = makeDocument({
    documentId: 'csp',
    sourceUrl: 'https://example.org/Content%20Security%20Policy',
    sections: [
      { id: 'intro', fragment: 'intro', heading: 'Introduction', level: 2, parentId: null, number: '1', normativity: 'informative' },
      { id: 'nonce', fragment: 'nonce', heading: 'Nonces', level: 2, parentId: null, number: '2', normativity: 'normative' },
    ],
    blocks: [
      {
        id: 'intro~b1',
        sectionId: 'intro',
        text:
          'Content Security Policy is a layer. Content Security Policy helps. A Content Security Policy header is sent; ' +
          'Content Security Policy directives are listed below, each Content Security Policy directive in its own section.',
      },
      {
        id: 'nonce~b1',
        sectionId: 'nonce',
        text:
          'A policy nonce lets a script run when its nonce attribute matches the value in the header. The nonce must be ' +
          'random for each response.',
      },
    ],
  });
  const docs = [{ documentId: named.documentId, chunks: chunkDocument(named, DEFAULT_CHUNK_OPTIONS) }];
  const index = loadSearchIndex(
    buildSearchIndex(docs, { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS),
    'fixture',
  );
  const result = runQuery(index, {
    terms: ['how does a content security policy nonce work'],
    limit: 10,
    offset: 0,
    maxSnippetChars: 400,
    maxTotalChars: 4000,
    explain: true,
  });
  assert.deepEqual(
    result.hits.map((hit) => hit.citation.sectionId),
    ['nonce', 'intro'],
  );
  const pairsOf = (hit: (typeof result.hits)[number]): string[] => hit.explain!.proximity.map((pair) => pair.terms.join(' '));
  for (const hit of result.hits) {
    const listed = pairsOf(hit);
    assert.deepEqual(listed, [...listed].sort(), 'pairs in the query order (sorted by code unit)');
    const naming = hit.explain!.proximity.filter((pair) => pair.terms.every((term) => ['content', 'secur', 'polici'].includes(term)));
    assert.deepEqual(
      naming.map((pair) => pair.terms.join(' ')),
      ['content secur', 'secur polici'].filter((pair) => listed.includes(pair)),
    );
  }
  const points = (hit: (typeof result.hits)[number]): number[] =>
    hit
      .explain!.proximity.filter((pair) => pair.terms.every((term) => ['content', 'secur', 'polici'].includes(term)))
      .map((pair) => pair.points);
  assert.deepEqual(points(result.hits[0]!), points(result.hits[1]!));
});
