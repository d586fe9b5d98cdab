/**
 * Time and peak RSS of `episteme build` on each hostile extraction input (generated, as in
 * test/hostile/extraction-bounds.test.ts), beside an ordinary build of the same workspace shape (the
 * baseline of the same run). Reports the outcome code, wall time, peak RSS and the ratios to the
 * baseline: what an attacker can make one build spend.
 *
 * Then the linearity table (issue 31): each construct (nesting of every container kind, long lines,
 * many table cells, many steps) built at n and 4n units, its work (wall time and peak RSS above the
 * baseline build's) and the ratios 4n/n: about 4 when linear, 16 when quadratic; a ratio above
 * RATIO_BOUND is reported SUPERLINEAR.
 *
 *   node dist/bench/hostile-extraction.js [--runs 3] [--quick]
 */
import { Sandbox, type MeasuredResult } from '../test/hostile/harness.js';
import {
  NESTED_HTML,
  billionLaughsXml,
  deepHtml,
  deepRfcXmlSections,
  ecmarkdownSource,
  nestedHtmlUrl,
  deepXml,
  flateBombPdf,
  operatorBombPdf,
  ordinaryHtml,
  quadraticEntityXml,
  textPdf,
} from '../test/hostile/hostile-documents.js';
import { manyRunsPdf, mergedRunPdf } from '../test/hostile/pdf-runs.js';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg === -1 ? 3 : Number(process.argv[runsArg + 1]);
/**
 * The smoke run: smaller linearity sizes (n = 2,500 units instead of 25,000) and every fourth construct
 * (one of each family; test/hostile/extraction-linearity.test.ts checks them all).
 */
const quick = process.argv.includes('--quick');

interface Input {
  name: string;
  file: string;
  contentType: string;
  bytes: () => string | Uint8Array;
  extract?: Record<string, unknown>;
  /** The source URL (default https://hostile.test/doc): it chooses the family. */
  url?: string;
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
  {
    // A page that is one pdfjs text item, every word a column gutter from the next (took minutes before).
    name: 'PDF of one text item, 8,000 words a gutter apart',
    file: 'merged.pdf',
    contentType: 'application/pdf',
    bytes: () => mergedRunPdf(8000),
  },
];
INPUTS.push(...PDF_RUN_INPUTS);

function outcome(result: MeasuredResult): string {
  const row = (
    result.json?.data?.targets as { rule: string; target: string; status: string; error?: { code: string } }[] | undefined
  )?.find((r) => r.rule === 'extract' && r.target !== 'specs/index.json'); // the workspace's one source
  return row?.error?.code ?? row?.status ?? `exit ${result.code}`;
}

