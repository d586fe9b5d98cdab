import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import type { Chunk, Section } from '../../src/document/types.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS, loadSearchIndex, type LoadedSearchIndex } from '../../src/index/search-index.js';
import { runQuery, type QueryRequest, type QueryResponse } from '../../src/query/query.js';
import { codePointSlicer, firstName, MAX_NAMES } from '../../src/chunk/anchor-names.js';
import { citedFragment, isGeneratedId, nearDuplicate } from '../../src/query/citation-choice.js';
import { indexOfParts, makeDocument } from './fixtures.js';
import { DEV_CORPUS_MISSING, loadDevCorpus } from './corpus-helpers.js';

/**
 * Citations a reader can open (issue 30): a collapsed group shows the member that opens at the
 * passage, near-duplicate renderings collapse, generated back-reference ids are not cited when a
 * stable id covers the match, and the fragment does not depend on the snippet bound.
 */
const PROVENANCE = { chunkIndexFingerprint: 'fp', missingSources: [] };

function ask(index: LoadedSearchIndex, terms: string[], extra: Partial<QueryRequest> = {}): QueryResponse {
  return runQuery(index, { terms, limit: 10, offset: 0, maxSnippetChars: 400, maxTotalChars: 8000, ...extra });
}

const FILLER = ['c', 'd', 'e', 'f', 'g'].map((id) =>
  makeDocument({
    documentId: `filler-${id}`,
    sections: [],
    blocks: [{ id: 'b', sectionId: null, text: `unrelated filler ${id} about other matters` }],
  }),
);

const PASSAGE = 'A cache must not store a response to a request whose method is unsafe; an unsafe method invalidates stored responses.';

test('collapse shows the citation a reader can open: fragment, then HTML, then the canonical URL (both input orders)', () => {
  const section = (fragment: string | null): Section[] => [
    { id: 'invalidation', fragment, heading: 'Invalidation', level: 1, number: '4.4', parentId: null },
  ];
  // The XML rendering ranks first (its heading path also says "unsafe"); it has no fragment.
  const xml = makeDocument({
    documentId: 'a-rfc-xml',
    sourceUrl: 'https://example.org/rfc9111.xml',
    sections: [{ id: 's', fragment: null, heading: 'Unsafe methods', level: 1, number: null, parentId: null }],
    blocks: [{ id: 'b', sectionId: 's', text: PASSAGE }],
  });
  const html = makeDocument({
    documentId: 'b-rfc-html',
    sourceUrl: 'https://example.org/rfc9111.html',
    sections: section('invalidation'),
    blocks: [{ id: 'b', sectionId: 'invalidation', fragment: 'invalidation', text: PASSAGE }],
  });
  const raw = makeDocument({
    documentId: 'c-rfc-raw',
    sourceUrl: 'https://raw.githubusercontent.com/example/rfc9111/main/rfc9111.html',
    sections: section('invalidation'),
    blocks: [{ id: 'b', sectionId: 'invalidation', fragment: 'invalidation', text: PASSAGE }],
  });
  const text = makeDocument({
    documentId: 'd-rfc-text',
    sourceUrl: 'https://example.org/rfc9111.txt',
    sections: section('section-4.4'),
    blocks: [{ id: 'b', sectionId: 'invalidation', fragment: 'section-4.4', text: PASSAGE }],
  });
  const answers = new Set<string>();
  for (const docs of [
    [xml, html, raw, text, ...FILLER],
    [...FILLER, text, raw, html, xml],
  ]) {
    const index = indexOfParts(docs);
    const response = ask(index, ['unsafe method invalidates']);
    answers.add(JSON.stringify(response));
    const [first] = response.hits;
    assert.ok(first !== undefined);
    assert.equal(response.total, 1);
    assert.equal(first.citation.sourceUrl, 'https://example.org/rfc9111.html');
    assert.equal(first.citation.fragment, 'invalidation');
    assert.deepEqual((first.samePassage ?? []).map((same) => same.citation.sourceUrl).sort(), [
      'https://example.org/rfc9111.txt',
      'https://example.org/rfc9111.xml',
      'https://raw.githubusercontent.com/example/rfc9111/main/rfc9111.html',
    ]);
    // The hit keeps the best-ranked member's points: the same score as without the openable choice.
    const separate = ask(index, ['unsafe method invalidates'], { collapse: false });
    assert.equal(first.score, separate.hits[0]!.score);
    assert.equal(separate.hits[0]!.citation.sourceUrl, 'https://example.org/rfc9111.xml');
    // Without the HTML page: an HTML rendering (at its raw-file URL) before the plain text, both with a fragment.
    const withoutHtml = ask(indexOfParts(docs.filter((doc) => doc !== html)), ['unsafe method invalidates']);
    assert.equal(withoutHtml.hits[0]!.citation.sourceUrl, 'https://raw.githubusercontent.com/example/rfc9111/main/rfc9111.html');
    // Only the XML (no fragment) and the text (a fragment): the one that opens at the passage.
    const xmlAndText = ask(indexOfParts(docs.filter((doc) => doc === xml || doc === text || FILLER.includes(doc))), [
      'unsafe method invalidates',
    ]);
    assert.equal(xmlAndText.hits[0]!.citation.sourceUrl, 'https://example.org/rfc9111.txt');
  }
  assert.equal(answers.size, 1, 'the same answer whatever the input order');
});

