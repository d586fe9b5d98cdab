/**
 * PDF linearity: for each construct (text runs on many lines, runs on one line, unruled table cells,
 * one text item of words a gutter apart, pages of text), extraction time and peak RSS at n and 4n,
 * each measured in a fresh process, and their ratios (linear: about 4; quadratic: 16). Then the 2,000,000-run PDF of issue 31 beside an
 * ordinary PDF of its bytes: outcome, time and peak RSS.
 *
 *   node dist/bench/pdf-linearity.js [--quick]
 *
 * --quick (the CI smoke run): the constructs at a quarter of their sizes; the 2,000,000-run PDF as is.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../src/extract/extract.js';
import { EpistemeError } from '../src/failure.js';
import { sha256Hex } from '../src/store/hash.js';
import { textPdf } from '../test/hostile/hostile-documents.js';
import { manyCellsPdf, manyRunsPdf, mergedRunPdf, oneLineRunsPdf } from '../test/hostile/pdf-runs.js';

const CONSTRUCTS: Record<string, { n: number; make: (n: number) => Uint8Array }> = {
  'text runs on lines a point apart': { n: 10_000, make: manyRunsPdf },
  'text runs on one baseline': { n: 10_000, make: oneLineRunsPdf },
  'unruled table cells': { n: 4_000, make: manyCellsPdf },
  'one text item, words a gutter apart': { n: 2_000, make: mergedRunPdf },
  'pages of running text': { n: 40, make: (n) => textPdf(n) },
  '2,000,000 text runs': { n: 2_000_000, make: manyRunsPdf },
};

async function one(name: string, n: number): Promise<void> {
  const body = CONSTRUCTS[name]!.make(n);
  const sha256 = sha256Hex(body);
  const url = 'https://example.test/bench.pdf';
  const started = performance.now();
  let outcome = 'document';
  try {
    await extractDocument({
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
  } catch (error) {
    outcome = error instanceof EpistemeError ? `${error.code} (${String(error.details?.['bound'])})` : String(error);
  }
  const ms = performance.now() - started;
  console.log(JSON.stringify({ bytes: body.length, ms, rssMb: process.resourceUsage().maxRSS / 1024, outcome }));
}

interface Measure {
  bytes: number;
  ms: number;
  rssMb: number;
  outcome: string;
}

function measure(name: string, n: number): Measure {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', name, String(n)], { encoding: 'utf8' });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Measure;
}

const quick = process.argv.includes('--quick');
const at = process.argv.indexOf('--one');
if (at !== -1) await one(process.argv[at + 1]!, Number(process.argv[at + 2]));
else {
  console.log('construct | n | 4n | ms n | ms 4n | time ratio | MiB n | MiB 4n | memory ratio');
  for (const [name, c] of Object.entries(CONSTRUCTS)) {
    if (name.startsWith('2,000,000')) continue;
    const n = quick ? Math.max(1, Math.round(c.n / 4)) : c.n;
    const a = measure(name, n);
    const b = measure(name, 4 * n);
    console.log(
      `${name} | ${n} | ${4 * n} | ${a.ms.toFixed(0)} | ${b.ms.toFixed(0)} | ${(b.ms / a.ms).toFixed(2)} | ` +
        `${a.rssMb.toFixed(0)} | ${b.rssMb.toFixed(0)} | ${(b.rssMb / a.rssMb).toFixed(2)}`,
    );
  }
  const hostile = measure('2,000,000 text runs', 2_000_000);
  const ordinaryPages = Math.round((150 * hostile.bytes) / textPdf(150).length);
  const ordinary = measure('pages of running text', ordinaryPages);
  console.log(
    `2,000,000 text runs (${hostile.bytes} bytes): ${hostile.outcome}, ${hostile.ms.toFixed(0)} ms, ${hostile.rssMb.toFixed(0)} MiB; ` +
      `ordinary PDF of ${ordinary.bytes} bytes (${ordinaryPages} pages): ${ordinary.ms.toFixed(0)} ms, ${ordinary.rssMb.toFixed(0)} MiB; ` +
      `time ratio ${(hostile.ms / ordinary.ms).toFixed(2)}`,
  );
}
