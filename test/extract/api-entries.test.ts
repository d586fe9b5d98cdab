import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { seededRandom } from '../helpers/random.js';
import { nameOfSignature } from '../../src/extract/html/sections.js';
import { chunkDocument } from '../../src/chunk/chunker.js';
import { citedFragment } from '../../src/query/citation-choice.js';

/**
 * API entries written as definition lists (Sphinx's `dl.py > dt.sig-object[id]`, older Sphinx's
 * `dt[id]` holding a `.descname`) are subsections of the section around them, headed by the name
 * their signature declares; and an empty `<a name>` between or inside blocks (SQLite's pages, one per
 * entry they print without a heading) opens a passage the blocks after it cite. On a host no family
 * names, so the generic rules read them.
 */
const URL = 'https://docs.example.test/library/cookies.html';

/** The fragment of the first block whose text starts with `start`. */
function fragmentAt(doc: Awaited<ReturnType<typeof extractBytes>>, start: string): string | null | undefined {
  return doc.blocks.find((b) => b.text.startsWith(start))?.fragment;
}

const SPHINX =
  '<!doctype html><title>cookies</title><div class="body" role="main"><section id="morsel-objects"><h2>Morsel Objects' +
  '<a class="headerlink" href="#morsel-objects">¶</a></h2><p>Morsels hold one cookie.</p>' +
  '<dl class="py class"><dt class="sig sig-object py" id="cookies.Morsel"><em class="property"><span class="pre">class</span> </em>' +
  '<span class="sig-prename descclassname">cookies.</span><span class="sig-name descname">Morsel</span>' +
  '<span class="sig-paren">(</span><em class="sig-param">key</em><span class="sig-paren">)</span>' +
  '<a class="headerlink" href="#cookies.Morsel" title="Permalink to this definition">¶</a></dt>' +
  '<dd><p>Abstract a key/value pair.</p>' +
  '<dl class="py method"><dt class="sig sig-object py" id="cookies.Morsel.set"><span class="sig-name descname">set</span>' +
  '<span class="sig-paren">(</span><em class="sig-param">key</em>, <em class="sig-param">value</em><span class="sig-paren">)</span>' +
  '<a class="headerlink" href="#cookies.Morsel.set">¶</a></dt><dd><p>Set the key and the value.</p></dd></dl>' +
  '<p>Morsels compare by key and value.</p></dd></dl>' +
  '<dl class="py data"><dt class="sig sig-object py" id="cookies.S"><span class="sig-name descname">cookies.S</span></dt>' +
  '<dt class="sig sig-object py" id="cookies.DOTALL"><span class="sig-name descname">cookies.DOTALL</span></dt>' +
  '<dd><p>Make the dot match any character.</p></dd></dl>' +
  '<p>The attributes above are read-only.</p></section></div>';

test('Sphinx API entries are subsections headed by their name; a class holds its methods; the section goes on after them', async () => {
  const doc = await extractBytes(SPHINX, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading, s.alternateIds ?? []]),
    [
      [2, 'morsel-objects', 'Morsel Objects', []],
      [3, 'cookies.Morsel', 'cookies.Morsel', []],
      [4, 'cookies.Morsel.set', 'set', []],
      // A second term before the definition names the same entry: an alternate id.
      [3, 'cookies.S', 'cookies.S', ['cookies.DOTALL']],
    ],
  );
  const parentOf = (fragment: string): string | null | undefined => {
    const section = doc.sections.find((s) => s.fragment === fragment);
    return doc.sections.find((s) => s.id === section?.parentId)?.fragment;
  };
  assert.equal(parentOf('cookies.Morsel.set'), 'cookies.Morsel');
  assert.equal(parentOf('cookies.S'), 'morsel-objects');
  const block = (text: string) => doc.blocks.find((b) => b.text === text);
  const sectionOf = (text: string): string | null | undefined => doc.sections.find((s) => s.id === block(text)?.sectionId)?.fragment;
  // The whole signature is the entry's first block; the class keyword is not part of the name.
  assert.equal(sectionOf('class cookies.Morsel(key)'), 'cookies.Morsel');
  assert.equal(sectionOf('set(key, value)'), 'cookies.Morsel.set');
  for (const [text, cited] of [
    ['Morsels hold one cookie.', 'morsel-objects'],
    ['Abstract a key/value pair.', 'cookies.Morsel'],
    ['Set the key and the value.', 'cookies.Morsel.set'],
    // After the method, the class goes on; after the list, the section around it.
    ['Morsels compare by key and value.', 'cookies.Morsel'],
    ['cookies.DOTALL', 'cookies.DOTALL'],
    ['Make the dot match any character.', 'cookies.S'],
    ['The attributes above are read-only.', 'morsel-objects'],
  ] as const) {
    assert.equal(block(text)?.fragment, cited, text);
  }
  assert.equal(sectionOf('Morsels compare by key and value.'), 'cookies.Morsel');
  assert.equal(sectionOf('The attributes above are read-only.'), 'morsel-objects');
});

