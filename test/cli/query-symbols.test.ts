import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * An agent asks about an operator by its symbols: `->>` (SQLite's JSON operators), `<=>` and `$@`
 * (Perl), `\K` (regular expressions). Every section of the page says "operator" and "value" as often
 * as the one that defines the symbol, so the symbol is what tells them apart: the section that
 * writes it is the first hit, its snippet highlights it, --explain names it as written, and a query
 * of the symbol alone is a query.
 */
function section(id: string, heading: string, text: string): string {
  return `<section id="${id}"><h2>${heading}</h2><p>${text}</p></section>`;
}

const PAGE =
  '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Operators</title></head><body><h1>Operators</h1>' +
  section('arrow', 'Extraction operators', 'The ->> operator returns an SQL text value; the operator takes a path. Operator value.') +
  section('spaceship', 'Comparison operators', 'The <=> operator compares two numbers and returns -1, 0 or 1. Operator value.') +
  section('eval-error', 'Error variables', 'The variable $@ holds the error of the last eval operator. Operator value.') +
  section('keep', 'Regular expression escapes', 'The escape \\K keeps what was matched before it out of the match. Operator value.') +
  section(
    'general',
    'Operators in general',
    'An operator takes a value and returns a value. Operator precedence orders each operator; an operator value is a value. ' +
      'Operators compare, extract, match and keep values; the operator returns the value of the operator.',
  ) +
  '</body></html>';

async function workspace(): Promise<Rig> {
  const rig = new Rig();
  rig.write({
    'src/ops.html': PAGE,
    'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/ops.html', localPath: 'src/ops.html', contentType: 'text/html' }]),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
  });
  const build = await rig.exec(['build', '--json']);
  assert.equal(build.code, 0, build.stdout + build.stderr);
  return rig;
}

interface Hit {
  citation: { fragment: string };
  snippet: { text: string; highlights: [number, number][] };
  explain?: { terms: { term: string; points: number }[] };
}

test('a question that names an operator by its symbols finds the section that writes them', async () => {
  const rig = await workspace();
  try {
    const cases: [string, string, string][] = [
      ['what does the ->> operator return', 'arrow', '->>'],
      ['what is the <=> operator', 'spaceship', '<=>'],
      ['What is $@?', 'eval-error', '$@'],
      ['what does \\K do in a regex', 'keep', '\\K'],
    ];
    for (const [question, fragment, symbol] of cases) {
      const result = await rig.exec(['query', question, '--explain', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const hits = result.json!.data!.hits as Hit[];
      assert.equal(hits[0]!.citation.fragment, fragment, question);
      const { text, highlights } = hits[0]!.snippet;
      const shown = highlights.map(([start, end]) => [...text].slice(start, end).join(''));
      assert.ok(shown.includes(symbol), `${question}: highlights ${JSON.stringify(shown)}`);
      const explained = hits[0]!.explain!.terms.find((term) => term.term === symbol);
      assert.ok(explained !== undefined && explained.points > 0, `${question}: --explain names ${symbol}`);
    }
    // A symbol alone is a query; one that starts with a dash goes after `--`, as the error's hint says.
    const dashed = await rig.exec(['query', '--json', '->>']);
    assert.equal(dashed.code, 2);
    assert.equal(dashed.json!.error!.code, 'usage-error');
    assert.equal(dashed.json!.error!.hint, "Put it after `--`: `episteme query -- '->>'`, or run `episteme query --help`.");
    for (const args of [
      ['query', '--json', '--', '->>'],
      ['query', '--json', '--term', '->>'],
    ]) {
      const alone = await rig.exec(args);
      assert.equal(alone.code, 0, alone.stderr);
      assert.deepEqual(
        (alone.json!.data!.hits as Hit[]).map((hit) => hit.citation.fragment),
        ['arrow'],
      );
    }
    // Case is kept in an escape: \k is another escape than \K (its letter still matches as a word).
    const lower = await rig.exec(['query', '\\k', '--explain', '--json']);
    assert.equal(lower.code, 0, lower.stderr);
    const terms = (lower.json!.data!.hits as Hit[])[0]!.explain!.terms;
    assert.ok(!terms.some((term) => term.term === '\\k' && term.points > 0), JSON.stringify(terms));
    assert.ok(
      terms.some((term) => term.term === 'k' && term.points > 0),
      JSON.stringify(terms),
    );
  } finally {
    rig.cleanup();
  }
});
