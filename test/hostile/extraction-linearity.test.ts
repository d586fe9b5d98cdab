import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StagePool } from '../../src/graph/stage-pool.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../../src/extract/extract.js';
import { extractBytes, snapshotFor } from '../extract/helpers.js';
import { EpistemeError } from '../../src/failure.js';
import { NESTED_HTML, deepRfcXmlSections, ecmarkdownSource, nestedHtmlUrl, textPdf } from './hostile-documents.js';
import { listedEntriesPdf, longLinePdf, manyCellsPdf, manyRunsPdf, mergedRunPdf, oneLineRunsPdf } from './pdf-runs.js';

/**
 * Work grows linearly with adversarial input: each input below targets a pattern that was (or could
 * be) super-linear (a backtracking regular expression, a parser stack scanned per tag, a per-item
 * walk over previous siblings). It is extracted at 1 KB, 100 KB and 1 MB through the bounded stage
 * pool; the 1 MB run may take at most RATIO times the 100 KB run (linear: ~10x, more with garbage collection; quadratic: ~100x).
 * Generous by design: it tells linear from quadratic, not fast from slow. A quadratic regression
 * trips the pool's time bound (extract-timeout) instead of hanging the suite.
 */

const RATIO = 40;
/** Times below this are mostly dispatch and timer noise: the ratio is taken against at least this. */
const FLOOR_MS = 20;
const SIZES = [1_000, 100_000, 1_000_000];
const RFC_URL = 'https://www.rfc-editor.org/rfc/rfc9998.txt';

interface Case {
  name: string;
  url: string;
  contentType: string;
  /** A document of about `size` characters. */
  make: (size: number) => string;
}

const rfcHead = 'Internet Engineering Task Force (IETF)\nRequest for Comments: 9998\n\n';
const fill = (unit: string, size: number): string => unit.repeat(Math.max(1, Math.floor(size / unit.length)));