test('older Sphinx entries (a dt[id] holding a .descname) are entries too; a plain definition list stays one block', async () => {
  const html =
    '<!doctype html><title>json</title><div class="section" id="basic-usage">' +
    '<h2>Basic Usage<a class="headerlink" href="#basic-usage">¶</a></h2>' +
    '<dl class="function"><dt id="json.dump"><code class="descclassname">json.</code><code class="descname">dump</code>' +
    '<span class="sig-paren">(</span><em>obj</em>, <em>fp</em><span class="sig-paren">)</span></dt>' +
    '<dd><p>Serialize obj to fp.</p></dd></dl>' +
    '<dl class="simple"><dt id="glossary-term">term</dt><dd><p>A word.</p></dd></dl></div>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [2, 'basic-usage', 'Basic Usage'],
      [3, 'json.dump', 'json.dump'],
    ],
  );
  assert.equal(doc.blocks.find((b) => b.text === 'Serialize obj to fp.')?.fragment, 'json.dump');
  const list = doc.blocks.find((b) => b.kind === 'definition-list');
  assert.ok(list !== undefined, 'the glossary list is a definition-list block');
  assert.equal(doc.sections.find((s) => s.id === list.sectionId)?.fragment, 'basic-usage');
});

test('the name a signature declares is its text before the parameter list', () => {
  assert.equal(nameOfSignature('json.dump(obj, fp, *, skipkeys=False)'), 'json.dump');
  assert.equal(nameOfSignature('Pattern.match(string[, pos[, endpos]])'), 'Pattern.match');
  assert.equal(nameOfSignature('logging.basicConfig (**kwargs)'), 'logging.basicConfig');
  assert.equal(nameOfSignature('re.DOTALL'), 're.DOTALL');
  assert.equal(nameOfSignature('asyncio.TaskGroup'), 'asyncio.TaskGroup');
  assert.equal(nameOfSignature('json.tool --indent, --tab'), 'json.tool --indent, --tab');
  assert.equal(nameOfSignature('(a) not a name'), '(a) not a name');
  // Ruby's method names may end in `!` or `?`.
  assert.equal(nameOfSignature('chomp!(separator=$/) → str or nil'), 'chomp!');
  assert.equal(nameOfSignature('casecmp?(other_string) → true, false, or nil'), 'casecmp?');
  assert.equal(nameOfSignature('string =~ regexp → integer or nil'), 'string =~ regexp → integer or nil');
});

