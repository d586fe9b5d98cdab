/**
 * PDF table quality and cost.
 *
 * Quality: cell agreement (cells equal at the same row and column) between the tables a source
 * states and the table blocks extracted from its PDF, on (1) the generated PDFs of
 * test/helpers/table-cases.ts, whose cells are known, (2) the real-world layouts of
 * test/helpers/real-layouts.ts (an expenditure report, a financial statement, a scientific results
 * table), cells known too, and (3) the dev-corpus PDFs whose LaTeX source shows the table (tabular
 * environments parsed from the .tex). Pages that hold no table must give none.
 *
 * Cost: extractDocument on the dev-corpus PDFs against a bare pdfjs pass over the same files (load,
 * getTextContent of every page), and against that pass plus pdf-parse's getTable (what the extractor
 * ran before tables came from geometry: a second parse by pdf-parse's own pdfjs), measured in the same
 * run, as ratios.
 *
 *   node dist/bench/pdf-tables.js [--rounds 3]
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../src/extract/extract.js';
import { sha256Hex } from '../src/store/hash.js';
import type { EvidenceDocument } from '../src/document/types.js';
import { bestAgreement, cellF1, texTables, type Agreement } from '../test/helpers/table-agreement.js';
import { tableCases } from '../test/helpers/table-cases.js';
import { realLayoutCases } from '../test/helpers/real-layouts.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pdfDir = path.resolve(repoRoot, '../shared/corpus/dev/pdf');

function extract(body: Uint8Array, url: string): Promise<EvidenceDocument> {
  const sha256 = sha256Hex(body);
  return extractDocument({
    documentId: 'bench',
    source: { url },
    snapshot: {
      snapshotId: 'snap-' + sha256.slice(0, 16),
      sourceUrl: url,
      captureMethod: 'manual-ingest',
      contentType: 'application/pdf',
      charset: null,
      sha256,
      byteLength: body.length,
    },
    body,
    options: DEFAULT_EXTRACT_OPTIONS,
  });
}

const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (a: Agreement): string => `${a.matched}/${a.expected} cells matched, ${a.extracted} extracted, F1 ${cellF1(a).toFixed(3)}`;

const rounds = (() => {
  const i = process.argv.indexOf('--rounds');
  return i === -1 ? 3 : Math.max(1, Number(process.argv[i + 1] ?? 3));
})();

const total: Agreement = { matched: 0, expected: 0, extracted: 0 };
const add = (a: Agreement): void => {
  total.matched += a.matched;
  total.expected += a.expected;
  total.extracted += a.extracted;
};

console.log('pdf-tables: cell agreement on generated PDFs (known cells)');
let spurious = 0;
for (const c of tableCases()) {
  const doc = await extract(c.pdf, 'https://example.test/case.pdf');
  const tables = doc.blocks.filter((b) => b.kind === 'table');
  if (c.tables.length === 0) {
    spurious += tables.length;
    console.log(`  ${c.name}: ${tables.length === 0 ? 'no table (right)' : `${tables.length} spurious table(s)`}`);
    continue;
  }
  for (const expected of c.tables) {
    const a = bestAgreement(expected, doc.blocks);
    add(a);
    console.log(`  ${c.name}: ${fmt(a)}; ${tables.length} table block(s)`);
  }
}

// Layouts copied from published documents (test/helpers/real-layouts.ts), one line per document.
console.log('pdf-tables: cell agreement on real-world layouts (known cells)');
for (const c of realLayoutCases()) {
  const doc = await extract(c.pdf, 'https://example.test/layout.pdf');
  for (const expected of c.tables) {
    const a = bestAgreement(expected, doc.blocks);
    add(a);
    console.log(`  ${c.name}: ${fmt(a)}; ${doc.blocks.filter((b) => b.kind === 'table').length} table block(s)`);
  }
}

const texFiles = existsSync(pdfDir)
  ? readdirSync(pdfDir)
      .filter((f) => f.endsWith('.tex'))
      .sort()
  : [];
if (texFiles.length === 0) console.log('dev corpus not found beside the repository: corpus tables skipped');
else console.log('pdf-tables: cell agreement on dev-corpus PDFs whose .tex shows the table');
const corpusTotal: Agreement = { matched: 0, expected: 0, extracted: 0 };
for (const tex of texFiles) {
  const expected = texTables(readFileSync(path.join(pdfDir, tex), 'utf8'));
  const pdf = path.join(pdfDir, tex.replace(/\.tex$/, '.pdf'));
  if (expected.length === 0 || !existsSync(pdf)) continue;
  const doc = await extract(new Uint8Array(readFileSync(pdf)), 'https://example.test/' + path.basename(pdf));
  for (const table of expected) {
    const a = bestAgreement(table, doc.blocks);
    add(a);
    corpusTotal.matched += a.matched;
    corpusTotal.expected += a.expected;
    corpusTotal.extracted += a.extracted;
    console.log(`  ${tex} (${table.length} rows x ${table[0]?.length ?? 0} columns): ${fmt(a)}`);
  }
}
console.log(`  overall: ${fmt(total)}; spurious tables on table-free pages: ${spurious}`);

// Cost against a bare pdfjs text pass over the same corpus PDFs.
const pdfs = existsSync(pdfDir)
  ? readdirSync(pdfDir)
      .filter((f) => f.endsWith('.pdf'))
      .sort()
      .map((f) => new Uint8Array(readFileSync(path.join(pdfDir, f))))
      .filter((b) => b.length > 0)
      // --quick (the CI smoke run): three PDFs, no warm-up round.
      .slice(0, process.argv.includes('--quick') ? 3 : undefined)
  : [];
if (pdfs.length > 0) {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const bare = async (): Promise<void> => {
    for (const body of pdfs) {
      const task = pdfjs.getDocument({ data: new Uint8Array(body), verbosity: 0, isEvalSupported: false, disableFontFace: true });
      try {
        const doc = await task.promise;
        for (let p = 1; p <= doc.numPages; p++) await (await doc.getPage(p)).getTextContent();
      } catch {
        // broken corpus files (encrypted, malformed) cost what they cost on both sides
      } finally {
        await task.destroy();
      }
    }
  };
  // The former table pass, when pdf-parse is still installed (it is no longer a dependency of the extractor).
  const { PDFParse } = (await import('pdf-parse').catch(() => ({ PDFParse: null }))) as {
    PDFParse: null | (new (o: object) => { getTable(o: object): Promise<unknown>; destroy(): Promise<void> });
  };
  const former = async (): Promise<void> => {
    await bare();
    if (!PDFParse) return;
    for (const body of pdfs) {
      const parser = new PDFParse({ data: new Uint8Array(body), verbosity: 0 });
      try {
        await parser.getTable({});
      } catch {
        // as above
      } finally {
        await parser.destroy();
      }
    }
  };
  const ours = async (): Promise<void> => {
    for (const body of pdfs) await extract(body, 'https://example.test/x.pdf');
  };
  if (!process.argv.includes('--quick')) {
    await bare();
    await ours();
    if (PDFParse) await former();
  }
  const bareTimes: number[] = [];
  const ourTimes: number[] = [];
  const formerTimes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    await bare();
    bareTimes.push(performance.now() - t);
    t = performance.now();
    await ours();
    ourTimes.push(performance.now() - t);
    if (PDFParse) {
      t = performance.now();
      await former();
      formerTimes.push(performance.now() - t);
    }
  }
  console.log(`pdf-tables: cost on ${pdfs.length} dev-corpus PDFs, median of ${rounds} interleaved rounds`);
  console.log(`  bare pdfjs text pass : ${median(bareTimes).toFixed(0)} ms`);
  console.log(`  extractDocument (pdf): ${median(ourTimes).toFixed(0)} ms`);
  console.log(`  ratio extract / bare : ${(median(ourTimes) / median(bareTimes)).toFixed(2)}`);
  if (PDFParse) {
    console.log(`  bare pass + pdf-parse getTable (the former table pass): ${median(formerTimes).toFixed(0)} ms`);
    console.log(`  ratio extract / former: ${(median(ourTimes) / median(formerTimes)).toFixed(2)}`);
  }
}
process.exitCode = total.matched === total.expected && total.extracted === total.expected && spurious === 0 ? 0 : 1;
