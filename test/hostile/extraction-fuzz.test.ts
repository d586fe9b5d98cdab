import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StagePool } from '../../src/graph/stage-pool.js';
import { DEFAULT_EXTRACT_OPTIONS, validateDocument } from '../../src/extract/extract.js';
import { EpistemeError } from '../../src/failure.js';
import { seededRandom } from '../helpers/random.js';
import { scaled } from '../helpers/scale.js';
import { fixturesDir, snapshotFor } from '../extract/helpers.js';
import { pdfFromObjects, textPdf } from './hostile-documents.js';

/**
 * A seeded fuzz run of extraction: 400 mutations (times EPISTEME_TEST_SCALE) of real-looking HTML,
 * XML, text and PDF inputs (byte flips, truncations, duplicated and deeply nested tag runs, entity,
 * comment and CDATA injections, broken streams), each extracted through the same bounded worker pool the build uses.
 * Every input must give a valid document or a named bound failure (extract-bound-exceeded); never
 * internal-error, and never a time or memory bound (each input is small, so tripping one would mean
 * extraction is super-linear somewhere). EPISTEME_FUZZ_SEED=<n> explores another seed; a failure
 * names the seed and the case, which reproduce it.
 */

const SEED = Number(process.env['EPISTEME_FUZZ_SEED'] ?? 0x5eed);
/**
 * Per-input wall-clock bound, the default PDF bound. Inputs are at most ~1 MB and most take well under
 * a second; the slowest (seed 0x5eed, case 969: a 28 KB mangled PDF that pdfjs parses for ~10 s on a
 * 2-core machine) stays well inside it.
 */
const TIME_BOUND_MS = DEFAULT_EXTRACT_OPTIONS.pdfTimeoutMs;

type Kind = 'html' | 'xml' | 'text' | 'pdf';
interface Seed {
  kind: Kind;
  name: string;
  url: string;
  contentType: string;
  bytes: Uint8Array;
}

const PLAIN_CONTENT = 'BT /F1 12 Tf 20 150 Td (1. Heading text) Tj ET';

const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(path.join(fixturesDir, name)));

function seeds(): Seed[] {
  const html = (name: string, url: string): Seed => ({ kind: 'html', name, url, contentType: 'text/html', bytes: fixture(name) });
  const plainText = new TextEncoder().encode(
    'A plain text note\n\nIt has paragraphs, a list:\n  - one\n  - two\n\nand indented code:\n\n    x = 1;\n    y = 2;\n\n' +
      'Table of contents ........ 3\n+-----+-----+\n| a   | b   |\n+-----+-----+\n',
  );
  return [
    html('whatwg-bikeshed.html', 'https://widget.spec.whatwg.org/'),
    html('w3c-respec.html', 'https://www.w3.org/TR/gadget/'),
    html('rfc-xml2rfc.html', 'https://www.rfc-editor.org/rfc/rfc9999.html'),
    {
      kind: 'xml',
      name: 'rfc-v2.xml',
      url: 'https://www.rfc-editor.org/rfc/rfc9997.xml',
      contentType: 'application/rfc+xml',
      bytes: fixture('rfc-v2.xml'),
    },
    {
      kind: 'xml',
      name: 'generic.xml',
      url: 'https://example.org/manual.xml',
      contentType: 'application/xml',
      bytes: fixture('generic.xml'),
    },
    {
      kind: 'text',
      name: 'rfc-paginated.txt',
      url: 'https://www.rfc-editor.org/rfc/rfc9998.txt',
      contentType: 'text/plain',
      bytes: fixture('rfc-paginated.txt'),
    },
    { kind: 'text', name: 'plain.txt', url: 'https://example.org/note.txt', contentType: 'text/plain', bytes: plainText },
    { kind: 'pdf', name: 'text-1.pdf', url: 'https://example.org/a.pdf', contentType: 'application/pdf', bytes: textPdf(1, 12) },
    { kind: 'pdf', name: 'text-3.pdf', url: 'https://example.org/b.pdf', contentType: 'application/pdf', bytes: textPdf(3, 8) },
    {
      kind: 'pdf',
      name: 'plain-stream.pdf',
      url: 'https://example.org/c.pdf',
      contentType: 'application/pdf',
      bytes: pdfFromObjects([
        '<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
        `<< /Length ${PLAIN_CONTENT.length} >>\nstream\n${PLAIN_CONTENT}\nendstream`,
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        '<< /Type /Outlines /Count 0 >>',
      ]),
    },
  ];
}