test('an empty <a name> opens a passage: the blocks after it cite it, up to the next one or the next heading', async () => {
  // SQLite's pragma page: each entry is an anchor, a hidden title and a rule, then paragraphs; its
  // paragraphs are never closed, so the anchor of the next entry is inside the last paragraph of this one.
  const html =
    '<!doctype html><title>Pragmas</title><h2 id="pragmas">List Of PRAGMAs</h2><p>Pragmas modify the library.' +
    '<a name="pragma_busy_timeout"></a>\n<h _id=pragma_busy_timeout style="display:none"> PRAGMA busy_timeout</h><hr>' +
    '<p><b>PRAGMA busy_timeout = </b><i>milliseconds</i>' +
    '<p>Query or change the setting of the busy timeout.' +
    '<a name="pragma_cache_size"></a>\n<h _id=pragma_cache_size style="display:none"> PRAGMA cache_size</h><hr>' +
    '<p>Query or change the suggested cache size.' +
    '<span id="index-7"></span><p>Still the cache size.' +
    '<a name="index-8"></a><p>Again the cache size.' +
    '<h2 id="notes">Notes</h2><p>Not in any pragma.</p>';
  const doc = await extractBytes(html, URL, 'text/html');
  const citedAt = (start: string): string | null | undefined => fragmentAt(doc, start);
  assert.equal(citedAt('Pragmas modify the library.'), 'pragmas', 'the block holding the anchor is before it');
  assert.equal(citedAt('PRAGMA busy_timeout = milliseconds'), 'pragma_busy_timeout');
  assert.equal(citedAt('Query or change the setting of the busy timeout.'), 'pragma_busy_timeout');
  assert.equal(citedAt('Query or change the suggested cache size.'), 'pragma_cache_size');
  // A generated id (an index entry's) opens no passage, an empty span is no <a name>.
  assert.equal(citedAt('Still the cache size.'), 'pragma_cache_size');
  assert.equal(citedAt('Again the cache size.'), 'pragma_cache_size');
  assert.equal(citedAt('Not in any pragma.'), 'notes', 'a heading ends the passage');
});

test('an <a name> holding the text a block starts with opens a passage too; one inside the text does not', async () => {
  // LAME's option reference: each option is a title paragraph whose name is an <a name> with text,
  // then a table and paragraphs about it, all inside one <div id="content">.
  const html =
    '<!doctype html><title>LAME</title><h2>Detailed description</h2><div id="content">' +
    '<p class="settingtitle"><a name="lowpass"><span class="hilight">--lowpass freq</span></a> Frequency cutoff</p>' +
    '<p>Set a lowpass filtering frequency.</p>' +
    '<p class="settingtitle"><a name="m"><span class="hilight">-m x</span></a> Channel modes</p>' +
    '<table><tr><td>-m j</td><td>joint stereo</td></tr></table><p>Joint stereo switches between L/R and M/S.</p>' +
    '<p>See also <a name="term-ms">mid/side</a> coding.</p><p>After the term.</p></div>';
  const doc = await extractBytes(html, URL, 'text/html');
  const citedAt = (start: string): string | null | undefined => fragmentAt(doc, start);
  assert.equal(citedAt('Set a lowpass filtering frequency.'), 'lowpass');
  assert.equal(citedAt('-m j'), 'm');
  assert.equal(citedAt('Joint stereo switches'), 'm');
  // A name inside a sentence is a term's, not a place's: the passage goes on.
  assert.equal(citedAt('After the term.'), 'm');
});

test('generated pages of anchors: a block cites the last place opened before it (an empty anchor, or a named one at a start)', async () => {
  const random = seededRandom(77);
  for (let page = 0; page < 150; page++) {
    // One element with an id around every block (LAME's <div id="content">): a passage is nearer.
    let html = '<!doctype html><title>t</title><h2 id="s">S</h2><div id="box">';
    const expected: { text: string; cited: string }[] = [];
    let open = 'box';
    const count = 2 + Math.floor(random() * 10);
    for (let k = 0; k < count; k++) {
      const text = `Block ${k} says this.`;
      const id = `p${page}-${k}`;
      const kind = Math.floor(random() * 5);
      expected.push({ text, cited: open });
      if (kind === 0) html += `<p>${text}</p>`;
      else if (kind === 1) html += `<p><a name="${id}">Option ${k}</a> ${text}</p>`;
      else if (kind === 2) html += `<p><a name="${id}"></a>${text}</p>`;
      else if (kind === 3) html += `<p>${text.slice(0, 6)}<a name="${id}"></a>${text.slice(6)}</p>`;
      else html += `<p>${text.slice(0, 6)}<a name="${id}">term</a>${text.slice(6)}</p>`;
      // Every kind but a plain paragraph and a name inside a sentence opens a passage for what follows.
      if (kind >= 1 && kind <= 3) open = id;
    }
    html += '</div>';
    const doc = await extractBytes(html, URL, 'text/html');
    for (const { text, cited } of expected) {
      const block = doc.blocks.find((b) => b.text.replace('Option ', '').replace('term', '').includes(text.slice(6)));
      assert.equal(block?.fragment, cited, `page ${page}: ${text} in ${html}`);
    }
  }
});

