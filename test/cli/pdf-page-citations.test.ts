import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';
import { tablePdf, type TextSpec } from '../helpers/table-pdf.js';

/**
 * A PDF passage has no source id to cite, so a hit cites its first page as the fragment a PDF viewer
 * opens at (RFC 8118's `#page=N`), and `show` takes that citation back: the section on that page. A
 * section whose id was made up (`~s2`: no such id is in the source) is shown at a fragment a reader
 * can open: its first page in a PDF, the nearest id the source gives in HTML.
 */
const body = (page: number): TextSpec[] => {
  const texts: TextSpec[] = [{ x: 72, top: 72, size: 20, text: page === 1 ? 'Ground Handling' : `Part ${page}` }];
  for (let i = 0; i < 10; i++)
    texts.push({
      x: 72,
      top: 110 + i * 13,
      size: 10,
      text: `Line ${i + 1} on page ${page} about ${page === 3 ? 'deicing fluid' : 'towing'}.`,
    });
  return texts;
};

test('a PDF hit cites #page=N; show opens that page; show names sections without ids at what a reader opens', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'manual.pdf': tablePdf([1, 2, 3].map((page) => ({ texts: body(page) }))),
      'guide.html':
        '<!DOCTYPE html><html><head><title>Guide</title></head><body><h1>Guide</h1>' +
        '<section id="towing"><h2>Towing</h2><p>Tow bars.</p>' +
        '<h3>Push-back</h3><p>Push-back tractors tow aircraft.</p></section></body></html>',
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/manual.pdf', localPath: 'manual.pdf', contentType: 'application/pdf' },
        { sourceUrl: 'https://example.test/guide.html', localPath: 'guide.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);

    const hit = (await rig.exec(['query', 'deicing', 'fluid', '--limit', '1', '--json'])).json!.data!.hits[0]!;
    assert.equal(hit.citation.sourceUrl, 'https://example.test/manual.pdf');
    assert.deepEqual(hit.citation.pages, [3]);
    assert.equal(hit.citation.fragment, 'page=3');
    const human = await rig.exec(['query', 'deicing', 'fluid', '--limit', '1']);
    assert.match(human.stdout, /^1\. \[[0-9.]+\] https:\/\/example\.test\/manual\.pdf#page=3\n {3}\| § /m);

    const shown = await rig.exec(['show', 'https://example.test/manual.pdf#page=3', '--json']);
    assert.equal(shown.code, 0, shown.stdout);
    const answer = shown.json!.data!;
    assert.equal(answer.citation.sectionId, hit.citation.sectionId, 'the section of the cited page');
    assert.equal(answer.citation.fragment, 'page=3', 'shown at its first page, not at its made-up id');
    assert.ok(answer.blocks.some((b: { text: string }) => b.text.includes('deicing fluid')));
    const missing = await rig.exec(['show', 'https://example.test/manual.pdf#page=9', '--json']);
    assert.equal(missing.json!.error!.code, 'citation-not-found');

    // An HTML section without an id ("Push-back", ~s…) is shown at the id around it.
    const pushBack = (await rig.exec(['query', 'push-back', 'tractors', '--limit', '1', '--json'])).json!.data!.hits[0]!;
    assert.match(pushBack.citation.sectionId, /~/);
    const html = await rig.exec([
      'show',
      `${pushBack.documentId ?? pushBack.citation.documentId}#${pushBack.citation.sectionId}`,
      '--json',
    ]);
    assert.equal(html.json!.data!.citation.fragment, 'towing');
  } finally {
    rig.cleanup();
  }
});

/**
 * A section that runs onto the next page is one chunk over both pages. A match on the later page
 * cites that page, where the reader finds it, not the page the chunk starts on; a match on the first
 * page still cites the first (the chunk records where each later page starts).
 */
test('a PDF hit cites the page its match is on when its chunk runs over two pages', async () => {
  const rig = new Rig();
  try {
    const page1: TextSpec[] = [
      { x: 72, top: 72, size: 20, text: 'Error Logging' },
      { x: 72, top: 110, size: 10, text: 'Applications may install their own logger function.' },
      { x: 72, top: 123, size: 10, text: 'It receives every message the library reports.' },
    ];
    const page2: TextSpec[] = [
      { x: 72, top: 110, size: 10, text: 'Passing NULL restores the default handler.' },
      { x: 72, top: 123, size: 10, text: 'The default handler discards every message silently.' },
    ];
    rig.write({
      'api.pdf': tablePdf([{ texts: page1 }, { texts: page2 }]),
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/api.pdf', localPath: 'api.pdf', contentType: 'application/pdf' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const cite = async (query: string): Promise<{ fragment: string; pages: number[]; sectionId: string }> =>
      (await rig.exec(['query', query, '--limit', '1', '--json'])).json!.data!.hits[0]!.citation;
    const later = await cite('default handler discards messages');
    assert.deepEqual(later.pages, [1, 2], 'one chunk over both pages');
    assert.equal(later.fragment, 'page=2');
    const first = await cite('install own logger function');
    assert.deepEqual(first.pages, [1, 2]);
    assert.equal(first.fragment, 'page=1');
    const shown = await rig.exec(['show', 'https://example.test/api.pdf#page=2', '--json']);
    assert.equal(shown.code, 0, shown.stdout);
    assert.equal(shown.json!.data!.citation.sectionId, later.sectionId);
  } finally {
    rig.cleanup();
  }
});
