import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstMarkLast, linkedIdLast } from '../../src/extract/html/anchors.js';
import type { BlockAnchor } from '../../src/extract/document-builder.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Generated blocks: places with one or more ids, and links (same-document fragments) to some of them.
 * At every place the id kept (the last) is the one linked first when any is linked, else the one the
 * source wrote last; the anchors are the same multiset, places stay in order, a place keeps its ids.
 */
test('linkedIdLast: at every place the first-linked id is last; nothing else moves', () => {
  const random = seededRandom(43);
  const pick = (n: number): number => Math.floor(random() * n);
  for (let round = 0; round < 500; round++) {
    const anchors: BlockAnchor[] = [];
    let start = 0;
    for (let place = 0, places = 1 + pick(6); place < places; place++) {
      start += pick(3) === 0 ? 0 : 1 + pick(50);
      for (let k = 0, ids = 1 + pick(4); k < ids; k++) anchors.push({ id: `id${pick(8)}`, start });
    }
    const targets = Array.from({ length: pick(5) }, () => (pick(4) === 0 ? `id${pick(8)}`.replace('d', '%64') : `id${pick(8)}`));
    const decoded = targets.map((t) => decodeURIComponent(t));
    const result = linkedIdLast(anchors, targets);
    const context = JSON.stringify({ anchors, targets, result });
    assert.equal(result.length, anchors.length, context);
    const byPlace = (list: BlockAnchor[]): Map<number, string[]> => {
      const places = new Map<number, string[]>();
      for (const anchor of list) places.set(anchor.start, [...(places.get(anchor.start) ?? []), anchor.id]);
      return places;
    };
    assert.deepEqual(
      result.map((a) => a.start),
      anchors.map((a) => a.start),
      context,
    );
    const after = byPlace(result);
    for (const [at, ids] of byPlace(anchors)) {
      const kept = after.get(at)!;
      assert.deepEqual([...kept].sort(), [...ids].sort(), context);
      const linked = decoded.find((t) => ids.includes(t));
      const expected = ids.length > 1 && linked !== undefined ? linked : ids[ids.length - 1];
      assert.equal(kept[kept.length - 1], expected, context);
    }
  }
});

/**
 * Generated blocks for a family whose marks name a place by their first (Texinfo): places with one or
 * more ids, each a mark (an element without text) or not. At a place whose ids are all marks, the first
 * written is kept (moved last, the others in their order); at any other place nothing moves; the
 * anchors are the same objects, in the same places, in order.
 */
test('firstMarkLast: at a place of marks only the first is last; places with text keep their order', () => {
  const random = seededRandom(78);
  const pick = (n: number): number => Math.floor(random() * n);
  for (let round = 0; round < 500; round++) {
    const anchors: BlockAnchor[] = [];
    const marks = new WeakSet<BlockAnchor>();
    let start = 0;
    for (let place = 0, places = 1 + pick(6); place < places; place++) {
      start += pick(3) === 0 ? 0 : 1 + pick(50);
      const allMarks = pick(2) === 0;
      for (let k = 0, ids = 1 + pick(5); k < ids; k++) {
        const anchor = { id: `id${pick(8)}`, start };
        anchors.push(anchor);
        if (allMarks || pick(2) === 0) marks.add(anchor);
      }
    }
    const result = firstMarkLast(anchors, marks);
    const context = JSON.stringify({ anchors: anchors.map((a) => [a.id, a.start, marks.has(a)]), result });
    assert.deepEqual(new Set(result), new Set(anchors), context);
    assert.equal(result.length, anchors.length, context);
    assert.deepEqual(
      result.map((a) => a.start),
      anchors.map((a) => a.start),
      context,
    );
    for (let i = 0; i < anchors.length; ) {
      let j = i + 1;
      while (j < anchors.length && anchors[j]!.start === anchors[i]!.start) j++;
      const place = anchors.slice(i, j);
      const moved = place.length > 1 && place.every((a) => marks.has(a));
      const expected = moved ? [...place.slice(1), place[0]!] : place;
      // Moving the first behind copies of its own id changes nothing a reader sees: the place keeps its order then.
      const unchanged = moved && place[0]!.id === place[place.length - 1]!.id;
      assert.deepEqual(result.slice(i, j), unchanged ? place : expected, context);
      i = j;
    }
  }
});
