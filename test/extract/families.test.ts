import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SnapshotMeta } from '../../src/document/types.js';
import { DEFAULT_EXTRACT_OPTIONS, extractionConfig, validateDocument } from '../../src/extract/extract.js';
import { hostMatchesSuffix, loadFamilies, resolveFamily } from '../../src/extract/families.js';
import { validateRules } from '../../src/extract/validate.js';
import { extractBytes, repoRoot, snapshotFor } from './helpers.js';

test('every rules file validates against schema/rules.schema.json; required families exist', () => {
  const dir = path.join(repoRoot, 'rules');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    assert.deepEqual(validateRules(JSON.parse(readFileSync(path.join(dir, name), 'utf8'))), { ok: true }, name);
  }
  const ids = loadFamilies().map((f) => f.rules.id);
  for (const id of ['generic', 'ietf-draft', 'rfc', 'unicode', 'w3c', 'whatwg']) assert.ok(ids.includes(id), id);
  assert.deepEqual(ids, [...ids].sort(), 'families load in file-name order');
});

test('rules schema rejects loose or unknown fields', () => {
  const generic = JSON.parse(readFileSync(path.join(repoRoot, 'rules/generic.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(validateRules({ ...generic, hostPattern: '/whatwg\\.org$/' }).ok, false);
  assert.equal(validateRules({ ...generic, match: { hosts: ['*.whatwg.org'], hostSuffixes: [] } }).ok, false);
  // Generators are names: letters, digits, spaces inside, and ._+- (at most 64), never patterns or blanks.
  const withGenerators = (generators: unknown[]) => validateRules({ ...generic, match: { hosts: [], hostSuffixes: [], generators } }).ok;
  assert.equal(withGenerators(['Bikeshed', 'rfc2629.xslt', 'Microsoft Word', 'mkdocs-material']), true);
  for (const bad of ['', ' Bikeshed', 'Bikeshed ', 'Bike*', '/respec/i', 'x'.repeat(65), 3])
    assert.equal(withGenerators([bad]), false, String(bad));
});

test('host matching is exact or by label, never by substring', () => {
  assert.equal(hostMatchesSuffix('url.spec.whatwg.org', 'whatwg.org'), true);
  assert.equal(hostMatchesSuffix('whatwg.org', 'whatwg.org'), true);
  assert.equal(hostMatchesSuffix('evilwhatwg.org', 'whatwg.org'), false);
  assert.equal(resolveFamily('https://evilwhatwg.org/', undefined).rules.id, 'generic');
  assert.equal(resolveFamily('https://dom.spec.whatwg.org/#x', undefined).rules.id, 'whatwg');
  assert.equal(resolveFamily('https://www.w3.org/TR/FileAPI/', undefined).rules.id, 'w3c');
  assert.equal(resolveFamily('https://w3c.github.io/FileAPI/', undefined).rules.id, 'w3c');
  // W3C groups that publish their drafts on a github.io host of their own (WICG, GPU for the Web, ...).
  assert.equal(resolveFamily('https://wicg.github.io/scroll-to-text-fragment/', undefined).rules.id, 'w3c');
  assert.equal(resolveFamily('https://gpuweb.github.io/gpuweb/', undefined).rules.id, 'w3c');
  assert.equal(resolveFamily('https://webmachinelearning.github.io/webnn/', undefined).rules.id, 'w3c');
  assert.equal(resolveFamily('https://evil.github.io/wicg/', undefined).rules.id, 'generic');
  assert.equal(resolveFamily('https://httpwg.org/specs/rfc9110.html', undefined).rules.id, 'rfc');
  assert.equal(resolveFamily('https://www.rfc-editor.org/rfc/rfc9001.txt', undefined).rules.id, 'rfc');
  assert.equal(resolveFamily('https://example.org/', 'rfc').rules.id, 'rfc');
  // URL prefixes beat hosts: the I-D archive on www.ietf.org holds drafts, the rest of it RFCs.
  assert.equal(resolveFamily('https://www.ietf.org/archive/id/draft-a-b-00.txt', undefined).rules.id, 'ietf-draft');
  assert.equal(resolveFamily('https://www.ietf.org/rfc/rfc2616.txt', undefined).rules.id, 'rfc');
  assert.equal(resolveFamily('https://datatracker.ietf.org/doc/html/draft-a-b-00', undefined).rules.id, 'ietf-draft');
  // Datatracker serves RFCs too: an RFC's page there is an RFC, not a draft.
  assert.equal(resolveFamily('https://datatracker.ietf.org/doc/html/rfc6265', undefined).rules.id, 'rfc');
  assert.equal(resolveFamily('https://datatracker.ietf.org/doc/rfc9110/', undefined).rules.id, 'rfc');
  assert.equal(resolveFamily('https://www.unicode.org/reports/tr29/', undefined).rules.id, 'unicode');
  assert.equal(resolveFamily('https://evilunicode.org/reports/tr29/', undefined).rules.id, 'generic');
  assert.equal(resolveFamily('https://www.ietf.org.evil.test/archive/id/x', undefined).rules.id, 'generic');
  assert.throws(() => resolveFamily('https://example.org/', 'nope'), { code: 'config-invalid' });
});

test('extraction config covers only the document family rules, the extractor, fragment and options', () => {
  const snap = (url: string, type: string): SnapshotMeta => snapshotFor(url, type, new Uint8Array([1]));
  const whatwg = extractionConfig(
    { url: 'https://url.spec.whatwg.org/' },
    snap('https://url.spec.whatwg.org/', 'text/html'),
    DEFAULT_EXTRACT_OPTIONS,
  );
  const whatwgRules = JSON.parse(readFileSync(path.join(repoRoot, 'rules/whatwg.json'), 'utf8')) as unknown;
  assert.deepEqual((whatwg['family'] as { rules: unknown }).rules, whatwgRules);
  assert.equal(whatwg['extractor'], 'html');
  assert.equal(whatwg['fragment'], null);
  const frag = extractionConfig(
    { url: 'https://url.spec.whatwg.org/#urls' },
    snap('https://url.spec.whatwg.org/', 'text/html'),
    DEFAULT_EXTRACT_OPTIONS,
  );
  assert.equal(frag['fragment'], 'urls');
  // A PDF option does not enter an HTML document's config.
  const other = extractionConfig({ url: 'https://url.spec.whatwg.org/' }, snap('https://url.spec.whatwg.org/', 'text/html'), {
    ...DEFAULT_EXTRACT_OPTIONS,
    pdfMaxPages: 5,
  });
  assert.deepEqual(other, whatwg);
  // A time bound enters no document's config, PDF or not: raising one re-extracts nothing that succeeded.
  const pdfSnap = snap('https://example.org/a.pdf', 'application/pdf');
  assert.deepEqual(
    extractionConfig({ url: 'https://example.org/a.pdf' }, pdfSnap, { ...DEFAULT_EXTRACT_OPTIONS, pdfTimeoutMs: 999_000 } as never),
    extractionConfig({ url: 'https://example.org/a.pdf' }, pdfSnap, DEFAULT_EXTRACT_OPTIONS),
  );
  // Extractor choice: explicit, then content type, then family default.
  const rfcText = extractionConfig(
    { url: 'https://www.rfc-editor.org/rfc/rfc1.txt' },
    snap('https://www.rfc-editor.org/rfc/rfc1.txt', 'application/octet-stream'),
    DEFAULT_EXTRACT_OPTIONS,
  );
  assert.equal(rfcText['extractor'], 'text');
  const forced = extractionConfig(
    { url: 'https://example.org/x', extractor: 'xml' },
    snap('https://example.org/x', 'text/html'),
    DEFAULT_EXTRACT_OPTIONS,
  );
  assert.equal(forced['extractor'], 'xml');
});

const SECTIONED = `<html><body><h2 id="a">A</h2><p>in a</p><h3 id="a1">A one</h3><p>in a1</p><h2 id="b">B</h2><p>in b</p></body></html>`;

test('a #fragment URL extracts only that section and its subsections', async () => {
  const doc = await extractBytes(SECTIONED, 'https://example.org/spec#a', 'text/html');
  assert.deepEqual(validateDocument(doc), { ok: true });
  assert.equal(doc.fragment, 'a');
  assert.deepEqual(
    doc.sections.map((s) => [s.id, s.parentId]),
    [
      ['a', null],
      ['a1', 'a'],
    ],
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['in a', 'in a1'],
  );
});

test('an absent #fragment gives a clear warning and the whole document', async () => {
  const doc = await extractBytes(SECTIONED, 'https://example.org/spec#missing', 'text/html');
  assert.equal(doc.fragment, null);
  assert.deepEqual(
    doc.diagnostics.map((d) => [d.code, d.severity]),
    [['fragment-not-found', 'warning']],
  );
  assert.equal(doc.sections.length, 3);
});

test('root selectors are an ordered priority list, and rules select with DOM semantics', async () => {
  // whatwg: root "body"; generic: "main" before "body" even though body comes first in the document.
  const page = `<html><body><p>outside main</p><main><section><h2 id="x">X</h2><p>inside</p></section></main></body></html>`;
  const generic = await extractBytes(page, 'https://example.org/', 'text/html');
  assert.deepEqual(
    generic.blocks.map((b) => b.text),
    ['inside'],
  );
});

test('extraction itself has no clock: a PDF extracts the same whatever pdfTimeoutMs says (the stage pool bounds time)', async () => {
  const pdf = minimalPdf('Hello');
  const fast = await extractBytes(
    pdf,
    'https://example.org/a.pdf',
    'application/pdf',
    {},
    { ...DEFAULT_EXTRACT_OPTIONS, pdfTimeoutMs: 1000 },
  );
  assert.deepEqual(validateDocument(fast), { ok: true });
  assert.deepEqual(
    fast.blocks.map((b) => [b.text, b.page]),
    [['Hello', 1]],
  );
  assert.ok(!fast.diagnostics.some((d) => d.code === 'pdf-timeout'), JSON.stringify(fast.diagnostics));
});

/** A one-page PDF with one line of text, xref offsets computed. */
function minimalPdf(text: string): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${`BT /F1 12 Tf 20 150 Td (${text}) Tj ET`.length} >>\nstream\nBT /F1 12 Tf 20 150 Td (${text}) Tj ET\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` + offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

test('a content type named like an Object.prototype member chooses the family default, as any unknown type does', () => {
  const url = 'https://example.org/doc';
  const snap = (type: string): SnapshotMeta => snapshotFor(url, type, new Uint8Array([1]));
  const unknown = extractionConfig({ url }, snap('application/x-unknown'), DEFAULT_EXTRACT_OPTIONS)['extractor'];
  for (const name of [...Object.getOwnPropertyNames(Object.prototype), '__proto__']) {
    for (const type of [name, `${name}; charset=utf-8`, name.toUpperCase()]) {
      assert.equal(extractionConfig({ url }, snap(type), DEFAULT_EXTRACT_OPTIONS)['extractor'], unknown, type);
    }
  }
});
