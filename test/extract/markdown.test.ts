import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractBytes, fixturesDir, snapshotFor } from './helpers.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../../src/extract/extract.js';
import { loadFamilies, type LoadedFamily } from '../../src/extract/families.js';

/**
 * Markdown (explainers, proposals, READMEs, kramdown-rfc drafts) is read as Markdown: headings open
 * sections cited at the ids a renderer gives them, lists, tables, code, quotes and GitHub's alerts are
 * blocks of their kind, and every span points at the lines the block was written on.
 */
const EXPLAINER = `# Storage Buckets Explainer

## Introduction

Storage buckets let a site split its storage into
independently evictable groups. See [the spec](https://wicg.github.io/storage-buckets/) and [below](#api).

## Goals

* Allow eviction of one bucket without losing the others.
* Let a site mark a bucket \`persisted\`.
  1. first nested
  2. second nested

> [!WARNING]
> Buckets are not a security boundary.

> Quoted text from elsewhere.

## The \`open()\` method {#open-method}

\`\`\`js
const bucket = await navigator.storageBuckets.open('drafts');
\`\`\`

### Durability

The \`durability\` option MUST be either "strict" or "relaxed".

| Option | Default |
|--------|---------|
| durability | \`relaxed\` |

<!-- an editor's comment, not text -->
<details><summary>More</summary>Hidden &amp; shown.<script>not text</script></details>

## Goals

Repeated heading.

## Acknowledgements

Thanks.
`;

test('Markdown headings are sections at their GitHub ids; blocks keep their kinds and source lines', async () => {
  const doc = await extractBytes(EXPLAINER, 'https://github.com/WICG/storage-buckets/blob/main/explainer.md', 'text/markdown');
  assert.equal(doc.provenance.extractor.id, 'markdown');
  assert.equal(doc.title, 'Storage Buckets Explainer');
  assert.deepEqual(
    doc.sections.map((s) => [s.heading, s.level, s.fragment]),
    [
      ['Storage Buckets Explainer', 1, 'storage-buckets-explainer'],
      ['Introduction', 2, 'introduction'],
      ['Goals', 2, 'goals'],
      ['The open() method', 2, 'open-method'],
      ['Durability', 3, 'durability'],
      ['Goals', 2, 'goals-1'],
      ['Acknowledgements', 2, 'acknowledgements'],
    ],
  );
  assert.equal(doc.sections.find((s) => s.heading === 'Acknowledgements')!.normativityReason, 'section:acknowledgements');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.sectionId]),
    [
      ['paragraph', 'introduction'],
      ['list', 'goals'],
      ['note', 'goals'],
      ['blockquote', 'goals'],
      ['code', 'open-method'],
      ['paragraph', 'durability'],
      ['table', 'durability'],
      ['paragraph', 'durability'],
      ['paragraph', 'goals-1'],
      ['paragraph', 'acknowledgements'],
    ],
  );
  const [intro, list, note, , code, must, table, html] = doc.blocks as unknown as Record<string, unknown>[];
  assert.equal(intro!['text'], 'Storage buckets let a site split its storage into independently evictable groups. See the spec and below.');
  assert.deepEqual(intro!['links'], [
    { href: 'https://wicg.github.io/storage-buckets/', text: 'the spec' },
    { href: 'https://github.com/WICG/storage-buckets/blob/main/explainer.md#api', text: 'below' },
  ]);
  assert.equal(
    list!['text'],
    '- Allow eviction of one bucket without losing the others.\n- Let a site mark a bucket persisted.\n' +
      '  1. first nested\n  2. second nested',
  );
  assert.equal(note!['text'], 'Buckets are not a security boundary.');
  assert.equal(note!['normativity'], 'informative');
  assert.equal(code!['language'], 'js');
  assert.equal(code!['text'], "const bucket = await navigator.storageBuckets.open('drafts');");
  assert.deepEqual(must!['keywords'], [{ end: 26, keyword: 'MUST', start: 22 }]);
  assert.deepEqual(table!['header'], [['Option', 'Default']]);
  assert.deepEqual(table!['rows'], [['durability', 'relaxed']]);
  assert.equal(html!['text'], 'More Hidden & shown.', 'raw HTML is its text: no comment, no script');
  const lines = EXPLAINER.split('\n');
  for (const block of doc.blocks) {
    const span = block.span as { start: number; end: number; line: number; endLine: number };
    const written = EXPLAINER.slice(span.start, span.end);
    assert.equal(written, lines.slice(span.line - 1, span.endLine).join('\n'), 'a span is whole source lines');
    const firstWord = block.text.replace(/^- /, '').split(/\s+/)[0]!;
    assert.ok(written.includes(firstWord), `${JSON.stringify(written)} holds ${firstWord}`);
  }
});

