import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig, sampleHtml } from '../helpers/rig.js';

/**
 * `episteme query` as a user calls it, on a built workspace where one document exists twice (the
 * same page at two URLs, as an RFC's HTML and XML renderings or a TR and its draft): one hit per
 * passage by default with the other citation listed, --no-collapse, and --explain (JSON and human).
 */
test('query: one hit per passage, --no-collapse, --explain adds up, through the CLI', async () => {
  const rig = new Rig();
  try {
    const map = [
      { sourceUrl: 'https://example.test/tr/', localPath: 'src/tr.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/ed/', localPath: 'src/ed.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/other/', localPath: 'src/other.html', contentType: 'text/html' },
    ];
    rig.write({
      'src/tr.html': sampleHtml(1),
      'src/ed.html': sampleHtml(1),
      'src/other.html': sampleHtml(2),
      'map.json': JSON.stringify(map),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);

    const query = ['query', '--index', 'chunks/search-index.json', '--term', 'zebra1 alpha', '--json'];
    const collapsed = await rig.exec(query);
    assert.equal(collapsed.code, 0, collapsed.stderr);
    const data = collapsed.json!.data;
    assert.equal(data.collapsed, 1);
    const [first] = data.hits;
    assert.equal(first.citation.fragment, 'alpha-1');
    assert.deepEqual(
      [first.citation.sourceUrl, ...first.samePassage.map((same: { citation: { sourceUrl: string } }) => same.citation.sourceUrl)].sort(),
      ['https://example.test/ed/', 'https://example.test/tr/'],
    );
    assert.ok(
      data.hits.slice(1).every((hit: { citation: { sourceUrl: string } }) => hit.citation.sourceUrl === 'https://example.test/other/'),
      'the twin is not a hit of its own',
    );

    const separate = await rig.exec([...query, '--no-collapse']);
    assert.equal(separate.json!.data.collapsed, 0);
    assert.equal(separate.json!.data.total, data.total + 1);
    assert.deepEqual(
      separate.json!.data.hits.slice(0, 2).map((hit: { score: string }) => hit.score),
      [first.score, first.score],
    );

    const explained = await rig.exec([...query, '--explain']);
    for (const hit of explained.json!.data.hits as {
      score: string;
      explain: { points: number; pointsPerUnit: number; terms: { points: number }[]; proximity: { points: number }[] };
    }[]) {
      const sum =
        hit.explain.terms.reduce((total, term) => total + term.points, 0) +
        hit.explain.proximity.reduce((total, pair) => total + pair.points, 0);
      assert.equal(sum, hit.explain.points);
      assert.equal((sum / hit.explain.pointsPerUnit).toFixed(4), hit.score);
    }
    const human = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1 alpha', '--explain', '--limit', '1']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /1 same-passage chunk\(s\) collapsed/);
    assert.match(human.stdout, /^ {3}same passage: https:\/\/example\.test\/(tr|ed)\/#alpha-1$/m);
    assert.match(human.stdout, /^ {3}score = \d+ points \/ 10000:$/m);
    assert.match(human.stdout, /^ {5}\d+ zebra1 \(qtf 1, weight 1000\/1000\): chunk \d+ \(body tf 1\+3x0, df \d+/m);

    // Unknown --family / --document-type: a usage error naming what the index holds, not zero hits.
    for (const [option, field, value, held] of [
      ['--family', 'family', 'rfcc', 'generic'],
      ['--document-type', 'documentType', 'specification', 'document'],
    ] as const) {
      const unknown = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'alpha', option, value, '--json']);
      assert.equal(unknown.code, 2, unknown.stdout);
      assert.equal(unknown.json!.error!.code, 'usage-error');
      assert.match(unknown.json!.error!.message, new RegExp(`Unknown ${field} value "${value}": the index holds ${held}\\.`));
      assert.deepEqual(unknown.json!.error!.details.held, [held]);
      const humanError = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'alpha', option, value]);
      assert.equal(humanError.code, 2);
      // The hint names the flag and the request field (a --batch line or an MCP call gets the same error).
      assert.match(humanError.stderr, new RegExp(`${option} ${held} on the command line, "${field}": \\["${held}"\\] in a request`));
      const line = await rig.exec(['query', '--index', 'chunks/search-index.json', '--batch'], {
        input: `${JSON.stringify({ terms: ['alpha'], [field]: [value] })}\n`,
      });
      assert.equal(JSON.parse(line.stdout).error.hint, unknown.json!.error!.hint);
    }
    const known = await rig.exec([
      'query',
      '--index',
      'chunks/search-index.json',
      '--term',
      'alpha',
      '--family',
      'generic',
      '--document-type',
      'document',
      '--json',
    ]);
    assert.equal(known.code, 0);
    assert.ok(known.json!.data.total > 0);
  } finally {
    rig.cleanup();
  }
});