test('near-duplicate renderings collapse: the same passage cut at other boundaries is one hit', () => {
  const sentences = [
    'The freshness lifetime of a response is the length of time between its generation by the origin server and its expiration time.',
    'An explicit expiration time is the time at which the origin server intends that a stored response can no longer be used ' +
      'by a cache without further validation.',
    'A heuristic expiration time is an expiration time assigned by a cache when no explicit expiration time is available.',
    'The age of a response is the time since it was sent by, or successfully validated with, the origin server.',
  ];
  const html = makeDocument({
    documentId: 'rfc-html',
    sourceUrl: 'https://example.org/rfc9111.html',
    sections: [{ id: 'expiration.model', fragment: 'expiration.model', heading: 'Freshness', level: 1, number: '4.2', parentId: null }],
    blocks: [{ id: 'b', sectionId: 'expiration.model', fragment: 'expiration.model', text: sentences.join(' ') }],
  });
  // The other rendering starts one sentence earlier and ends one sentence earlier: not the same text.
  const xml = makeDocument({
    documentId: 'rfc-xml',
    sourceUrl: 'https://example.org/rfc9111.xml',
    sections: [{ id: 'expiration.model', fragment: 'expiration.model', heading: 'Freshness', level: 1, number: null, parentId: null }],
    blocks: [
      {
        id: 'b',
        sectionId: 'expiration.model',
        fragment: 'expiration.model',
        text: ['A response is fresh while its age has not yet exceeded its freshness lifetime.', ...sentences.slice(0, 3)].join(' '),
      },
    ],
  });
  const other = makeDocument({
    documentId: 'other',
    sections: [],
    blocks: [
      {
        id: 'b',
        sectionId: null,
        text: 'The expiration time of a cookie is set by its Expires attribute; freshness is not a cookie notion.',
      },
    ],
  });
  for (const docs of [
    [html, xml, other, ...FILLER],
    [other, xml, html, ...FILLER],
  ]) {
    const index = indexOfParts(docs);
    const response = ask(index, ['explicit expiration time origin server']);
    assert.deepEqual(
      response.hits.map((hit) => [hit.citation.sourceUrl, (hit.samePassage ?? []).map((same) => same.citation.sourceUrl)]),
      [
        ['https://example.org/rfc9111.html', ['https://example.org/rfc9111.xml']],
        ['https://example.org/other/', []],
      ],
    );
    assert.equal(response.total, 2);
    assert.equal(response.collapsed, 1);
    assert.equal(ask(index, ['explicit expiration time origin server'], { collapse: false }).total, 3);
  }
  // An older version under another name (RFC 7234 for RFC 9111) says nearly the same: it is not a rendering, it stays a hit.
  const older = makeDocument({
    documentId: 'rfc7234',
    sourceUrl: 'https://example.org/rfc7234.html',
    sections: [{ id: 'expiration.model', fragment: 'expiration.model', heading: 'Freshness', level: 1, number: null, parentId: null }],
    blocks: [{ id: 'b', sectionId: 'expiration.model', fragment: 'expiration.model', text: sentences.slice(0, 3).join(' ') }],
  });
  const withOlder = ask(indexOfParts([html, xml, older, other, ...FILLER]), ['explicit expiration time origin server']);
  assert.deepEqual(withOlder.hits.map((hit) => hit.citation.sourceUrl).sort(), [
    'https://example.org/other/',
    'https://example.org/rfc7234.html',
    'https://example.org/rfc9111.html',
  ]);
  // Short boilerplate that happens to share words never folds.
  assert.equal(nearDuplicate(new Set(['a b c', 'b c d']), new Set(['a b c', 'b c d'])), false);
});