const CASES: Case[] = [
  {
    // An explicit heading id was found by /\s*\{#([^\s}]+)[^}]*\}\s*$/: cubic without the closing brace.
    name: 'Markdown: a heading of `{#x` repeated, no closing brace',
    url: 'https://example.test/doc.md',
    contentType: 'text/markdown',
    make: (n) => `# a${fill('{#x', n)}\n\npara\n`,
  },
  {
    // Each copy of a section id counted its suffix up from 2 (`x~2`, `x~3`, ...): 150 KB took 22 s.
    name: 'Markdown: every heading with the same explicit id `{#x}`',
    url: 'https://example.test/doc.md',
    contentType: 'text/markdown',
    make: (n) => fill('# a {#x}\n\n', n),
  },
  {
    // An item after one never written (hidden) counted every item before it again (800 KB: 12 s).
    name: 'HTML: numbered items in a table cell, every other one hidden',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `<table><tr><td><ol>${fill('<li hidden>a</li><li>b</li>', n)}</ol></td></tr></table>`,
  },
  {
    name: 'HTML: every heading with the same id',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => fill('<h2 id="x">a</h2>', n),
  },
  {
    name: 'rfc running header after a form feed: "RFC 1" + spaces',
    url: RFC_URL,
    contentType: 'text/plain',
    make: (n) => `${rfcHead}Text.\n\f\nRFC 1${' '.repeat(n)}x\n`,
  },
  {
    name: 'rfc dot leader: a gap, then dots without a page number',
    url: RFC_URL,
    contentType: 'text/plain',
    make: (n) => `${rfcHead}   a    b ${'.'.repeat(n)}x\n`,
  },
  { name: 'rfc art joint: a line of dashes', url: RFC_URL, contentType: 'text/plain', make: (n) => `${rfcHead}   ${'-'.repeat(n)}x\n` },
  { name: 'rfc lines of spaces between words', url: RFC_URL, contentType: 'text/plain', make: (n) => `${rfcHead}   a${' '.repeat(n)}b\n` },
  {
    name: 'plain text: inner whitespace runs (trailing-space trims)',
    url: 'https://example.org/a.txt',
    contentType: 'text/plain',
    make: (n) => `Title\n\n    a${' '.repeat(n)}b\n`,
  },
  {
    name: 'plain text: many short lines',
    url: 'https://example.org/a.txt',
    contentType: 'text/plain',
    make: (n) => fill('word word\n', n),
  },
  {
    name: 'HTML: nested divs with unmatched end tags',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => fill('<div>', n / 2) + 'x' + fill('</span>', n / 2),
  },
  {
    name: 'HTML: <form> repeated inside deep nesting',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => '<form>' + fill('<div>', n / 2) + fill('<form>', n / 2),
  },
  { name: 'HTML: nested <svg> (foreign contexts)', url: 'https://example.org/', contentType: 'text/html', make: (n) => fill('<svg>', n) },
  {
    name: 'HTML: one flat ordered list',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => '<ol>' + fill('<li>i</li>', n) + '</ol>',
  },
  {
    // Every block start tag looks down for an open <p> (the standard's "close a p element"), at most 512 deep.
    name: 'HTML: an open <p> under deep inline nesting, then as many blocks',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => '<p>' + fill('<span>', n / 2) + fill('<div>', n / 2),
  },
  {
    name: 'HTML: whitespace-only paragraph',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `<p>a${' '.repeat(n)}b</p><pre>x${' \n'.repeat(n / 2)}</pre>`,
  },
  {
    name: 'XML: nested elements',
    url: 'https://example.org/a.xml',
    contentType: 'application/xml',
    make: (n) => fill('<e>', n / 2) + 'x' + fill('</e>', n / 2),
  },
  {
    name: 'XML: unterminated DOCTYPE subsets',
    url: 'https://example.org/a.xml',
    contentType: 'application/xml',
    make: (n) => fill('<!DOCTYPE [', n) + '<r/>',
  },
  {
    // Each DOCTYPE searched for its "[" to the end of the text again (100 KB: 1.1 s; 1 MB: minutes).
    name: 'XML: `<!DOCTYPE` repeated with no "[" after it, then one ">"',
    url: 'https://example.org/a.xml',
    contentType: 'application/xml',
    make: (n) => `${fill('<!DOCTYPE', n)}><r>x</r>`,
  },
  {
    name: 'XML: unterminated ENTITY declarations',
    url: 'https://example.org/a.xml',
    contentType: 'application/xml',
    make: (n) => `<!DOCTYPE r [${fill('<!ENTITY a SYSTEM "', n)}]><r/>`,
  },
  {
    name: 'XML: many entity references',
    url: 'https://example.org/a.xml',
    contentType: 'application/xml',
    make: (n) => `<!DOCTYPE r [<!ENTITY a "aa">]><r>${fill('&a; and text ', n)}</r>`,
  },
  {
    name: 'RFC XML: nested sections',
    url: 'https://www.rfc-editor.org/rfc/rfc9997.xml',
    contentType: 'application/rfc+xml',
    make: (n) => '<rfc><middle>' + fill('<section><name>s</name><t>x</t>', n),
  },
  {
    // A nested v2 list takes its enclosing list's style; namespaces resolve through the ancestors.
    name: 'RFC XML: deep nests of unstyled lists under namespace declarations',
    url: 'https://www.rfc-editor.org/rfc/rfc9997.xml',
    contentType: 'application/rfc+xml',
    make: (n) => {
      const nest = `${'<list><t>i'.repeat(300)}<x:y xmlns:x="urn:a"><p:q xmlns:p="urn:b">z</p:q></x:y>${'</t></list>'.repeat(300)}`;
      return (
        '<rfc xmlns:x="http://purl.org/net/xml2rfc/ext"><middle><section><name>s</name>' +
        `<t>${fill(nest, n)}</t></section></middle></rfc>`
      );
    },
  },
  {
    // Issue 31: list lines, step paths and section ancestry stop growing past the outline depth.
    name: 'HTML: nested ordered lists',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => fill('<ol><li>x', n),
  },
  {
    name: 'HTML: ecmarkdown steps indented 40 levels deep, again and again',
    url: 'https://tc39.es/ecma262/',
    contentType: 'text/html',
    make: (n) => ecmarkdownSource(Math.max(1, Math.floor(n / 60)), 40),
  },
  {
    name: 'HTML: nested superscripts',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `<p>2${fill('<sup>x', n)}</p>`,
  },
  {
    // Inline wrappers are asked once whether they wrap blocks, however deep they nest.
    name: 'HTML: deep nests of inline wrappers around a block',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => fill(`${'<span>'.repeat(300)}<pre>x</pre>${'</span>'.repeat(300)}`, n),
  },
  {
    // Each named one more alternate id of the heading: the ids were deduplicated with a scan of the list.
    name: 'HTML: empty anchors before one heading',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `${namedAnchors('a', n / 2)}<h2>H</h2><p>x</p>`,
  },
  {
    name: 'HTML: anchors inside one heading',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `<h2>${namedAnchors('a', n / 2)}H</h2><p>x</p>`,
  },
  {
    // The anchors before a block were compared with every anchor inside it.
    name: 'HTML: empty anchors before a paragraph full of anchors',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `<h2 id="h">H</h2>${namedAnchors('a', n / 4)}<p>${namedAnchors('b', n / 4)}x</p>`,
  },
  {
    // Sphinx's terms of one API entry (entrySelectors): the terms after the first are its alternate ids.
    name: 'HTML: API entry terms before one definition',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => {
      const terms = Array.from({ length: Math.max(1, Math.floor(n / 40)) }, (_, i) => `<dt class="sig-object" id="e${i}">e${i}</dt>`);
      return `<h2 id="h">H</h2><dl>${terms.join('')}<dd>x</dd></dl>`;
    },
  },
  {
    // Each reference re-read its target's text.
    name: 'RFC XML: many x:length-of references to one large artwork',
    url: 'https://www.rfc-editor.org/rfc/rfc9997.xml',
    contentType: 'application/rfc+xml',
    make: (n) =>
      '<rfc xmlns:x="http://purl.org/net/xml2rfc/ext"><middle><section><name>s</name>' +
      `<t>${fill('<x:length-of target="big"/>', n / 2)}</t><artwork anchor="big">${'a'.repeat(n / 2)}</artwork></section></middle></rfc>`,
  },
  {
    // The variables of a step were deduplicated with a scan of the list. Names of one length with a
    // long shared prefix: each comparison of that scan reads the prefix.
    name: 'HTML: many distinct variables in one algorithm step',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => {
      const name = (i: number): string => `${'v'.repeat(32)}${i.toString(36).padStart(4, '0')}`;
      const vars = Array.from({ length: Math.max(1, Math.floor(n / 50)) }, (_, i) => `<var>${name(i)}</var>`);
      return `<h2 id="a">Alg</h2><p>The frobnicate algorithm steps are:</p><ol><li>Let ${vars.join('')}.</li><li>Return.</li></ol>`;
    },
  },
  {
    // A reference entry's name element is searched for its line and heading: entries nested inside name
    // elements must not search the ones below them again at every level.
    name: 'DocBook: reference entries nested in their name divisions',
    url: 'https://example.org/book.html',
    contentType: 'text/html',
    make: (n) =>
      '<meta name="generator" content="DocBook XSL Stylesheets"><h1>Book</h1><h2>Commands</h2>' +
      fill('<div class="refentry"><a id="e"></a><div class="refnamediv"><h2>Name</h2><p>e — entry</p>', n),
  },
  {
    // Each bare line after a table of contents is looked for among the next entries, a window of them.
    name: 'Plain text: a table of contents and its entries as bare lines in the opposite order',
    url: 'https://example.test/notes.txt',
    contentType: 'text/plain',
    make: (n) => {
      const count = Math.max(3, Math.floor(n / 40));
      const entries = Array.from({ length: count }, (_, i) => `Entry ${i}`);
      return `Notes\n\nTable of Contents\n\n${entries.join('\n')}\n\n${[...entries].reverse().join('\n\ntext\n\n')}\n`;
    },
  },
  {
    name: 'HTML: headings ending in a colon (labels), one after another',
    url: 'https://example.org/',
    contentType: 'text/html',
    make: (n) => `<h2 id="h">H</h2>${fill('<h3>Parameters:</h3><p>x</p>', n)}`,
  },
];

