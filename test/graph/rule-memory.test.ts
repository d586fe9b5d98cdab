import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RuleMemory } from '../../src/graph/rule-memory.js';

/**
 * The index parts a build or watch session remembers stay bounded: one current part per document (a
 * save's new part replaces the document's old one), a part that two documents share stays while
 * either has it, and the total is bounded in characters as well as in count.
 */
test('a document keeps only its current index part in memory', () => {
  const memory = new RuleMemory();
  const part = (n: number): string => `part ${n} `.repeat(1000);
  memory.rememberIndexPart('dom', 'p0', part(0));
  memory.rememberIndexPart('url', 'u0', part(100));
  for (let save = 1; save <= 50; save++) memory.rememberIndexPart('dom', `p${save}`, part(save));
  assert.equal(memory.indexPart('p50'), part(50));
  assert.equal(memory.indexPart('p49'), undefined, 'the part a save replaced is forgotten');
  assert.equal(memory.indexPart('u0'), part(100), 'other documents keep theirs');
  assert.deepEqual(memory.indexPartsHeld(), { parts: 2, chars: part(50).length + part(100).length });
  // The same part again (a revert, or the merge reading it back) keeps one copy.
  memory.rememberIndexPart('dom', 'p50', part(50));
  assert.equal(memory.indexPartsHeld().parts, 2);
});

test('a part shared by two documents stays until neither has it', () => {
  const memory = new RuleMemory();
  memory.rememberIndexPart('a', 'same', 'identical chunks');
  memory.rememberIndexPart('b', 'same', 'identical chunks');
  memory.rememberIndexPart('a', 'a1', 'a edited');
  assert.equal(memory.indexPart('same'), 'identical chunks', 'b still has it');
  memory.rememberIndexPart('b', 'b1', 'b edited');
  assert.equal(memory.indexPart('same'), undefined);
  assert.deepEqual(memory.indexPartsHeld(), { parts: 2, chars: 'a edited'.length + 'b edited'.length });
});

test('index parts are bounded in characters, the least recently used dropped first', () => {
  const memory = new RuleMemory();
  const big = 'x'.repeat(20 * 1024 * 1024);
  for (let doc = 0; doc < 5; doc++) memory.rememberIndexPart(`d${doc}`, `f${doc}`, big + doc);
  const held = memory.indexPartsHeld();
  assert.ok(held.chars <= 64 * 1024 * 1024, `held ${held.chars} characters`);
  assert.equal(memory.indexPart('f0'), undefined, 'the oldest went first');
  assert.equal(memory.indexPart('f4'), big + 4);
});
