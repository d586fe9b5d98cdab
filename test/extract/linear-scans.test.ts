import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasDotLeader, isRunningHeader } from '../../src/extract/text/rfc-text.js';
import { hasArtJoint } from '../../src/extract/text/rfc-figures.js';
import { headingAttributes } from '../../src/extract/markdown/markdown-extractor.js';
import { type EntityDeclaration, entityDeclarations, findInternalSubset } from '../../src/extract/xml/xml-extractor.js';
import { parseMarkup, MAX_TREE_DEPTH } from '../../src/extract/markup-parser.js';
import { parseDocument } from 'htmlparser2';
import { textContent } from 'domutils';
import { Element, Text, isTag, type AnyNode } from 'domhandler';
import { seededRandom } from '../helpers/random.js';
import { isLeaderEntry } from '../../src/extract/pdf/pdf-extractor.js';
import { lengthOf } from '../../src/extract/xml/rfc2629-extensions.js';

/**
 * The linear scans that replaced quadratic regular expressions must answer exactly what the
 * expressions answered (so no document changes): each is compared with its expression on thousands of
 * random strings over the characters that matter to it. And the tree builder (markup-parser.ts, on
 * htmlparser2's public Tokenizer) must build the same tree as htmlparser2's parseDocument, source
 * indices included, for documents within the depth cap.
 */

function randomString(random: () => number, alphabet: string[], maxLength: number): string {
  const length = Math.floor(random() * maxLength);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)]!;
  return out;
}

const CASES = 20_000;

test('hasDotLeader equals /\\.{4,}\\s*\\d+\\s*$/', () => {
  const random = seededRandom(1);
  const re = /\.{4,}\s*\d+\s*$/;
  for (let i = 0; i < CASES; i++) {
    const s = randomString(random, ['.', '.', '.', ' ', '\t', '1', '2', 'a', '\u00a0', '\r'], 14);
    assert.equal(hasDotLeader(s), re.test(s), JSON.stringify(s));
  }
});

test('hasArtJoint equals /[+|][-=]{2,}|[-=]{2,}[+|]/', () => {
  const random = seededRandom(2);
  const re = /[+|][-=]{2,}|[-=]{2,}[+|]/;
  for (let i = 0; i < CASES; i++) {
    const s = randomString(random, ['+', '|', '-', '=', ' ', 'a'], 10);
    assert.equal(hasArtJoint(s), re.test(s), JSON.stringify(s));
  }
});

