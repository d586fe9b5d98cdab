import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractBytes, repoRoot } from './helpers.js';
import { validateDocument } from '../../src/extract/extract.js';
import { MAX_OUTLINE_DEPTH } from '../../src/extract/input-bounds.js';
import type { EvidenceDocument } from '../../src/document/types.js';

/**
 * An evidence document keeps sections down to the outline bound (MAX_OUTLINE_DEPTH, 32 levels), and
 * its schema says so: it allowed levels up to 9, so ten nested RFC XML sections, or API entries inside
 * entries (DocBook variable lists in a list's definition, Haddock's class methods, Sphinx's nested
 * objects: each entry a level below the one around it) gave a document its own schema rejects.
 */

const NESTING = MAX_OUTLINE_DEPTH + 8;

function assertValidOutline(doc: EvidenceDocument): void {
  const levels = doc.sections.map((section) => section.level);
  assert.equal(Math.max(...levels), MAX_OUTLINE_DEPTH, `levels: ${levels.join(',')}`);
  assert.deepEqual(validateDocument(doc), { ok: true });
}

test("the document schema's section level bound is the outline bound", () => {
  const schema: unknown = JSON.parse(readFileSync(path.join(repoRoot, 'schema/document.schema.json'), 'utf8'));
  const maxima: unknown[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const level = (node as { properties?: { level?: { maximum?: unknown } } }).properties?.level;
    if (level !== undefined) maxima.push(level.maximum);
    for (const value of Object.values(node)) visit(value);
  };
  visit(schema);
  assert.deepEqual(maxima, [MAX_OUTLINE_DEPTH]);
});

test('DocBook variable-list entries nested past nine levels give a valid document', async () => {
  let html = '<html><head><meta name="generator" content="DocBook XSL Stylesheets V1.79.1"></head><body>';
  for (let i = 0; i < NESTING; i++) html += `<dl class="variablelist"><dt id="e${i}">entry ${i}</dt><dd><p>Entry ${i}.</p>`;
  html += '</dd></dl>'.repeat(NESTING) + '</body></html>';
  assertValidOutline(await extractBytes(html, 'https://docs.example.test/api.html', 'text/html'));
});

test('Haddock entries nested past nine levels give a valid document', async () => {
  let html = '<html><head><title>Data.X</title></head><body><div id="package-header">x</div>';
  for (let i = 0; i < NESTING; i++)
    html += `<div class="top"><p class="src"><a id="v:f${i}" class="def">f${i}</a> :: a</p><p>Doc ${i}.</p>`;
  html += '</div>'.repeat(NESTING) + '<a href="https://www.haskell.org/haddock/">Haddock</a></body></html>';
  assertValidOutline(await extractBytes(html, 'https://docs.example.test/Data-X.html', 'text/html'));
});

test('RFC XML sections nested past nine levels give a valid document', async () => {
  let xml = '<?xml version="1.0"?><rfc ipr="trust200902" docName="draft-x-00" version="3"><front><title>T</title></front><middle>';
  for (let i = 0; i < NESTING; i++) xml += `<section anchor="s${i}"><name>Section ${i}</name><t>Text ${i}.</t>`;
  xml += '</section>'.repeat(NESTING) + '</middle></rfc>';
  assertValidOutline(await extractBytes(xml, 'https://www.ietf.org/archive/id/draft-x-00.xml', 'application/rfc+xml'));
});
