import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * The HTML Standard is rendered by Wattsi, not Bikeshed: its IDL blocks are `<pre><code class="idl">`
 * (Bikeshed writes `<pre class="idl">`), the multipage edition opens and ends each page with a
 * `<nav>` of previous/next links, and its 2018-2020 editions carried MDN (`aside.mdn`) and caniuse
 * (`div.status`) support boxes after headings and inside paragraphs. Those boxes and links are the
 * page's chrome, not the standard's text.
 */

// As Wattsi rendered multipage/webstorage.html in October 2018 (abridged).
const wattsi = `<!DOCTYPE html><html class=split lang=en-US-x-hixie><meta charset=utf-8><title>HTML Standard</title><body>
  <header id=head class="head with-buttons">
   <hgroup><h1 class=allcaps>HTML</h1><h2 id=living-standard class="no-num no-toc">Living Standard — Last Updated <span
   class=pubdate>21 October 2018</span></h2></hgroup>
  </header>
  <nav><a href=workers.html>← 10 Web workers</a> — <a href=./>Table of Contents</a> — <a
   href=syntax.html>12 The HTML syntax →</a></nav>
  <h2 id=webstorage><span class=secno>11</span> Web storage<a href=#webstorage class=self-link></a></h2><aside class=mdn><input
   onclick=toggleStatus(this) value=⋰ type=button><div><b>MDN</b> <details><summary><a
   href=https://developer.mozilla.org/en-US/docs/Web/API/Web_Storage_API>Web_Storage_API</a></summary><p class=mdnsupport><span
   class="chrome yes"><span>Chrome</span><span>4+</span></span></details></div></aside>
  <h3 id=storage><span class=secno>11.2</span> The API<a href=#storage class=self-link></a></h3><div class=status><input
   onclick=toggleStatus(this) value=⋰ type=button><p class=support><strong>Support:</strong> namevalue-storage<span
   class="chrome yes"><span>Chrome</span> <span>4+</span></span><p class=caniuse>Source: <a
   href="https://caniuse.com/#feat=namevalue-storage">caniuse.com</a></div>
  <pre><code class='idl'>[<c- g>Exposed</c->=<c- n>Window</c->]
<c- b>interface</c-> <dfn id='storage-2'><c- g>Storage</c-></dfn> {
  <c- b>void</c-> <a href='#dom-storage-clear' id='the-storage-interface:dom-storage-clear'><c- g>clear</c-></a>();
};</code></pre>
  <pre><code
   class='js'><c- k>if</c-> <c- p>(</c->sessionStorage<c-
   p>.</c->insurance<c- p>)</c-> <c- p>{</c-> <c- p>...</c-> <c- p>}</c-></code></pre>
  <p>The <dfn id=dom-storage-clear><code>clear()</code></dfn> method must atomically cause the
  list associated with the object to be emptied of all key/value pairs.<aside class=mdn><input onclick=toggleStatus(this)
   value=⋰ type=button><div><b>MDN</b> <details><summary><a
   href=https://developer.mozilla.org/en-US/docs/Web/API/Storage/clear>Storage/clear</a></summary></details></div></aside>
  <nav><a href=workers.html>← 10 Web workers</a> — <a href=./>Table of Contents</a> — <a
   href=syntax.html>12 The HTML syntax →</a></nav>
</body></html>`;

test('whatwg: the HTML Standard (Wattsi) gives its IDL as IDL and leaves out support boxes and page navigation', async () => {
  const doc = await extractBytes(wattsi, 'https://html.spec.whatwg.org/multipage/webstorage.html', 'text/html');
  assert.equal(doc.family, 'whatwg');
  assert.deepEqual(
    doc.blocks.map((b) => [b.sectionId, b.kind, b.text.split('\n')[0]]),
    [
      ['storage', 'idl', '[Exposed=Window]'],
      ['storage', 'code', 'if (sessionStorage.insurance) { ... }'],
      [
        'storage',
        'paragraph',
        'The clear() method must atomically cause the list associated with the object to be emptied of all key/value pairs.',
      ],
    ],
  );
  assert.equal(doc.blocks[0]!.text, '[Exposed=Window]\ninterface Storage {\n  void clear();\n};');
  assert.deepEqual(
    doc.sections.map((s) => [s.id, s.number, s.heading]),
    [
      ['~s1', null, 'HTML'],
      ['living-standard', null, 'Living Standard — Last Updated 21 October 2018'],
      ['webstorage', '11', 'Web storage'],
      ['storage', '11.2', 'The API'],
    ],
  );
});

// A Bikeshed inline IDL reference is <code class="idl"> inside running text, never a block.
test('whatwg: an inline <code class="idl"> in a paragraph stays in its paragraph', async () => {
  const html = `<!DOCTYPE html><title>T</title><body><h2 id=a>A</h2>
<p>Call <code class="idl"><a href="#dom-x">x()</a></code> first.</p></body>`;
  const doc = await extractBytes(html, 'https://html.spec.whatwg.org/', 'text/html');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text]),
    [['paragraph', 'Call x() first.']],
  );
});
