import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Block } from '../../src/document/types.js';
import { SKIP_CORPUS, extractCorpusFile } from './helpers.js';

/**
 * Algorithms, tables and spans on real dev-corpus documents (never copied into the repository):
 * Bikeshed's WHATWG DOM, URL, MIME Sniffing and Infra, the W3C File API (div.algorithm) and CSS
 * Flexbox (propdef tables with omitted end tags, rowspan tables).
 */

interface Step {
  path: string;
  text: string;
  steps?: Step[];
}

const flatten = (steps: Step[]): Step[] => steps.flatMap((s) => [s, ...flatten(s.steps ?? [])]);

const HTML_DOCS = [
  'whatwg/dom.html',
  'whatwg/url.html',
  'whatwg/mimesniff.html',
  'whatwg/infra.html',
  'w3c/index.html',
  'w3c/WD.html',
  'w3c/Overview.html',
  'w3c/2016-11-PR.html',
];

test('corpus algorithms: every step is on its own line as "<path>. <text>", in order, never flattened', { skip: SKIP_CORPUS }, async () => {
  let algorithms = 0;
  for (const file of HTML_DOCS) {
    const doc = await extractCorpusFile(file);
    for (const block of doc.blocks.filter((b) => b.kind === 'algorithm')) {
      // A marked algorithm of one sentence has no steps.
      if (block['steps'] === undefined) continue;
      algorithms++;
      const steps = flatten(block['steps'] as Step[]);
      let from = 0;
      for (const step of steps) {
        const depth = step.path.split('.').length - 1;
        const line = `${'  '.repeat(depth)}${step.path}. ${step.text}`;
        const at = block.text.indexOf(line, from);
        assert.ok(at !== -1 && (at === 0 || block.text[at - 1] === '\n'), `${file} ${block.id}: step ${step.path} on its own line`);
        from = at + line.length;
      }
    }
  }
  assert.ok(algorithms >= 200, `algorithms found across the corpus: ${algorithms}`);
});

test('corpus algorithms: DOM "validate and extract" and File API Blob() constructor, with variables and links', {
  skip: SKIP_CORPUS,
}, async () => {
  const dom = await extractCorpusFile('whatwg/dom.html');
  const validate = dom.blocks.find(
    (b) => b.kind === 'algorithm' && (b['steps'] as Step[])[0]!.text === 'If namespace is the empty string, set it to null.',
  );
  assert.ok(validate, 'the validate-and-extract steps are an algorithm');
  const steps = validate['steps'] as (Step & { variables?: string[] })[];
  assert.equal(steps.length, 10);
  assert.equal(steps[9]!.text, 'Return namespace, prefix, and localName.');
  assert.deepEqual(steps[9]!.variables, ['namespace', 'prefix', 'localName']);

  const fileApi = await extractCorpusFile('w3c/index.html');
  const blob = fileApi.blocks.find((b) => b.kind === 'algorithm' && b.text.startsWith('The Blob() constructor can be invoked'));
  assert.ok(blob, 'div.algorithm with its prose and steps is one algorithm');
  const second = (blob['steps'] as (Step & { links?: { text: string }[] })[])[1]!;
  assert.equal(second.path, '2');
  assert.match(second.text, /^Let bytes be the result of processing blob parts/);
  assert.ok(second.links?.some((l) => l.text === 'processing blob parts'));
});

test('corpus tables: propdef tables with omitted </th>, </td>, </tr> give their rows; rowspans fill their slots', {
  skip: SKIP_CORPUS,
}, async () => {
  const flexbox = await extractCorpusFile('w3c/Overview.html');
  const tables = flexbox.blocks.filter((b) => b.kind === 'table');
  const direction = tables.find((b) => b.text.startsWith('Name: | flex-direction\n'));
  assert.ok(direction);
  assert.deepEqual((direction['rows'] as string[][]).slice(0, 3), [
    ['Name:', 'flex-direction'],
    ['Value:', 'row | row-reverse | column | column-reverse'],
    ['Initial:', 'row'],
  ]);
  const spanned = tables.filter((b) => b['spans'] !== undefined);
  assert.ok(spanned.length >= 3, 'the flex-flow tables use rowspan');
  for (const table of spanned) {
    const parts = { header: table['header'] as string[][], rows: table['rows'] as string[][] };
    for (const span of table['spans'] as { part: 'header' | 'rows'; row: number; column: number; rowSpan: number; colSpan: number }[]) {
      const origin = parts[span.part][span.row]![span.column];
      for (let r = span.row; r < span.row + span.rowSpan; r++) {
        for (let c = span.column; c < span.column + span.colSpan; c++)
          assert.equal(parts[span.part][r]![c], origin, `${table.id}: slot ${r},${c} repeats its spanning cell`);
      }
    }
  }
});

test('corpus tables: no table comes out with an empty header and no rows, and rows of one table are as wide as its grid', {
  skip: SKIP_CORPUS,
}, async () => {
  for (const file of HTML_DOCS) {
    const doc = await extractCorpusFile(file);
    for (const table of doc.blocks.filter((b: Block) => b.kind === 'table')) {
      const header = table['header'] as string[][];
      const rows = table['rows'] as string[][];
      assert.ok(header.length + rows.length > 0, `${file} ${table.id} has rows`);
    }
  }
});
