import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentBuilder } from '../../src/extract/document-builder.js';

/**
 * Section ids Episteme makes up (`~s<n>` for a section without an id, `<id>~<n>` for a repeated id,
 * the id an RFC text's extractor asks for) never take an id the source uses, wherever in the document
 * the source uses it; block ids follow their section's final id. (Over HTML through `show`:
 * test/cli/show-generated-outlines.test.ts.)
 */
function builder(): DocumentBuilder {
  return new DocumentBuilder({
    authority: 'normative',
    informativeSectionIds: new Set(),
    informativeHeadings: new Set(),
    informativeHeadingMarkers: [],
    keywordPatternFallback: false,
  });
}

test('made-up section ids step around every id the source uses, before or after them', () => {
  const b = builder();
  b.addBlock({ kind: 'paragraph', text: 'Front matter.', fragment: null });
  b.openSection({ fragment: null, heading: 'No id', level: 2, number: null });
  b.addBlock({ kind: 'paragraph', text: 'In the first section without an id.', fragment: null });
  b.openSection({ fragment: 'a', heading: 'A', level: 2, number: null });
  b.openSection({ fragment: 'a', heading: 'A again', level: 2, number: null });
  b.openSection({ fragment: null, heading: 'Asks for an id', level: 2, number: null, id: 'section-9' });
  b.addBlock({ kind: 'paragraph', text: 'Holds an element with id ~s2.', fragment: null, anchors: [{ id: '~s2', start: 0 }] });
  b.openSection({ fragment: '~s1', heading: 'The source calls this ~s1', level: 2, number: null });
  b.addBlock({ kind: 'paragraph', text: 'In ~s1.', fragment: null });
  b.openSection({ fragment: 'a~2', heading: 'The source calls this a~2', level: 2, number: null });
  b.openSection({ fragment: '~front', heading: 'The source calls this ~front', level: 2, number: null });
  b.addBlock({ kind: 'paragraph', text: 'In ~front.', fragment: null });
  b.openSection({ fragment: 'section-9', heading: 'The source calls this section-9', level: 2, number: null });
  b.settleIds();
  assert.deepEqual(
    b.sections.map((s) => s.id),
    ['~s3', 'a', 'a~3', '~s4', '~s1', 'a~2', '~front', 'section-9'],
  );
  assert.deepEqual(
    b.diagnostics.map((d) => d.code),
    ['duplicate-section-id'],
    'only the repeated "a" is a duplicate: the other collisions are with ids the source does not repeat',
  );
  assert.match(b.diagnostics[0]!.message, /renamed "a~3"/);
  assert.deepEqual(
    b.blocks.map((block) => [block.id, block.sectionId]),
    [
      ['~front~b1', null],
      ['~s3~b1', '~s3'],
      ['~s4~b1', '~s4'],
      ['~s1~b1', '~s1'],
      ['~front~b2', '~front'],
    ],
    'block ids follow the final section ids and stay unique (front matter and a section called ~front share the count)',
  );
});

test('without collisions the settled ids are the ids given while building', () => {
  const b = builder();
  b.openSection({ fragment: null, heading: 'One', level: 2, number: null });
  b.addBlock({ kind: 'paragraph', text: 'x', fragment: null });
  b.openSection({ fragment: 'b', heading: 'B', level: 3, number: null });
  b.addBlock({ kind: 'paragraph', text: 'y', fragment: null });
  b.openSection({ fragment: null, heading: 'Two', level: 2, number: null, id: 'section-2' });
  b.openSection({ fragment: 'b', heading: 'B again', level: 3, number: null });
  const before = JSON.stringify([b.sections, b.blocks]);
  b.settleIds();
  assert.equal(JSON.stringify([b.sections, b.blocks]), before);
  assert.deepEqual(
    b.sections.map((s) => [s.id, s.parentId]),
    [
      ['~s1', null],
      ['b', '~s1'],
      ['section-2', null],
      ['b~2', 'section-2'],
    ],
  );
});
