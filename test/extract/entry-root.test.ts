import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * An element that holds one API entry (entryBlockSelectors) is never the extraction root: the erlang
 * family's root selectors name `article`, and erl_docgen writes each function as an `article.func`, so
 * a module page of one function was read as that function alone (its description, the module's heading
 * and every block outside the function dropped). Side-by-side articles named no root already.
 */
test('erl_docgen: a module page of one function is read whole, the function an entry', async () => {
  const html =
    '<html xmlns:erl="http://erlang.org"><head><title>Erlang -- onefun</title></head><body><div id="container">' +
    '<div id="content"><div class="innertube"><center><h1>onefun</h1></center></div>' +
    '<div class="innertube"><h3 id="description" class="title-link">Description</h3><p>The module compresses data.</p></div>' +
    '<div class="innertube"><h3 id="export" class="title-link">Exports</h3></div><div class="exports-body"><article class="func">' +
    '<h4 id="z-1" class="bold_code title-link func-head"><span class="title-name">z(Data) -&gt; ok</span></h4>' +
    '<div class="exports-tube"><div class="REFBODY rb-7"><p>Compresses.</p></div></div></article></div>' +
    '<div class="footer"><p>Copyright</p></div></div></div></body></html>';
  const doc = await extractBytes(html, 'https://www.erlang.org/doc/man/onefun.html', 'text/html');
  assert.equal(doc.family, 'erlang');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading, s.level]),
    [
      [null, 'onefun', 1],
      ['description', 'Description', 3],
      ['export', 'Exports', 3],
      ['z-1', 'z(Data) -> ok', 4],
    ],
  );
  assert.deepEqual(
    doc.blocks.map((b) => [b.text, b.fragment]),
    [
      ['The module compresses data.', 'description'],
      ['Compresses.', 'z-1'],
    ],
  );
});

test('a lone <article> that is no API entry is still the root (generic family)', async () => {
  const html = '<!DOCTYPE html><html><body><p>Site banner.</p><article><h1>Post</h1><p>Body.</p></article></body></html>';
  const doc = await extractBytes(html, 'https://blog.example.test/post', 'text/html');
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['Body.'],
  );
});