/** How many mutations of each kind one run makes: 400 in all (each seed input mutated many times), times EPISTEME_TEST_SCALE. */
const PER_KIND: Record<Kind, number> = {
  html: scaled(132),
  xml: scaled(100),
  text: scaled(68),
  pdf: scaled(100),
};
const CASES = Object.values(PER_KIND).reduce((sum, n) => sum + n, 0);

const TAGS: Record<Kind, string[]> = {
  html: [
    'div',
    'section',
    'p',
    'ol',
    'li',
    'ul',
    'table',
    'tr',
    'td',
    'pre',
    'a',
    'span',
    'svg',
    'math',
    'form',
    'dl',
    'dt',
    'h2',
    'foreignObject',
    'template',
  ],
  xml: ['section', 't', 'list', 'xref', 'bcp14', 'figure', 'artwork', 'references', 'reference', 'dl', 'ul', 'li', 'name', 'e', 'x:y'],
  text: [],
  pdf: [],
};

const INJECTIONS: Record<Kind, string[]> = {
  html: [
    '&amp;',
    '&#0;',
    '&#x10FFFF;',
    '&#99999999999;',
    '&nbsp',
    '&unknown;',
    '&',
    '<!--',
    '<!-- c -->',
    '--!>',
    '<![CDATA[x]]>',
    '<![CDATA[',
    '<script>',
    '</p>',
    '<p',
    '<a href="',
    '<table><td>',
    '<li>',
    '\u0000',
    '\r',
    '\u2028',
  ],
  xml: [
    '&amp;',
    '&#0;',
    '&#x110000;',
    '&lol;',
    '&MUST;',
    '<!--',
    '<![CDATA[',
    ']]>',
    '<?pi x?>',
    '<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b SYSTEM "x">]>',
    '<!ENTITY c "',
    '<bcp14>MUST</bcp14>',
    '<t>',
    '</section>',
    '\u0000',
    '\r',
  ],
  text: [
    '\f',
    '\r',
    '\u2028',
    ' '.repeat(64),
    '.'.repeat(64),
    '-'.repeat(64),
    '   [Page 7]',
    'RFC 9999      Title      June 2024',
    '1.2.3.  Heading',
    'o  bullet',
    '  ABNF = rule / rule',
    '+---+---+',
    '\t',
  ],
  pdf: [
    'stream',
    'endstream',
    'obj',
    'endobj',
    '<<',
    '>>',
    '/FlateDecode',
    '/Length 999999',
    '(',
    ')',
    'BT',
    'ET',
    'Tj',
    '\\',
    'xref',
    'trailer',
    '%%EOF',
  ],
};

function mutate(seed: Seed, random: () => number): Uint8Array {
  let bytes = Buffer.from(seed.bytes);
  const int = (n: number): number => Math.floor(random() * n);
  const insert = (text: string | Buffer): void => {
    const at = int(bytes.length + 1);
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1'), bytes.subarray(at)]);
  };
  const steps = 1 + int(3);
  for (let s = 0; s < steps; s++) {
    const tags = TAGS[seed.kind];
    switch (int(seed.kind === 'pdf' || seed.kind === 'text' ? 5 : 7)) {
      case 0: {
        // Byte flips.
        const flips = 1 + int(16);
        for (let i = 0; i < flips && bytes.length > 0; i++) bytes[int(bytes.length)] = int(256);
        break;
      }
      case 1:
        // Truncation.
        bytes = bytes.subarray(0, int(bytes.length + 1));
        break;
      case 2: {
        // A run of the input duplicated, up to 2,000 times.
        if (bytes.length === 0) break;
        const from = int(bytes.length);
        const run = bytes.subarray(from, Math.min(bytes.length, from + 1 + int(80)));
        const times = 2 + int(random() < 0.2 ? 2000 : 20);
        insert(Buffer.concat(Array.from({ length: times }, () => run)));
        break;
      }
      case 3: {
        // Injections: entities, comments, CDATA, stray markup, page furniture, PDF tokens.
        const list = INJECTIONS[seed.kind];
        const count = 1 + int(random() < 0.2 ? 500 : 5);
        insert(Array.from({ length: count }, () => list[int(list.length)]!).join(''));
        break;
      }
      case 4: {
        // Long lines of one character: whitespace, dots, dashes (regular-expression stress).
        const ch = [' ', '.', '-', '=', '\t', 'a', '1'][int(7)]!;
        insert(ch.repeat(1 + int(random() < 0.3 ? 200_000 : 200)));
        break;
      }
      case 5: {
        // Deep nesting of one tag, up to 20,000 levels, sometimes closed.
        const tag = tags[int(tags.length)]!;
        const depth = 1 + int(random() < 0.3 ? 20_000 : 100);
        insert(`<${tag}>`.repeat(depth) + (random() < 0.5 ? `</${tag}>`.repeat(depth) : ''));
        break;
      }
      case 6: {
        // Alternating open tags (mixed nesting with implied closes).
        const a = tags[int(tags.length)]!;
        const b = tags[int(tags.length)]!;
        insert(`<${a}><${b}>`.repeat(1 + int(3000)));
        break;
      }
    }
  }
  return new Uint8Array(bytes);
}