test('an element with an id of its own after the anchor is nearer than the passage', async () => {
  const html =
    '<!doctype html><title>t</title><h2 id="s">S</h2><p><a name="old-entry"></a>Entry text.</p>' +
    '<div id="box"><p>In the box.</p></div><p>After the box.</p>';
  const doc = await extractBytes(html, URL, 'text/html');
  const citedAt = (text: string): string | null | undefined => doc.blocks.find((b) => b.text === text)?.fragment;
  assert.equal(citedAt('In the box.'), 'box');
  assert.equal(citedAt('After the box.'), 'old-entry');
});

test('generated pages of nested Sphinx entries: every paragraph is in, and cites, the innermost entry around it', async () => {
  const random = seededRandom(32);
  for (let page = 0; page < 150; page++) {
    let n = 0;
    const expected: { text: string; cited: string }[] = [];
    const entries: { id: string; parent: string; alternate?: string }[] = [];
    const paragraph = (around: string): string => {
      const text = `P${n++}`;
      expected.push({ text, cited: around });
      return `<p>${text}</p>`;
    };
    // Paragraphs and entry lists in any order; an entry's definition holds the same, two levels deep at most.
    const content = (around: string, depth: number): string => {
      let html = '';
      for (let k = Math.floor(random() * 4); k >= 0; k--) {
        if (depth < 3 && random() < 0.5) {
          html += '<dl class="py method">';
          for (let e = Math.floor(random() * 3); e >= 0; e--) {
            const id = `m.e${n++}`;
            const alternate = random() < 0.3 ? `${id}b` : undefined;
            entries.push({ id, parent: around, ...(alternate === undefined ? {} : { alternate }) });
            html += `<dt class="sig sig-object py" id="${id}">${id}(x)</dt>`;
            if (alternate !== undefined) html += `<dt class="sig sig-object py" id="${alternate}">${alternate}</dt>`;
            html += `<dd>${content(id, depth + 1)}</dd>`;
          }
          html += '</dl>';
        } else html += paragraph(around);
      }
      return html;
    };
    const body = content('s', 0) + paragraph('s');
    const doc = await extractBytes(
      `<!doctype html><title>t</title><h2 id="s">S</h2>${body}<h2 id="t">T</h2><p>After.</p>`,
      URL,
      'text/html',
    );
    const byFragment = new Map(doc.sections.map((s) => [s.fragment, s]));
    const byId = new Map(doc.sections.map((s) => [s.id, s]));
    for (const entry of entries) {
      const section = byFragment.get(entry.id);
      assert.ok(section !== undefined, `page ${page}: entry ${entry.id} is a section`);
      assert.equal(byId.get(section.parentId ?? '')?.fragment, entry.parent, `page ${page}: ${entry.id} is under ${entry.parent}`);
      assert.equal(section.level, byId.get(section.parentId!)!.level + 1);
      assert.deepEqual(section.alternateIds ?? [], entry.alternate === undefined ? [] : [entry.alternate]);
    }
    for (const { text, cited } of expected) {
      const block = doc.blocks.find((b) => b.text === text);
      assert.equal(block?.fragment, cited, `page ${page}: ${text} cites ${cited}`);
      assert.equal(byId.get(block!.sectionId ?? '')?.fragment, cited, `page ${page}: ${text} is in ${cited}`);
    }
    assert.equal(byId.get(doc.blocks.find((b) => b.text === 'After.')!.sectionId ?? '')?.fragment, 't', 'the next heading ends them');
  }
});

