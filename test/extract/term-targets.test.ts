import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, loadSearchIndex, mergeSearchIndex } from '../../src/index/search-index.js';
import { runQuery } from '../../src/query/query.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Extract rule 52: a definition list's term that names a definition the section gives after the list
 * (Bikeshed's "for web developers" boxes) is cited, with its description, by that definition's id.
 */
const URL = 'https://dom.example.test/';

/** The ids recorded in the page's first definition list, in order. */
async function listAnchorIds(page: string): Promise<string[]> {
  const doc = await extractBytes(page, URL, 'text/html');
  const list = doc.blocks.find((b) => b.kind === 'definition-list')!;
  return (list.anchors ?? []).map((a) => a.id);
}

const PAGE =
  '<!doctype html><head><title>DOM</title></head><body>' +
  '<h2 id="earlier">Earlier</h2><p>The <dfn id="concept-tree-root">root</dfn> of a tree.</p>' +
  '<h2 id="interface-element">Interface Element</h2>' +
  '<dl class="domintro">' +
  '<dt><code><var>element</var> . <a href="#dom-element-closest" id="ref-for-dom-element-closest\u2460">closest(selectors)</a></code>' +
  '<dd>Returns the first inclusive ancestor that matches <var>selectors</var>, and null otherwise.' +
  '<dt><code><var>element</var> . <a href="#dom-element-matches" id="ref-for-dom-element-matches\u2460">matches(selectors)</a></code>' +
  '<dd>Returns true if matching <var>selectors</var> against the ' +
  '<a href="#concept-tree-root" id="ref-for-concept-tree-root\u2461">root</a> yields it.' +
  // Links that are uses, not names: a definition before the list, one past the next heading, another page, a generated id.
  '<dt><code><a href="#concept-tree-root">root</a></code><dd>Defined above the list.' +
  '<dt><code><a href="#dom-later">later()</a></code><dd>Defined in the next section.' +
  '<dt><code><a href="https://other.example.test/#dom-element-closest">closest</a></code><dd>Another page.' +
  '<dt><code><a href="#ref-for-x\u2460">x</a></code><dd>A back-reference.' +
  // A term with an id of its own keeps it.
  '<dt id="dom-element-id-dev"><code><a href="#dom-element-id">id</a></code><dd>Returns the element id.' +
  '</dl>' +
  '<p>The <dfn id="dom-element-closest">closest(selectors)</dfn> method steps are: throw a SyntaxError when parsing fails.</p>' +
  '<p>The <dfn id="dom-element-matches">matches(selectors)</dfn> method steps are to match.</p>' +
  '<p>The <dfn id="dom-element-id">id</dfn> attribute reflects.</p>' +
  '<h2 id="next">Next</h2><p>The <dfn id="dom-later">later()</dfn> method.</p>' +
  '</body>';

test('a term linking to a definition later in its section is cited by it, with its description; other links are uses', async () => {
  const doc = await extractBytes(PAGE, URL, 'text/html');
  const list = doc.blocks.find((b) => b.kind === 'definition-list')!;
  const stable = (list.anchors ?? []).filter((a) => !a.id.startsWith('ref-for-'));
  assert.deepEqual(
    stable.map((a) => [a.id, list.text.slice(a.start, a.start + 17)]),
    [
      ['dom-element-closest', 'element . closest'],
      ['dom-element-matches', 'element . matches'],
      ['dom-element-id-dev', 'id\nReturns the el'],
    ],
  );
});

test('a query matching a term of the box cites the definition it names, under every snippet bound', async () => {
  const doc = await extractBytes(PAGE, URL, 'text/html');
  const part = buildDocumentPart(doc.documentId, chunkDocument(doc, DEFAULT_CHUNK_OPTIONS));
  const index = loadSearchIndex(
    mergeSearchIndex([part], { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS),
    'term-targets',
  );
  for (const maxSnippetChars of [60, 400, 2000]) {
    const response = runQuery(index, {
      terms: ['what does closest return when no ancestor matches'],
      limit: 3,
      offset: 0,
      maxSnippetChars,
      maxTotalChars: 8000,
    });
    assert.equal(response.hits[0]!.citation.fragment, 'dom-element-closest', `bound ${maxSnippetChars}`);
  }
});

test("a term linking to the next section (an id on the <section> around its heading) is not cited by that section's id", async () => {
  const page =
    '<!doctype html><head><title>T</title></head><body><h2 id="overview">Overview</h2>' +
    '<dl><dt><a href="#intro">Introduction</a><dd>Describes the introduction.' +
    '<dt><a href="#later">Later</a><dd>Named by a div holding the next heading.' +
    '<dt><a href="#here">Here</a><dd>Defined below, in this section.</dl>' +
    '<p>The <dfn id="here">here</dfn> term.</p>' +
    '<div id="later"><section id="intro"><h2>Introduction</h2><p>Intro text.</p></section></div>' +
    '</body>';
  assert.deepEqual(await listAnchorIds(page), ['here']);
});

test('a term linking to an id the extraction skips (hidden, a template) is not cited by it', async () => {
  const page =
    '<!doctype html><head><title>T</title></head><body><h2 id="s">S</h2>' +
    '<dl><dt><a href="#hid">Hidden</a><dd>One.<dt><a href="#tpl">Template</a><dd>Two.<dt><a href="#shown">Shown</a><dd>Three.</dl>' +
    '<div hidden><p id="hid">hidden text</p></div><template><p id="tpl">template text</p></template>' +
    '<p id="shown">shown text</p></body>';
  assert.deepEqual(await listAnchorIds(page), ['shown']);
});

test("a list whose terms have no text passes its terms' ids to nothing: the next paragraph is not cited by them", async () => {
  const page =
    '<!doctype html><head><title>T</title></head><body><h2 id="s">S</h2>' +
    '<dl><dt><a href="#x"><img src="icon.png" alt=""></a></dt><dd></dd></dl>' +
    '<p>Unrelated paragraph about other things.</p><p id="x">The x definition.</p></body>';
  const doc = await extractBytes(page, URL, 'text/html');
  const unrelated = doc.blocks.find((b) => b.text.startsWith('Unrelated'))!;
  assert.deepEqual(unrelated.anchors ?? [], []);
});

test('a term linking to an id outside the element the extraction reads (after <main>) is not cited by it', async () => {
  const page =
    '<!doctype html><head><title>T</title></head><body><main><h2 id="s">Support</h2>' +
    '<dl><dt><a href="#contact">Contact us</a><dd>Write to the maintainers.<dt><a href="#faq">FAQ</a><dd>Asked often.</dl>' +
    '<p id="faq">Questions.</p></main><div class="site-info"><p id="contact">maintainers@example.test</p></div></body>';
  assert.deepEqual(await listAnchorIds(page), ['faq']);
});

test('generated pages: a term cites its link target exactly when it is defined after the list, before the next heading', async () => {
  // An oracle from the page's own layout: sections of lists and definitions in random order, terms
  // linking to ids before, after, in other sections, nowhere, or carrying an id of their own.
  const random = seededRandom(52);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (let round = 0; round < 40; round++) {
    const sections = 1 + Math.floor(random() * 4);
    // Each definition's id, section and position (its place among the section's items).
    const defined = new Map<string, { section: number; at: number }>();
    const layouts: ('dl' | string)[][] = [];
    let dfn = 0;
    for (let s = 0; s < sections; s++) {
      const items: ('dl' | string)[] = [];
      for (let i = 0, n = 2 + Math.floor(random() * 5); i < n; i++) {
        if (random() < 0.4) items.push('dl');
        else {
          const id = `d${dfn++}`;
          defined.set(id, { section: s, at: i });
          items.push(id);
        }
      }
      layouts.push(items);
    }
    const ids = [...defined.keys(), 'missing'];
    const expected = new Map<string, string[]>();
    let html = '<!doctype html><head><title>T</title></head><body>';
    let list = 0;
    layouts.forEach((items, s) => {
      html += `<h2 id="s${s}">Section ${s}</h2>`;
      items.forEach((item, at) => {
        if (item !== 'dl') {
          html += `<p>The <dfn id="${item}">${item}</dfn> term.</p>`;
          return;
        }
        const name = `list${list++}`;
        const want: string[] = [];
        html += '<dl>';
        for (let t = 0, n = 1 + Math.floor(random() * 3); t < n; t++) {
          const target = pick(ids);
          const own = random() < 0.2 ? `${name}-own${t}` : undefined;
          const term = `<code>x . <a href="#${target}">${target}()</a></code>`;
          html += `<dt${own === undefined ? '' : ` id="${own}"`}>${term}<dd>${name} term ${t}.`;
          const place = defined.get(target);
          if (own !== undefined) want.push(own);
          else if (place !== undefined && place.section === s && place.at > at) want.push(target);
        }
        html += '</dl>';
        expected.set(name, want);
      });
    });
    html += '</body>';
    const doc = await extractBytes(html, URL, 'text/html');
    for (const [name, want] of expected) {
      const block = doc.blocks.find((b) => b.kind === 'definition-list' && b.text.includes(`${name} term 0.`))!;
      assert.deepEqual(
        (block.anchors ?? []).map((a) => a.id),
        want,
        `round ${round}, ${name}`,
      );
    }
  }
});