test("near duplicates fold through any member of a hit's group, only under the same section heading", () => {
  const syntax = [
    'The Expires attribute carries a cookie date after which the user agent removes the cookie.',
    'The Max-Age attribute carries a number of seconds after which the user agent removes the cookie.',
    'The Domain attribute names the hosts to which the cookie is sent by the user agent.',
    'The Path attribute limits the scope of the cookie to a set of request paths.',
  ];
  const section = (id: string, heading: string): Section => ({ id, fragment: id, heading, level: 1, number: null, parentId: null });
  // The plain text gives the attributes under Set-Cookie and again, cut one sentence later, in its collected syntax;
  // the XML holds the same attributes in its collected syntax only, with the text's Set-Cookie boundaries.
  const text = makeDocument({
    documentId: 'a-text',
    sourceUrl: 'https://example.org/rfc9999.txt',
    sections: [section('set-cookie', 'The Set-Cookie Header'), section('collected', 'Collected Syntax')],
    blocks: [
      { id: 'b1', sectionId: 'set-cookie', text: syntax.join(' ') },
      { id: 'b2', sectionId: 'collected', text: ['Every attribute is listed here again.', ...syntax.slice(0, 3)].join(' ') },
    ],
  });
  const xml = makeDocument({
    documentId: 'b-xml',
    sourceUrl: 'https://example.org/rfc9999.xml',
    sections: [section('collected', 'Collected Syntax')],
    blocks: [{ id: 'b1', sectionId: 'collected', text: syntax.join(' ') }],
  });
  const question = ['set-cookie header expires max-age attribute removes cookie'];
  for (const docs of [
    [text, xml, ...FILLER],
    [...FILLER, xml, text],
  ]) {
    const index = indexOfParts(docs);
    // Without collapsing: three chunks, the plain text's Set-Cookie first (its heading matches).
    const separate = ask(index, question, { collapse: false }).hits.map((hit) => hit.chunkId);
    assert.equal(separate.length, 3);
    assert.equal(separate[0], 'a-text#b1');
    // The group's best-ranked member is the plain text's, but its XML member is the collected syntax the
    // plain text's collected syntax repeats at other boundaries: one hit for all three.
    const response = ask(index, question);
    assert.equal(response.total, 1);
    assert.deepEqual(
      [response.hits[0]!.chunkId, ...(response.hits[0]!.samePassage ?? []).map((same) => same.chunkId)].sort(),
      [...separate].sort(),
    );
  }
  // Two sections of one rendering that share a sentence, each also in the other rendering: a hit per section.
  const note = (code: string): string =>
    'Note: for historical reasons, a user agent may change the request method from POST to GET ' +
    `for the subsequent request after a ${code} response. ` +
    'If this behavior is undesired, another status code can be used instead, and the redirect keeps its method.';
  const statusRendering = (documentId: string, sourceUrl: string) =>
    makeDocument({
      documentId,
      sourceUrl,
      sections: [section('status.301', '301 Moved Permanently'), section('status.302', '302 Found')],
      blocks: [
        { id: 'b1', sectionId: 'status.301', text: note('301') },
        { id: 'b2', sectionId: 'status.302', text: note('302') },
      ],
    });
  const html = statusRendering('a-html', 'https://example.org/rfc9110.html');
  const xmlStatus = statusRendering('b-xml', 'https://example.org/rfc9110.xml');
  for (const docs of [
    [html, xmlStatus, ...FILLER],
    [...FILLER, xmlStatus, html],
  ]) {
    const hits = ask(indexOfParts(docs), ['user agent change request method POST GET']).hits;
    assert.deepEqual(hits.map((hit) => [hit.citation.headingPath.at(-1), hit.citation.sourceUrl, hit.samePassage?.length]).sort(), [
      ['301 Moved Permanently', 'https://example.org/rfc9110.html', 1],
      ['302 Found', 'https://example.org/rfc9110.html', 1],
    ]);
  }
});