test('kramdown-rfc: front matter titles the draft, parts are sections, markup is not text, citations read as rendered', async () => {
  const draft = `---
title: "The Widget Protocol"
docname: draft-example-widget-00
---

--- abstract

Widgets move between peers.

--- middle

# Introduction {#intro}

{::boilerplate bcp14-tagged}

Peers MUST negotiate ({{Section 3 of RFC9110}}, {{?RFC9111}}).

# Security Considerations

Widgets are untrusted.

--- back

# Acknowledgments
{:numbered="false"}

Thanks.
`;
  const doc = await extractBytes(draft, 'https://raw.githubusercontent.com/example/widget/main/draft-example-widget.md', 'text/plain');
  assert.equal(doc.provenance.extractor.id, 'markdown', 'plain text at a .md path is Markdown');
  assert.equal(doc.title, 'The Widget Protocol');
  assert.deepEqual(
    doc.sections.map((s) => [s.heading, s.fragment]),
    [
      ['Abstract', 'abstract'],
      ['Introduction', 'intro'],
      ['Security Considerations', 'security-considerations'],
      ['Acknowledgments', 'acknowledgments'],
    ],
  );
  assert.deepEqual(
    doc.blocks.map((b) => [b.sectionId, b.text]),
    [
      ['abstract', 'Widgets move between peers.'],
      ['intro', 'Peers MUST negotiate (Section 3 of [RFC9110], [RFC9111]).'],
      ['security-considerations', 'Widgets are untrusted.'],
      ['acknowledgments', 'Thanks.'],
    ],
  );
});

test('plain text elsewhere stays plain text, and Markdown without headings says so', async () => {
  const text = await extractBytes('# not a heading\n\nplain words\n', 'https://example.test/notes.txt', 'text/plain');
  assert.equal(text.provenance.extractor.id, 'text');
  const rules = await extractBytes('---\n\nBetween two rules.\n\n---\n\nAfter.\n', 'https://example.test/r.md', 'text/markdown');
  assert.deepEqual(
    rules.blocks.map((b) => b.text),
    ['Between two rules.', 'After.'],
    'thematic breaks are not front matter',
  );
  const flat = await extractBytes('Just a paragraph.\n', 'https://example.test/notes.md', 'text/markdown');
  assert.equal(flat.title, 'Just a paragraph.');
  assert.ok(flat.diagnostics.some((d) => d.code === 'no-headings'));
});

test('hostile Markdown nesting is read in bounded depth: raw HTML and lists keep their text, deeper quotes are declared', async () => {
  const deepHtml = `# Deep\n\n${'<div>'.repeat(100_000)}kept text${'</div>'.repeat(100_000)}\n`;
  const html = await extractBytes(deepHtml, 'https://example.test/deep.md', 'text/markdown');
  assert.equal(html.blocks.at(-1)!.text, 'kept text');
  const quotes = await extractBytes(`${'>'.repeat(100_000)} deep quote\n`, 'https://example.test/q.md', 'text/markdown');
  assert.ok(
    quotes.diagnostics.some((d) => d.code === 'markdown-nesting-capped'),
    'what is too deep to read is declared',
  );
  assert.ok(!html.diagnostics.some((d) => d.code === 'markdown-nesting-capped'));
  const lists = Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
  const list = await extractBytes(lists, 'https://example.test/l.md', 'text/markdown');
  assert.equal(list.blocks.length, 1);
  assert.match(list.blocks[0]!.text, /^- item 0\n {2}- item 1\n/);
});

