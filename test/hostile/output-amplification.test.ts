import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, assertNoStackTrace } from '../helpers/rig.js';

/**
 * A source id is copied into every record under it (each block's id, sectionId and fragment, each
 * subsection's parentId, each chunk): one long id must not be written once per paragraph.
 */

const LONG = 'x'.repeat(50_000);
const KEPT = `k${'y'.repeat(255)}`; // 256 code units: the longest id kept

function documentOf(rig: Rig): { payload: any; bytes: number } {
  const name = fs.readdirSync(rig.path('specs')).find((file) => file.startsWith('example-test-'))!;
  const text = rig.read(`specs/${name}`);
  return { payload: JSON.parse(text).payload, bytes: Buffer.byteLength(text) };
}

test('an over-long id is read as no id (warning id-too-long): output grows with the input, not with id x paragraphs', async () => {
  const rig = new Rig();
  const paragraphs = Array.from({ length: 600 }, (_, i) => `<p>Paragraph ${i} of the zebra section.</p>`).join('');
  const html =
    '<!DOCTYPE html><html><head><title>Ids</title></head><body>' +
    `<section id="outer"><h1>Outer</h1><section id="${LONG}"><h2>Long id</h2>${paragraphs}` +
    `<h3 id="${LONG}2">Sub</h3><p id="${LONG}3">A paragraph with an <span id="${LONG}4">anchor</span> of its own.</p></section>` +
    `<section id="${KEPT}"><h2>Kept</h2><p>A zebra paragraph under the longest id kept.</p></section></section></body></html>`;
  rig.write({
    'page.html': html,
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/ids', localPath: 'page.html', contentType: 'text/html' }]),
  });
  try {
    const result = await rig.exec(['pipeline', '--map', 'map.json', '--json'], { killAfterMs: 120_000 });
    assertNoStackTrace(result);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { payload, bytes } = documentOf(rig);
    // 600 paragraphs x 3 copies x 50,000 characters was 90 MB; the page is 90 KB.
    assert.ok(bytes < 4 * Buffer.byteLength(html), `document of ${bytes} bytes from a page of ${Buffer.byteLength(html)}`);
    const text = JSON.stringify(payload);
    assert.ok(!text.includes(LONG), 'no record keeps the long id');
    assert.deepEqual(
      payload.diagnostics.filter((d: any) => d.code === 'id-too-long').map((d: any) => d.severity),
      ['warning'],
      'one warning per document',
    );
    const long = payload.sections.find((s: any) => s.heading === 'Long id');
    assert.equal(long.fragment, null);
    assert.match(long.id, /^~s\d+$/, 'the section takes a made-up id');
    const under = payload.blocks.filter((b: any) => b.sectionId === long.id);
    assert.ok(under.length >= 600);
    assert.ok(
      under.every((b: any) => b.fragment === 'outer'),
      'its blocks cite the enclosing section',
    );
    const own = payload.blocks.find((b: any) => b.text.startsWith('A paragraph with an anchor'));
    assert.equal(own.fragment, 'outer');
    assert.equal(own.anchors, undefined, 'an over-long anchor inside a block is dropped too');
    const kept = payload.sections.find((s: any) => s.heading === 'Kept');
    assert.equal(kept.fragment, KEPT, 'an id of 256 code units is kept');
    assert.equal(kept.id, KEPT);

    const chunkFile = fs.readdirSync(rig.path('chunks')).find((file) => file.startsWith('example-test-'))!;
    assert.ok(!rig.read(`chunks/${chunkFile}`).includes(LONG), 'no chunk keeps it');

    // The citation a query prints is as short as the id it cites.
    const query = await rig.exec(['query', 'zebra', 'section', '--limit', '50']);
    assert.equal(query.code, 0, query.stderr);
    const longest = Math.max(...query.stdout.split('\n').map((line) => line.length));
    assert.ok(longest < 600, `a query line of ${longest} characters`);
  } finally {
    rig.cleanup();
  }
});

