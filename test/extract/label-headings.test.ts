import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A heading that labels what follows it ("Parameters:", "Returns:", "Usage:") rather than titles a
 * section. LDoc heads the parts of each function's description so: each opened a section of the
 * group around the functions, and the text after it no longer cited the function's anchor.
 */
const LDOC =
  '<!doctype html><html><head><title>pl.stringx</title></head><body><div id="content"><h1>Module <code>pl.stringx</code></h1>' +
  '<h2 class="section-header"><a name="Finding_and_Replacing"></a>Finding and Replacing</h2><dl class="function">' +
  '<dt><a name="count"></a><strong>count (s, sub[, allow_overlap])</strong></dt><dd>count all instances of substring in string.' +
  '<h3>Parameters:</h3><ul><li><span class="parameter">allow_overlap</span> allow matches to overlap (<em>optional</em>)</li></ul>' +
  '<h3>Usage:</h3><ul><pre class="example">stringx.count("banana", "ana", true)</pre></ul></dd>' +
  '<dt><a name="replace"></a><strong>replace (s, old, new[, n])</strong></dt><dd>replace up to n instances of old by new.' +
  '<h3>Returns:</h3><ol>the new string</ol></dd></dl>' +
  '<h2 id="notes">Notes:</h2><p>A heading with an id is a section, whatever it ends with.</p></div></body></html>';

test('a heading ending in a colon that nothing names is a label paragraph, and the text after it cites its entry', async () => {
  const doc = await extractBytes(LDOC, 'https://docs.example.test/pl.stringx.html', 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Module pl.stringx', 'Finding and Replacing', 'Notes:'],
  );
  const block = (text: string) => doc.blocks.find((b) => b.text.includes(text));
  assert.equal(block('Parameters:')?.kind, 'paragraph');
  assert.equal(block('allow matches to overlap')?.fragment, 'count');
  assert.equal(block('stringx.count')?.fragment, 'count');
  assert.equal(block('the new string')?.fragment, 'replace');
  assert.equal(block('A heading with an id')?.fragment, 'notes');
});
