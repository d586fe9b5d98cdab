import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { compare } from './rfc-agreement.js';
import { SKIP_CORPUS, corpusDir, extractCorpusFile } from './helpers.js';

/**
 * The HTML and XML renderings of one RFC must give the same evidence: every RFC with both files in
 * the dev corpus is extracted twice and compared block by block (kind, normativity, text modulo
 * whitespace). Sections pair by an id both renderings name (the XML's derived aliases included);
 * a section only one rendering has may only be boilerplate the renderer generates.
 */

/**
 * Blocks that must agree, per pair. rfc9001 (xml2rfc v3 HTML from its prepared XML) agrees fully. The
 * httpwg pairs (rfc2629.xslt HTML from unprepared XML) do not yet, for reasons the XML alone cannot
 * settle: x:rel cross-references print the section number of ANOTHER RFC ("Section 11.2 of
 * [HTTP/1.1]"), x:length-of prints a computed byte count, ABNF artwork is a plain `pre.inline` in
 * the HTML, and that renderer drops the day from citation dates. Their floors are the measured
 * agreement (rfc6265 215/221, rfc9110 1355/1413), so a regression fails.
 */
const PAIRS: { name: string; floor: number }[] = [
  { name: 'rfc9001.canonical', floor: 1 },
  { name: 'rfc6265', floor: 0.97 },
  { name: 'rfc9110', floor: 0.95 },
];

for (const { name, floor } of PAIRS) {
  const skip = SKIP_CORPUS || (!existsSync(path.join(corpusDir, `rfc/${name}.html`)) ? `rfc/${name}.html absent` : false);
  test(`RFC renderings agree block by block: ${name} HTML vs XML (at least ${floor * 100}%)`, { skip }, async () => {
    const html = await extractCorpusFile(`rfc/${name}.html`);
    const xml = await extractCorpusFile(`rfc/${name}.xml`);
    const result = compare(html, xml);
    const report = `${name}: ${result.paired}/${result.total} blocks paired\n${[...result.unpairedSections, ...result.problems].slice(0, 25).join('\n')}`;
    if (floor === 1) {
      assert.deepEqual(result.unpairedSections, [], report);
      assert.deepEqual(result.problems, [], report);
      assert.equal(result.paired, result.total, report);
    } else {
      assert.ok(result.paired >= floor * result.total, report);
    }
  });
}

test('RFC front matter is metadata, not a block, and agrees between renderings', { skip: SKIP_CORPUS }, async () => {
  const html = await extractCorpusFile('rfc/rfc9001.canonical.html');
  const xml = await extractCorpusFile('rfc/rfc9001.canonical.xml');
  const hm = html['metadata'] as Record<string, string>;
  const xm = xml['metadata'] as Record<string, string>;
  for (const key of ['stream', 'rfc', 'category', 'published', 'authors']) assert.equal(hm[key], xm[key], key);
  assert.equal(hm['stream'], 'Internet Engineering Task Force (IETF)');
  for (const d of [html, xml])
    assert.ok(
      !d.blocks.some((b) => /Internet Engineering Task Force \(IETF\)/.test(b.text) && b.kind === 'table'),
      'front matter as a table',
    );
});

test('every XML section id exists in the XML; HTML-style ids are derived aliases only', { skip: SKIP_CORPUS }, async () => {
  for (const { name } of PAIRS) {
    const xml = await extractCorpusFile(`rfc/${name}.xml`);
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(path.join(corpusDir, `rfc/${name}.xml`), 'utf8');
    const inSource = new Set([...source.matchAll(/\b(?:id|anchor|pn|name)="([^"]+)"/g)].map((m) => m[1]!));
    for (const s of xml.sections) {
      for (const id of [s.fragment, ...(s.alternateIds ?? [])])
        if (id !== null) assert.ok(inSource.has(id), `${name}: section id ${id} is not in the XML`);
      if (!s.id.startsWith('~')) assert.ok(inSource.has(s.id.replace(/~\d+$/, '')), `${name}: section id ${s.id} is not in the XML`);
    }
    for (const b of xml.blocks)
      assert.doesNotMatch(b.text, /\[(?:section|appendix|figure|table)-[\w.-]+\]/, `${name}: bare [anchor] xref in ${b.id}`);
  }
});

test('fixture pair (xml2rfc v3 HTML and its prepared XML): every block agrees, each class as the RFC shows it', async () => {
  const { readFileSync } = await import('node:fs');
  const { extractBytes, fixturesDir } = await import('./helpers.js');
  const read = (name: string): Uint8Array => new Uint8Array(readFileSync(path.join(fixturesDir, name)));
  const html = await extractBytes(read('rfc-pair-v3.html'), 'https://www.rfc-editor.org/rfc/rfc9996.html', 'text/html');
  const xml = await extractBytes(read('rfc-pair-v3.xml'), 'https://www.rfc-editor.org/rfc/rfc9996.xml', 'application/rfc+xml');
  const result = compare(html, xml);
  assert.deepEqual([...result.unpairedSections, ...result.problems], []);
  assert.equal(result.paired, result.total);
  assert.ok(result.total >= 8, `only ${result.total} blocks`);
  for (const d of [html, xml]) {
    const text = d.blocks.map((b) => b.text).join('\n');
    // xref: the text the RFC shows, never "[anchor]".
    assert.match(text, /follow Section 2, shown in Figure 1; see \[RFC2119\] and Section 2 of \[RFC2119\]\./);
    assert.match(text, /see Appendix A\./);
    assert.doesNotMatch(text, /\[(?:rules|fig-layers|appendix-notes)\]/);
    // aside: a note, informative.
    const aside = d.blocks.find((b) => b.text.startsWith('Implementations often ignore'))!;
    assert.equal(aside.kind, 'note');
    assert.equal(aside.normativity, 'informative');
    // Captions belong to their figure and table, with the figure's and table's id.
    const figure = d.blocks.find((b) => b.kind === 'artwork')!;
    assert.equal(figure['caption'], 'Figure 1: Layers');
    assert.equal(figure.fragment, 'figure-1');
    const table = d.blocks.find((b) => b.kind === 'table')!;
    assert.equal(table['caption'], 'Table 1: Codes');
    assert.equal(table.fragment, 'table-1');
    assert.doesNotMatch(table.text, /Table 1/);
    // Front matter: metadata, never a block.
    assert.ok(!d.blocks.some((b) => /Standards Track/.test(b.text)), 'front matter became a block');
    const meta = d['metadata'] as Record<string, string>;
    assert.equal(meta['stream'], 'Internet Engineering Task Force (IETF)');
    assert.equal(meta['category'], 'Standards Track');
    assert.equal(meta['published'], 'May 2030');
    assert.equal(meta['authors'], 'A. Writer, Ed.');
  }
  // The XML's ids are its own: pn "section-appendix.a" is the fragment, "appendix-A" only a derived alias.
  const appendix = xml.sections.find((s) => s.heading === 'Notes')!;
  assert.equal(appendix.fragment, 'section-appendix.a');
  assert.equal(appendix.id, 'section-appendix.a');
  assert.deepEqual(appendix.derivedIds, ['appendix-A']);
  assert.ok(!xml.sections.some((s) => s.id === 'appendix-A' || s.fragment === 'appendix-A'));
});