test('RFC XML: an over-long anchor is read as no anchor, the same way', async () => {
  const rig = new Rig();
  const sections = Array.from({ length: 300 }, (_, i) => `<t>Zebra paragraph ${i}.</t>`).join('');
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><rfc number="9999" version="3"><front><title>Ids</title></front><middle>' +
    `<section anchor="${LONG}"><name>Long anchor</name>${sections}</section>` +
    '<section anchor="short"><name>Short</name><t>A zebra paragraph.</t></section></middle></rfc>';
  rig.write({
    'rfc.xml': xml,
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/rfc', localPath: 'rfc.xml', contentType: 'application/xml' }]),
  });
  try {
    const result = await rig.exec(['pipeline', '--map', 'map.json', '--json'], { killAfterMs: 120_000 });
    assertNoStackTrace(result);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { payload, bytes } = documentOf(rig);
    assert.ok(bytes < 4 * Buffer.byteLength(xml), `document of ${bytes} bytes from ${Buffer.byteLength(xml)}`);
    assert.ok(!JSON.stringify(payload).includes(LONG));
    assert.ok(payload.diagnostics.some((d: any) => d.code === 'id-too-long'));
    assert.equal(payload.sections.find((s: any) => s.heading === 'Short').fragment, 'short');
  } finally {
    rig.cleanup();
  }
});

test('table spans: copies of a spanning cell are bounded per document (warning table-spans-capped), small tables unchanged', async () => {
  const rig = new Rig();
  const text = 'zebra text '.repeat(2_000); // 22,000 characters, copied into each slot the cell covers
  const html =
    '<!DOCTYPE html><html><head><title>Spans</title></head><body><h1 id="top">Top</h1>' +
    '<table id="small"><tr><th colspan="2">Both</th></tr><tr><td rowspan="2">Left</td><td>a</td></tr><tr><td>b</td></tr></table>' +
    `<table id="bomb"><tr><td colspan="1000" rowspan="10">${text}</td></tr>${'<tr></tr>'.repeat(9)}</table></body></html>`;
  rig.write({
    'page.html': html,
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/spans', localPath: 'page.html', contentType: 'text/html' }]),
  });
  try {
    const result = await rig.exec(['pipeline', '--map', 'map.json', '--json'], { killAfterMs: 120_000 });
    assertNoStackTrace(result);
    // 10,000 copies of 22,000 characters: a 22 KB page wrote a 220 MB document.
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { payload, bytes } = documentOf(rig);
    assert.ok(bytes < 2 * 1024 * 1024, `document of ${bytes} bytes from a page of ${html.length}`);
    assert.ok(payload.diagnostics.some((d: any) => d.code === 'table-spans-capped'));
    const [small, bomb] = payload.blocks.filter((b: any) => b.kind === 'table');
    assert.deepEqual(small.header, [['Both', 'Both']], 'a small table still fills every slot its cells cover');
    assert.deepEqual(small.rows, [
      ['Left', 'a'],
      ['Left', 'b'],
    ]);
    assert.equal(small.spans.length, 2);
    assert.deepEqual(bomb.rows, [[text.trim()]], 'past the bound, the cell takes one slot');
    assert.equal(bomb.spans, undefined);
  } finally {
    rig.cleanup();
  }
});

test('a cross-reference copies at most 512 code units of its target title: RFC XML and kramdown-rfc grow with the input', async () => {
  const rig = new Rig();
  // Each reference showed the whole title: 2,000 x 40 KB wrote an 80 MB string; 3,000 kramdown-rfc
  // references to a 16 KB unnumbered heading, a 50 MB document.
  const title = 'word '.repeat(8_000);
  const xml =
    '<?xml version="1.0"?>\n<rfc category="std" docName="draft-x-00" version="3"><front><title>T</title></front>' +
    `<middle><section anchor="s1"><name>${title}</name><t>${'<xref target="s1" format="title"/> '.repeat(2_000)}</t></section>` +
    '</middle></rfc>\n';
  const markdown =
    `---\ndocname: draft-x-00\ntitle: T\n---\n\n--- middle\n\n# ${title}\n{: #intro numbered="false"}\n\n` +
    `See ${'{{intro}} '.repeat(2_000)}\n`;
  rig.write({
    'doc.xml': xml,
    'draft.md': markdown,
    'map.json': JSON.stringify([
      { sourceUrl: 'https://example.test/rfc9998.xml', localPath: 'doc.xml', contentType: 'application/rfc+xml' },
      { sourceUrl: 'https://example.test/draft.md', localPath: 'draft.md', contentType: 'text/markdown' },
    ]),
  });
  try {
    const result = await rig.exec(['pipeline', '--map', 'map.json', '--json'], { killAfterMs: 120_000 });
    assertNoStackTrace(result);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    for (const name of fs.readdirSync(rig.path('specs')).filter((file) => file.startsWith('example-test-'))) {
      const text = rig.read(`specs/${name}`);
      const source = name.includes('rfc9998') ? xml : markdown;
      // 2,000 references of at most 515 characters each, over an input of 40-80 KB.
      assert.ok(Buffer.byteLength(text) < 40 * Buffer.byteLength(source), `${name}: ${Buffer.byteLength(text)} bytes`);
      const payload = JSON.parse(text).payload;
      const citing = payload.blocks.find((b: { text: string }) => b.text.includes('…'));
      assert.ok(citing !== undefined, `${name}: the copied title is cut, ending in "…"`);
    }
  } finally {
    rig.cleanup();
  }
});

