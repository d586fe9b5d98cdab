import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A self-link is decoration when it is empty (Bikeshed's and ReSpec's heading permalinks, which the
 * families prune), but ReSpec writes the label a reader sees inside one: an example's marker
 * (`<a class="self-link">Example 3</a>: title`), a table's caption. That text is kept.
 */

// As ReSpec 34 renders an example and a section (w3c/wot-thing-description, publication/ver11/7-rec/Overview.html).
const respec = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Gadget</title></head><body>
<section id="overview"><div class="header-wrapper"><h2 id="x1-overview"><bdi class="secno">1.</bdi> Overview</h2><a class="self-link"
 href="#overview" aria-label="Permalink for Section 1."></a></div>
<p>A model looks like this:</p>
<div class="example" id="lamp-example">
  <div class="marker"><a class="self-link" href="#lamp-example">Example <bdi>3</bdi></a><span
   class="example-title">: Thing Model sample</span></div>
  <pre><code>{ "title": "Lamp" }</code></pre>
</div>
</section></body></html>`;

for (const [family, url] of [
  ['w3c', 'https://www.w3.org/TR/gadget/'],
  ['whatwg', 'https://gadget.spec.whatwg.org/'],
]) {
  test(`${family}: an example's marker keeps the label its self-link holds; empty self-links stay out`, async () => {
    const doc = await extractBytes(respec, url!, 'text/html');
    assert.equal(doc.family, family);
    const example = doc.blocks.find((b) => b.kind === 'example')!;
    assert.equal(example.text.split('\n')[0], 'Example 3: Thing Model sample');
    assert.equal(example.fragment, 'lamp-example');
    assert.deepEqual(
      doc.sections.map((s) => [s.number, s.heading]),
      [['1', 'Overview']],
    );
    assert.equal(
      doc.blocks.some((b) => b.text.includes('Permalink')),
      false,
    );
  });
}
