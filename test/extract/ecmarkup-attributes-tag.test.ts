import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * ecmarkup writes a clause's `normative-optional` or `legacy` attribute as a tag above its heading
 * (`<div class="attributes-tag">Normative Optional</div><h1>...`). Read as text it came before the
 * heading, so it was a block of the previous clause: a stray "Normative Optional" paragraph in the
 * section before, cited there.
 */

// As ecmarkup renders ECMA-262 2024 (tc39/ecma262, 2024/multipage/managing-memory.html, abridged).
const ecmarkup = `<!doctype html><html lang="en-GB-oxendict"><head><meta
 charset="utf-8"><title>ECMAScript® 2024 Language&nbsp;Specification</title></head>
<body><div id='spec-container'><emu-clause id="sec-properties-of-the-weak-ref-prototype-object">
  <h1><span class="secnum">26.1.3</span> Properties of the WeakRef Prototype Object</h1>
  <p>The <dfn tabindex="-1">WeakRef prototype</dfn> object is an ordinary object.</p>
  <emu-clause id="sec-weak-ref.prototype.constructor" normative-optional=""><div class="attributes-tag"><emu-xref href="#sec-conformance"
   id="_ref_14355"><a href="conformance.html#sec-conformance">Normative Optional</a></emu-xref></div>
    <h1><span class="secnum">26.1.3.1</span> WeakRef.prototype.constructor</h1>
    <p>The initial value of <code>WeakRef.prototype.constructor</code> is %WeakRef%.</p>
  </emu-clause>
</emu-clause></div></body></html>`;

test('tc39: a clause tag ("Normative Optional") is not a block of the clause before it', async () => {
  const doc = await extractBytes(ecmarkup, 'https://262.ecma-international.org/15.0/multipage/managing-memory.html', 'text/html');
  assert.equal(doc.family, 'tc39');
  assert.deepEqual(
    doc.blocks.map((b) => [b.sectionId, b.text]),
    [
      ['sec-properties-of-the-weak-ref-prototype-object', 'The WeakRef prototype object is an ordinary object.'],
      ['sec-weak-ref.prototype.constructor', 'The initial value of WeakRef.prototype.constructor is %WeakRef%.'],
    ],
  );
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.heading, s.level]),
    [
      ['26.1.3', 'Properties of the WeakRef Prototype Object', 1],
      ['26.1.3.1', 'WeakRef.prototype.constructor', 2],
    ],
  );
});