/** About `size` characters of empty anchors, each with its own name (`<a name="p12"></a>`). */
function namedAnchors(prefix: string, size: number): string {
  return Array.from({ length: Math.max(1, Math.floor(size / 20)) }, (_, i) => `<a name="${prefix}${i}"></a>`).join('');
}

test('extraction time grows linearly with adversarial input (1 KB, 100 KB, 1 MB)', async () => {
  const pool = new StagePool(1, { maxHeapMb: 1024 });
  const report: string[] = [];
  try {
    for (const c of CASES) {
      const times: number[] = [];
      for (const size of SIZES) {
        const body = new TextEncoder().encode(c.make(size));
        const once = async (): Promise<number> => {
          const started = performance.now();
          await pool.run(
            {
              stage: 'extract',
              input: {
                documentId: 'linear',
                source: { url: c.url },
                snapshot: snapshotFor(c.url, c.contentType, body),
                body,
                options: { ...DEFAULT_EXTRACT_OPTIONS },
              },
            },
            { timeoutMs: 60_000, label: c.name },
          );
          return performance.now() - started;
        };
        const largest = size === SIZES[SIZES.length - 1];
        let best = largest ? await once() : Math.min(await once(), await once());
        // A run that looks super-linear is measured again, up to twice (a loaded machine pauses at
        // random; a real quadratic scan is slow every time).
        for (let retry = 0; retry < 2 && largest && best > RATIO * Math.max(times[1]!, FLOOR_MS); retry++)
          best = Math.min(best, await once());
        times.push(best);
      }
      const [, t100k, t1m] = times as [number, number, number];
      report.push(`${c.name}: ${times.map((t) => `${t.toFixed(1)} ms`).join(' / ')}`);
      assert.ok(
        t1m <= RATIO * Math.max(t100k, FLOOR_MS),
        `${c.name}: 1 MB took ${t1m.toFixed(0)} ms, 100 KB ${t100k.toFixed(0)} ms (more than ${RATIO}x: super-linear)`,
      );
    }
  } finally {
    await pool.close();
    console.log(report.map((line) => `# ${line}`).join('\n'));
  }
});