const median = (values: number[]): number => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Median wall time and peak RSS of `runs` clean builds of one document, and its outcome code. */
async function measure(input: Input): Promise<{ code: string; ms: number; rss: number }> {
  const times: number[] = [];
  const rss: number[] = [];
  let code = '';
  for (let run = 0; run < runs; run++) {
    const sandbox = new Sandbox('episteme-bench-hostile-');
    try {
      sandbox.write({
        [`src/${input.file}`]: input.bytes(),
        'map.json': JSON.stringify([
          { sourceUrl: input.url ?? 'https://hostile.test/doc', localPath: `src/${input.file}`, contentType: input.contentType },
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
  return { code, ms: median(times), rss: median(rss) };
}

let baseline: { ms: number; rss: number } | null = null;
console.log(`hostile extraction inputs, median of ${runs} clean builds (--jobs 2)`);
console.log('input | outcome | wall ms | peak RSS MiB | x baseline time | x baseline RSS');
for (const input of INPUTS) {
  const { code, ms, rss: mb } = await measure(input);
  baseline ??= { ms, rss: mb };
  console.log(
    `${input.name} | ${code} | ${ms.toFixed(0)} | ${mb.toFixed(0)} | ${(ms / baseline.ms).toFixed(1)} | ${(mb / baseline.rss).toFixed(1)}`,
  );
}

// Linearity: each construct at n and 4n units.

/** Above this 4n/n ratio of work (time or memory), a construct is reported super-linear (linear: 4, quadratic: 16). */
const RATIO_BOUND = 8;
const n = quick ? 2_500 : 25_000;
const TC39 = 'https://tc39.es/ecma262/';
const RFC_XML = 'https://www.rfc-editor.org/rfc/rfc9997.xml';
const RFC_TEXT = 'https://www.rfc-editor.org/rfc/rfc9998.txt';
const rfcTextHead = 'Internet Engineering Task Force (IETF)                        A. Writer\nRequest for Comments: 9998\n\n';

interface Construct {
  name: string;
  file: string;
  contentType: string;
  url?: string;
  /** A document of `units` repetitions of the construct. */
  make: (units: number) => string;
}

const html = (body: string): string => `<!DOCTYPE html><html><head><title>T</title></head><body>${body}</body></html>`;
const CONSTRUCTS: Construct[] = [
  ...Object.entries(NESTED_HTML).map(([kind, make]) => ({
    name: `HTML nested ${kind}`,
    file: 'c.html',
    contentType: 'text/html',
    url: nestedHtmlUrl(kind),
    make,
  })),
  {
    name: 'HTML table cells in one row',
    file: 'c.html',
    contentType: 'text/html',
    make: (k) => html(`<table><tr>${'<td>cell'.repeat(k)}</table>`),
  },
  { name: 'HTML table rows', file: 'c.html', contentType: 'text/html', make: (k) => html(`<table>${'<tr><td>a<td>b'.repeat(k)}</table>`) },
  {
    name: 'HTML algorithm steps, flat (emu-alg)',
    file: 'c.html',
    contentType: 'text/html',
    url: TC39,
    make: (k) => html(`<emu-alg><ol>${'<li>Let <var>x</var> be 2<sup>53</sup>.'.repeat(k)}</ol></emu-alg>`),
  },
  {
    name: 'HTML algorithm steps, flat (ecmarkdown source)',
    file: 'c.html',
    contentType: 'text/html',
    url: TC39,
    make: (k) => html(ecmarkdownSource(k, 1)),
  },
  { name: 'RFC XML nested sections', file: 'c.xml', contentType: 'application/rfc+xml', url: RFC_XML, make: deepRfcXmlSections },
  {
    name: 'RFC XML nested lists',
    file: 'c.xml',
    contentType: 'application/rfc+xml',
    url: RFC_XML,
    make: (k) =>
      `<rfc version="3"><middle><section><name>s</name>${'<ul><li>x'.repeat(k)}${'</li></ul>'.repeat(k)}</section></middle></rfc>`,
  },
  {
    name: 'RFC text, one line of spaces and dots',
    file: 'c.txt',
    contentType: 'text/plain',
    url: RFC_TEXT,
    make: (k) => `${rfcTextHead}\nAbstract\n\n   ${'. '.repeat(20 * k)}\n`,
  },
  {
    name: 'RFC text, numbered sections',
    file: 'c.txt',
    contentType: 'text/plain',
    url: RFC_TEXT,
    make: (k) => `${rfcTextHead}\nAbstract\n\n   x\n\n${Array.from({ length: k }, (_, i) => `${i + 1}.  Part\n\n   Words.\n`).join('\n')}`,
  },
];

const work = (value: number, base: number): number => Math.max(1, value - base);
/**
 * A construct whose build at n takes less than this share of the baseline build's time above it is
 * within the noise of a shared machine (the baseline is measured once, at the start, at another
 * load): its time ratio divides by almost nothing and tells nothing, so it is reported as not telling
 * rather than SUPERLINEAR (test/hostile/extraction-linearity checks such constructs in CPU time).
 */
const NOISE_SHARE = 0.1;
console.log('');
console.log(`linearity: work above the baseline build at n and 4n units (n = ${n}), median of ${runs}; bound ${RATIO_BOUND}x`);
console.log('construct | n | 4n | bytes at 4n | ms at n | ms at 4n | time ratio | MiB at n | MiB at 4n | memory ratio | outcome');
let within = 0;
let notTelling = 0;
const measured = quick ? CONSTRUCTS.filter((_, i) => i % 4 === 0) : CONSTRUCTS;
for (const c of measured) {
  const at = async (units: number): Promise<{ code: string; ms: number; rss: number; bytes: number }> => {
    const body = c.make(units);
    const result = await measure({ name: c.name, file: c.file, contentType: c.contentType, url: c.url, bytes: () => body });
    return { ...result, bytes: body.length };
  };
  const small = await at(n);
  const large = await at(4 * n);
  const base = baseline ?? { ms: 0, rss: 0 };
  const timeRatio = work(large.ms, base.ms) / work(small.ms, base.ms);
  const memoryRatio = work(large.rss, base.rss) / work(small.rss, base.rss);
  const noisy = small.ms - base.ms < NOISE_SHARE * base.ms;
  const ok = timeRatio <= RATIO_BOUND && memoryRatio <= RATIO_BOUND;
  if (ok) within++;
  else if (noisy && memoryRatio <= RATIO_BOUND) notTelling++;
  console.log(
    `${c.name} | ${n} | ${4 * n} | ${large.bytes} | ${small.ms.toFixed(0)} | ${large.ms.toFixed(0)} | ${timeRatio.toFixed(1)} | ` +
      `${small.rss.toFixed(0)} | ${large.rss.toFixed(0)} | ${memoryRatio.toFixed(1)} | ${large.code}` +
      (ok ? '' : noisy && memoryRatio <= RATIO_BOUND ? ' (time at n within the baseline noise: not telling)' : ' SUPERLINEAR'),
  );
}
console.log(
  `linearity: ${within} of ${measured.length} constructs within the ratio bound ${RATIO_BOUND}` +
    (notTelling > 0 ? `, ${notTelling} not telling (time at n within the baseline's noise)` : '') +
    (quick ? ` (quick: every fourth of ${CONSTRUCTS.length})` : ''),
);
