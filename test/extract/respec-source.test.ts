import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A ReSpec source (an editor's draft as written, rendered by ReSpec in the reader's browser): the first
 * heading of each section that is not `.introductory` takes its section's nesting depth, as ReSpec's
 * core/fix-headers gives it, whatever its tag. Authors write h2 throughout, or an h4 beside an h3.
 * Without ReSpec in the head, the same markup is read by its tags.
 */
const body = (head: string): string => `<!DOCTYPE html><html><head><title>Test Spec</title>${head}</head><body>
<section id="abstract" class="introductory"><h2>Abstract</h2><p>What it is.</p></section>
<section id="intro"><h2>Introduction</h2><p>Words.</p>
  <section id="terms"><h2>Terminology</h2><p>Terms.</p>
    <h4 id="loose">A heading that is not its section's first</h4><p>Loose.</p>
  </section>
</section>
<section id="directives"><h2>Directives</h2><p>All directives.</p>
  <section id="object-src"><h3>object-src</h3><p>Plugins.</p></section>
  <section id="style-src"><h4>style-src</h4><p>Styles.</p></section>
  <section id="deep"><h2>Deep</h2>
    <section><section><section><section><h2 id="deepest">Deepest</h2><p>Six at most.</p></section></section></section></section>
  </section>
</section>
</body></html>`;

const levels = async (head: string): Promise<Record<string, [number, string | null]>> => {
  const doc = await extractBytes(body(head), 'https://w3c.github.io/test-spec/', 'text/html');
  return Object.fromEntries(doc.sections.map((s) => [s.id, [s.level, s.parentId]]));
};

test('a ReSpec source: section nesting gives its first heading its level', async () => {
  for (const head of [
    `<script src="https://www.w3.org/Tools/respec/respec-w3c" class="remove" defer></script>`,
    `<script src='js/respec.js' class='remove'></script>`,
    `<script class="remove">var respecConfig = { specStatus: "ED" };</script>`,
  ]) {
    const got = await levels(head);
    assert.deepEqual(got['abstract'], [2, null], head);
    assert.deepEqual(got['intro'], [2, null]);
    assert.deepEqual(got['terms'], [3, 'intro']);
    assert.deepEqual(got['loose'], [4, 'terms'], 'a heading after the first keeps its tag');
    assert.deepEqual(got['directives'], [2, null]);
    assert.deepEqual(got['object-src'], [3, 'directives']);
    assert.deepEqual(got['style-src'], [3, 'directives'], 'a sibling section, not a child of the one before');
    assert.deepEqual(got['deep'], [3, 'directives']);
    assert.deepEqual(got['deepest'], [6, 'deep'], 'at most h6');
  }
});

test('without ReSpec in its head, the same markup is read by its tags', async () => {
  const got = await levels('<script src="app.js"></script>');
  assert.deepEqual(got['terms'], [2, null]);
  assert.deepEqual(got['style-src'], [4, 'object-src']);
});

test('a ReSpec source: the abstract, status and conformance sections get the headings ReSpec writes', async () => {
  const source = `<!DOCTYPE html><html><head><title>Test Spec</title>
<script src="https://www.w3.org/Tools/respec/respec-w3c" class="remove" defer></script></head><body>
<section id="abstract"><p>What it is.</p></section>
<section id="sotd"><p>Where it stands.</p></section>
<section id="intro"><h2>Introduction</h2><p>Words.</p></section>
<section id="conformance"><p>Conformance requirements are expressed with MUST.</p>
  <section id="terms"><h2>Terminology</h2><p>Terms.</p></section>
</section>
<section id="conformance-like" class="override"><p>Not a ReSpec section.</p></section>
</body></html>`;
  const doc = await extractBytes(source, 'https://w3c.github.io/test-spec/', 'text/html');
  const outline = doc.sections.map((s) => [s.id, s.heading, s.level, s.parentId]);
  assert.deepEqual(outline, [
    ['abstract', 'Abstract', 2, null],
    ['sotd', 'Status of This Document', 2, null],
    ['intro', 'Introduction', 2, null],
    ['conformance', 'Conformance', 2, null],
    ['terms', 'Terminology', 3, 'conformance'],
  ]);
  const sectionOf = (text: string): string | null => doc.blocks.find((b) => b.text.startsWith(text))!.sectionId;
  assert.equal(sectionOf('What it is'), 'abstract');
  assert.equal(sectionOf('Where it stands'), 'sotd');
  assert.equal(sectionOf('Conformance requirements'), 'conformance', 'not the section before it');
  assert.equal(doc.sections.find((s) => s.id === 'sotd')!.normativity, 'informative');
  assert.equal(doc.sections.find((s) => s.id === 'conformance')!.normativity, 'normative');
});