/**
 * Text written directly in a definition list of entries (between its terms, as a browser shows it, or
 * what the tree depth cap leaves there: past MAX_TREE_DEPTH an element's text attaches to the element at
 * the cap, so 300 nested `dl > dd` of Texinfo index entries leave the deeper terms' names and paragraphs as
 * text of a `<dl>`) is a paragraph of the entry it follows, as a plain definition list keeps it.
 */
test('text directly in a definition list of entries is kept, also past the tree depth cap', async () => {
  const texinfo = (body: string): string =>
    '<!doctype html><html><head><title>Vars</title><meta name="Generator" content="makeinfo"></head><body>' +
    `<h3 class="section" id="V">Vars</h3>${body}</body></html>`;
  const stray = await extractBytes(
    texinfo(
      '<dl>Stray words before the first term.<dt><a name="index-HOME"></a><code>HOME</code><dd>The home folder.' +
        '<dt><a name="index-PATH"></a><code>PATH</code></dt>Words between <code>PATH</code> and its definition.<dd>The search path.</dl>',
    ),
    'https://www.gnu.org/software/widget/manual/vars.html',
    'text/html',
  );
  const cited = (text: string): string | null | undefined => stray.blocks.find((b) => b.text === text)?.fragment;
  assert.equal(cited('Stray words before the first term.'), 'V');
  assert.equal(cited('The home folder.'), 'index-HOME');
  assert.equal(cited('Words between PATH and its definition.'), 'index-PATH');
  assert.equal(cited('The search path.'), 'index-PATH');

  const depth = 300;
  let nested = '';
  for (let i = 0; i < depth; i++) nested += `<dl><dt id="index-D${i}">Name${i}</dt><dd><p>Depth${i} text.</p>`;
  nested += '</dd></dl>'.repeat(depth);
  const deep = await extractBytes(texinfo(nested), 'https://www.gnu.org/software/widget/manual/deep.html', 'text/html');
  const text = deep.blocks.map((b) => b.text).join('\n');
  const lost = [];
  for (let i = 0; i < depth; i++) if (!text.includes(`Depth${i} text.`)) lost.push(i);
  assert.deepEqual(lost, [], 'every paragraph is in the document');
});

test('a Texinfo term without an index entry after an entry is not text of that entry: the section around the list cites it', async () => {
  const doc = await extractBytes(
    '<!doctype html><html><head><title>M</title><meta name="Generator" content="makeinfo"></head><body>' +
      '<span id="Options"></span><h3 class="section">2 Options</h3><dl compact="compact">' +
      '<dt id="index-_002d_002dspeed"><span><code>--speed</code></span></dt><dd><p>Set the spin speed.</p></dd>' +
      '<dt><code>--verbose</code></dt><dd><p>Say more while spinning.</p></dd>' +
      '<dt id="index-_002d_002dquiet"><code>--quiet</code></dt><dt><code>-q</code></dt><dd><p>Say nothing.</p></dd></dl>' +
      '<p>Options may be combined.</p></body></html>',
    'https://www.gnu.org/software/widget/manual/options.html',
    'text/html',
  );
  const byId = new Map(doc.sections.map((s) => [s.id, s]));
  const at = (text: string): [string | null | undefined, string | null | undefined] => {
    const block = doc.blocks.find((b) => b.text === text);
    return [block?.fragment, byId.get(block?.sectionId ?? '')?.heading];
  };
  assert.deepEqual(at('Set the spin speed.'), ['index-_002d_002dspeed', '--speed']);
  assert.deepEqual(at('--verbose'), ['Options', 'Options']);
  assert.deepEqual(at('Say more while spinning.'), ['Options', 'Options']);
  // A term right after an entry's term (@itemx) is still another name of that entry.
  assert.deepEqual(at('-q'), ['index-_002d_002dquiet', '--quiet']);
  assert.deepEqual(at('Say nothing.'), ['index-_002d_002dquiet', '--quiet']);
  assert.deepEqual(at('Options may be combined.'), ['Options', 'Options']);
});