test('tables nested in table cells cost about what the same tables one after another cost', async () => {
  // Whether a table is layout asks whether its cells hold text. That read all the text inside each cell
  // (textContent), so 100 tables nested in cells over 1 MB of text read it 100 times: 33 s. Nesting is
  // capped at 512 levels, so this grows with depth times size, never past a linearity test's ratio.
  const text = `<p>${'word '.repeat(200_000)}</p>`;
  const cell = '<table><tr><td>&nbsp;</td><td><p>x</p>';
  const nested = `<h1>t</h1>${cell.repeat(100)}${text}`;
  const flat = `<h1>t</h1>${`${cell}</td></tr></table>`.repeat(100)}${text}`;
  const time = async (html: string): Promise<number> => {
    let best = Infinity;
    for (let round = 0; round < 2; round++) {
      const started = performance.now();
      await extractBytes(html, 'https://example.org/nested.html', 'text/html');
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  const flatMs = await time(flat);
  const nestedMs = await time(nested);
  assert.ok(nestedMs <= 8 * Math.max(flatMs, FLOOR_MS), `nested ${nestedMs.toFixed(0)} ms, one after another ${flatMs.toFixed(0)} ms`);
});

/**
 * PDF constructs, each at n and 4n text runs (or cells, or pages): the 4n run may take at most
 * PDF_RATIO times the n run (linear: 4x, more with garbage collection and a loaded machine;
 * quadratic: 16x). Extracted in this process: pdfjs's own cost is linear, the extractor's is checked.
 */
const PDF_RATIO = 10;
const PDF_FLOOR_MS = 200;
const PDF_CASES: { name: string; n: number; make: (n: number) => Uint8Array }[] = [
  { name: 'PDF: text runs on lines a point apart, one page', n: 10_000, make: manyRunsPdf },
  { name: 'PDF: text runs on one baseline (one line)', n: 10_000, make: oneLineRunsPdf },
  { name: 'PDF: cells of an unruled table', n: 4_000, make: manyCellsPdf },
  { name: 'PDF: one text item of words a gutter apart (thousands of columns)', n: 2_000, make: mergedRunPdf },
  { name: 'PDF: pages of running text', n: 40, make: (n) => textPdf(n) },
  // Table of contents detection: a leader expression backtracked over the line; a count taken per line.
  { name: 'PDF: one line of one long text run', n: 60_000, make: longLinePdf },
  { name: 'PDF: a browser-printed table of contents of many entries', n: 12_000, make: listedEntriesPdf },
];

async function pdfTime(body: Uint8Array): Promise<number> {
  const started = performance.now();
  await extractBytes(body, 'https://example.test/linear.pdf', 'application/pdf');
  return performance.now() - started;
}

test('PDF extraction time grows linearly with text runs, line length, table cells and pages (n, 4n)', async () => {
  const report: string[] = [];
  try {
    for (const c of PDF_CASES) {
      const small = c.make(c.n);
      const large = c.make(4 * c.n);
      const tn = Math.min(await pdfTime(small), await pdfTime(small));
      let t4n = await pdfTime(large);
      for (let retry = 0; retry < 2 && t4n > PDF_RATIO * Math.max(tn, PDF_FLOOR_MS); retry++) t4n = Math.min(t4n, await pdfTime(large));
      report.push(`${c.name}: n=${c.n} ${tn.toFixed(0)} ms, 4n ${t4n.toFixed(0)} ms`);
      assert.ok(
        t4n <= PDF_RATIO * Math.max(tn, PDF_FLOOR_MS),
        `${c.name}: 4n took ${t4n.toFixed(0)} ms, n ${tn.toFixed(0)} ms (more than ${PDF_RATIO}x: super-linear)`,
      );
    }
  } finally {
    console.log(report.map((line) => `# ${line}`).join('\n'));
  }
});

test('a 60 KB PDF of 2,000,000 text runs stops at the text-item bound, in about the time of an ordinary PDF its size', async () => {
  const hostile = manyRunsPdf(2_000_000);
  // An ordinary PDF of about the same bytes: pages of running text.
  const ordinary = textPdf(Math.round((150 * hostile.length) / textPdf(150).length));
  const started = performance.now();
  const outcome = await extractBytes(hostile, 'https://example.test/runs.pdf', 'application/pdf').then(
    () => 'document',
    (error: unknown) => (error instanceof EpistemeError ? `${error.code}:${String(error.details?.['bound'])}` : String(error)),
  );
  const hostileMs = performance.now() - started;
  assert.equal(outcome, 'extract-bound-exceeded:pdf-text-items');
  const ordinaryMs = await pdfTime(ordinary);
  console.log(
    `# 2,000,000 runs (${hostile.length} bytes): ${hostileMs.toFixed(0)} ms; ` +
      `ordinary ${ordinary.length} bytes: ${ordinaryMs.toFixed(0)} ms`,
  );
  assert.ok(hostileMs <= 5 * Math.max(ordinaryMs, PDF_FLOOR_MS), `${hostileMs.toFixed(0)} ms against ${ordinaryMs.toFixed(0)} ms`);
});

/**
 * The named outcome of every container kind nested 100,000 deep (and of the other hostile shapes of
 * issue 31), extracted in the bounded worker: a document at once, its text kept ("deep words"), the
 * bound it met named in its diagnostics; never a stack overflow, a timeout or a heap failure.
 */
test('every container kind nested 100,000 deep ends at once with a document naming the bound it met', async () => {
  const pool = new StagePool(1, { maxHeapMb: 1024 });
  const nested = (kind: string): ((n: number) => string) => NESTED_HTML[kind]!;
  const cases: { name: string; url: string; contentType: string; body: string; codes: string[] }[] = [
    ...Object.keys(NESTED_HTML).map((kind) => ({
      name: `HTML: ${kind}`,
      url: nestedHtmlUrl(kind),
      contentType: 'text/html',
      body: nested(kind)(100_000),
      codes: kind.includes('ecmarkdown')
        ? ['list-depth-capped']
        : [
            'html-depth-capped',
            ...(/lists$|steps/.test(kind) && kind !== 'definition lists' ? ['list-depth-capped'] : []),
            ...(kind.includes('emu-clause') ? ['section-depth-capped'] : []),
          ],
    })),
    {
      // More steps in one list than a function call takes arguments (steps.push(...all) threw).
      name: 'HTML: 150,000 steps of one ecmarkdown list',
      url: 'https://tc39.es/ecma262/',
      contentType: 'text/html',
      body: `<!DOCTYPE html><html><body>${ecmarkdownSource(150_000, 1)}</body></html>`,
      codes: [],
    },
    {
      name: 'RFC XML: sections',
      url: 'https://www.rfc-editor.org/rfc/rfc9997.xml',
      contentType: 'application/rfc+xml',
      body: deepRfcXmlSections(100_000),
      codes: ['xml-depth-capped', 'section-depth-capped'],
    },
  ];
  const report: string[] = [];
  try {
    for (const c of cases) {
      const body = new TextEncoder().encode(c.body);
      const started = performance.now();
      const { bytes } = await pool.run(
        {
          stage: 'extract',
          input: {
            documentId: 'nested',
            source: { url: c.url },
            snapshot: snapshotFor(c.url, c.contentType, body),
            body,
            options: { ...DEFAULT_EXTRACT_OPTIONS },
          },
        },
        // Generous: a loaded 2-core machine; the bench measures the time (bench/hostile-extraction.ts).
        { timeoutMs: 120_000, label: c.name },
      );
      const doc = (
        JSON.parse(Buffer.from(bytes).toString('utf8')) as { payload: { diagnostics: { code: string }[]; blocks: { text: string }[] } }
      ).payload;
      const codes = doc.diagnostics.map((d) => d.code);
      report.push(`${c.name}: ${(performance.now() - started).toFixed(0)} ms, ${codes.join(', ')}`);
      for (const code of c.codes) assert.ok(codes.includes(code), `${c.name}: no ${code} in ${codes.join(', ')}`);
      assert.ok(
        doc.blocks.some((b) => b.text.includes('deep words')),
        `${c.name}: the deepest text is lost`,
      );
    }
  } finally {
    await pool.close();
    console.log(report.map((line) => `# ${line}`).join('\n'));
  }
});

/** The best of two extractions of `html`, in milliseconds. */
async function bestOfTwo(html: string, url: string): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < 2; round++) {
    const started = performance.now();
    await extractBytes(html, url, 'text/html');
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Each of `cases` nested `levels` deep around `text`, then side by side before it: nested may take at most `ratio` times as long. */
async function nestedAgainstSideBySide(
  text: string,
  cases: { url: string; open: string; close: string; levels: number }[],
  ratio: number,
): Promise<void> {
  const report: string[] = [];
  const slow: string[] = [];
  for (const { url, open, close, levels } of cases) {
    const flatMs = await bestOfTwo(`<h1>t</h1>${`${open}x${close}`.repeat(levels)}${text}`, url);
    const nestedMs = await bestOfTwo(`<h1>t</h1>${open.repeat(levels)}${text}`, url);
    const line = `${open} x ${levels}: nested ${nestedMs.toFixed(0)} ms, side by side ${flatMs.toFixed(0)} ms`;
    report.push(line);
    if (nestedMs > ratio * Math.max(flatMs, FLOOR_MS)) slow.push(line);
  }
  console.log(report.map((line) => `# ${line}`).join('\n'));
  assert.deepEqual(slow, []);
}

test('elements a `:has()` rule tests cost about the same nested as side by side', async () => {
  // css-select answered `:has(> x)` by searching the element's whole subtree (only its children can
  // match), so each element nested in another the rule tests read everything below it again: WHATWG's
  // `div.status:has(> p.support)` over 400 nested divs and 1 MB of text took 3.5 s against 0.25 s side
  // by side; the generic family's `a:has(> .viewcode-link)` the same with links nested in table cells.
  // A hidden subtree is pruned by extraction yet was searched: it makes the search stand out here.
  await nestedAgainstSideBySide(
    `<div hidden>${'<i></i>'.repeat(100_000)}</div><p>${'word '.repeat(20_000)}</p>`,
    [
      { url: 'https://html.spec.whatwg.org/multipage/nested.html', open: '<div class="status"><p>x</p>', close: '</div>', levels: 500 },
      { url: 'https://example.org/nested.html', open: '<a href="#x"><table><tr><td>', close: '</td></tr></table></a>', levels: 200 },
    ],
    4,
  );
});

test('links nested around a subtree of elements without text cost about the same as side by side', async () => {
  // Whether a link is a permalink glyph reads its text up to 16 characters (textOfAtMost); a subtree of
  // elements without text was read whole, by each link around it: 200 links nested in table cells
  // around 100,000 empty elements took 1.2 s against 90 ms side by side. (WHATWG's rules: no `:has()` on links.)
  await nestedAgainstSideBySide(
    `<div hidden>${'<i></i>'.repeat(100_000)}</div><p>${'word '.repeat(20_000)}</p>`,
    [
      {
        url: 'https://html.spec.whatwg.org/multipage/nested.html',
        open: '<a href="#x"><table><tr><td>',
        close: '</td></tr></table></a>',
        levels: 200,
      },
    ],
    4,
  );
});
