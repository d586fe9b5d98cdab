import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * Specifications write names as compound words (MRCPv2, textContent, SameSite, sha256) where a
 * question writes their parts ("MRCP", "text content", "same site", "SHA 256"). The index counts a
 * compound's parts beside the word (tokenizer.ts indexTerms): through the CLI, a query for a part
 * finds the section that only writes the compound, highlights the whole word, and holds a phrase of
 * two parts written as one word. A question that writes the compound still matches it as one word.
 */
const SPEC = `<!DOCTYPE html><html><head><title>Widgets</title></head><body>
<h1>Widgets</h1>
<section id="channel"><h2>1. Channel identifier</h2>
  <p>Every MRCPv2 message carries a channel identifier that the server allocates.</p>
</section>
<section id="text"><h2>2. Reading</h2>
  <p>A widget exposes its label through textContent, which a script may read at any time.</p>
</section>
<section id="digests"><h2>3. Digests</h2>
  <p>Integrity metadata names a hash function such as sha256 before the digest.</p>
</section>
<section id="other"><h2>4. Other protocols</h2>
  <p>Older deployments spoke a protocol without channels; they carried no identifier at all.</p>
</section>
</body></html>`;

interface Hit {
  citation: { sectionId: string };
  snippet: { text: string; highlights: [number, number][] };
}

test('query: a word a compound is made of finds the section that writes only the compound', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/widgets.html': SPEC,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://www.w3.org/TR/widgets/', localPath: 'src/widgets.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const query = async (...terms: string[]): Promise<Hit[]> => {
      const args = ['query', '--json', ...terms.flatMap((term) => ['--term', term])];
      const answer = await rig.exec(args);
      assert.equal(answer.code, 0, answer.stdout + answer.stderr);
      return JSON.parse(answer.stdout).data.hits as Hit[];
    };
    const highlighted = (hit: Hit): string[] => hit.snippet.highlights.map(([from, to]) => [...hit.snippet.text].slice(from, to).join(''));

    // "MRCP" is a part of "MRCPv2": the section that writes only MRCPv2 is found, the word highlighted whole.
    const [mrcp, ...rest] = await query('MRCP');
    assert.equal(mrcp?.citation.sectionId, 'channel');
    assert.equal(rest.length, 0);
    assert.deepEqual(highlighted(mrcp!), ['MRCPv2']);
    // The compound itself still matches as one word.
    assert.equal((await query('MRCPv2'))[0]?.citation.sectionId, 'channel');
    // A phrase of two parts holds where one word writes them.
    const phrase = await query('"text content"');
    assert.deepEqual(
      phrase.map((hit) => hit.citation.sectionId),
      ['text'],
    );
    assert.deepEqual(highlighted(phrase[0]!), ['textContent']);
    // "SHA" is a part of sha256, which only the digests section writes.
    assert.deepEqual(
      (await query('SHA')).map((hit) => hit.citation.sectionId),
      ['digests'],
    );
    // Proximity reads parts at their places: "MRCP channel" ranks the section where they stand together first.
    assert.equal((await query('MRCP channel identifier'))[0]?.citation.sectionId, 'channel');
  } finally {
    rig.cleanup();
  }
});
