import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { validateDocument } from '../../src/extract/extract.js';
import { SKIP_CORPUS, corpusDir, extractBytes, extractCorpusFile, sharedDir } from './helpers.js';

/**
 * The unicode and ietf-draft families on real documents. Expected sections are read from the source
 * with expressions independent of the extractor; every id a section carries must occur in the source.
 */

const unicodeDir = path.join(sharedDir, 'corpus/families/unicode');
const SKIP_UNICODE = existsSync(path.join(unicodeDir, 'manual-ingest.json')) ? false : `${unicodeDir} absent (../shared missing)`;

function sourceIds(source: string): Set<string> {
  return new Set([...source.matchAll(/\b(?:id|name)="([^"]+)"/g)].map((m) => m[1]!));
}

const decode = (html: string): string =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

for (const name of ['tr15.html', 'tr29.html']) {
  test(`unicode: ${name} sections have the report's numbers, titles and self-link ids; clauses are citable`, {
    skip: SKIP_UNICODE,
  }, async () => {
    const map = JSON.parse(readFileSync(path.join(unicodeDir, 'manual-ingest.json'), 'utf8')) as {
      sourceUrl: string;
      localPath: string;
      contentType: string;
    }[];
    const entry = map.find((e) => e.localPath === name)!;
    const source = readFileSync(path.join(unicodeDir, name), 'utf8');
    const doc = await extractBytes(source, entry.sourceUrl, entry.contentType);
    assert.deepEqual(validateDocument(doc), { ok: true });
    assert.equal(doc.family, 'unicode');
    // Numbered headings as the report writes them: "<hN>[<a name=old></a>]N.N <a name=X href=#X>Title</a></hN>".
    const expected = [
      ...source.matchAll(
        /<h([2-4])[^>]*>\s*(?:<a name="[^"]+"><\/a>)?\s*(\d+(?:\.\d+)*)\s+<a name="([^"]+)" href="#\3">([\s\S]*?)<\/a>\s*<\/h\1>/g,
      ),
    ].map((m) => ({
      number: m[2]!,
      id: m[3]!,
      heading: decode(m[4]!),
    }));
    assert.ok(expected.length >= 15, `only ${expected.length} self-linked numbered headings found in ${name}`);
    // Every numbered heading, however it is marked up, is a section with that number and title.
    const printed = [...source.matchAll(/<h([2-4])[^>]*>([\s\S]*?)<\/h\1>/g)]
      .map((m) => decode(m[2]!))
      .filter((t) => /^\d+(?:\.\d+)*\s/.test(t));
    assert.ok(printed.length >= 20, `${name}: ${printed.length} numbered headings`);
    for (const t of printed) {
      const [number, ...rest] = t.split(' ');
      assert.ok(
        doc.sections.some((x) => x.number === number && x.heading === rest.join(' ')),
        `${name}: no section "${t}"`,
      );
    }
    for (const e of expected) {
      const s = doc.sections.find((x) => x.fragment === e.id);
      assert.ok(s, `${name}: no section ${e.id}`);
      assert.equal(s.number, e.number, `${e.id} number`);
      assert.equal(s.heading, e.heading, `${e.id} heading`);
    }
    const ids = sourceIds(source);
    for (const s of doc.sections) {
      for (const id of [s.fragment, ...(s.alternateIds ?? [])])
        if (id !== null) assert.ok(ids.has(id), `${name}: invented section id ${id}`);
    }
    for (const heading of ['Summary', 'Contents', 'References', 'Modifications']) {
      const s = doc.sections.find((x) => x.heading === heading);
      if (s) assert.equal(s.normativity, 'informative', heading);
    }
    // Conformance clauses and definitions: each opening anchor names its block.
    const clauses = [...source.matchAll(/<p>\s*(?:<[ib]>\s*)*<a name="(UAX\d+-[CD]\d+(?:\.\d+)?)"/g)].map((m) => m[1]!);
    for (const clause of clauses) {
      const block = doc.blocks.find((b) => b.fragment === clause);
      assert.ok(block, `${name}: clause ${clause} has no block`);
      assert.ok(block.text.startsWith(clause), `${clause}: ${block.text.slice(0, 40)}`);
      assert.equal(block.normativity, 'normative', clause);
    }
    if (name === 'tr15.html') assert.ok(clauses.length >= 5, 'tr15 conformance clauses');
    // The version table is metadata, not a block.
    const meta = doc['metadata'] as Record<string, string>;
    assert.match(meta['version'] ?? '', /^Unicode \d+\.\d+\.\d+/);
    assert.ok(!doc.blocks.some((b) => b.kind === 'table' && /^Version\b/.test(b.text)));
  });
}

test('ietf-draft: the draft in HTML and text has the same numbered sections; HTML ids exist in the source', {
  skip: SKIP_CORPUS,
}, async () => {
  const html = await extractCorpusFile('rfc/draft-west-webappsec-csp-reg-04.html');
  const text = await extractCorpusFile('rfc/draft-west-webappsec-csp-reg-04.txt');
  for (const d of [html, text]) {
    assert.equal(d.family, 'ietf-draft');
    assert.equal(d.documentType, 'internet-draft');
  }
  const numbered = (d: typeof html): string[] => d.sections.filter((s) => s.number !== null).map((s) => `${s.number} ${s.heading}`);
  assert.ok(numbered(html).length >= 9);
  assert.deepEqual(numbered(text), numbered(html));
  const ids = sourceIds(readFileSync(path.join(corpusDir, 'rfc/draft-west-webappsec-csp-reg-04.html'), 'utf8'));
  for (const s of html.sections)
    for (const id of [s.fragment, ...(s.alternateIds ?? [])]) if (id !== null) assert.ok(ids.has(id), `invented id ${id}`);
  assert.equal((html['metadata'] as Record<string, string>)['intended status'], 'Informational');
});
