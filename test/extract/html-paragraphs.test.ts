import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type AnyNode, isTag, isText } from 'domhandler';
import { parseHtml } from '../../src/extract/html/html-extractor.js';
import { extractBytes } from './helpers.js';

/**
 * The HTML standard's "close a p element": a block start tag closes an open `<p>` in button scope,
 * not only a `<p>` that is the current node (htmlparser2's rule), so a paragraph left open around an
 * inline element no longer swallows the lists, paragraphs and tables after it.
 */

/** Element names and text, nested as in the tree (no indices), without recursion. */
function tree(nodes: AnyNode[]): string {
  const out: string[] = [];
  const stack: (AnyNode | string)[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') out.push(node);
    else if (isText(node)) out.push(node.data);
    else if (isTag(node)) {
      out.push(`<${node.name}>`);
      stack.push(`</${node.name}>`);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return out.join('');
}

const body = (html: string): string => tree(parseHtml(html).document.children);

test('a block start tag closes the <p> in button scope, with the inline elements open in it', () => {
  assert.equal(body('<p>a<span>b<div>c</div>d'), '<p>a<span>b</span></p><div>c</div>d');
  assert.equal(body('<p>a<em><b>b<ul><li>c</ul>'), '<p>a<em><b>b</b></em></p><ul><li>c</li></ul>');
  assert.equal(body('<p>a<h2>b</h2>'), '<p>a</p><h2>b</h2>');
  assert.equal(body('<p>a<table><tr><td>b</table>'), '<p>a</p><table><tbody><tr><td>b</td></tr></tbody></table>');
});

test('<li>, <dd> and <dt> close an open <p> too (after closing the open item)', () => {
  assert.equal(body('<ul><li><p>a<li>b</ul>'), '<ul><li><p>a</p></li><li>b</li></ul>');
  assert.equal(body('<p>a<li>b'), '<p>a</p><li>b</li>');
  assert.equal(body('<dl><dt><p>a<dd>b</dl>'), '<dl><dt><p>a</p></dt><dd>b</dd></dl>');
});

test('a scope boundary between the <p> and the current node keeps the <p> open', () => {
  assert.equal(body('<p>a<button><div>b</div></button>c</p>'), '<p>a<button><div>b</div></button>c</p>');
  assert.equal(body('<p>a<object><div>b</div></object>c</p>'), '<p>a<object><div>b</div></object>c</p>');
  // A <p> in a cell closes at a block inside that cell, and the cell stays.
  assert.equal(
    body('<table><tr><td><p>a<span>b<div>c</div></table>'),
    '<table><tbody><tr><td><p>a<span>b</span></p><div>c</div></td></tr></tbody></table>',
  );
  // A <p> outside the table is not in scope from inside a cell.
  assert.equal(body('<p>a<table><tr><td>b<div>c'), '<p>a</p><table><tbody><tr><td>b<div>c</div></td></tr></tbody></table>');
});

test('inline content keeps the <p> open, as before', () => {
  assert.equal(body('<p>a<span>b</span><img>c<p>d'), '<p>a<span>b</span><img></img>c</p><p>d</p>');
});

test('a paragraph left open around a link no longer swallows the list, paragraph and table after it', async () => {
  const doc = await extractBytes(
    '<!doctype html><title>t</title><h2 id="s">S</h2><p>See <a href="#x">this and<ul><li>one<li>two</ul>' +
      '<p>Note <em>this<table><tr><td>cell</table>',
    'https://example.org/t.html',
    'text/html',
  );
  assert.deepEqual(
    doc.blocks.filter((b) => b.sectionId === 's').map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'See this and'],
      ['list', '- one\n- two'],
      ['paragraph', 'Note this'],
      ['table', 'cell'],
    ],
  );
});

test('hostile nesting stays linear: an open <p> under 100,000 inline elements, then 100,000 blocks', () => {
  const levels = 100_000;
  const started = performance.now();
  const { cappedElements } = parseHtml(`<p>${'<span>'.repeat(levels)}x${'<div>'.repeat(levels)}`);
  assert.ok(cappedElements > 0);
  // Each block looks down at most MAX_TREE_DEPTH elements: seconds at worst, never the minutes of a full scan.
  assert.ok(performance.now() - started < 30_000);
});

test('every element named like an Object.prototype member is an unknown element, not a crash', async () => {
  // Tag names are lower-cased by the tokenizer; names starting with "_" are text, which must not crash either.
  for (const name of [...Object.getOwnPropertyNames(Object.prototype), '__proto__']) {
    const tag = name.toLowerCase();
    const doc = await extractBytes(
      `<body><h2 id="s">S</h2><p>a <${tag}>b</${tag}> c</p><ul><li>x<${tag}>y<li>z</${tag}></ul>` +
        `<table><tr><${tag}>t</${tag}></tr></table></body>`,
      'https://example.org/',
      'text/html',
    );
    assert.deepEqual(
      doc.sections.map((s) => s.heading),
      ['S'],
      tag,
    );
    assert.ok(
      doc.blocks.some((b) => b.text.includes('b')),
      tag,
    );
  }
});