test(`seeded extraction fuzz (seed ${SEED}): ${CASES} mutated inputs, no internal-error, each within its time bound`, async () => {
  const pool = new StagePool(2, { maxHeapMb: 512 });
  const random = seededRandom(SEED);
  const all = seeds();
  const cases: { kind: Kind; seed: Seed; index: number }[] = [];
  for (const kind of ['html', 'xml', 'text', 'pdf'] as Kind[]) {
    const ofKind = all.filter((s) => s.kind === kind);
    for (let i = 0; i < PER_KIND[kind]; i++) cases.push({ kind, seed: ofKind[i % ofKind.length]!, index: cases.length });
  }
  assert.equal(cases.length, CASES);
  const outcomes = new Map<string, number>();
  const failures: string[] = [];
  let slowest = 0;
  try {
    // Inputs are made in order from one PRNG (reproducible), then extracted a few at a time.
    const inFlight = new Set<Promise<void>>();
    for (const c of cases) {
      const body = mutate(c.seed, random);
      const bodyLength = body.length; // the pool transfers the body to its worker
      const run = async (): Promise<void> => {
        const started = performance.now();
        try {
          const { bytes } = await pool.run(
            {
              stage: 'extract',
              input: {
                documentId: `fuzz-${c.index}`,
                source: { url: c.seed.url },
                snapshot: snapshotFor(c.seed.url, c.seed.contentType, body),
                body,
                options: { ...DEFAULT_EXTRACT_OPTIONS },
              },
            },
            { timeoutMs: TIME_BOUND_MS, label: `case ${c.index}` },
          );
          const document = (JSON.parse(Buffer.from(bytes).toString('utf8')) as { payload: unknown }).payload;
          const valid = validateDocument(document);
          if (!valid.ok) failures.push(`case ${c.index} (${c.seed.name}): invalid document: ${valid.errors.slice(0, 3).join('; ')}`);
          outcomes.set('document', (outcomes.get('document') ?? 0) + 1);
        } catch (error) {
          const code = error instanceof EpistemeError ? error.code : 'internal-error';
          outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
          if (code !== 'extract-bound-exceeded')
            failures.push(`case ${c.index} (${c.seed.name}): ${code}: ${error instanceof Error ? error.message : String(error)}`);
        }
        slowest = Math.max(slowest, performance.now() - started);
        if (process.env['EPISTEME_FUZZ_VERBOSE'] === '1')
          console.log(`# case ${c.index} ${c.seed.name}: ${Math.round(performance.now() - started)} ms, ${bodyLength} bytes`);
      };
      const p = run().finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= 4) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    await pool.close();
  }
  const summary = `seed ${SEED}: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}; slowest ${Math.round(slowest)} ms`;
  console.log(`# ${summary}`);
  assert.deepEqual(failures, [], `${failures.length} failures (${summary}); reproduce with EPISTEME_FUZZ_SEED=${SEED}`);
  assert.ok(slowest < TIME_BOUND_MS, summary);
  assert.ok((outcomes.get('document') ?? 0) > cases.length / 2, `most inputs should still extract (${summary})`);
});
