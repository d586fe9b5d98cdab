import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * A question writes two words ("error bars", "host name") where a manual writes one (`errorbars`,
 * `hostname`), in one case, which the index does not split (joined-words.ts). Through the CLI: the
 * pair finds the section that writes only the joined word and highlights it; a compound the index
 * split at its case change (`EventListener`) is not scored again as the joined word beside its parts.
 */
const MANUAL = `<!DOCTYPE html><html><head><title>Plotting</title></head><body>
<h1>Plotting</h1>
<section id="marks"><h2>1. Marks</h2>
  <p>Each point of a series may carry errorbars, drawn with the errorbars routine.</p>
</section>
<section id="axes"><h2>2. Axes</h2>
  <p>An axis shows ticks and a label; its range follows the data unless a limit is set.</p>
</section>
<section id="events"><h2>3. Events</h2>
  <p>Register an EventListener on the canvas to observe clicks.</p>
</section>
<section id="callbacks"><h2>4. Callbacks</h2>
  <p>An event reaches each listener in the order of registration.</p>
</section>
</body></html>`;

interface Hit {
  citation: { sectionId: string };
  snippet: { text: string; highlights: [number, number][] };
  explain?: { terms: { term: string }[] };
}

test('query: two words a manual writes as one word find it', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/plotting.html': MANUAL,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.org/plotting.html', localPath: 'src/plotting.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const query = async (...args: string[]): Promise<Hit[]> => {
      const answer = await rig.exec(['query', '--json', ...args]);
      assert.equal(answer.code, 0, answer.stdout + answer.stderr);
      return JSON.parse(answer.stdout).data.hits as Hit[];
    };
    const highlighted = (hit: Hit): string[] => hit.snippet.highlights.map(([from, to]) => [...hit.snippet.text].slice(from, to).join(''));

    const [marks] = await query('error bars');
    assert.equal(marks?.citation.sectionId, 'marks');
    assert.deepEqual(highlighted(marks!), ['errorbars', 'errorbars']);
    // A quoted phrase matches as written: the joined word is no phrase of two words.
    assert.deepEqual(await query('"error bars"'), []);
    // EventListener is indexed as its parts beside the word; the joined "eventlisten" adds nothing there.
    const events = await query('--explain', 'event listener');
    assert.deepEqual(events.map((hit) => hit.citation.sectionId).sort(), ['callbacks', 'events']);
    for (const hit of events)
      assert.ok(!hit.explain!.terms.some((term) => term.term === 'eventlisten'), JSON.stringify(hit.explain!.terms));
  } finally {
    rig.cleanup();
  }
});