test('front matter is never text: a kramdown-rfc header closed by its first part marker, TOML (+++ and %%%), Jekyll YAML', async () => {
  // Real kramdown-rfc drafts write no `---` after their header: `--- abstract` ends it and opens the Abstract.
  const draft = `---
title: The Cache-Status HTTP Response Header Field
docname: draft-ietf-httpbis-cache-header-latest
author:
 -
    ins: M. Nottingham
normative:
  RFC2119:


--- abstract

HTTP caches append header fields {{?RFC9111}}.

--- note_Note_to_Readers

Discussion happens on the list.

--- middle

# Introduction

Caches SHOULD say how they handled the request.
`;
  const ietf = await extractBytes(
    draft,
    'https://raw.githubusercontent.com/httpwg/x/main/draft-ietf-httpbis-cache-header.md',
    'text/plain',
  );
  assert.equal(ietf.title, 'The Cache-Status HTTP Response Header Field');
  assert.deepEqual(
    ietf.sections.map((s) => [s.heading, s.fragment]),
    [
      ['Abstract', 'abstract'],
      ['Note to Readers', null],
      ['Introduction', 'introduction'],
    ],
    'the front matter\'s "author:" and " -" are no setext heading',
  );
  assert.deepEqual(
    ietf.blocks.map((b) => b.text),
    ['HTTP caches append header fields [RFC9111].', 'Discussion happens on the list.', 'Caches SHOULD say how they handled the request.'],
  );

  const hugo = await extractBytes(
    '+++\ntitle = "Cache Settings" # the page title\n# a TOML comment\n[params]\ntitle = "not this"\n+++\n\nCaches keep pages.\n',
    'https://github.com/example/site/blob/main/content/cache.md',
    'text/markdown',
  );
  assert.equal(hugo.title, 'Cache Settings');
  assert.deepEqual(hugo.sections, [], 'a TOML comment is no heading');
  assert.deepEqual(
    hugo.blocks.map((b) => b.text),
    ['Caches keep pages.'],
  );

  const mmark = await extractBytes(
    '%%%\ntitle = "The Security Flag in the IPv4 Header"\n# Fake date so it will parse\ndate = 2018-04-01T00:00:00Z\n%%%\n\n' +
      '# Introduction\n\nFirewalls filter.\n',
    'https://github.com/mmarkdown/mmark/blob/main/rfc/3514.md',
    'text/markdown',
  );
  assert.equal(mmark.title, 'The Security Flag in the IPv4 Header');
  assert.deepEqual(
    mmark.sections.map((s) => s.heading),
    ['Introduction'],
  );
  assert.deepEqual(
    mmark.blocks.map((b) => b.text),
    ['Firewalls filter.'],
  );

  // Jekyll's front matter comes with Liquid: `{{ site.url }}` is no kramdown-rfc citation.
  const jekyll = await extractBytes(
    '---\nlayout: post\n---\n\nSee {{ site.url }}/docs for more.\n',
    'https://github.com/example/blog/blob/main/_posts/cache.md',
    'text/markdown',
  );
  assert.deepEqual(
    jekyll.blocks.map((b) => b.text),
    ['See {{ site.url }}/docs for more.'],
  );
  assert.equal(jekyll.title, 'See {{ site.url }}/docs for more.', 'no title in the front matter: the first line of text, not "---"');
});

