import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { EvidenceDocument } from '../../src/document/types.js';
import { validateDocument } from '../../src/extract/extract.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { SKIP_CORPUS, corpusDir, extractCorpusFile, ingestMap } from './helpers.js';
import { scoreAll } from './webref-score.js';

const skip = SKIP_CORPUS;
const cache = new Map<string, Promise<EvidenceDocument>>();
function doc(localPath: string): Promise<EvidenceDocument> {
  let p = cache.get(localPath);
  if (!p) {
    p = extractCorpusFile(localPath);
    cache.set(localPath, p);
  }
  return p;
}

test('every dev-corpus document extracts and validates against the schema', { skip }, async () => {
  for (const entry of ingestMap()) {
    const d = await doc(entry.localPath);
    const verdict = validateDocument(d);
    assert.deepEqual(verdict, { ok: true }, `${entry.localPath}: ${verdict.ok ? '' : verdict.errors.join('; ')}`);
    assert.equal(d.contentTrust, 'untrusted-source');
    assert.match(d.provenance.extractionConfigSha256, /^[0-9a-f]{64}$/);
  }
});

test('the three broken PDFs give their documented errors', { skip }, async () => {
  const codes = async (p: string): Promise<string[]> => (await doc(p)).diagnostics.filter((x) => x.severity === 'error').map((x) => x.code);
  assert.deepEqual(await codes('pdf/empty.pdf'), ['pdf-empty']);
  assert.deepEqual(await codes('pdf/password-example.pdf'), ['pdf-encrypted']);
  assert.ok((await codes('pdf/malformed-from-issue-932.pdf')).includes('pdf-malformed'));
});

test('webref headings: recall >= 0.98, no invented ids, titles equal for url/rfc9110/rfc6265', { skip }, async () => {
  for (const score of await scoreAll()) {
    assert.ok(score.eligible >= 40, `${score.document}: only ${score.eligible} ground-truth ids occur in the source (wrong pairing?)`);
    assert.ok(score.recall >= 0.98, `${score.document}: recall ${score.found}/${score.eligible}, missing ${score.missing.join(', ')}`);
    assert.deepEqual(score.invented, [], `${score.document}: invented ids`);
    assert.deepEqual(score.titleMismatches, [], `${score.document}: title mismatches`);
  }
});

test('RFC HTML section ids equal the XML section anchors (100%)', { skip }, async () => {
  const pairs: [string, string][] = [
    ['rfc/rfc9110.html', 'rfc/rfc9110.xml'],
    ['rfc/rfc6265.html', 'rfc/rfc6265.xml'],
    ['rfc/rfc9001.canonical.html', 'rfc/rfc9001.canonical.xml'],
  ];
  for (const [html, xml] of pairs) {
    const h = await doc(html);
    const x = await doc(xml);
    const htmlIds = new Set(h.sections.map((s) => s.fragment).filter((f): f is string => f !== null));
    // The id the HTML gives an XML section: its derived alias (xml2rfc "appendix-A" for pn
    // "section-appendix.a"), else its own fragment (httpwg anchors are the HTML ids).
    const htmlIdOf = (s: (typeof x.sections)[number]): string | null => s.derivedIds?.[0] ?? s.fragment;
    const anchors = x.sections
      .filter((s) => s.fragment !== null)
      .map(htmlIdOf)
      .filter((f): f is string => f !== null);
    assert.ok(anchors.length >= 50, `${xml}: only ${anchors.length} anchored sections`);
    assert.deepEqual(
      anchors.filter((a) => !htmlIds.has(a)),
      [],
      `${xml} anchors missing from ${html}`,
    );
    // Same section, same heading.
    const byId = new Map(h.sections.map((s) => [s.fragment, s.heading]));
    for (const s of x.sections) if (s.fragment !== null) assert.equal(byId.get(htmlIdOf(s)), s.heading, `${s.fragment} heading`);
  }
});

test('RFC 9001 HTML: all 138 BCP 14 keywords found and attributed to their blocks', { skip }, async () => {
  for (const p of ['rfc/rfc9001.canonical.html', 'rfc/rfc9001.canonical.xml']) {
    const d = await doc(p);
    let count = 0;
    for (const b of d.blocks) {
      const kws = (b['keywords'] ?? []) as { keyword: string; start: number; end: number; marked?: boolean }[];
      for (const k of kws) {
        count++;
        assert.equal(k.marked, true);
        assert.equal(b.text.slice(k.start, k.end).replace(/\s+/g, ' ').toUpperCase(), k.keyword, `${b.id} offsets`);
      }
    }
    assert.equal(count, 138, p);
  }
  const source = readFileSync(path.join(corpusDir, 'rfc/rfc9001.canonical.html'), 'utf8');
  assert.equal(source.match(/class="bcp14"/g)?.length, 138);
});