test('a generated back-reference id is never cited when a stable id covers the match', () => {
  assert.ok(isGeneratedId('ref-for-concept-header①⑧'));
  assert.ok(isGeneratedId('ref-for-dom-node-appendchild'));
  assert.ok(isGeneratedId('term-for-concept-tree'));
  assert.ok(isGeneratedId('concept-header①'));
  assert.ok(isGeneratedId('rfc.xref.field.etag.3'));
  assert.ok(isGeneratedId('rfc.iref.g.62'));
  assert.ok(!isGeneratedId('rfc.section.8.8.3.p.2'));
  // Sphinx's index-entry targets, docutils' numbered ids, DocBook XSL's position ids, pandoc's code
  // blocks and their lines, HeVeA's index entries.
  for (const generated of ['index-0', 'index-77', 'id1', 'id23', 'id-1.5.7.13.18.7', 'id-1.9', 'cb5', 'cb5-12', 'hevea_default12'])
    assert.ok(isGeneratedId(generated), generated);
  for (const stable of ['concept-header', 'section-4.2', 'step-3', 'dom-node-appendchild', 'p-2.1', 'index', 'index-of-terms', 'idle'])
    assert.ok(!isGeneratedId(stable), stable);
  for (const stable of ['id', 'identity', 'id-token', 'DATATYPE-DATETIME', 're.DOTALL', '_options', 'index-entry-2x', 'cb', 'cbor'])
    assert.ok(!isGeneratedId(stable), stable);
  for (const stable of ['hevea_default', 'sec12']) assert.ok(!isGeneratedId(stable), stable);
  // Scribble's index-entry tags, numbered in document order; its part ids are stable.
  assert.ok(isGeneratedId('(idx._(gentag._33._(lib._scribblings/reference/reference..scrbl)))'));
  assert.ok(!isGeneratedId('(part._parse-pair)'));
  // Doxygen's numbered anchors (its option counter, a Markdown heading's table-of-contents number).
  for (const generated of ['a116_WARN_AS_ERROR', 'a21_DOXYFILE_ENCODING', 'autotoc_md12']) assert.ok(isGeneratedId(generated), generated);
  for (const stable of ['cfg_warn_as_error', 'a1b2', 'a35d44897a44b4bb3b7c01108c1812a37', 'a_WARN', 'autotoc_md', 'area51_Zone'])
    assert.ok(!isGeneratedId(stable), stable);
  // CMake's Sphinx domain targets each mention of a property, command or generator for its index, numbered
  // by the mentions before it: the rank-1 hit for a question about COMPILE_LANGUAGE cited the mention of
  // Xcode in its paragraph. A Texinfo index entry that starts with a number is a name (its text, escaped).
  for (const generated of ['index-0-prop_tgt:LINK_LIBRARIES', 'index-0-generator:Xcode', 'index-12-command:target_link_libraries'])
    assert.ok(isGeneratedId(generated), generated);
  for (const stable of ['index-2-D-graphs', 'index-64_002dbit', 'genex:COMPILE_LANGUAGE', 'prop_tgt:LINK_LIBRARIES'])
    assert.ok(!isGeneratedId(stable), stable);
  // The nearest stable anchor before the match, even when a generated one is nearer.
  const anchors: [number, string][] = [
    [0, 'concept-header'],
    [40, 'ref-for-concept-header①⑧'],
    [90, 'ref-for-concept-header①⑨'],
  ];
  assert.equal(citedFragment(anchors, 'headers', 100), 'concept-header');
  // Only generated anchors before the match: the section's own fragment covers it.
  assert.equal(citedFragment(anchors.slice(1), 'headers', 100), 'headers');
  // Nothing stable at all: a generated id is better than none.
  assert.equal(citedFragment(anchors.slice(1), null, 100), 'ref-for-concept-header①⑨');
  // A list of names for one place (each anchor followed only by its own name) cites the first; offsets
  // count code points, so a name beyond the Basic Multilingual Plane before them moves nothing.
  const names = '\u{1F600} *rocket* *r* *R* The rocket option.';
  const nameAnchors: [number, string][] = [
    [2, 'rocket'],
    [11, 'r'],
    [15, 'R'],
  ];
  assert.equal(citedFragment(nameAnchors, null, 30, null, names), 'rocket');
  // Without the text, or with more than a name between them, the nearest anchor stands.
  assert.equal(citedFragment(nameAnchors, null, 30), 'R');
  assert.equal(
    citedFragment(
      [
        [2, 'rocket'],
        [17, 'launch'],
      ],
      null,
      30,
      null,
      '\u{1F600} *rocket* fires *launch*',
    ),
    'launch',
  );
  // End to end: a Bikeshed-like block whose links carry ref-for ids.
  const text =
    'A header list is a list of headers. To append a header to a header list, run these steps. ' +
    'If the header list contains a header whose name matches, combine the values; otherwise append the header.';
  const doc = makeDocument({
    documentId: 'fetch',
    sections: [{ id: 'http-headers', fragment: 'http-headers', heading: 'Headers', level: 2, number: '2.2.2', parentId: null }],
    blocks: [
      {
        id: 'b',
        sectionId: 'http-headers',
        fragment: 'http-headers',
        text,
        anchors: [
          { id: 'concept-header-list', start: 2 },
          { id: 'ref-for-concept-header①', start: text.indexOf('headers.') },
          { id: 'ref-for-concept-header-list②', start: text.indexOf('header list, run') },
          { id: 'ref-for-concept-header③', start: text.indexOf('header whose') },
        ],
      },
      ...['one', 'two', 'three'].map((n) => ({
        id: `f-${n}`,
        sectionId: null,
        text: `unrelated paragraph ${n} about nothing in particular`,
      })),
    ],
  });
  const index = indexOfParts([doc, ...FILLER]);
  for (const terms of [['combine values name matches'], ['append header list'], ['headers']]) {
    const fragment = ask(index, terms).hits[0]!.citation.fragment;
    assert.ok(fragment !== null && !isGeneratedId(fragment), `${terms[0]}: ${String(fragment)}`);
  }
});

