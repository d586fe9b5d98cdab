import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import type { EvidenceDocument, Section } from '../../src/document/types.js';
import {
  buildDocumentPart,
  buildSearchIndex,
  DEFAULT_INDEX_OPTIONS,
  loadSearchIndex,
  mergeSearchIndex,
  type LoadedSearchIndex,
} from '../../src/index/search-index.js';
import { runQuery, type QueryRequest, type QueryResponse } from '../../src/query/query.js';
import {
  formatPoints,
  HEADING_WEIGHT,
  namePoints,
  QUERY_K3,
  queryTermWeight,
  termPoints,
  TermPointsMemo,
  termWeight,
} from '../../src/query/ranking.js';
import { ORDERED_WEIGHT, PROXIMITY_WINDOW, proximityEvidence, queryPairs } from '../../src/query/proximity.js';
import { headingNames, namedTerms } from '../../src/query/named-ids.js';
import { parseQueryTerms, withoutContractions } from '../../src/query/query-terms.js';
import { STOP_WORDS } from '../../src/query/stop-words.js';
import { ALL_DOCS, makeDocument } from './fixtures.js';
import { random } from './corpus-helpers.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Ranking rules with hand-made documents whose expected order follows from the formula alone
 * (ranking.ts): query term frequency with saturation, the heading-path field, one hit per passage,
 * and --explain points that add up to the score.
 */
const PROVENANCE = { chunkIndexFingerprint: 'fp', missingSources: [] };

/** A top-level section whose fragment is its id. */
function section(id: string, heading: string): Section {
  return { id, fragment: id, heading, level: 1, number: null, parentId: null };
}

/** A block text long enough to be cut into several chunks: the words given, then filler. */
function long(text: string): string {
  return `${text} ${'Other duties are listed in the contract. '.repeat(28)}`;
}

function indexOf(docs: EvidenceDocument[]): LoadedSearchIndex {
  return loadSearchIndex(
    buildSearchIndex(
      docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) })),
      PROVENANCE,
      DEFAULT_INDEX_OPTIONS,
    ),
    'ranking',
  );
}

function ask(index: LoadedSearchIndex, terms: string[], extra: Partial<QueryRequest> = {}): QueryResponse {
  return runQuery(index, { terms, limit: 10, offset: 0, maxSnippetChars: 200, maxTotalChars: 4000, ...extra });
}

function scoreOf(response: QueryResponse, chunkId: string): number {
  const hit = response.hits.find((h) => h.chunkId === chunkId);
  assert.ok(hit !== undefined, `${chunkId} is a hit`);
  return Number(hit.score);
}

const single = (documentId: string, text: string, sections: Section[] = [], sectionId: string | null = null): EvidenceDocument =>
  makeDocument({ documentId, sections, blocks: [{ id: 'b', sectionId, text }] });

// Two chunks of equal length, one about each word, plus filler so neither word is in half the chunks.
const TWO_TOPICS = [
  single('a', 'cache entries expire after the configured period'),
  single('b', 'stale entries expire after the configured period'),
  ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
];

test('a word the query repeats weighs more: repeating one word reorders two otherwise equal chunks', () => {
  const index = indexOf(TWO_TOPICS);
  const even = ask(index, ['cache stale']);
  assert.equal(scoreOf(even, 'a#b'), scoreOf(even, 'b#b'), 'symmetric query, symmetric chunks');
  assert.deepEqual(
    even.hits.slice(0, 2).map((h) => h.chunkId),
    ['a#b', 'b#b'],
    'a tie breaks on the chunk id',
  );
  const stressed = ask(index, ['stale cache stale']);
  assert.deepEqual(
    stressed.hits.slice(0, 2).map((h) => h.chunkId),
    ['b#b', 'a#b'],
  );
  assert.ok(scoreOf(stressed, 'b#b') > scoreOf(even, 'b#b'));
  assert.equal(scoreOf(stressed, 'a#b'), scoreOf(even, 'a#b'), 'the other word keeps its weight');
  // Counted across --term values and inside phrases too.
  assert.equal(ask(index, ['stale cache', 'stale']).hits[0]!.score, stressed.hits[0]!.score);
  assert.equal(ask(index, ['"stale entries" cache']).hits[0]!.chunkId, 'b#b');
});

test('query-side saturation caps a repeated word: twenty repeats weigh less than k3 + 1, not twenty', () => {
  assert.equal(queryTermWeight(1), 1);
  assert.ok(queryTermWeight(2) > 1 && queryTermWeight(2) < 2);
  assert.ok(queryTermWeight(20) < QUERY_K3 + 1);
  assert.ok(queryTermWeight(1_000_000) < QUERY_K3 + 1);
  const index = indexOf(TWO_TOPICS);
  const flooded = ask(index, [`${'stale '.repeat(20)}cache`]);
  const ratio = scoreOf(flooded, 'b#b') / scoreOf(flooded, 'a#b');
  assert.ok(ratio > 5 && ratio < QUERY_K3 + 1, `ratio ${ratio}`);
  assert.ok(Math.abs(ratio - queryTermWeight(20)) < 0.01, `ratio ${ratio} follows (k3 + 1) qtf / (k3 + qtf)`);
  // The other word still counts: the chunk that only has it is still a hit.
  assert.ok(flooded.hits.some((h) => h.chunkId === 'a#b'));
});

