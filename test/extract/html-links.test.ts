import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { MAX_LINK_TEXT } from '../../src/extract/input-bounds.js';
import type { EvidenceDocument } from '../../src/document/types.js';
import { extractBytes } from './helpers.js';
import type { AnyNode, Element } from 'domhandler';
import { newComment, newElement, newText, textOf, textOfAtMost } from '../../src/extract/dom-nodes.js';

const linksOf = (doc: EvidenceDocument): { href: string; text: string }[] =>
  doc.blocks.flatMap((b) => (b['links'] as { href: string; text: string }[] | undefined) ?? []);

test("a link's text is its element's text: skipped, pruned and script content included, spaces collapsed", async () => {
  const doc = await extractBytes(
    `<h1>A</h1><p>See <a href="#a">x<script>var s</script> 2<sup>53</sup> <code>c</code><br>d</a> and
     <a href="#c">one <span hidden>two</span> <template>t</template>three</a>.</p>
     <table><caption>Cap</caption><tr><td><a href="#d">cell
       <i>one</i></a></td></tr></table>`,
    'https://example.org/spec',
    'text/html',
  );
  assert.deepEqual(linksOf(doc), [
    { href: 'https://example.org/spec#a', text: 'xvar s 253 cd' },
    { href: 'https://example.org/spec#c', text: 'one two tthree' },
    { href: 'https://example.org/spec#d', text: 'cell one' },
  ]);
});

/**
 * Links nested 250 deep (500 elements, all within the tree's depth cap) around a long text: each
 * link's text was the rest of the document, so the document grew as depth x size (a 1.8 MB page
 * wrote 102 MB; 15 MB ran out of string length). Each link now keeps at most MAX_LINK_TEXT code units
 * of it, cut with "…".
 */
test('nested links keep the document linear in its input: each link text is bounded', async () => {
  const words = 'w '.repeat(MAX_LINK_TEXT);
  const page = (n: number): string => `<h1>A</h1><p>${'<b><a href=#x>'.repeat(250)}${'<i>w</i> '.repeat(n)}</p>`;
  const small = await extractBytes(page(20_000), 'https://example.org/spec', 'text/html');
  const large = await extractBytes(page(80_000), 'https://example.org/spec', 'text/html');
  for (const doc of [small, large]) {
    const links = linksOf(doc);
    assert.equal(links.length, 250);
    for (const link of links) {
      assert.ok(link.text.length <= MAX_LINK_TEXT + 1, `${link.text.length}`);
      assert.ok(link.text.endsWith('…'));
    }
    assert.equal(links[0]!.text, `${words.slice(0, MAX_LINK_TEXT).trim()}…`);
  }
  const size = (doc: EvidenceDocument): number => canonicalJson(doc).length;
  // 60,000 more words (540 KB of input) add their own text to the document, not 250 copies of it.
  assert.ok(size(large) - size(small) < 2 * 60_000 * 'w '.length, `${size(small)} -> ${size(large)}`);
  assert.ok(size(small) < 500_000, `${size(small)}`);
});

test('nested cross-references (ecmarkup emu-xref) are bounded alike', async () => {
  const page = `<emu-clause id="sec-a"><h1>A</h1><p>${'<emu-xref href="#x">'.repeat(250)}${'<i>w</i> '.repeat(20_000)}</p></emu-clause>`;
  const doc = await extractBytes(page, 'https://tc39.es/ecma262/', 'text/html');
  const links = linksOf(doc);
  assert.equal(links.length, 250);
  for (const link of links) assert.ok(link.text.length <= MAX_LINK_TEXT + 1 && link.text.endsWith('…'), `${link.text.length}`);
});

/**
 * The same class in RFC XML and in keyword elements: each nested <eref> read its whole subtree for its
 * link text, and each nested keyword element (<bcp14>, HTML's marked keywords) its whole text to see
 * whether it is a keyword. Both now read at most what they can use (textOfAtMost).
 */
test('nested erefs read at most their bounded text: the document stays linear; a keyword element still marks its keyword', async () => {
  const rfc = (inner: string, n: number): string =>
    '<?xml version="1.0"?><rfc version="3"><front><title>T</title></front><middle>' +
    `<section anchor="a"><name>A</name><t>${inner.repeat(250)}${'w '.repeat(n)}</t></section></middle></rfc>`;
  const small = await extractBytes(
    rfc('<eref target="https://example.org/x">', 20_000),
    'https://www.rfc-editor.org/rfc/rfc9999.xml',
    'application/xml',
  );
  const large = await extractBytes(
    rfc('<eref target="https://example.org/x">', 80_000),
    'https://www.rfc-editor.org/rfc/rfc9999.xml',
    'application/xml',
  );
  for (const doc of [small, large]) {
    const links = linksOf(doc);
    assert.equal(links.length, 250);
    for (const link of links) assert.ok(link.text.length <= MAX_LINK_TEXT + 1 && link.text.endsWith('…'), `${link.text.length}`);
  }
  const size = (doc: EvidenceDocument): number => canonicalJson(doc).length;
  assert.ok(size(large) - size(small) < 2 * 60_000 * 'w '.length, `${size(small)} -> ${size(large)}`);
  // A keyword element still marks its keyword.
  const marked = await extractBytes(
    rfc('', 1).replace('<t>', '<t>It <bcp14>MUST NOT</bcp14> fail. '),
    'https://www.rfc-editor.org/rfc/rfc9999.xml',
    'application/xml',
  );
  assert.ok(JSON.stringify(marked).includes('"keyword":"MUST NOT"'), 'MUST NOT is marked');
});

test('textOfAtMost: textOf when short; else its first max code units, cut, never half a surrogate pair', () => {
  const element = (name: string, children: AnyNode[]): Element => {
    const node = newElement(name, {});
    node.children.push(...children);
    return node;
  };
  const p = element('p', [
    newText('ab'),
    element('b', [newText('cd'), element('i', [newText('ef')])]),
    newComment(' no '),
    newText('gh😀ij'),
  ]);
  assert.deepEqual(textOfAtMost(p, 100), { text: textOf(p), cut: false });
  assert.deepEqual(textOfAtMost(p, 5), { text: 'abcde', cut: true });
  // 'abcdefgh' is 8 code units; the emoji is two: a bound of 9 would split it, so it stops before.
  assert.deepEqual(textOfAtMost(p, 9), { text: 'abcdefgh', cut: true });
  assert.deepEqual(textOfAtMost(p, 10), { text: 'abcdefgh😀', cut: true });
});
