import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig } from '../helpers/rig.js';

/**
 * The document's apparatus (sections the family's rules name as contents, status, acknowledgements,
 * references, indexes or change logs) is about the document, not its subject: a change log entry that
 * repeats a feature's words must not outrank the section that specifies the feature. Two W3C specs
 * that differ only in what their last section is: "Changes" (apparatus) or "Details" (content). The
 * same text ranks first as content and after the specifying section as a change log, through the CLI.
 */
function spec(lastId: string, lastHeading: string): string {
  return `<!DOCTYPE html><html><head><title>Gizmo</title></head><body>
<h1>Gizmo</h1>
<section id="model"><h2>1. Model</h2>
  <p>A gizmo turns on its axis. Its rotation speed stays within the speed limits that the host sets;
  a rotation speed above those limits is clamped, and a host that sets no limits leaves the gizmo at
  rest until a script asks it to turn.</p>
</section>
<section id="privacy"><h2>2. Privacy</h2>
  <p>This section is not normative.</p>
  <p>Turning reveals nothing about the user.</p>
</section>
<section id="${lastId}"><h2>A. ${lastHeading}</h2>
  <p>Clarified the rotation speed limits of a gizmo.</p>
</section>
</body></html>`;
}

test('query: a change log entry ranks after the section it names; the same text as content does not', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/changes.html': spec('changes', 'Changes'),
      'src/details.html': spec('details', 'Details'),
      'map.json': JSON.stringify([
        { sourceUrl: 'https://www.w3.org/TR/gizmo-changes/', localPath: 'src/changes.html', contentType: 'text/html' },
        { sourceUrl: 'https://www.w3.org/TR/gizmo-details/', localPath: 'src/details.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);

    const chunks = (id: string) =>
      JSON.parse(rig.read(`chunks/${fs.readdirSync(rig.path('chunks')).find((f) => f.startsWith(`${id}.`))!}`)).payload.chunks;
    const apparatusOf = (id: string) =>
      Object.fromEntries(
        chunks(id).map((c: { citation: { sectionId: string }; apparatus?: true }) => [c.citation.sectionId, c.apparatus ?? false]),
      );
    // A change log is apparatus; a section that says it is not normative is informative content.
    assert.deepEqual(apparatusOf('www-w3-org-tr-gizmo-changes'), { model: false, privacy: false, changes: true });
    assert.deepEqual(apparatusOf('www-w3-org-tr-gizmo-details'), { model: false, privacy: false, details: false });

    const order = async (url: string) => {
      const answer = await rig.exec([
        'query',
        '--index',
        'chunks/search-index.json',
        '--term',
        'rotation speed limits',
        '--family',
        'w3c',
        '--no-collapse',
        '--explain',
        '--json',
      ]);
      assert.equal(answer.code, 0, answer.stderr);
      const hits = (
        answer.json!.data.hits as {
          citation: { sourceUrl: string; fragment: string };
          explain: {
            apparatus: boolean;
            apparatusWeightMilli: number;
            points: number;
            terms: { points: number }[];
            proximity: { points: number }[];
          };
        }[]
      ).filter((hit) => hit.citation.sourceUrl === url);
      for (const hit of hits) {
        const sum = hit.explain.terms.reduce((n, t) => n + t.points, 0) + hit.explain.proximity.reduce((n, p) => n + p.points, 0);
        assert.equal(sum, hit.explain.points, 'explained points add up');
        assert.equal(hit.explain.apparatusWeightMilli, 500);
      }
      return hits.map((hit) => [hit.citation.fragment, hit.explain.apparatus]);
    };
    assert.deepEqual(await order('https://www.w3.org/TR/gizmo-details/'), [
      ['details', false],
      ['model', false],
    ]);
    assert.deepEqual(await order('https://www.w3.org/TR/gizmo-changes/'), [
      ['model', false],
      ['changes', true],
    ]);
  } finally {
    rig.cleanup();
  }
});

/**
 * Words that stand together are evidence like words that occur (proximity.ts), so a change log entry's
 * close pairs count half too: an entry that quotes the question's phrase whole must not outrank the
 * section that specifies the feature, which has two of its pairs. Without the weight on proximity the
 * entry below ranked first (3.4719 against 3.3405 points) on its three adjacent pairs.
 */
test('query: a change log entry that quotes the question whole still ranks after the section it names', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/spec.html': `<!DOCTYPE html><html><head><title>Gizmo</title></head><body>
<h1>Gizmo</h1>
<section id="turning"><h2>1. Turning</h2>
  <p>The static speed of a gizmo is the speed it keeps when no script turns it. A host sets rotation
  speed limits for each gizmo, and the static value is clamped so that it stays within those limits. The
  rotation itself starts from the static speed once a script asks the gizmo to turn.</p>
</section>
<section id="changes"><h2>A. Changes</h2>
  <p>Clarified the static rotation speed limits.</p>
</section>
</body></html>`,
      'map.json': JSON.stringify([{ sourceUrl: 'https://www.w3.org/TR/gizmo/', localPath: 'src/spec.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const answer = await rig.exec(['query', '--term', 'static rotation speed limits', '--explain', '--json']);
    assert.equal(answer.code, 0, answer.stderr);
    const hits = answer.json!.data.hits as { citation: { fragment: string }; explain: { proximity: { points: number }[] } }[];
    assert.deepEqual(
      hits.map((hit) => hit.citation.fragment),
      ['turning', 'changes'],
    );
    assert.ok(hits[1]!.explain.proximity.length > 0, 'the entry has close pairs: what it would have ranked by');
  } finally {
    rig.cleanup();
  }
});