test('PDFs: every block has a page number; sections from the outline', { skip }, async () => {
  for (const entry of ingestMap().filter((e) => e.contentType === 'application/pdf')) {
    const d = await doc(entry.localPath);
    for (const b of d.blocks) assert.ok(Number.isInteger(b.page) && b.page! >= 1, `${entry.localPath} ${b.id} has no page`);
  }
  const outline = await doc('pdf/pdflatex-outline.pdf');
  assert.deepEqual(
    outline.sections.map((s) => s.heading),
    ['Foo', 'Bar', 'Baz', 'Foo', 'Bar', 'Baz', 'Foo', 'Bar', 'Baz'],
  );
  assert.equal(outline['pageCount'], 4);
});

test('two-column PDF reads column by column (checked against multicolumn.tex)', { skip }, async () => {
  const d = await doc('pdf/multicolumn.pdf');
  const text = d.blocks.map((b) => b.text).join('\n');
  // Hyphenated line ends join only when each column is read top to bottom.
  assert.match(
    text,
    /Lorem ipsum dolor sit amet, consectetuer adipiscing elit\. Ut purus elit, vestibulum ut, placerat ac, adipiscing vitae, felis\./,
  );
  assert.doesNotMatch(text, /[a-z]- [a-z]/);
  // Order of the pieces the .tex source states: title/author, abstract, table caption, table rows.
  const tex = readFileSync(path.join(corpusDir, 'pdf/multicolumn.tex'), 'utf8');
  const abstract = /\\begin\{abstract\}\s*([\s\S]*?)\s*\\end\{abstract\}/.exec(tex)![1]!.replace(/\s+/g, ' ');
  const rows = [...tex.matchAll(/^\s*([A-Z][a-z]+(?: Republic)?) & /gm)].map((m) => m[1]!);
  const pieces = ['Your Name', abstract, 'EU Countries Information', ...rows];
  let at = 0;
  for (const piece of pieces) {
    const i = text.indexOf(piece, at);
    assert.ok(i >= at, `"${piece}" out of order`);
    at = i + piece.length;
  }
});

test('form PDF lists its fields by name, type and value', { skip }, async () => {
  const d = await doc('pdf/libreoffice-form.pdf');
  const fields = d.blocks.filter((b) => b.kind === 'form-field').map((b) => b['field'] as { name: string; type: string; value: unknown });
  assert.deepEqual(
    fields.map((f) => [f.name, f.type, f.value]),
    [
      ['Last Name', 'text', null],
      ['First Name', 'text', 'Alice'],
      ['Birthday', 'text', null],
      ['female', 'radio', null],
      ['Nationality', 'combo-box', null],
      ['gdpr', 'checkbox', false],
      ['other', 'checkbox', false],
      ['First Name_2', 'text', 'Bob'],
    ],
  );
});

test('transcript PDF text matches its reference text (>= 95% token overlap)', { skip }, async () => {
  const d = await doc('pdf/scotus-transcript-p1.pdf');
  const tokens = (s: string): string[] =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
      .split(' ')
      .filter((t) => t !== '');
  const ours = tokens(
    d.blocks
      .filter((b) => b.page === 1)
      .map((b) => b.text)
      .join(' '),
  );
  const ref = tokens(readFileSync(path.join(corpusDir, 'pdf/scotus-transcript-p1.txt'), 'utf8'));
  const bag = new Map<string, number>();
  for (const t of ours) bag.set(t, (bag.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of ref) {
    const n = bag.get(t) ?? 0;
    if (n > 0) {
      common++;
      bag.set(t, n - 1);
    }
  }
  const overlap = common / Math.max(ref.length, ours.length);
  assert.ok(overlap >= 0.95, `token overlap ${(overlap * 100).toFixed(1)}%`);
});

test('same bytes and configuration give identical document bytes (corpus sample)', { skip }, async () => {
  for (const p of ['whatwg/url.html', 'rfc/rfc6635.txt', 'rfc/rfc6265.xml', 'pdf/multicolumn.pdf']) {
    const a = canonicalJson(await doc(p));
    const b = canonicalJson(await extractCorpusFile(p));
    assert.equal(a, b, p);
  }
});
