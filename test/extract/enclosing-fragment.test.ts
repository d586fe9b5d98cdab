import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentBuilder } from '../../src/extract/document-builder.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Over generated outlines (levels going up and down, sections with and without ids, blocks with and
 * without ids of their own), every block's fragment is its own id, else the id of the nearest section
 * above it that has one (walked here through the sections' parent ids, independently of the builder's
 * stack), else null.
 */
test('a block without an id takes the fragment of its nearest enclosing section that has one', () => {
  for (const seed of [1, 7, 42, 2026, 31337]) {
    const random = seededRandom(seed);
    const builder = new DocumentBuilder({
      authority: 'normative',
      informativeSectionIds: new Set(),
      informativeHeadings: new Set(),
      informativeHeadingMarkers: [],
      keywordPatternFallback: false,
    });
    const ownIds = new Map<number, string | null>();
    let level = 1;
    for (let n = 0; n < 200; n++) {
      if (random() < 0.3) {
        level = Math.max(1, Math.min(6, level + Math.floor(random() * 4) - 1));
        builder.openSection({ fragment: random() < 0.5 ? `s${n}` : null, heading: `Section ${n}`, level, number: null });
      }
      const own = random() < 0.2 ? `b${n}` : null;
      ownIds.set(builder.blocks.length, own);
      builder.addBlock({ kind: 'paragraph', text: `Text ${n}.`, fragment: own });
    }
    const sections = new Map(builder.sections.map((s) => [s.id, s]));
    builder.blocks.forEach((block, i) => {
      let expected = ownIds.get(i) ?? null;
      for (let s = block.sectionId === null ? undefined : sections.get(block.sectionId); expected === null && s !== undefined; ) {
        expected = s.fragment;
        s = s.parentId === null ? undefined : sections.get(s.parentId);
      }
      assert.equal(block.fragment, expected, `seed ${seed}, block ${block.id}`);
    });
  }
});