/**
 * DocBook XSL writes a variable list's entries as `dl.variablelist > dt`, the entry's id on the `<dt>`
 * (PostgreSQL's command parameters) or as an empty `<a name>` opening it (Wayland's client API, made
 * from Doxygen XML): each such entry is a subsection headed by its term, its synopsis and text inside
 * it; a nested list of parameters (no id) stays a block of the entry, and after the list the section
 * around it goes on.
 */
const DOCBOOK =
  '<!doctype html><html><head><title>Client API</title><meta name="generator" content="DocBook XSL Stylesheets V1.79.2"></head>' +
  '<body><div class="section"><div class="titlepage"><h2 class="title"><a name="Client-classwl__display"></a>wl_display</h2></div>' +
  '<p>Represents a connection to the compositor.</p><div class="variablelist"><dl class="variablelist">' +
  '<dt><a name="Client-classwl__display_1aroundtrip"></a><span class="term">wl_display_roundtrip - Block until all pending ' +
  'requests are processed by the server.</span></dt><dd>' +
  '<pre class="synopsis">int wl_display_roundtrip(struct wl_display *display)</pre><div class="variablelist">' +
  '<dl class="variablelist"><dt><span class="term">display</span></dt><dd>The display context object</dd></dl></div>' +
  '<p>This function blocks until the server has processed all currently issued requests.</p></dd>' +
  '<dt><a name="Client-classwl__display_1aflush"></a><span class="term">wl_display_flush - Send all buffered requests.</span></dt>' +
  '<dd><p>Send all buffered data on the client side to the server.</p></dd></dl></div>' +
  '<div class="variablelist"><dl class="variablelist"><dt id="SQL-CREATEINDEX-UNIQUE"><span class="term">' +
  '<code class="literal">UNIQUE</code></span></dt><dd><p>Causes the system to check for duplicate values in the table.</p></dd>' +
  '</dl></div>' +
  '<p>Events are read by the dispatch functions.</p></div></body></html>';

test('DocBook variable-list entries with an id are subsections headed by their term', async () => {
  const doc = await extractBytes(DOCBOOK, 'https://wayland.example.test/docs/html/apb.html', 'text/html');
  assert.equal(doc.family, 'docbook');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [2, 'Client-classwl__display', 'wl_display'],
      [3, 'Client-classwl__display_1aroundtrip', 'wl_display_roundtrip - Block until all pending requests are processed by the server.'],
      [3, 'Client-classwl__display_1aflush', 'wl_display_flush - Send all buffered requests.'],
      [3, 'SQL-CREATEINDEX-UNIQUE', 'UNIQUE'],
    ],
  );
  const sectionOf = (start: string): string | null | undefined => {
    const block = doc.blocks.find((b) => b.text.startsWith(start));
    return doc.sections.find((s) => s.id === block?.sectionId)?.fragment;
  };
  assert.equal(sectionOf('int wl_display_roundtrip('), 'Client-classwl__display_1aroundtrip');
  assert.equal(sectionOf('This function blocks until'), 'Client-classwl__display_1aroundtrip');
  assert.equal(sectionOf('display'), 'Client-classwl__display_1aroundtrip');
  assert.equal(sectionOf('Send all buffered data'), 'Client-classwl__display_1aflush');
  assert.equal(sectionOf('Causes the system to check'), 'SQL-CREATEINDEX-UNIQUE');
  assert.equal(sectionOf('Events are read'), 'Client-classwl__display');
});

/**
 * RDoc's Darkfish pages (docs.ruby-lang.org) write each method as `div.method-detail` with the
 * method's id on it and its call sequences in `div.method-heading`; they declare no generator but
 * load darkfish.js. Headings end in a "↑" link back to `<body id="top">`, and each method carries a
 * "click to toggle source" advice and its folded C source.
 */