test("a question's function words do not score unless quoted; normative words always do", () => {
  // Prepositions and determiners from the Snowball list (between, both, during, over, each) and lunr's (and, the).
  const terms = (text: string): string[] => parseQueryTerms([text]).scoringTerms;
  assert.deepEqual(terms('agreement between Syria and Iraq'), ['agreement', 'iraq', 'syria']);
  assert.deepEqual(terms('must both policies hold during each fetch or over the redirect'), [
    'fetch',
    'hold',
    'must',
    'polici',
    'redirect',
  ]);
  assert.deepEqual(terms('should not, no, nor, cannot, may'), ['cannot', 'mai', 'no', 'nor', 'not', 'should']);
  // Quoted, a function word is a required word that scores; alone, the function words are the query.
  assert.deepEqual(terms('"between" Syria'), ['between', 'syria']);
  assert.deepEqual(terms('between both'), ['between', 'both']);
  // A chunk that repeats "between" gains nothing from it: the one with the question's content words ranks first.
  const docs = [
    single('pact', 'iraq and syria signed the agreement'),
    single('talks', 'talks between syria and egypt and between egypt and jordan went on between the wars'),
    ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  const response = ask(indexOf(docs), ['agreement between Syria and Iraq'], { explain: true });
  assert.deepEqual(
    response.hits.map((h) => h.chunkId),
    ['pact#b', 'talks#b'],
  );
  assert.deepEqual(
    response.hits[1]!.explain!.terms.map((t) => t.term),
    ['syria'],
  );
});

test('a stop word joined to other words without a space is part of a technical term and scores', () => {
  const terms = (text: string): string[] => parseQueryTerms([text]).scoringTerms;
  assert.deepEqual(terms('same-origin policy'), ['origin', 'polici', 'same']);
  assert.deepEqual(terms('is the entry up-to-date'), ['date', 'entri', 'to', 'up']);
  // Apart, they are function words as before.
  assert.deepEqual(terms('the same origin'), ['origin']);
  // Every stop word, joined to a content word on either side, scores with it.
  for (const word of STOP_WORDS.split(' ')) {
    const stopTerms = parseQueryTerms([word]).scoringTerms;
    for (const joined of [`${word}-zebra`, `zebra-${word}`]) {
      const scored = terms(`${joined} policy`);
      for (const term of [...stopTerms, 'zebra', 'polici']) assert.ok(scored.includes(term), `${joined}: ${term} in ${scored.join(' ')}`);
    }
  }

  // The chunk that says the term ranks above one that has only its content word.
  const docs = [
    single('cross', 'a cross origin request leaves the origin of the page for another origin'),
    single('same', 'a same-origin request stays with the origin of the page'),
    ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  assert.equal(ask(indexOf(docs), ['same-origin request']).hits[0]!.chunkId, 'same#b');
});

test('"i.e." and "e.g." are function words: their letters score nothing; quoted, or as part of a name, they are text', () => {
  const terms = (text: string): string[] => parseQueryTerms([text]).scoringTerms;
  for (const abbreviation of ['i.e.', 'i.e', 'I.E.', 'i. e.', 'e.g.', 'e.g', 'E.g.', 'e. g.']) {
    for (const [before, after] of [
      [' ', ' '],
      [' (', ', '],
      [', ', ','],
    ]) {
      assert.deepEqual(terms(`overwrite a value${before}${abbreviation}${after}optimistic locking`), [
        'lock',
        'optimist',
        'overwrit',
        'valu',
      ]);
    }
  }
  // Quoted, matched as the index has it; alone, the query; inside a name or a path, part of it.
  assert.deepEqual(terms('"i.e." usage'), ['e', 'i', 'usag']);
  assert.deepEqual(terms('e.g.'), ['e', 'g']);
  const words = (text: string): string[] => terms(text).filter((term) => /^[a-z]+$/.test(term));
  assert.deepEqual(words('flag -i.e.g value'), ['e', 'flag', 'g', 'i', 'valu']);
  assert.deepEqual(words('file x.e.g in /tmp/e.g'), ['e', 'file', 'g', 'tmp', 'x']);
  assert.deepEqual(words('grep -e pattern'), ['e', 'grep', 'pattern']);
});

test("a contraction is a function word: doesn't and it's score nothing; a possessive and a quoted contraction are text", () => {
  const terms = (text: string): string[] => parseQueryTerms([text]).scoringTerms;
  // Straight and typographic apostrophes; the tokenizer alone made "doesn" and "t" joined words that scored.
  assert.deepEqual(terms("may an extension it doesn't understand be skipped"), ['extens', 'mai', 'skip', 'understand']);
  assert.deepEqual(terms('why isn\u2019t it cached when it\u2019s fresh'), ['cach', 'fresh']);
  assert.deepEqual(terms("what's the default and you're sure"), ['default', 'sure']);
  // A possessive keeps its word (and its "s", as before): only function words contract.
  assert.deepEqual(terms("the server's reply"), ['repli', 's', 'server']);
  // Quoted, it is matched as the index has it; alone, the contractions are the query.
  assert.deepEqual(terms('"doesn\'t" matter'), ['doesn', 'matter', 't']);
  assert.deepEqual(terms("don't"), ['don', 't']);
  // Not contractions: quotes around a keyword, a name with an apostrophe, a clitic-like start of a word.
  assert.deepEqual(terms("'self' source"), ['self', 'sourc']);
  assert.deepEqual(terms("O'Reilly's book"), ['book', 'o', 'reilli', 's']);
  assert.deepEqual(terms("it'stable"), ['it', 'stabl']);
  // A backtick after a word a backtick opened closes a code span: the code and its plural stay.
  assert.deepEqual(terms('nested `if`s in a loop'), ['if', 'loop', 'nest', 's']);
  assert.deepEqual(terms('combining `AND`s and `OR`s'), ['and', 'combin', 'or', 's']);
  assert.deepEqual(terms('it`s broken'), ['broken']);
  // Every function word with every clitic, and every negated word, with any mark typed as an
  // apostrophe, goes; the content words beside it stay, and so does a content word with a clitic.
  const apostrophes = ["'", '\u2019', '\u2018', '\uFF07', '`', '\u00B4'];
  for (const word of STOP_WORDS.split(' ')) {
    for (const clitic of ['s', 're', 've', 'll', 'd', 'm']) {
      for (const apostrophe of apostrophes) {
        assert.deepEqual(terms(`zebra ${word}${apostrophe}${clitic} policy`), ['polici', 'zebra'], `${word}${apostrophe}${clitic}`);
        assert.ok(terms(`zebra${apostrophe}${clitic} policy`).includes('zebra'), `zebra${apostrophe}${clitic}`);
      }
    }
  }
  for (const negated of [
    'isn',
    'aren',
    'wasn',
    'weren',
    'hasn',
    'haven',
    'hadn',
    'doesn',
    'don',
    'didn',
    'won',
    'wouldn',
    'shan',
    'shouldn',
    'can',
    'couldn',
    'mustn',
  ])
    for (const apostrophe of apostrophes)
      assert.deepEqual(terms(`zebra ${negated}${apostrophe}t policy`), ['polici', 'zebra'], `${negated}${apostrophe}t`);
  // Linear in a word's length: a run of letters without an apostrophe is read once, not once per letter
  // (4x the letters took 16x the time). Best CPU time of five, alternated; the bound tells linear from quadratic.
  const cpu = (text: string): number => {
    const start = process.cpuUsage();
    withoutContractions(text);
    const used = process.cpuUsage(start);
    return Math.max(5, (used.user + used.system) / 1000);
  };
  const [small, large] = ['a'.repeat(20_000) + "'t", 'a'.repeat(80_000) + "'t"];
  let [bestSmall, bestLarge] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let i = 0; i < 5; i++) {
    bestSmall = Math.min(bestSmall, cpu(small));
    bestLarge = Math.min(bestLarge, cpu(large));
  }
  assert.ok(bestLarge / bestSmall < 8, `4x the letters took ${(bestLarge / bestSmall).toFixed(1)}x the time`);

  // The passage that says the question's content words ranks above one that only shares "doesn't".
  const docs = [
    single('index', 'git skips an optional extension that it does not understand when it reads the index'),
    single('sideband', "the client doesn't want sideband two, and doesn't ask for progress either"),
    ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  assert.equal(
    ask(indexOf(docs), ["can a reader tell whether an extension it doesn't understand may be skipped"]).hits[0]!.chunkId,
    'index#b',
  );
});

test('a stop word typed in capitals in a lower-case question is a name and scores; in an all-capitals query it does not', () => {
  const terms = (text: string): string[] => parseQueryTerms([text]).scoringTerms;
  assert.deepEqual(terms('may a GET request carry a body'), ['bodi', 'carri', 'get', 'mai', 'request']);
  assert.deepEqual(terms('may a get request carry a body'), ['bodi', 'carri', 'mai', 'request']);
  assert.deepEqual(terms('Get a body'), ['bodi']);
  assert.deepEqual(terms('GET A BODY'), ['bodi']);
  assert.deepEqual(terms('create index IF NOT EXISTS'), ['creat', 'exist', 'if', 'index', 'not']);

  const docs = [
    single('get', 'a payload within a GET request has no generally defined semantics'),
    // Shorter than the GET text: without the capitals rule, length normalisation would rank it first.
    single('put', 'a payload within a PUT request replaces it'),
    ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  assert.equal(ask(indexOf(docs), ['is a payload in a GET request allowed']).hits[0]!.chunkId, 'get#b');
});

test('a heading match counts more than a match in the text, and a word only a heading says is found', () => {
  const sections: Section[] = [{ id: 's', fragment: 'inv', heading: 'Invalidation', level: 1, number: null, parentId: null }];
  const docs = [
    single('heading', 'entries are removed when the origin changes them', sections, 's'),
    single('text', 'invalidation entries are removed when the origin changes', [], null),
    ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  const index = indexOf(docs);
  const response = ask(index, ['invalidation'], { explain: true });
  assert.deepEqual(
    response.hits.map((h) => h.chunkId),
    ['heading#b', 'text#b'],
  );
  const [inHeading, inText] = response.hits as [QueryResponse['hits'][number], QueryResponse['hits'][number]];
  assert.ok(Number(inHeading.score) > Number(inText.score));
  assert.equal(inHeading.explain!.terms[0]!.chunk!.field, 'heading');
  assert.equal(inHeading.explain!.terms[0]!.chunk!.weightedFrequency, HEADING_WEIGHT);
  assert.equal(inText.explain!.terms[0]!.chunk!.field, 'body');
  // A quoted word must be in the text (where phrases are checked and snippets come from).
  assert.deepEqual(
    ask(index, ['"invalidation"']).hits.map((h) => h.chunkId),
    ['text#b'],
  );
});

test('chunks whose text has no words are still found by their heading, with finite scores', () => {
  const sections: Section[] = [{ id: 's', fragment: 'dash', heading: 'Dashes only', level: 1, number: null, parentId: null }];
  const index = indexOf([single('punct', '— … —', sections, 's')]);
  assert.equal(index.totalLength, 0);
  const response = ask(index, ['dashes'], { explain: true });
  assert.deepEqual(
    response.hits.map((h) => h.chunkId),
    ['punct#b'],
  );
  assert.match(response.hits[0]!.score, /^\d+\.\d{4}$/);
  assert.ok(Number(response.hits[0]!.score) > 0);
});

test('one hit per passage: same normalised text collapses to the best-ranked chunk, whatever the build order', () => {
  const sections: Section[] = [{ id: 's', fragment: 'etag', heading: 'ETag', level: 1, number: null, parentId: null }];
  const passage = 'An ETag is an opaque validator for a selected representation.';
  const docs = [
    // Its heading also says "etag": it ranks first.
    makeDocument({ documentId: 'rfc-html', family: 'ietf', sections, blocks: [{ id: 'b', sectionId: 's', text: passage }] }),
    single('rfc-xml', `  an etag IS an opaque validator,  for a selected representation `),
    single('rfc-draft', passage),
    single('other', 'Weak validators compare an ETag loosely.'),
    ...['c', 'd', 'e', 'f'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  const parts = docs.map((doc) => buildDocumentPart(doc.documentId, chunkDocument(doc, DEFAULT_CHUNK_OPTIONS)));
  const rand = random(11);
  const answers = new Set<string>();
  for (let round = 0; round < 5; round++) {
    const shuffled = [...parts].sort(() => rand() - 0.5);
    const index = loadSearchIndex(mergeSearchIndex(shuffled, PROVENANCE, DEFAULT_INDEX_OPTIONS), 'collapse');
    const response = ask(index, ['etag validator'], { limit: 2 });
    answers.add(JSON.stringify(response));
    assert.deepEqual(
      response.hits.map((h) => [h.chunkId, (h.samePassage ?? []).map((same) => same.chunkId)]),
      [
        ['rfc-html#b', ['rfc-draft#b', 'rfc-xml#b']],
        ['other#b', []],
      ],
    );
    assert.equal(response.total, 2);
    assert.equal(response.collapsed, 2);
    assert.equal(response.hits[0]!.samePassage![1]!.citation.sourceUrl, 'https://example.org/rfc-xml/');
    const separate = ask(index, ['etag validator'], { collapse: false });
    assert.equal(separate.total, 4);
    assert.equal(separate.collapsed, 0);
    assert.ok(separate.hits.every((h) => h.samePassage === undefined));
    // A filter that excludes the best member: the best remaining one lists the rest. Their words are
    // the same, but the index also counts the parts of the draft's compound "ETag" (e, tag): the
    // XML's "etag" makes the shorter chunk, which ranks first.
    const filtered = ask(index, ['etag validator'], { family: ['generic'] });
    assert.deepEqual(
      filtered.hits.map((h) => [h.chunkId, (h.samePassage ?? []).map((same) => same.chunkId)]),
      [
        ['other#b', []],
        ['rfc-xml#b', ['rfc-draft#b']],
      ],
    );
  }
  assert.equal(answers.size, 1, 'the same answer for every build order');
});

test('--explain: per term, chunk, document and heading-name points are integers that add up to the score shown', () => {
  const docs = ALL_DOCS.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, { maxChars: 200, overlapChars: 40 }) }));
  const index = loadSearchIndex(buildSearchIndex(docs, PROVENANCE, DEFAULT_INDEX_OPTIONS), 'explain');
  let checked = 0;
  let withProximity = 0;
  for (const terms of [
    ['conditional requests'],
    ['request request origin'],
    ['"entity tag"', 'etag'],
    ['fetch', 'redirect mode'],
    ['Straße 東京 naïve'],
  ]) {
    for (const expand of [false, true]) {
      const plain = ask(index, terms, { expand });
      const explained = ask(index, terms, { expand, explain: true });
      assert.deepEqual(
        explained.hits.map((h) => [h.chunkId, h.score]),
        plain.hits.map((h) => [h.chunkId, h.score]),
        'explaining does not change the answer',
      );
      for (const hit of explained.hits) {
        const explain = hit.explain!;
        assert.equal(formatPoints(explain.points), hit.score);
        assert.equal(
          explain.terms.reduce((sum, term) => sum + term.points, 0) + explain.proximity.reduce((sum, pair) => sum + pair.points, 0),
          explain.points,
          `${terms.join(' ')}: ${hit.chunkId}`,
        );
        for (const term of explain.terms) {
          assert.equal(term.points, (term.chunk?.points ?? 0) + term.document.points + term.headingName);
          for (const value of [
            term.points,
            term.queryWeightMilli,
            term.document.points,
            term.document.idfMilli,
            term.document.lengthNormMilli,
          ])
            assert.ok(Number.isSafeInteger(value));
        }
        assert.ok(
          explain.terms.some((term) => term.chunk !== null),
          'a hit has at least one term itself',
        );
        for (const pair of explain.proximity) assert.ok(Number.isSafeInteger(pair.points) && pair.points > 0);
        if (explain.proximity.length > 0) withProximity++;
        checked++;
      }
    }
  }
  assert.ok(checked > 20, `checked ${checked} hits`);
  assert.ok(withProximity > 0, 'some hits have proximity points');
});

test('--expand adds feedback terms deterministically and keeps phrases required', () => {
  const index = indexOf(ALL_DOCS);
  const expanded = ask(index, ['conditional'], { expand: true, explain: true, limit: 20 });
  const added = new Set(
    expanded.hits.flatMap((h) => h.explain!.terms.filter((term) => term.queryFrequency === 0).map((term) => term.term)),
  );
  assert.ok(added.size > 0, 'feedback terms score hits');
  assert.ok(expanded.total >= ask(index, ['conditional']).total);
  assert.deepEqual(ask(index, ['conditional'], { expand: true, explain: true, limit: 20 }), expanded);
  const phrase = ask(index, ['"entity tag"'], { expand: true });
  const plainPhrase = ask(index, ['"entity tag"']);
  assert.equal(phrase.total, plainPhrase.total, 'expansion adds no hits that lack the phrase');
});

const proximityRanksCloseWordsFirst =
  'proximity: neighbouring query words close together rank a chunk first, the exact phrase most; every page is cut from one ranking';
test(proximityRanksCloseWordsFirst, () => {
  // Same words, same counts, same length: BM25F alone ties them (then chunk order would decide).
  const docs = [
    single('a-far', 'conditions differ from those boundary of a thick viscous layer'),
    single('b-reversed', 'conditions differ from those of a thick viscous layer boundary'),
    single('c-phrase', 'conditions differ from those of a thick viscous boundary layer'),
    single('d-near', 'boundary conditions differ from those of a thick layer viscous'),
    ...['e', 'f', 'g', 'h', 'i', 'j'].map((id) => single(id, `unrelated filler text number ${id} about other matters`)),
  ];
  const index = indexOf(docs);
  const response = ask(index, ['boundary layer'], { explain: true });
  assert.deepEqual(
    response.hits.map((h) => h.chunkId),
    ['c-phrase#b', 'b-reversed#b', 'a-far#b', 'd-near#b'],
  );
  const points = new Map(response.hits.map((h) => [h.chunkId, h.explain!.proximity.reduce((sum, pair) => sum + pair.points, 0)]));
  // Adjacent in query order (weight 2) > adjacent reversed (1) > five apart (1/25) > out of the window (none).
  assert.ok(points.get('c-phrase#b')! > points.get('b-reversed#b')!);
  assert.ok(points.get('b-reversed#b')! > points.get('a-far#b')!);
  assert.ok(points.get('a-far#b')! > 0, 'distance 5 is inside the window');
  // d-near: "boundary" ... "layer" 8 tokens apart: outside the window, no proximity points.
  assert.equal(points.get('d-near#b'), 0);
  // Words of different --term values are not neighbours; repeats and single words have no pair.
  assert.deepEqual(
    ask(index, ['boundary', 'layer'], { explain: true }).hits.map((h) => h.explain!.proximity.length),
    [0, 0, 0, 0],
  );
  // Pages: any offset/limit gives the same slice of the one ranking (proximity depth does not depend on the page).
  const all = ask(index, ['boundary layer viscous conditions'], { limit: 10 }).hits.map((h) => [h.chunkId, h.score]);
  for (let offset = 0; offset < all.length; offset++) {
    assert.deepEqual(
      ask(index, ['boundary layer viscous conditions'], { offset, limit: 1 }).hits.map((h) => [h.chunkId, h.score]),
      all.slice(offset, offset + 1),
    );
  }
});

test('proximity pairs: neighbours in query order, never a word with itself, a pair and its reverse once', () => {
  assert.deepEqual(
    queryPairs([
      ['heat', 'transfer', 'heat', 'heat', 'flux'],
      ['transfer', 'heat'],
    ]),
    [
      ['heat', 'flux'],
      ['heat', 'transfer'],
    ],
  );
  assert.deepEqual(queryPairs([['alone'], []]), []);
  const idf = (): number => 1;
  // Ordered adjacency counts ORDERED_WEIGHT, reversed adjacency 1, distance d counts 1/d².
  const [ordered] = proximityEvidence(['heat', 'transfer'], [['heat', 'transfer']], idf, 1.2);
  const [reversed] = proximityEvidence(['transfer', 'heat'], [['heat', 'transfer']], idf, 1.2);
  const [apart] = proximityEvidence(['heat', 'x', 'transfer'], [['heat', 'transfer']], idf, 1.2);
  assert.equal(ordered!.accumulation, ORDERED_WEIGHT);
  assert.equal(reversed!.accumulation, 1);
  assert.equal(apart!.accumulation, 1 / 4);
  assert.deepEqual(
    proximityEvidence(['heat', ...Array<string>(PROXIMITY_WINDOW).fill('x'), 'transfer'], [['heat', 'transfer']], idf, 1.2),
    [],
  );
  // A field weight scales the accumulation before it saturates, as it scales a term frequency: in an
  // apparatus chunk (0.5) the exact phrase (accumulation 2) scores what reversed adjacency (1) scores
  // elsewhere, and the accumulation is reported as found.
  const [halved] = proximityEvidence(['heat', 'transfer'], [['heat', 'transfer']], idf, 1.2, undefined, 0.5);
  assert.equal(halved!.accumulation, ORDERED_WEIGHT);
  assert.equal(halved!.points, reversed!.points);
  assert.ok(halved!.points < ordered!.points);
});

test('TermPointsMemo gives termPoints exactly, remembered or not, in and past its table', () => {
  const next = seededRandom(13);
  for (let round = 0; round < 40; round++) {
    const weight = termWeight(
      1 + Math.floor(next() * 100_000),
      1 + Math.floor(next() * 50),
      next() < 0.5 ? queryTermWeight(1 + Math.floor(next() * 5)) : next() * 20,
      Math.floor(next() * 3000),
      Math.floor(next() * 1000),
      Math.floor(next() * 10_000_000),
    );
    const memo = new TermPointsMemo(weight);
    // Each pair asked twice: the first answer is computed, the second remembered.
    for (let i = 0; i < 400; i++) {
      const tf = Math.floor(next() * 12);
      const headingTf = next() < 0.8 ? 0 : Math.floor(next() * 3);
      const length = next() < 0.9 ? Math.floor(next() * 1100) : Math.floor(next() * 100_000);
      const expected = termPoints(weight, tf, headingTf, length);
      assert.equal(memo.points(tf, headingTf, length), expected);
      assert.equal(memo.points(tf, headingTf, length), expected);
    }
  }
  // Two terms' memos never share answers.
  const a = new TermPointsMemo(termWeight(1000, 10, 1, 1200, 750, 100_000));
  const b = new TermPointsMemo(termWeight(1000, 900, 1, 1200, 750, 100_000));
  assert.notEqual(a.points(1, 0, 100), b.points(1, 0, 100));
});

test('an element id whose words are all query words scores as a name match of the chunk that holds it', () => {
  // namedTerms: every (non-function) word of the id must be a query term; generated back-reference ids are not read.
  const query = new Set(['ascii', 'whitespac', 'code', 'point']);
  assert.deepEqual(namedTerms([[0, 'ascii-whitespace']], query), ['ascii', 'whitespac']);
  assert.deepEqual(namedTerms([[0, 'split-on-ascii-whitespace']], query), []);
  assert.deepEqual(namedTerms([[0, 'ref-for-ascii-whitespace①']], query), []);
  assert.deepEqual(namedTerms([[0, 'the-code-point']], query), ['code', 'point']);
  assert.deepEqual(namedTerms([[0, 'of-the']], query), []);
  assert.deepEqual(namedTerms(null, query), []);
  // The id of the chunk's own section abbreviates its heading, which headingNames judges whole: not read.
  assert.deepEqual(namedTerms([[0, 'ascii-whitespace']], query, 'ascii-whitespace'), []);
  assert.deepEqual(namedTerms([[0, 'ascii-whitespace']], query, 'strings'), ['ascii', 'whitespac']);
  // The chunk that uses the question's words more often ranks first until the other holds the element
  // the question names (a <dfn id="ascii-whitespace">).
  const define = 'ASCII whitespace is U+0009 TAB, U+000A LF, U+000C FF, U+000D CR, or U+0020 SPACE: five code points.';
  const use = 'To strip ASCII whitespace from a string, remove the code points at both of its ends.';
  const docs = (id: string | null): EvidenceDocument[] => [
    makeDocument({
      documentId: 'infra-a',
      sections: [],
      blocks: [{ id: 'b', sectionId: null, text: define, anchors: id === null ? [] : [{ id, start: 0 }] }],
    }),
    single('infra-b', use),
    ...['c', 'd', 'e', 'f'].map((n) => single(`filler-${n}`, `unrelated filler ${n} about other matters`)),
  ];
  const question = ['which code points count as ASCII whitespace'];
  assert.equal(ask(indexOf(docs(null)), question).hits[0]!.chunkId, 'infra-b#b');
  assert.equal(ask(indexOf(docs('strip-leading-and-trailing-ascii-whitespace')), question).hits[0]!.chunkId, 'infra-b#b');
  for (const id of ['ascii-whitespace', 'ref-for-ascii-whitespace①']) {
    const index = indexOf(docs(id));
    const response = ask(index, question, { explain: true });
    const first = response.hits[0]!;
    assert.equal(first.chunkId, id === 'ascii-whitespace' ? 'infra-a#b' : 'infra-b#b', id);
    // --explain shows each named term's id-name points (idf times the query weight), and the points still add up.
    const explain = first.explain!;
    assert.equal(
      explain.terms.reduce((sum, term) => sum + term.points, 0) + explain.proximity.reduce((sum, pair) => sum + pair.points, 0),
      explain.points,
    );
    for (const term of explain.terms) {
      const expected =
        id === 'ascii-whitespace' && ['ascii', 'whitespac'].includes(term.term)
          ? namePoints(
              termWeight(index.chunkCount, term.chunk!.documentFrequency, term.queryWeightMilli / 1000, 1200, 750, index.totalLength),
            )
          : 0;
      assert.equal(term.idName, expected, term.term);
      assert.equal(term.chunk?.headingFrequency ?? 0, 0, term.term);
    }
  }
});

test('a definition whose id is the question ranks above the steps that say its words ten times', () => {
  // CSS Flexbox's shape (held-out question "what is the main size of a flex item"): the terminology
  // section defines <dfn id="main-size">; the layout algorithm's sections say "main size" in every step.
  // One heading occurrence more cannot lift the definition over text that saturates the words; a name
  // match added after saturation does.
  const define =
    'The width or height of a flex container or flex item, whichever is in the main dimension, is that box’s main size. ' +
    'Its main size property is thus either its width or height property.';
  const steps =
    'Determine the flex base size and hypothetical main size of each item. The hypothetical main size is the item’s flex base ' +
    'size clamped by its used min and max main sizes. Determine the main size of the flex container using the rules of the ' +
    'formatting context in which it participates. Resolve the flexible lengths of all the flex items to find their used main size.';
  const docs: EvidenceDocument[] = [
    makeDocument({
      documentId: 'css-flexbox',
      sections: [section('box-model', 'Flex Layout Box Model and Terminology'), section('main-sizing', 'Main Size Determination')],
      blocks: [
        { id: 'define', sectionId: 'box-model', text: define, anchors: [{ id: 'main-size', start: define.indexOf('main size') }] },
        { id: 'steps', sectionId: 'main-sizing', text: steps },
      ],
    }),
    ...['c', 'd', 'e', 'f'].map((n) => single(`filler-${n}`, `unrelated filler ${n} about other matters of size`)),
  ];
  const response = ask(indexOf(docs), ['what is the main size of a flex item'], { explain: true });
  assert.deepEqual(
    response.hits.slice(0, 2).map((hit) => hit.chunkId),
    ['css-flexbox#define', 'css-flexbox#steps'],
  );
  const first = response.hits[0]!.explain!;
  const names = first.terms.reduce((sum, term) => sum + term.idName, 0);
  assert.ok(names > 0 && first.points - names < response.hits[1]!.explain!.points, 'the id-name points decide');
});

test("an API entry's signature heading is named by its name alone; a remark in parentheses is no parameter list", () => {
  // Erlang's `cast(ServerRef :: server_ref(), Request :: term()) -> ok` and Doxygen's `append() [2/2]`: the
  // parameters and the overload count are no words of what the section names.
  const cast = new Set(['gen', 'server', 'cast']);
  assert.deepEqual(headingNames(['gen_server', 'Exports', 'cast(ServerRef :: server_ref(), Request :: term()) -> ok'], cast), ['cast']);
  assert.deepEqual(headingNames(['Json::Value', 'append() [2/2]'], new Set(['append', 'array'])), ['append']);
  assert.deepEqual(headingNames(['API', 'int frob(int flags)'], new Set(['frob'])), ['frob']);
  assert.deepEqual(headingNames(['API', 'The closest(selectors) method'], new Set(['closest'])), ['closest']);
  // Not a signature: the parenthesis is set apart, or two words come before the name.
  assert.deepEqual(headingNames(['Spec', 'Parsing (informative)'], new Set(['pars'])), []);
  assert.deepEqual(headingNames(['Spec', 'Changes to frob() since Level 2'], new Set(['frob'])), []);
});

test("a section whose own heading is the question's words ranks above a neighbour that only uses them", () => {
  // headingNames: every word of the section's own heading (function words aside) must be a query term;
  // a document title alone (a one-heading path) names a whole document, not a section.
  const query = new Set(['cooki', 'domain', 'match', 'mean']);
  assert.deepEqual(headingNames(['RFC 6265', 'Subcomponent Algorithms', 'Domain Matching'], query), ['domain', 'match']);
  assert.deepEqual(headingNames(['RFC 6265', 'The Domain Attribute'], query), []);
  assert.deepEqual(headingNames(['Domain Matching'], query), []);
  assert.deepEqual(headingNames(['RFC 6265', 'Of the'], query), []);
  assert.deepEqual(
    headingNames(['CSS Flexbox', 'Absolutely-Positioned Flex Children'], new Set(['absolut', 'posit', 'flex', 'child'])),
    [],
  );
  // RFC 6265's shape: the Storage Model section uses the question's words more often than Domain
  // Matching, which defines domain-match but never says "cookie".
  const define =
    'A string domain-matches a given domain string if the domain string and the string are identical, ' +
    'or the domain string is a suffix of the string.';
  const use =
    'If the canonicalized request-host does not domain-match the domain attribute, ignore the cookie entirely; ' +
    'otherwise set the cookie domain to the domain attribute.';
  const docs: EvidenceDocument[] = [
    makeDocument({
      documentId: 'rfc6265',
      sections: [section('cookie-domain', 'Domain Matching'), section('storage-model', 'Storage Model')],
      blocks: [
        { id: 'define', sectionId: 'cookie-domain', text: define },
        { id: 'use', sectionId: 'storage-model', text: use },
      ],
    }),
    ...['c', 'd', 'e', 'f'].map((n) => single(`filler-${n}`, `unrelated filler ${n} about other matters and a domain`)),
  ];
  const index = indexOf(docs);
  const question = ['what does domain-match mean for cookies'];
  const response = ask(index, question, { explain: true });
  assert.equal(response.hits[0]!.chunkId, 'rfc6265#define');
  assert.equal(response.hits[1]!.chunkId, 'rfc6265#use');
  // Without the heading's name points the section that only uses the words would be first: they decide.
  const first = response.hits[0]!.explain!;
  const second = response.hits[1]!.explain!;
  const names = first.terms.reduce((sum, term) => sum + term.headingName, 0);
  assert.ok(names > 0 && first.points - names < second.points, `${first.points} - ${names} < ${second.points}`);
  assert.equal(
    second.terms.reduce((sum, term) => sum + term.headingName, 0),
    0,
  );
  // --explain: each named term's heading-name points are idf times the query weight, and the points still add up.
  for (const term of first.terms) {
    const expected = ['domain', 'match'].includes(term.term)
      ? namePoints(termWeight(index.chunkCount, term.chunk!.documentFrequency, term.queryWeightMilli / 1000, 1200, 750, index.totalLength))
      : 0;
    assert.equal(term.headingName, expected, term.term);
  }
  assert.equal(
    first.terms.reduce((sum, term) => sum + term.points, 0) + first.proximity.reduce((sum, pair) => sum + pair.points, 0),
    first.points,
  );
});

test('each section once first: a second chunk of a section follows the other sections among the first hits', () => {
  // Two blocks of one section (RFC 6635's "RFC Production Center", cut into chunks) both say the
  // question's words more often than the section that answers it; without the rule they take ranks 1
  // and 2. The answer moves up to 2, the repeat follows it with its points unchanged.
  const docs: EvidenceDocument[] = [
    makeDocument({
      documentId: 'model',
      sections: [section('production', 'Production Center'), section('dispute', 'Disagreements')],
      blocks: [
        {
          id: 'p1',
          sectionId: 'production',
          text: long('The production center edits and publishes; the production center decides on style.'),
        },
        {
          id: 'p2',
          sectionId: 'production',
          text: long('The production center reports to the oversight body and the production center decides.'),
        },
        { id: 'd1', sectionId: 'dispute', text: long('When the production center and a stream disagree, the oversight body decides.') },
      ],
    }),
    ...['c', 'd', 'e', 'f'].map((n) => single(`filler-${n}`, `unrelated filler ${n} about other matters`)),
  ];
  const index = indexOf(docs);
  const response = ask(index, ['who decides when the production center disagrees'], { explain: true });
  const ids = response.hits.map((hit) => hit.chunkId);
  const sectionOf = (chunkId: string): string => response.hits.find((hit) => hit.chunkId === chunkId)!.citation.sectionId!;
  assert.equal(sectionOf(ids[0]!), 'production');
  assert.equal(sectionOf(ids[1]!), 'dispute');
  assert.equal(sectionOf(ids[2]!), 'production');
  // By points alone the repeat would be second: the rule, not the score, puts it third.
  assert.ok(Number(response.hits[2]!.score) > Number(response.hits[1]!.score), `${response.hits[2]!.score} > ${response.hits[1]!.score}`);
});

test('each section once first yields to a repeat that outscores a first hit more than four times over', () => {
  // Two chunks of the section on ephemeron pairs say the question's words throughout; other sections
  // say one common word of it once. A first hit of a few points does not push down a repeat of many.
  const docs: EvidenceDocument[] = [
    makeDocument({
      documentId: 'storage',
      sections: [section('weak', 'Weak and ephemeron pairs')],
      blocks: [
        {
          id: 'w1',
          sectionId: 'weak',
          text: long('An ephemeron pair keeps its cdr only while its car is kept; ephemeron pairs are pairs.'),
        },
        {
          id: 'w2',
          sectionId: 'weak',
          text: long('The ephemeron pair predicate tells ephemeron pairs from weak pairs and ordinary pairs.'),
        },
      ],
    }),
    makeDocument({
      documentId: 'parser',
      sections: [section('positions', 'Positions')],
      blocks: [{ id: 'q1', sectionId: 'positions', text: long('The location stands for a pair of positions in the input.') }],
    }),
    ...['c', 'd', 'e', 'f'].map((n) => single(`filler-${n}`, `unrelated filler ${n} about other matters`)),
  ];
  const response = ask(indexOf(docs), ['what is an ephemeron pair']);
  const sections = response.hits.map((hit) => hit.citation.sectionId);
  const other = sections.indexOf('positions');
  assert.ok(other > 1, sections.join(' '));
  assert.deepEqual(new Set(sections.slice(0, other)), new Set(['weak']));
  // Every repeat before it outscores it more than four times over; the first of them is rank 2.
  const weak = Number(response.hits[other]!.score);
  for (const hit of response.hits.slice(1, other)) assert.ok(Number(hit.score) > 4 * weak, `${hit.score} > 4 x ${weak}`);
});