test('kramdown and mmark markup lines are markup where they stand (under a table or paragraph), name headings, stay in code', async () => {
  const kramdown = `---
title: Widgets
docname: draft-example-widgets-00
---

--- middle

# Widget Fields
{: #fields}

| Field | Meaning |
|-------|---------|
| size  | octets  |
{: #tab-fields title="Widget fields"}

Widgets are small.
{: .note}

{::comment}
Editors: reword this.
{:/comment}

~~~ markdown
{: #kept-in-code}
~~~
`;
  const k = await extractBytes(kramdown, 'https://github.com/example/widgets/blob/main/draft-example-widgets.md', 'text/markdown');
  assert.deepEqual(
    k.sections.map((s) => s.fragment),
    ['fields'],
    'an attribute line under a heading names it',
  );
  assert.deepEqual(
    k.blocks.map((b) => [b.kind, b.text]),
    [
      ['table', 'Field | Meaning\nsize | octets'],
      ['paragraph', 'Widgets are small.'],
      ['code', '{: #kept-in-code}'],
    ],
  );

  const mmark = `%%%
title = "The Evil Bit"
%%%

.# Abstract

Packets carry intent.

{mainmatter}

{#syntax}
# Syntax

The bit is laid out as follows [@!RFC0791; @?RFC3514]:

{#fig-bit align="left"}
     0
    +-+
    |E|
    +-+

Hosts **MUST** set it [@RFC2119].

{backmatter}
`;
  const m = await extractBytes(mmark, 'https://github.com/mmarkdown/mmark/blob/main/rfc/3514.md', 'text/markdown');
  assert.deepEqual(
    m.sections.map((s) => [s.heading, s.fragment]),
    [
      ['Abstract', 'abstract'],
      ['Syntax', 'syntax'],
    ],
  );
  assert.deepEqual(
    m.blocks.map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'Packets carry intent.'],
      ['paragraph', 'The bit is laid out as follows [RFC0791; RFC3514]:'],
      ['code', ' 0\n+-+\n|E|\n+-+'],
      ['paragraph', 'Hosts MUST set it [RFC2119].'],
    ],
  );

  // Elsewhere braces are text: a README's `{mainmatter}` is what it says.
  const plain = await extractBytes(
    '# Notes\n\n{mainmatter}\n\n.# not special\n',
    'https://github.com/example/notes/blob/main/README.md',
    'text/markdown',
  );
  assert.deepEqual(
    plain.blocks.map((b) => b.text),
    ['{mainmatter}', '.# not special'],
  );
});

test('raw HTML is read as a browser shows it: inline elements do not part words, block elements and line breaks do', async () => {
  const explainer = `# Inert

>  <p>The <code title="attr-inert">inert</code> attribute makes the element
>  <span>inert</span>.</p>

<div><p>One<br>two</p><p>three</p></div>
`;
  const doc = await extractBytes(explainer, 'https://github.com/WICG/inert/blob/main/explainer.md', 'text/markdown');
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['The inert attribute makes the element inert.', 'One two three'],
  );
});

test('ids a Markdown document gives in raw HTML are citable: anchors over or in a heading, in a paragraph or an HTML block', async () => {
  const rules = `# Rules

<a name="md001"></a>

## MD001 - Heading levels should only increment by one level at a time

Aliases: heading-increment

## <a id="md003"></a>MD003 - Heading style

See the <a id="style-note"></a>note on styles.

<p id="raw">Raw <b>HTML</b> text.</p>
`;
  const doc = await extractBytes(rules, 'https://github.com/DavidAnson/markdownlint/blob/main/doc/Rules.md', 'text/markdown');
  assert.deepEqual(
    doc.sections.map((s) => s.fragment),
    ['rules', 'md001---heading-levels-should-only-increment-by-one-level-at-a-time', 'md003---heading-style'],
  );
  assert.deepEqual(
    doc.blocks.map((b) => [b.sectionId, b.text, b.anchors ?? []]),
    [
      ['md001---heading-levels-should-only-increment-by-one-level-at-a-time', 'Aliases: heading-increment', [{ id: 'md001', start: 0 }]],
      [
        'md003---heading-style',
        'See the note on styles.',
        [
          { id: 'md003', start: 0 },
          { id: 'style-note', start: 8 },
        ],
      ],
      ['md003---heading-style', 'Raw HTML text.', [{ id: 'raw', start: 0 }]],
    ],
  );
});

