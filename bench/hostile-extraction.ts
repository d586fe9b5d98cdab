/**
 * Time and peak RSS of `episteme build` on each hostile extraction input (generated, as in
 * test/hostile/extraction-bounds.test.ts), beside an ordinary build of the same workspace shape (the
 * baseline of the same run). Reports the outcome code, wall time, peak RSS and the ratios to the
 * baseline: what an attacker can make one build spend.
 *
 *   node dist/bench/hostile-extraction.js [--runs 3]
 */
import { Sandbox, type MeasuredResult } from '../test/hostile/harness.js';
import {
  billionLaughsXml,
  deepHtml,
  deepXml,
  flateBombPdf,
  operatorBombPdf,
  ordinaryHtml,
  quadraticEntityXml,
  textPdf,
} from '../test/hostile/hostile-documents.js';
import { manyRunsPdf } from '../test/hostile/pdf-runs.js';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg === -1 ? 3 : Number(process.argv[runsArg + 1]);

interface Input {
  name: string;
  file: string;
  contentType: string;
  bytes: () => string | Uint8Array;
  extract?: Record<string, unknown>;
}

const INPUTS: Input[] = [
  { name: 'baseline: ordinary HTML', file: 'plain.html', contentType: 'text/html', bytes: () => ordinaryHtml('Plain') },
  { name: 'HTML nested 100,000 deep', file: 'deep.html', contentType: 'text/html', bytes: () => deepHtml(100_000) },
  { name: 'XML nested 100,000 deep', file: 'deep.xml', contentType: 'application/xml', bytes: () => deepXml(100_000) },
  {
    name: 'XML quadratic entity blowup',
    file: 'blowup.xml',
    contentType: 'application/xml',
    bytes: () => quadraticEntityXml(1024 * 1024, 1000),
  },
  { name: 'XML billion laughs', file: 'lol.xml', contentType: 'application/xml', bytes: billionLaughsXml },
  { name: 'PDF Flate bomb (4 GiB)', file: 'bomb.pdf', contentType: 'application/pdf', bytes: () => flateBombPdf(4096) },
  {
    name: 'PDF operation bomb (pdfTimeoutMs 2000)',
    file: 'ops.pdf',
    contentType: 'application/pdf',
    bytes: () => operatorBombPdf(6_000_000),
    extract: { pdfTimeoutMs: 2000 },
  },
];

// PDF text runs: the 2,000,000-run file of issue 31 beside an ordinary PDF of about its bytes.
const PDF_RUN_INPUTS: Input[] = [
  {
    name: 'PDF of 2,000,000 text runs (63 KB)',
    file: 'runs.pdf',
    contentType: 'application/pdf',
    bytes: () => manyRunsPdf(2_000_000),
  },
  { name: 'PDF of running text, same bytes (ordinary)', file: 'text.pdf', contentType: 'application/pdf', bytes: () => textPdf(160) },
];
INPUTS.push(...PDF_RUN_INPUTS);

function outcome(result: MeasuredResult): string {
  const row = (
    result.json?.data?.targets as { rule: string; target: string; status: string; error?: { code: string } }[] | undefined
  )?.find((r) => r.rule === 'extract' && r.target.includes('hostile'));
  return row?.error?.code ?? row?.status ?? `exit ${result.code}`;
}

const median = (values: number[]): number => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

let baseline: { ms: number; rss: number } | null = null;
console.log(`hostile extraction inputs, median of ${runs} clean builds (--jobs 2)`);
console.log('input | outcome | wall ms | peak RSS MiB | x baseline time | x baseline RSS');
for (const input of INPUTS) {
  const times: number[] = [];
  const rss: number[] = [];
  let code = '';
  for (let run = 0; run < runs; run++) {
    const sandbox = new Sandbox('episteme-bench-hostile-');
    try {
      sandbox.write({
        [`src/${input.file}`]: input.bytes(),
        'map.json': JSON.stringify([
          { sourceUrl: 'https://hostile.test/doc', localPath: `src/${input.file}`, contentType: input.contentType },
        ]),
        'episteme.json': JSON.stringify({
          manualIngest: 'map.json',
          limits: { maxFileBytes: 256 * 1024 * 1024 },
          options: { extract: input.extract ?? {} },
        }),
      });
      const result = await sandbox.run(['build', '--json', '--jobs', '2']);
      times.push(result.elapsedMs);
      rss.push(result.peakRssMb ?? NaN);
      code = outcome(result);
    } finally {
      sandbox.cleanup();
    }
  }
  const ms = median(times);
  const mb = median(rss);
  baseline ??= { ms, rss: mb };
  console.log(
    `${input.name} | ${code} | ${ms.toFixed(0)} | ${mb.toFixed(0)} | ${(ms / baseline.ms).toFixed(1)} | ${(mb / baseline.rss).toFixed(1)}`,
  );
}