test('the cited fragment is the same under every snippet bound', () => {
  const text =
    'Opening words of the section. ' +
    Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1} talks about subject number ${i + 1} at some length.`).join(' ') +
    ' The redirect count is incremented and, past twenty, the fetch is a network error. ' +
    Array.from({ length: 6 }, (_, i) => `Closing remark ${i + 1} says nothing of note.`).join(' ');
  const anchors = [
    { id: 'fetch-intro', start: 0 },
    { id: 'ref-for-concept-request①', start: text.indexOf('Paragraph 5') },
    { id: 'redirect-count', start: text.indexOf('The redirect count') },
    { id: 'ref-for-network-error②', start: text.indexOf('network error') },
  ];
  const doc = makeDocument({
    documentId: 'fetch',
    sections: [
      {
        id: 'http-redirect-fetch',
        fragment: 'http-redirect-fetch',
        heading: 'HTTP-redirect fetch',
        level: 2,
        number: null,
        parentId: null,
      },
    ],
    blocks: [{ id: 'b', sectionId: 'http-redirect-fetch', fragment: 'http-redirect-fetch', text, anchors }],
  });
  const index = indexOfParts([doc, ...FILLER], { maxChars: 4000, overlapChars: 0 });
  for (const terms of [['redirect count network error'], ['subject'], ['closing remark']]) {
    const fragments = new Set<string | null>();
    for (const maxSnippetChars of [1, 8, 20, 40, 80, 120, 200, 400, 700, 2000])
      fragments.add(ask(index, terms, { maxSnippetChars }).hits[0]?.citation.fragment ?? null);
    assert.equal(fragments.size, 1, `${terms[0]}: ${[...fragments].join(', ')}`);
  }
  assert.equal(ask(index, ['redirect count network error']).hits[0]!.citation.fragment, 'redirect-count');
});

test('dev corpus: the RFC renderings (HTML + XML) give one hit per passage, shown as the HTML citation', async (t) => {
  const docs = await loadDevCorpus();
  if (docs === undefined) {
    t.skip(DEV_CORPUS_MISSING);
    return;
  }
  const pairs = new Map([
    ['https://httpwg.org/specs/rfc9110.xml', 'https://httpwg.org/specs/rfc9110.html'],
    ['https://httpwg.org/specs/rfc6265.xml', 'https://httpwg.org/specs/rfc6265.html'],
    ['https://www.rfc-editor.org/rfc/rfc9001.xml', 'https://www.rfc-editor.org/rfc/rfc9001.html'],
  ]);
  const wanted = docs.filter((doc) => pairs.has(doc.sourceUrl) || [...pairs.values()].includes(doc.sourceUrl));
  const chunks = new Map<string, Chunk>();
  const index = loadSearchIndex(
    buildSearchIndex(
      wanted.map((doc) => {
        const list = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
        for (const chunk of list) chunks.set(chunk.chunkId, chunk);
        return { documentId: doc.documentId, chunks: list };
      }),
      PROVENANCE,
      DEFAULT_INDEX_OPTIONS,
    ),
    'dev-rfc-pairs',
  );
  const trigramsOf = (text: string): Set<string> => {
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    return new Set(words.slice(2).map((word, i) => `${words[i]} ${words[i + 1]} ${word}`));
  };
  let htmlShown = 0;
  for (const question of [
    'weak entity tag comparison',
    'If-Unmodified-Since precedence If-Match',
    'Content-Length comma separated duplicate values',
    'Set-Cookie Max-Age attribute',
    'cookie Domain attribute',
    'QUIC initial secrets',
    'TLS handshake confirmed',
  ]) {
    const hits = ask(index, [question]).hits;
    for (const [i, a] of hits.entries()) {
      const aText = chunks.get(a.chunkId)!.text;
      if (
        pairs.has(a.citation.sourceUrl) &&
        (a.samePassage ?? []).some((same) => same.citation.sourceUrl === pairs.get(a.citation.sourceUrl))
      )
        assert.fail(`${question}: rank ${i + 1} shows the XML rendering though the HTML one is in its group`);
      if ((a.samePassage ?? []).length > 0) htmlShown++;
      for (const b of hits.slice(i + 1, 30)) {
        if (a.citation.documentId === b.citation.documentId) continue;
        const related =
          pairs.get(a.citation.sourceUrl) === b.citation.sourceUrl || pairs.get(b.citation.sourceUrl) === a.citation.sourceUrl;
        if (related && nearDuplicate(trigramsOf(aText), trigramsOf(chunks.get(b.chunkId)!.text)))
          assert.fail(`${question}: ${a.chunkId} and ${b.chunkId} are the same passage in two hits`);
      }
    }
  }
  assert.ok(htmlShown > 0, 'some hits stand for both renderings');
});

test('a page that copies a normative passage verbatim (as HTML, with an id) does not take its citation', () => {
  // Any page can quote a specification word for word; the hit shows the normative source and lists the copy.
  const rfc = makeDocument({
    documentId: 'rfc9999-txt',
    sourceUrl: 'https://www.rfc-editor.org/rfc/rfc9999.txt',
    authority: 'normative',
    sections: [],
    blocks: [{ id: 'b', sectionId: null, text: PASSAGE }],
  });
  const copy = makeDocument({
    documentId: 'a-copy',
    sourceUrl: 'https://evil.example/x.html',
    authority: 'informative',
    sections: [{ id: 'inv', fragment: 'inv', heading: 'Invalidation', level: 1, number: null, parentId: null }],
    blocks: [{ id: 'b', sectionId: 'inv', fragment: 'inv', text: PASSAGE }],
  });
  for (const docs of [
    [rfc, copy, ...FILLER],
    [...FILLER, copy, rfc],
  ]) {
    const response = ask(indexOfParts(docs), ['unsafe method invalidates']);
    assert.equal(response.total, 1);
    const [hit] = response.hits;
    assert.equal(hit?.citation.sourceUrl, 'https://www.rfc-editor.org/rfc/rfc9999.txt');
    assert.equal(hit?.authority, 'normative');
    assert.deepEqual(
      (hit?.samePassage ?? []).map((same) => same.citation.sourceUrl),
      ['https://evil.example/x.html'],
    );
  }
});

test('names of one place: the walk back over a list of names is bounded, so a text of one long list stays linear', () => {
  // `*n0* *n1* ... *n999*`: every anchor is followed by its own name only, so all are names of one place.
  const names = Array.from({ length: 1000 }, (_, i) => `n${i}`);
  const anchors: [number, string][] = [];
  let text = '';
  for (const name of names) {
    anchors.push([text.length, name]);
    text += `*${name}* `;
  }
  const slice = codePointSlicer(text);
  assert.equal(firstName(anchors, 5, slice), 0);
  assert.equal(firstName(anchors, 999, slice), 999 - MAX_NAMES);
});