test('definition lists of kramdown-rfc and mmark drafts are definition lists; elsewhere a colon line is text', async () => {
  const mmark = `%%%
title = "The Evil Bit"
%%%

# Syntax

0x0:
:   If the bit is set to 0, the packet has no evil intent.  Hosts
    **SHOULD** assume that the packet is harmless.

0x1:
:   If the bit is set to 1, the packet has evil intent [@RFC3514].
`;
  const m = await extractBytes(mmark, 'https://github.com/mmarkdown/mmark/blob/main/rfc/3514.md', 'text/markdown');
  assert.deepEqual(
    m.blocks.map((b) => [b.kind, b.text, b.entries]),
    [
      [
        'definition-list',
        '0x0:\nIf the bit is set to 0, the packet has no evil intent. Hosts SHOULD assume that the packet is harmless.',
        [
          {
            terms: ['0x0:'],
            definitions: ['If the bit is set to 0, the packet has no evil intent. Hosts SHOULD assume that the packet is harmless.'],
          },
        ],
      ],
      [
        'definition-list',
        '0x1:\nIf the bit is set to 1, the packet has evil intent [RFC3514].',
        [{ terms: ['0x1:'], definitions: ['If the bit is set to 1, the packet has evil intent [RFC3514].'] }],
      ],
    ],
  );
  const kramdown = '---\ndocname: draft-example-terms-00\n---\n\n# Terms\n\nGadget\nWidget\n: A device.\n: Or a tool.\n';
  const k = await extractBytes(kramdown, 'https://github.com/example/terms/blob/main/draft-example-terms.md', 'text/markdown');
  assert.deepEqual(k.blocks[0]!.entries, [{ terms: ['Gadget', 'Widget'], definitions: ['A device.', 'Or a tool.'] }]);
  const readme = await extractBytes(
    '# Usage\n\nRun it\n: and wait.\n',
    'https://github.com/example/tool/blob/main/README.md',
    'text/markdown',
  );
  assert.deepEqual(
    readme.blocks.map((b) => [b.kind, b.text]),
    [['paragraph', 'Run it : and wait.']],
    'GitHub shows a colon line as text',
  );
});

test("GitHub's footnotes: references numbered as first referenced, definitions are informative notes cited at #fn-label", async () => {
  const explainer = `# Cookie Store

Cookies expire[^expiry] and are partitioned[^1].
Only [^undefined] stays text.

## Notes

[^1]: Partitioned by top-level site,
continued on the next line.
[^expiry]: See RFC 6265.

## After
`;
  const doc = await extractBytes(explainer, 'https://github.com/WICG/cookie-store/blob/main/explainer.md', 'text/markdown');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.sectionId, b.text, b.normativity, b.anchors ?? []]),
    [
      ['paragraph', 'cookie-store', 'Cookies expire[1] and are partitioned[2]. Only [^undefined] stays text.', 'informative', []],
      ['note', 'notes', '[2] Partitioned by top-level site, continued on the next line.', 'informative', [{ id: 'fn-1', start: 0 }]],
      ['note', 'notes', '[1] See RFC 6265.', 'informative', [{ id: 'fn-expiry', start: 0 }]],
    ],
  );
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Cookie Store', 'Notes', 'After'],
  );
});

test('a kramdown-rfc draft has the section numbers of its rendering, and its cross-references read "Section 2"', async () => {
  const draft = `---
title: CDN Loop Prevention
docname: draft-ietf-httpbis-cdn-loop-latest
---

--- abstract

This document defines the CDN-Loop request header field.

--- middle

# Introduction

Loops can be an attack vector (e.g., see {{loop-attack}} and {{vectors}}).

## Relationship to Via

Via is defined in {{!RFC7230}}.

# The CDN-Loop Request Header Field {#header}

CDNs SHOULD add a value.

# Security Considerations

CDNs cannot allow it to be modified (see {{header}}; thanks in {{acks}}).

--- back

# Acknowledgments {#acks}
{:numbered="false"}

Thanks.

# Test Vectors {#vectors}

## Simple

Vectors.
`;
  const doc = await extractBytes(
    draft,
    'https://github.com/httpwg/http-extensions/blob/main/draft-ietf-httpbis-cdn-loop.md',
    'text/markdown',
  );
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.heading]),
    [
      [null, 'Abstract'],
      ['1', 'Introduction'],
      ['1.1', 'Relationship to Via'],
      ['2', 'The CDN-Loop Request Header Field'],
      ['3', 'Security Considerations'],
      [null, 'Acknowledgments'],
      ['A', 'Test Vectors'],
      ['A.1', 'Simple'],
    ],
  );
  assert.equal(doc.blocks[1]!.text, 'Loops can be an attack vector (e.g., see [loop-attack] and Appendix A).');
  assert.equal(doc.blocks[4]!.text, 'CDNs cannot allow it to be modified (see Section 2; thanks in "Acknowledgments").');
});