test('an element named like an Object.prototype member (constructor) is an unknown element, not a crash', async () => {
  assert.equal(body('<ul><li>a<constructor>b<li>c</constructor></ul>'), '<ul><li>a<constructor>b</constructor></li><li>c</li></ul>');
  const doc = await extractBytes(
    '<body><h2 id="s">S</h2><constructor>hello</constructor> <valueof>world</valueof><dl><dt>t<dd>d</dl></body>',
    'https://example.org/',
    'text/html',
  );
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['S'],
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['hello world', 't\nd'],
  );
});

test('a heading inside a sectioning root (figure, blockquote, a table cell) is a paragraph there, not a section', async () => {
  const html = Buffer.from(
    '<!doctype html><title>Spec</title><h2 id="intro">Introduction</h2>' +
      '<figure><div class="demo"><h1>Computer Starter Kit</h1><p>The best computer.</p><h1>Printer</h1><p>ASCII art.</p></div>' +
      '<figcaption>A rendered demo</figcaption></figure>' +
      '<blockquote><h4>Quoted title</h4><p>Quoted text.</p></blockquote>' +
      '<table><tr><td><h5>Cell heading</h5>cell</td></tr></table>' +
      '<h2 id="model">Model</h2><p>After the demo.</p>',
  );
  const document = await extractBytes(html, 'https://example.org/spec', 'text/html');
  assert.deepEqual(
    document.sections.map((s) => s.heading),
    ['Introduction', 'Model'],
    "only the document's own headings make sections",
  );
  const [intro, model] = document.sections;
  assert.equal(model!.parentId, intro!.parentId, 'a later section is not nested under a demo heading');
  for (const text of ['Computer Starter Kit', 'Printer']) {
    const block = document.blocks.find((b) => b.text === text);
    assert.ok(block !== undefined, `${text} is kept as text`);
    assert.equal(block.sectionId, intro!.id, `${text} belongs to the section around the figure`);
  }
});

test('a heading inside a list item opens its section: the list holding it is walked as a container', async () => {
  // As the CSS Containment 1 Bikeshed render has it (fiji-flo/bikeshed-rs tests/github/w3c/csswg-drafts/
  // css-contain-1/Overview.html): a Markdown list left open, so the next change log headings sit in its item.
  const html =
    '<!doctype html><title>Spec</title><h2 class="no-num non-normative heading settled" id="changes">Changes</h2>' +
    '<h3 class="heading settled" id="2019-changes"><span class="content">Changes from 2019</span></h3>' +
    '<ul><li> Editorial tweaks<li><span id="old-name"></span> Drop a feature' +
    '<h3 class="heading settled" id="2018-changes"><span class="content">Changes from 2018</span></h3>' +
    '<p>A full disposition is available.</p><ul><li><p>Exclude a keyword.</p></ul></ul>' +
    '<ol><li><figure><figcaption>More</figcaption><h4>Not a section</h4></figure><li>Two</ol>' +
    '<dl><dt>Term<dd>Definition</dl>';
  for (const url of ['https://www.w3.org/TR/widget/', 'https://widget.spec.whatwg.org/', 'https://example.org/widget']) {
    const doc = await extractBytes(html, url, 'text/html');
    assert.deepEqual(
      doc.sections.map((s) => [s.id, s.heading]),
      [
        ['changes', 'Changes'],
        ['2019-changes', 'Changes from 2019'],
        ['2018-changes', 'Changes from 2018'],
      ],
      url,
    );
    const blocks = doc.blocks.map((b) => [b.sectionId, b.kind, b.text]);
    assert.deepEqual(blocks, [
      ['2019-changes', 'paragraph', 'Editorial tweaks'],
      ['2019-changes', 'paragraph', 'Drop a feature'],
      ['2018-changes', 'paragraph', 'A full disposition is available.'],
      ['2018-changes', 'list', '- Exclude a keyword.'],
      // A heading inside a sectioning root opens no section, so its list stays one block.
      ['2018-changes', 'list', '1. More\nNot a section\n2. Two'],
      ['2018-changes', 'definition-list', 'Term\nDefinition'],
    ]);
    assert.deepEqual(doc.blocks[1]!.anchors, [{ id: 'old-name', start: 0 }]);
  }
});

test('</body> and </html> close nothing: text and elements after them are in the body, as a browser shows them', async () => {
  // The standard's "after body" insertion mode: anything but white space goes back into the body, at the
  // element still open. Before, the trailing paragraph was a sibling of <html>, outside the extraction root.
  assert.equal(
    tree(parseHtml('<html><body><div>in</div></body></html><p>after</p>').document.children),
    '<html><body><div>in</div><p>after</p></body></html>',
  );
  assert.equal(tree(parseHtml('<body><div>open</body>tail').document.children), '<body><div>opentail</div></body>');
  const doc = await extractBytes(
    '<!DOCTYPE html><html><head><title>T</title></head><body><h1>Top</h1><p>Inside text.</p></body></html>\n<p>Trailing paragraph.</p>\n',
    'https://example.test/page.html',
    'text/html',
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['Inside text.', 'Trailing paragraph.'],
  );
});