const RDOC =
  '<!DOCTYPE html><html><head><title>class String - Ruby 3.1 Documentation</title>' +
  '<script src="./js/darkfish.js" defer></script><link href="./css/rdoc.css" rel="stylesheet"></head>' +
  '<body id="top" role="document" class="class"><nav role="navigation"><h3>Methods</h3><ul>' +
  '<li><a href="#method-i-chomp">#chomp</a></li></ul></nav>' +
  '<main role="main" aria-labelledby="class-String"><h1 id="class-String" class="class">class String</h1>' +
  '<section class="description"><p>A String object holds bytes.</p>' +
  '<h3 id="class-String-label-Substitution+Methods">Substitution Methods<span>' +
  '<a href="#class-String-label-Substitution+Methods">&para;</a> ' +
  '<a href="#top">&uarr;</a></span></h3><p>These methods replace text.</p></section>' +
  '<section id="public-instance-5Buntitled-5D-method-details" class="method-section"><header><h3>Public Instance Methods</h3></header>' +
  '<div id="method-i-chomp" class="method-detail "><div class="method-heading">' +
  '<span class="method-callseq">chomp(separator=$/) &rarr; new_str</span>' +
  '<span class="method-click-advice">click to toggle source</span></div>' +
  '<div class="method-description"><p>Returns a new String with the record separator removed.</p>' +
  '<div class="method-source-code" id="chomp-source">' +
  '<pre>static VALUE rb_str_chomp(int argc, VALUE *argv, VALUE str) { }</pre></div></div></div>' +
  '<div id="method-i-chomp-21" class="method-detail "><div class="method-heading">' +
  '<span class="method-callseq">chomp!(separator=$/) &rarr; str or nil</span></div>' +
  '<div class="method-heading"><span class="method-callseq">chomp! &rarr; str or nil</span></div>' +
  '<div class="method-description"><p>Modifies str in place as described for chomp.</p></div></div>' +
  '<div id="method-i-3D~" class="method-detail "><div class="method-heading">' +
  '<span class="method-callseq">string =~ regexp &rarr; integer or nil</span></div>' +
  '<div class="method-description"><p>Returns the index of the first match.</p></div></div>' +
  '<div id="attribute-i-backend" class="method-detail"><div class="method-heading attribute-method-heading">' +
  '<span class="method-name">backend</span><span class="attribute-access-type">[R]</span></div>' +
  '<div class="method-description"><p>The backend that converts the document.</p></div></div>' +
  '</section></main></body></html>';

test('RDoc methods are API entries at their own ids; back-to-top arrows, source toggles and folded source are chrome', async () => {
  const doc = await extractBytes(RDOC, 'https://docs.example.test/en/3.1/String.html', 'text/html');
  assert.equal(doc.family, 'rdoc');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [1, 'class-String', 'class String'],
      [3, 'class-String-label-Substitution+Methods', 'Substitution Methods'],
      [3, 'public-instance-5Buntitled-5D-method-details', 'Public Instance Methods'],
      [4, 'method-i-chomp', 'chomp'],
      [4, 'method-i-chomp-21', 'chomp!'],
      [4, 'method-i-3D~', 'string =~ regexp → integer or nil'],
      // An attribute is headed by its name, its access type aside.
      [4, 'attribute-i-backend', 'backend'],
    ],
  );
  const sectionOf = (start: string): string | null | undefined => {
    const block = doc.blocks.find((b) => b.text.startsWith(start));
    return doc.sections.find((s) => s.id === block?.sectionId)?.fragment;
  };
  assert.equal(sectionOf('chomp(separator=$/) → new_str'), 'method-i-chomp', "the call sequence is the entry's first block");
  assert.equal(sectionOf('Returns a new String'), 'method-i-chomp');
  assert.equal(sectionOf('chomp! → str or nil'), 'method-i-chomp-21', 'a second call sequence is a block of the entry');
  assert.equal(sectionOf('Modifies str in place'), 'method-i-chomp-21');
  const text = doc.blocks.map((b) => b.text).join('\n');
  for (const chrome of ['rb_str_chomp', 'click to toggle source', '↑', '#chomp'])
    assert.ok(!text.includes(chrome) && !doc.sections.some((s) => s.heading.includes(chrome)), `${chrome} is chrome`);
});