test('a heading inside a quote opens no section but takes its GitHub id, so a later heading of that text is "-1"', async () => {
  const doc = await extractBytes(
    '# Guide\n\n> ## Example\n> Quoted.\n\n## Example\n\nOwn.\n',
    'https://github.com/example/guide/blob/main/README.md',
    'text/markdown',
  );
  assert.deepEqual(
    doc.sections.map((s) => s.fragment),
    ['guide', 'example-1'],
    "github.com slugs every heading of the page (html-pipeline's table of contents filter), quoted ones too",
  );
});

test('an mmark draft is numbered as rendered too: (#id) and [](#id) read "Section 2", citations as [RFC2119]', async () => {
  const draft = `%%%
title = "The Evil Bit"
%%%

.# Abstract

See (#syntax).

{mainmatter}

# Introduction

The bit is laid out in [](#syntax); (#nowhere) stays as written.

# Syntax {#syntax}

> # Quoted

Bits.

{backmatter}

# Test Vectors
`;
  const doc = await extractBytes(draft, 'https://github.com/mmarkdown/mmark/blob/main/rfc/3514.md', 'text/markdown');
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.heading]),
    [
      [null, 'Abstract'],
      ['1', 'Introduction'],
      ['2', 'Syntax'],
      ['A', 'Test Vectors'],
    ],
    'a quoted heading takes no number',
  );
  assert.deepEqual(
    doc.blocks.slice(0, 2).map((b) => b.text),
    ['See Section 2.', 'The bit is laid out in Section 2; (#nowhere) stays as written.'],
  );
});

/**
 * A family's defaults describe what it publishes, and the standards families do not publish in plain
 * Markdown: an explainer or README on their hosts (a W3C community group's github.io, whatwg.org) is an
 * informative document, not a normative specification. A draft whose front matter declares a tool the
 * family reads (kramdown-rfc on an IETF host) keeps the family's defaults; so does a manifest's authority.
 */
test('plain Markdown on a standards host is an informative document; a kramdown-rfc draft keeps its family', async () => {
  for (const url of ['https://wicg.github.io/storage-buckets/explainer.md', 'https://html.spec.whatwg.org/dev/README.md']) {
    const doc = await extractBytes(EXPLAINER, url, 'text/markdown');
    assert.deepEqual([doc.authority, doc.documentType], ['informative', 'document'], url);
    assert.ok(
      doc.blocks.every((block) => block.normativity !== 'normative'),
      `${url}: ${doc.blocks.filter((b) => b.normativity === 'normative').length} normative blocks`,
    );
  }
  const draft = readFileSync(path.join(fixturesDir, 'kramdown-rfc-draft.md'), 'utf8');
  const onIetfHost = await extractBytes(draft, 'https://httpwg.org/http-extensions/draft-example-gadget-transfer.md', 'text/markdown');
  assert.deepEqual([onIetfHost.family, onIetfHost.authority, onIetfHost.documentType], ['ietf-draft', 'normative', 'internet-draft']);
  // A manifest's authority is taken as stated; the document is still an explainer, not a specification.
  const stated = await extractBytes(EXPLAINER, 'https://w3c.github.io/gadget/explainer.md', 'text/markdown', { authority: 'normative' });
  assert.deepEqual([stated.authority, stated.documentType], ['normative', 'document']);
  // A workspace's own family is taken at its word: its Markdown specifications are what it says.
  const generic = loadFamilies().find((family) => family.rules.id === 'generic')!;
  const acme: LoadedFamily = {
    rules: {
      ...generic.rules,
      id: 'acme',
      match: { hosts: ['specs.acme.test'], hostSuffixes: [] },
      defaults: { authority: 'normative', documentType: 'specification', extractor: 'html' },
    },
    file: 'acme.json',
    workspaceFile: 'my-rules/acme.json',
  };
  const url = 'https://specs.acme.test/widget.md';
  const bytes = new TextEncoder().encode(EXPLAINER);
  const own = await extractDocument({
    documentId: 'doc-test',
    source: { url },
    snapshot: snapshotFor(url, 'text/markdown', bytes),
    body: bytes,
    options: DEFAULT_EXTRACT_OPTIONS,
    families: [acme],
  });
  assert.deepEqual([own.family, own.authority, own.documentType], ['acme', 'normative', 'specification']);
});
