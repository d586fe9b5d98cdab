import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { loadFamilies } from '../../src/extract/families.js';
import { compileRules, statementForms } from '../../src/extract/html/compiled-rules.js';
import { isInformativeStatement } from '../../src/extract/html/normativity.js';
import { seededRandom } from '../helpers/random.js';
import { extractBytes } from './helpers.js';

/**
 * Which sections are a document's apparatus, and which statements make a section informative, over
 * generated documents and every shipped family rather than one example.
 */

test('every family reads both spellings of each informative statement, in any letter case', () => {
  for (const family of loadFamilies()) {
    const rules = compileRules(family.rules.html);
    for (const statement of family.rules.html.informativeStatements) {
      for (const form of statementForms([statement])) {
        const sentence = `${form.charAt(0).toUpperCase()}${form.slice(1)}. The rest of the section.`;
        assert.ok(isInformativeStatement(rules, sentence), `${family.rules.id}: ${sentence}`);
        assert.ok(isInformativeStatement(rules, sentence.toUpperCase()), `${family.rules.id}: ${sentence.toUpperCase()}`);
      }
    }
    assert.ok(!isInformativeStatement(rules, 'This section is normative.'), family.rules.id);
  }
  assert.deepEqual(statementForms(['This Section is NOT normative']).sort(), [
    'this section is non-normative',
    'this section is not normative',
  ]);
});

/** A section as the generator writes it, and whether it (or a section around it) is apparatus. */
interface Drawn {
  html: string;
  sections: { id: string; apparatus: boolean }[];
}

// From the w3c family's informative ids and headings; the others make a section informative but are
// not apparatus (a marker class, a statement), or leave it normative.
const APPARATUS_IDS = ['changes', 'acknowledgements', 'references', 'idl-index', 'status'];
const APPARATUS_HEADINGS = ['Changes', 'Acknowledgments', 'Index', 'Informative References'];

function drawSections(random: () => number, depth: number, prefix: string, inApparatus: boolean): Drawn {
  const count = 1 + Math.floor(random() * 3);
  let html = '';
  const sections: Drawn['sections'] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${i}`;
    const kind = Math.floor(random() * 5);
    let sectionId = id;
    let heading = `Topic ${id}`;
    let attributes = '';
    let lead = '';
    if (kind === 0) sectionId = APPARATUS_IDS[Math.floor(random() * APPARATUS_IDS.length)]!;
    if (kind === 1) heading = APPARATUS_HEADINGS[Math.floor(random() * APPARATUS_HEADINGS.length)]!;
    if (kind === 2) attributes = ' class="informative"';
    if (kind === 3) lead = `<p>This section is ${random() < 0.5 ? 'non-normative' : 'not normative'}.</p>`;
    // An apparatus id may occur once per document: later ones are renamed (and then are not apparatus).
    if (kind === 0 && sections.some((s) => s.id === sectionId)) sectionId = id;
    const apparatus = inApparatus || (kind === 0 && sectionId !== id) || kind === 1;
    const level = Math.min(6, depth + 2);
    const inner = depth < 3 && random() < 0.5 ? drawSections(random, depth + 1, `${id}-`, apparatus) : { html: '', sections: [] };
    html +=
      `<section id="${sectionId}"${attributes}><h${level} id="h-${id}">${heading}</h${level}>${lead}` +
      `<p>Words of section ${id} that a reader might search for.</p>${inner.html}</section>`;
    sections.push({ id: sectionId, apparatus }, ...inner.sections);
  }
  return { html, sections };
}

test('a chunk is apparatus exactly when its section or one around it is named so by the family (generated documents)', async () => {
  let checked = 0;
  const seen = { apparatus: 0, other: 0 };
  for (let seed = 1; seed <= 60; seed++) {
    const random = seededRandom(seed);
    const drawn = drawSections(random, 0, `s${seed}-`, false);
    // Ids must be unique for the expectation to name one section each.
    const ids = drawn.sections.map((s) => s.id);
    if (new Set(ids).size !== ids.length) continue;
    const doc = await extractBytes(
      `<!DOCTYPE html><html><head><title>Gizmo</title></head><body><h1>Gizmo</h1>${drawn.html}</body></html>`,
      'https://www.w3.org/TR/gizmo/',
      'text/html',
    );
    const expected = new Map(drawn.sections.map((s) => [s.id, s.apparatus]));
    const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
    assert.ok(chunks.length > 0);
    for (const chunk of chunks) {
      const want = expected.get(chunk.citation.sectionId ?? '');
      assert.notEqual(want, undefined, `seed ${seed}: section ${chunk.citation.sectionId} was not generated`);
      assert.equal(chunk.apparatus === true, want, `seed ${seed}: ${chunk.chunkId} in ${drawn.html}`);
      seen[want ? 'apparatus' : 'other'] += 1;
    }
    checked += 1;
  }
  // The generator must exercise both outcomes on most seeds, or the loop proves little.
  assert.ok(checked >= 40, `only ${checked} generated documents had unique section ids`);
  assert.ok(seen.apparatus >= 50 && seen.other >= 50, JSON.stringify(seen));
});