test('an arrow linking back to the top of the page is chrome on any page', async () => {
  const page =
    '<!doctype html><title>Guide</title><body><h1>Guide</h1>' +
    '<h2 id="install">Install <a href="#top">↑</a></h2><p>Run the installer.</p>' +
    '<h2 id="usage">Usage <a href="#">⬆</a></h2><p>Run it.</p>' +
    '<h2 id="next">Next <a href="#usage">↑</a></h2><p>An arrow to another place is a link, kept.</p></body>';
  const doc = await extractBytes(page, 'https://docs.example.test/guide.html', 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Guide', 'Install', 'Usage', 'Next ↑'],
  );
});

test('of several marks at one place, the first names it in Texinfo (its index entries before a term); elsewhere the last', async () => {
  // texi2any writes an option's index entries as empty spans at the end of the definition before its
  // term, the primary one first; a term whose elements with text hold ids (a `<span id>` around a
  // `<code id>`) is cited by the innermost. Other pages write a numbered mark before a descriptive one
  // (Chez Scheme's `<a name="./smgmt:s26"></a><a name="desc:ephemeron-cons"></a>`): the last names the place.
  const marks = (names: string[]): string => names.map((name) => `<span id="${name}"></span>`).join('\n');
  const html =
    '<!doctype html><html><head><title>Options</title><meta name="Generator" content="texi2any"></head><body>' +
    '<h3 class="subsection" id="History">History</h3><dl compact="compact">' +
    `<dd>${marks(['index-APPEND_005fHISTORY', 'index-NO_005fAPPEND_005fHISTORY', 'index-history_002c-appending'])}</dd>` +
    '<dt><span><tt>APPEND_HISTORY</tt> &lt;D&gt;</span></dt><dd><p>Sessions append their history list to the file.</p>' +
    `${marks(['index-SHARE_005fHISTORY', 'index-NO_005fSHARE_005fHISTORY', 'index-share-history', 'index-history_002c-sharing'])}</dd>` +
    '<dt><span><tt>SHARE_HISTORY</tt> &lt;K&gt;</span></dt><dd><p>This option both imports new commands and appends.</p></dd>' +
    '<dt><span id="bang-hist"><code id="opt-bang">BANG_HIST</code></span></dt><dd><p>Perform textual history expansion.</p></dd>' +
    '</dl></body></html>';
  const texinfo = await extractBytes(html, 'https://zsh.example.test/Options.html', 'text/html');
  const other = await extractBytes(html.replace('texi2any', 'a-site-generator'), 'https://zsh.example.test/Options.html', 'text/html');
  assert.equal(texinfo.family, 'texinfo');
  assert.notEqual(other.family, 'texinfo');
  // Small pieces, so each entry's text is cut on its own and cited by the id in force at its term.
  for (const [doc, maxChars] of [60, 80, 1200].flatMap((max) => [[texinfo, max] as const, [other, max] as const])) {
    const first = doc === texinfo;
    for (const chunk of chunkDocument(doc, { maxChars, overlapChars: 0 })) {
      for (const [term, id] of [
        ['APPEND_HISTORY <D>', first ? 'index-APPEND_005fHISTORY' : 'index-history_002c-appending'],
        ['SHARE_HISTORY <K>', first ? 'index-SHARE_005fHISTORY' : 'index-history_002c-sharing'],
        ['BANG_HIST', 'opt-bang'],
      ] as const) {
        const at = chunk.text.indexOf(term);
        if (at < 0 || (at > 0 && chunk.text[at - 1] !== '\n')) continue;
        assert.equal(citedFragment(chunk.anchors ?? null, chunk.citation.fragment, at, null, chunk.text), id, `${maxChars}: ${term}`);
      }
    }
  }
});