test('show and the MCP read tool list at most 256 of the blocks a page cuts, and count them all', async () => {
  const rig = new Rig();
  const paragraphs = Array.from({ length: 20_000 }, (_, i) => `<p>w${i}</p>`).join('');
  rig.write({
    'page.html': `<!DOCTYPE html><html><head><title>Many</title></head><body><h1>Many</h1>${paragraphs}</body></html>`,
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/many', localPath: 'page.html', contentType: 'text/html' }]),
  });
  try {
    const built = await rig.exec(['pipeline', '--map', 'map.json', '--json'], { killAfterMs: 120_000 });
    assert.equal(built.code, 0, built.stdout + built.stderr);
    for (const offset of ['0', '40000']) {
      const shown = await rig.exec(['show', 'https://example.test/many', '--offset', offset, '--json']);
      assertNoStackTrace(shown);
      assert.equal(shown.code, 0, shown.stderr);
      // Every cut id was listed: 20,000 short paragraphs made 250 KB of ids for 8,000 characters of text.
      assert.ok(shown.stdout.length < 60_000, `an answer of ${shown.stdout.length} characters`);
      const { blocks, cut } = JSON.parse(shown.stdout).data;
      assert.equal(cut.blockIds.length, 256);
      type Shown = { blockIds: string[]; cutBefore: boolean; cutAfter: boolean };
      const whole = new Set((blocks as Shown[]).filter((b) => !b.cutBefore && !b.cutAfter).flatMap((b) => b.blockIds));
      assert.equal(cut.blocks, 20_000 - whole.size, 'every block not returned whole is counted');
      assert.ok(cut.blockIds.every((id: string) => !whole.has(id)));
    }
  } finally {
    rig.cleanup();
  }
});

test('a heading path holds at most about 1,024 code units: 32 nested long headings over many small sections', async () => {
  const rig = new Rig();
  const long = 'L'.repeat(300);
  const nested = Array.from({ length: 31 }, (_, i) => `<section><name>${long}${i}</name>`).join('');
  const small = '<section><name>a</name><t>zebra</t></section>'.repeat(2_000);
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><rfc number="9999" version="3"><front><title>T</title></front><middle>' +
    `${nested}${small}${'</section>'.repeat(31)}</middle></rfc>`;
  rig.write({
    'doc.xml': xml,
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/deep.xml', localPath: 'doc.xml', contentType: 'application/rfc+xml' }]),
  });
  try {
    const result = await rig.exec(['pipeline', '--map', 'map.json', '--json'], { killAfterMs: 120_000 });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const name = fs.readdirSync(rig.path('chunks')).find((file) => file.startsWith('example-test-'))!;
    const text = rig.read(`chunks/${name}`);
    // Every chunk copied 32 entries of 256 code units: 175 times the source; now about 35.
    assert.ok(text.length < 60 * xml.length, `a chunk file of ${text.length} characters from ${xml.length}`);
    const chunks = JSON.parse(text).payload.chunks as { citation: { headingPath: string[] } }[];
    const paths = chunks.map((c) => c.citation.headingPath);
    const deepest = paths.reduce((a, b) => (b.length > a.length ? b : a));
    assert.ok(deepest.length >= 30, `a path of ${deepest.length} entries`);
    assert.ok(deepest.reduce((sum, entry) => sum + entry.length, 0) <= 33 * 32);
    assert.equal(deepest[0], 'T');
    assert.equal(deepest[deepest.length - 1], 'a', 'a short heading is kept whole');
  } finally {
    rig.cleanup();
  }
});