test('headingAttributes equals /\\s*\\{#([^\\s}]+)[^}]*\\}\\s*$/ (where the match starts and its id)', () => {
  const random = seededRandom(11);
  const re = /\s*\{#([^\s}]+)[^}]*\}\s*$/;
  for (let i = 0; i < CASES; i++) {
    const s = randomString(random, ['{', '#', '{#', '}', ' ', '\t', '\u00a0', 'x', 'y', '.'], 14);
    const m = re.exec(s);
    assert.deepEqual(headingAttributes(s), m === null ? null : { index: m.index, id: m[1] }, JSON.stringify(s));
  }
});

test('isRunningHeader equals /^(?:RFC \\d+|Internet-Draft|INTERNET[- ]DRAFT)\\s{2,}.*\\S\\s{2,}\\S.*$/, line terminators included', () => {
  const random = seededRandom(3);
  const re = /^(?:RFC \d+|Internet-Draft|INTERNET[- ]DRAFT)\s{2,}.*\S\s{2,}\S.*$/;
  const prefixes = ['RFC 1', 'RFC 12', 'RFC ', 'Internet-Draft', 'INTERNET DRAFT', 'INTERNET-DRAFT', 'rfc 1', ''];
  for (let i = 0; i < CASES; i++) {
    const s =
      prefixes[Math.floor(random() * prefixes.length)]! +
      randomString(random, [' ', ' ', ' ', 'x', 'y', '\t', '\r', '\u2028', '\n', '1'], 12);
    assert.equal(isRunningHeader(s), re.test(s), JSON.stringify(s));
  }
});

test('isLeaderEntry equals /\\S.*?(?:\\s*\\.){4,}\\s*(?:\\d{1,4}|[ivxlc]{1,7})$/i, line terminators included', () => {
  const random = seededRandom(6);
  const re = /\S.*?(?:\s*\.){4,}\s*(?:\d{1,4}|[ivxlc]{1,7})$/i;
  const alphabet = ['.', '.', '.', '.', ' ', ' ', '\t', '\u00a0', 'a', 'B', '1', '2', 'i', 'V', 'x', 'c', '\n', '\r', '\u2028', '\ud83d'];
  for (let i = 0; i < CASES; i++) {
    const s = randomString(random, alphabet, 20);
    assert.equal(isLeaderEntry(s), re.test(s), JSON.stringify(s));
  }
  for (const s of ['2.1 Bounds . . . . 3', 'Index ........ xii', '.....5', '....5', 'A....12345', 'A....iiiiiiii', 'A\n....4'])
    assert.equal(isLeaderEntry(s), re.test(s), JSON.stringify(s));
});

test('lengthOf counts what its expression counted: code points, line ends (LF, CR or CRLF) as two', () => {
  const random = seededRandom(7);
  const expected = (s: string): number => {
    const text = s.replace(/\r\n?/g, '\n');
    return [...text].length + (text.match(/\n/g)?.length ?? 0);
  };
  const alphabet = ['a', ' ', '\n', '\r', '\ud83d', '\ude00', '\u00e9', '\u2028'];
  for (let i = 0; i < CASES; i++) {
    const s = randomString(random, alphabet, 16);
    assert.equal(lengthOf(new Element('artwork', {}, [new Text(s)])), expected(s), JSON.stringify(s));
  }
});

test('findInternalSubset and entityDeclarations equal the DOCTYPE and ENTITY expressions they replace', () => {
  const random = seededRandom(4);
  const doctypeRe = /<!DOCTYPE[^[>]*\[([\s\S]*?)\]\s*>/;
  const declRe = /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)'|(SYSTEM|PUBLIC)\b[^>]*)>/g;
  const pieces = [
    '<!DOCTYPE',
    ' r ',
    '[',
    ']',
    '>',
    ' ',
    '\n',
    '<!ENTITY',
    'a',
    'b.c',
    '_x',
    '"',
    "'",
    'v',
    'SYSTEM',
    'PUBLIC',
    'SYSTEMX',
    '"u"',
    '%',
    '&a;',
    '<r/>',
  ];
  for (let i = 0; i < CASES; i++) {
    const s = randomString(random, pieces, 16);
    const m = doctypeRe.exec(s);
    const found = findInternalSubset(s);
    if (!m) {
      assert.equal(found, null, JSON.stringify(s));
      continue;
    }
    assert.deepEqual(
      found,
      {
        start: m.index,
        end: m.index + m[0].length,
        subsetStart: m.index + m[0].indexOf('[') + 1,
        subsetEnd: m.index + m[0].length - m[0].slice(m[0].lastIndexOf(']')).length,
      },
      JSON.stringify(s),
    );
    const subset = m[1]!;
    const expected: EntityDeclaration[] = [];
    declRe.lastIndex = 0;
    for (let d = declRe.exec(subset); d !== null; d = declRe.exec(subset))
      expected.push(
        d[4] !== undefined
          ? // External: the system identifier is the last quoted literal before ">".
            { name: d[1]!, value: null, systemId: /(["'])([^"']*)\1\s*$/.exec(d[0].slice(d[0].indexOf(d[4]) + 6, -1))?.[2] ?? null }
          : { name: d[1]!, value: d[2] ?? d[3] ?? '' },
      );
    assert.deepEqual(entityDeclarations(s, found!.subsetStart, found!.subsetEnd), expected, JSON.stringify(s));
  }
});

/** A tree as text: names, attributes and text, in document order (an explicit stack, no recursion). */
function shape(nodes: AnyNode[]): string {
  const out: string[] = [];
  const stack: (AnyNode | string)[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') {
      out.push(node);
      continue;
    }
    if (isTag(node)) {
      out.push(`<${node.name} ${JSON.stringify(node.attribs)} ${node.startIndex}-${node.endIndex}>`);
      stack.push(`</${node.name}>`);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    } else {
      out.push(`${node.type}:${JSON.stringify('data' in node ? node.data : textContent(node))} ${node.startIndex}-${node.endIndex}`);
    }
  }
  return out.join('');
}

/** The depth of the deepest node (top-level nodes: 1), without recursion. */
function treeDepth(nodes: AnyNode[]): number {
  let deepest = 0;
  const stack: [AnyNode, number][] = nodes.map((n) => [n, 1]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (isTag(node)) for (const c of node.children) stack.push([c, depth + 1]);
  }
  return deepest;
}

test("the tree builder builds exactly htmlparser2's tree, indices included, within the depth cap, in HTML and XML mode", () => {
  const random = seededRandom(5);
  const pieces = [
    '<div>',
    '</div>',
    '<p>',
    '</p>',
    '<li>',
    '<ul>',
    '</ul>',
    '<table>',
    '<td>',
    '<tr>',
    '<form>',
    '</form>',
    '<svg>',
    '</svg>',
    '<foreignObject>',
    '<math>',
    '<br>',
    '<br/>',
    'text',
    ' ',
    '&amp;',
    '<!-- c -->',
    '<![CDATA[x]]>',
    '</span>',
    '<a href="x">',
    '</a>',
    '<select><option>',
    '<script>x</script>',
    '</p>',
    '</br>',
    '<p/>',
    '<image>',
    '<foreignobject>',
    '</foreignobject>',
    '<clippath>',
    '</clippath>',
    '<title>t</title>',
    '<dd>',
    '<dt>',
    '<tbody>',
    '<th>',
    '<caption>',
    '<col>',
    '<option>',
    '<h2>',
    '<!DOCTYPE html>',
    '<?xml version="1.0"?>',
    "<A B=c d='e' f>",
    '<b x="&lt;&amp">',
    '&#x1F600;',
    '&notanentity;',
  ];
  for (const xmlMode of [false, true]) {
    for (let i = 0; i < 2000; i++) {
      // Now and then up to 1,000 start tags: near the cap and past it.
      const deep = random() < 0.1;
      let s = randomString(random, deep ? pieces.filter((p) => !p.startsWith('</')) : pieces, deep ? 1000 : 60);
      // Now and then the input ends inside a tag.
      if (random() < 0.05) s += random() < 0.5 ? '<div class="x' : '</di';
      const options = { withStartIndices: true, withEndIndices: true, xmlMode, recognizeCDATA: xmlMode };
      const expected = parseDocument(s, options);
      // Past the cap (an element, or text inside an element, deeper than 512) the trees differ by design.
      if (treeDepth(expected.children) > MAX_TREE_DEPTH) continue;
      assert.equal(shape(parseMarkup(s, options).document.children), shape(expected.children), JSON.stringify(s.slice(0, 300)));
    }
  }
});

test('past the cap, deeper elements attach at depth 512 in order, and their text is kept', () => {
  const levels = 2000;
  const { document, cappedElements } = parseMarkup(`${'<div>'.repeat(levels)}deep words${'</div>'.repeat(levels)}<p>after</p>`, {});
  assert.equal(cappedElements, levels - MAX_TREE_DEPTH);
  let depth = 0;
  let deepest = 0;
  const stack: [AnyNode, number][] = document.children.map((c) => [c, 1]);
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    depth = d;
    deepest = Math.max(deepest, depth);
    if (isTag(node)) for (const c of node.children) stack.push([c, d + 1]);
  }
  assert.equal(deepest, MAX_TREE_DEPTH, 'nothing deeper than the cap: elements and text past it sit at depth 512');
  assert.equal(textContent(document), 'deep wordsafter');
});
