import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Block } from '../../src/document/types.js';
import { extractBytes } from './helpers.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Tables by the HTML standard's parsing rules: every optional-tag rule that touches tables
 * (syntax.html#optional-tags) must give the same table as the fully tagged form, and spans are laid
 * out on the grid.
 */

async function tablesOf(body: string): Promise<Block[]> {
  const doc = await extractBytes(
    `<!doctype html><title>t</title><h2 id="s">S</h2>${body}<p>after</p>`,
    'https://example.org/t.html',
    'text/html',
  );
  const after = doc.blocks.find((b) => b.text === 'after');
  assert.ok(after, 'content after the table is still extracted, outside it');
  return doc.blocks.filter((b) => b.kind === 'table');
}

/** The parts of a table block that must not depend on how it was tagged. */
function shape(block: Block): unknown {
  return { text: block.text, caption: block['caption'], header: block['header'], rows: block['rows'], spans: block['spans'] };
}

const FULL =
  '<table><caption>Sizes</caption><colgroup><col><col></colgroup>' +
  '<thead><tr><th>Name</th><th>Size</th></tr></thead>' +
  '<tbody><tr><td><p>small</p></td><td>1</td></tr><tr><td>large</td><td>9</td></tr></tbody>' +
  '<tfoot><tr><td>total</td><td>10</td></tr></tfoot></table>';

/** Each variant omits what one rule allows (and the last, everything at once). */
const VARIANTS: Record<string, string> = {
  '</td> before the next td': FULL.replace('<td>large</td>', '<td>large'),
  '</td> at the end of the row': FULL.replace('<td>9</td></tr>', '<td>9</tr>'),
  '</th> before the next th and at the end of the row': FULL.replace('<th>Name</th><th>Size</th>', '<th>Name<th>Size'),
  '</tr> before the next tr': FULL.replace('<td>1</td></tr><tr>', '<td>1</td><tr>'),
  '</tr> at the end of its parent': FULL.replace('<td>9</td></tr></tbody>', '<td>9</td></tbody>').replace(
    '<th>Size</th></tr></thead>',
    '<th>Size</th></thead>',
  ),
  '</thead> before tbody': FULL.replace('</tr></thead>', '</tr>'),
  '<tbody> start tag implied, after thead': FULL.replace('</thead><tbody>', '</thead>').replace('</tbody>', ''),
  '</tbody> before tfoot': FULL.replace('</tbody>', ''),
  '</tfoot> at the end of the table': FULL.replace('</tfoot>', ''),
  '</caption> before colgroup': FULL.replace('</caption>', ''),
  '</colgroup> before thead': FULL.replace('</colgroup>', ''),
  '<colgroup> start tag implied by col': FULL.replace('<colgroup>', '').replace('</colgroup>', ''),
  '</p> in a cell before </td>': FULL.replace('<p>small</p>', '<p>small'),
  'every optional tag omitted':
    '<table><caption>Sizes<col><col><thead><tr><th>Name<th>Size' +
    '<tbody><tr><td><p>small<td>1<tr><td>large<td>9<tfoot><tr><td>total<td>10</table>',
};

test('every optional-tag variant of a table gives the fully tagged table', async () => {
  const [full] = await tablesOf(FULL);
  assert.ok(full);
  assert.deepEqual(full['header'], [['Name', 'Size']]);
  assert.deepEqual(full['rows'], [
    ['small', '1'],
    ['large', '9'],
    ['total', '10'],
  ]);
  assert.equal(full['caption'], 'Sizes');
  for (const [rule, html] of Object.entries(VARIANTS)) {
    assert.notEqual(html, FULL, `variant "${rule}" omits something`);
    const tables = await tablesOf(html);
    assert.equal(tables.length, 1, rule);
    assert.deepEqual(shape(tables[0]!), shape(full), rule);
  }
});

test('rows straight in <table> get an implied tbody, header from leading th rows', async () => {
  const [a] = await tablesOf('<table><tr><th>k<th>v<tr><td>a<td>1<tr><td>b<td>2</table>');
  const [b] = await tablesOf(
    '<table><tbody><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody></table>',
  );
  const [c] = await tablesOf('<table><td>k<td>v</table>');
  assert.deepEqual(shape(a!), shape(b!));
  assert.deepEqual(a!['header'], [['k', 'v']]);
  assert.deepEqual(a!['rows'], [
    ['a', '1'],
    ['b', '2'],
  ]);
  // A cell straight in <table> implies <tbody><tr>.
  assert.deepEqual(c!['rows'], [['k', 'v']]);
});

test('a table nested in a cell with omitted end tags stays inside that cell', async () => {
  const tables = await tablesOf('<table><tr><td>outer<td><table><tr><td>in1<td>in2</table>tail<tr><td>x<td>y</table>');
  assert.equal(tables.length, 1, 'the nested table is cell text of the outer one');
  assert.deepEqual(tables[0]!['rows'], [
    ['outer', 'in1 | in2 tail'],
    ['x', 'y'],
  ]);
});

test('colspan and rowspan fill every slot they cover and are recorded once', async () => {
  const [t] = await tablesOf(
    '<table><thead><tr><th rowspan=2>Key<th colspan=2>Value<tr><th>lo<th>hi' +
      '<tbody><tr><td>a<td colspan=2>both<tr><td rowspan=2>b<td>1<td>2<tr><td>3<td>4</table>',
  );
  assert.deepEqual(t!['header'], [
    ['Key', 'Value', 'Value'],
    ['Key', 'lo', 'hi'],
  ]);
  assert.deepEqual(t!['rows'], [
    ['a', 'both', 'both'],
    ['b', '1', '2'],
    ['b', '3', '4'],
  ]);
  assert.deepEqual(t!['spans'], [
    { part: 'header', row: 0, column: 0, rowSpan: 2, colSpan: 1 },
    { part: 'header', row: 0, column: 1, rowSpan: 1, colSpan: 2 },
    { part: 'rows', row: 0, column: 1, rowSpan: 1, colSpan: 2 },
    { part: 'rows', row: 1, column: 0, rowSpan: 2, colSpan: 1 },
  ]);
});

test('spans follow the table model: within a row group, rowspan=0 to its end, bad values clamped', async () => {
  const [t] = await tablesOf(
    '<table><tbody><tr><td rowspan=0>z<td>1<tr><td>2<tr><td>3' +
      '<tbody><tr><td rowspan=5>cut<td colspan=0>c0<td colspan="x">cx<tr><td>4</table>',
  );
  assert.deepEqual(t!['rows'], [
    ['z', '1'],
    ['z', '2'],
    ['z', '3'],
    ['cut', 'c0', 'cx'],
    ['cut', '4'],
  ]);
  assert.deepEqual(t!['spans'], [
    { part: 'rows', row: 0, column: 0, rowSpan: 3, colSpan: 1 },
    { part: 'rows', row: 3, column: 0, rowSpan: 2, colSpan: 1 },
  ]);
  const [wide] = await tablesOf('<table><tr><td colspan=99999>w</table>');
  assert.equal((wide!['rows'] as string[][])[0]!.length, 1000, 'colspan is clamped to 1000');
});

test('a span reaching past the last cell still fills its slot in later rows', async () => {
  const [t] = await tablesOf('<table><tr><td>a<td rowspan=2>tall<tr><td>b</table>');
  assert.deepEqual(t!['rows'], [
    ['a', 'tall'],
    ['b', 'tall'],
  ]);
});

test('table-part tags outside any table are left to the parser (content kept)', async () => {
  const doc = await extractBytes(
    '<!doctype html><title>t</title><div><td>loose cell<tr>loose row</div>',
    'https://example.org/t.html',
    'text/html',
  );
  assert.match(doc.blocks.map((b) => b.text).join('\n'), /loose cell[\s\S]*loose row/);
});

test('a row of one cell across the whole table heads the rows after it: a match in it cites their first id', async () => {
  const [rules] = await tablesOf(
    '<table>' +
      '<tr><td colspan="4">Do not break between a CR and LF.</td></tr>' +
      '<tr><td><a name="GB3" href="#GB3">GB3</a></td><td>CR</td><td>×</td><td>LF</td></tr>' +
      '<tr><td class="rule" colspan="4">Do not break within emoji flag sequences.</td></tr>' +
      '<tr><td><a name="GB12" href="#GB12">GB12</a></td><td>sot (RI RI)* RI</td><td>×</td><td>RI</td></tr>' +
      '<tr><td><a name="GB13" href="#GB13">GB13</a></td><td>[^RI] (RI RI)* RI</td><td>×</td><td>RI</td></tr>' +
      // A heading row with an id of its own is cited by it; one with no id after it (up to the next) names nothing.
      '<tr><td colspan="4" id="own">Rows of their own.</td></tr>' +
      '<tr><td colspan="4">Otherwise, break everywhere.</td></tr>' +
      '<tr><td>GB999</td><td>Any</td><td>÷</td><td>Any</td></tr>' +
      '</table>',
  );
  const anchors = (rules!.anchors ?? []).map((a) => [a.id, rules!.text.slice(a.start, a.start + 12)]);
  assert.deepEqual(anchors, [
    ['GB3', 'Do not break'],
    ['GB3', 'GB3 | CR | ×'],
    ['GB12', 'Do not break'],
    ['GB12', 'GB12 | sot ('],
    ['GB13', 'GB13 | [^RI]'],
    ['own', 'Rows of thei'],
  ]);
  // A table of one column has no such rows: each row is a row.
  const [list] = await tablesOf('<table><tr><td>One</td></tr><tr><td><a name="x"></a>Two</td></tr></table>');
  assert.deepEqual(
    (list!.anchors ?? []).map((a) => a.id),
    ['x'],
  );
});

/** Each block's text with the heading of the section it is in. */
async function blocksBySection(html: string): Promise<{ sections: [number, string, string | null][]; blocks: [string, string, string][] }> {
  const doc = await extractBytes(html, 'https://example.org/page.html', 'text/html');
  const headingOf = (id: string | null): string => doc.sections.find((s) => s.id === id)?.heading ?? '(none)';
  return {
    sections: doc.sections.map((s) => [s.level, s.heading, s.fragment]),
    blocks: doc.blocks.map((b) => [b.kind, headingOf(b.sectionId), b.text]),
  };
}

test('a table that lays out a page (navigation beside the text) is no data: the headings in its cells open sections', async () => {
  const read = await blocksBySection(
    '<!doctype html><title>t</title><table><tr><td><a href="/">Home</a><br><a href="/x">Index</a></td>' +
      '<td><h1>Guide</h1><p>Intro text.</p><h2 id="install">Installing</h2><p>Run the installer.</p></td></tr></table>',
  );
  assert.deepEqual(read.sections, [
    [1, 'Guide', null],
    [2, 'Installing', 'install'],
  ]);
  assert.deepEqual(read.blocks.slice(1), [
    ['paragraph', 'Guide', 'Intro text.'],
    ['paragraph', 'Installing', 'Run the installer.'],
  ]);
});

test("a table of data whose heading rows hold only a heading (Doxygen's member groups) stays a table", async () => {
  const read = await blocksBySection(
    '<!doctype html><title>t</title><h1>Value</h1><table class="memberdecls">' +
      '<tr class="heading"><td colspan="2"><h2 class="groupheader"><a name="pub-methods"></a>Public Member Functions</h2></td></tr>' +
      '<tr><td class="memItemLeft">bool </td><td class="memItemRight"><a href="#a1">isNull</a> () const</td></tr></table>',
  );
  assert.deepEqual(
    read.sections.map((s) => s[1]),
    ['Value'],
  );
  assert.equal(read.blocks.length, 1);
  assert.equal(read.blocks[0]![0], 'table');
});

test('a table that boxes part of a page (pydoc): its title row heads a section with its anchor; boxes nest; the page goes on', async () => {
  const box = (title: string, ...rows: string[]): string =>
    `<table class="section"><tr><td class="section-title" colspan=3>&nbsp;<br>${title}</td></tr>` +
    rows.map((cell) => `<tr><td class="decor">&nbsp;&nbsp;&nbsp;</td><td>&nbsp;</td><td>${cell}</td></tr>`).join('') +
    '</table>';
  const decoder = box(
    '<a name="JSONDecoder">class <strong>JSONDecoder</strong></a>(builtins.object)',
    'JSONDecoder(*, object_hook=None)<br>Simple JSON decoder.',
    '<dl><dt><a name="JSONDecoder-raw_decode"><strong>raw_decode</strong></a>(self, s, idx=0)</dt>' +
      '<dd>Decode a JSON document from s and return the rest.</dd></dl>',
  );
  const classes = box('<strong>Classes</strong>', `<dl><dt>builtins.object</dt></dl><p>\n${decoder}`);
  const functions = box(
    '<strong>Functions</strong>',
    '<dl><dt><a name="-dumps"><strong>dumps</strong></a>(obj)</dt><dd>Serialize obj.</dd></dl>',
  );
  const read = await blocksBySection(
    `<!doctype html><title>json</title><h1 id="top">json</h1><p>Module text.</p>${classes}${functions}<p>Module footer.</p>`,
  );
  assert.deepEqual(read.sections, [
    [1, 'json', 'top'],
    [2, 'Classes', null],
    [3, 'class JSONDecoder(builtins.object)', 'JSONDecoder'],
    [2, 'Functions', null],
  ]);
  const sectionOf = (start: string): string | undefined => read.blocks.find((b) => b[2].startsWith(start))?.[1];
  assert.equal(sectionOf('JSONDecoder(*, object_hook'), 'class JSONDecoder(builtins.object)');
  assert.equal(sectionOf('raw_decode(self'), 'class JSONDecoder(builtins.object)');
  assert.equal(sectionOf('dumps(obj)'), 'Functions');
  assert.equal(sectionOf('Module footer.'), 'json', 'after the box, the section around it goes on');
  assert.ok(!read.blocks.some((b) => b[0] === 'table'));
});

test('a table of one column of short text cells is data, not a box', async () => {
  const tables = await tablesOf('<table><tr><td>Name</td></tr><tr><td>alpha</td></tr><tr><td>beta</td></tr></table>');
  assert.equal(tables.length, 1);
});

test('generated boxed pages: every word read once, in order, each in the section of the innermost box around it', async () => {
  for (let seed = 1; seed <= 30; seed++) {
    const random = seededRandom(seed);
    let serial = 0;
    const expected: [string, string][] = []; // word, heading of the section it must be in
    const words = (heading: string): string => {
      const ws = Array.from({ length: 1 + Math.floor(random() * 5) }, () => `w${serial++}`);
      for (const w of ws) expected.push([w, heading]);
      return ws.join(' ');
    };
    const box = (depth: number, around: string): string => {
      const id = `b${serial++}`;
      const title = `Box ${id}`;
      const rows: string[] = [];
      for (let r = 0; r < 1 + Math.floor(random() * 3); r++) {
        const kind = random();
        const cell =
          depth < 3 && kind < 0.3
            ? `<p>${words(title)}</p>${box(depth + 1, title)}`
            : kind < 0.65
              ? `<p>${words(title)}</p>`
              : `<dl><dt>${words(title)}</dt><dd>${words(title)}</dd></dl>`;
        rows.push(`<tr><td>&nbsp;</td><td>&nbsp;</td><td>${cell}</td></tr>`);
      }
      // After the box, the section around it goes on.
      const after = random() < 0.5 ? `<p>${words(around)}</p>` : '';
      return `<table><tr><td colspan=3><a name="${id}">${title}</a></td></tr>${rows.join('')}</table>${after}`;
    };
    const body = `<h1 id="top">Page</h1><p>${words('Page')}</p>${box(1, 'Page')}${box(1, 'Page')}`;
    const doc = await extractBytes(`<!doctype html><title>t</title>${body}`, 'https://example.org/boxes.html', 'text/html');
    const headingOf = new Map(doc.sections.map((s) => [s.id, s.heading]));
    const read = doc.blocks.flatMap((b) => b.text.split(/\s+/).map((w) => [w, headingOf.get(b.sectionId ?? '') ?? ''] as [string, string]));
    assert.deepEqual(read, expected, `seed ${seed}: ${body}`);
    for (const s of doc.sections.slice(1))
      assert.equal(s.fragment, s.heading.replace('Box ', ''), `seed ${seed}: ${s.heading} cites its anchor`);
  }
});

test('an id in a caption names its table or figure, which has none of its own (CUPS: `Table 1: <A NAME="TABLE01">`)', async () => {
  const doc = await extractBytes(
    '<!doctype html><title>Policies</title><h2><a name="BASICS">The Basics</a></h2><p>Operations are listed below.</p>' +
      '<table><caption>Table 1: <a name="TABLE01">IPP Operation Names</a></caption>' +
      '<tr><th>Name</th><th>Used?</th></tr><tr><td>Print-URI</td><td>No</td></tr></table>' +
      '<table id="own"><caption><a name="other">Own id wins</a></caption><tr><td>a</td><td>b</td></tr></table>' +
      '<figure><figcaption><a name="fig3">Figure 3</a>: the flow</figcaption><pre>client -&gt; server</pre></figure>' +
      '<table><caption>No anchor</caption><tr><td>c</td><td>d</td></tr></table>',
    'https://example.org/policies.html',
    'text/html',
  );
  const fragmentOf = (text: string): string | null | undefined => doc.blocks.find((b) => b.text.includes(text))?.fragment;
  assert.equal(fragmentOf('Print-URI'), 'TABLE01');
  assert.equal(fragmentOf('a | b'), 'own');
  assert.equal(fragmentOf('client -> server'), 'fig3');
  assert.equal(fragmentOf('c | d'), 'BASICS');
});
