import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Rig } from '../helpers/rig.js';
import { splitOverPages, tablePdf, type TextSpec } from '../helpers/table-pdf.js';

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

/**
 * Each section once first, where a PDF section is cited page by page: two hits of one section on
 * different pages are two citations a reader opens, so the second is not moved below a weaker hit of
 * another section as a repeat of the first would be (a long section of a PDF manual ran over several
 * pages, and the page that answered came below every other section's best chunk).
 */
test('hits of one PDF section on different pages keep their rank among other sections', async () => {
  const rig = new Rig();
  try {
    const lines = (page: number, about: (i: number) => string): TextSpec[] =>
      Array.from({ length: 8 }, (_, i) => ({ x: 72, top: 110 + i * 13, size: 10, text: `Line ${i + 1} on page ${page}: ${about(i)}.` }));
    const pages: TextSpec[][] = [
      [
        { x: 72, top: 72, size: 20, text: 'Line Maintenance' },
        ...lines(1, (i) => (i === 2 ? 'check the hydraulic pressure gauge' : 'inspect the wheels')),
      ],
      lines(2, () => 'replace worn brake pads'),
      lines(3, (i) => (i < 3 ? 'hydraulic pressure must stay in the green band' : 'log the hydraulic pressure reading')),
      [{ x: 72, top: 72, size: 20, text: 'Towing' }, ...lines(4, (i) => (i === 5 ? 'hydraulic tow bars need no gauge' : 'tow slowly'))],
    ];
    rig.write({
      'manual.pdf': tablePdf(pages.map((texts) => ({ texts }))),
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.test/manual.pdf', localPath: 'manual.pdf', contentType: 'application/pdf' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: 400, overlapChars: 0 } } }),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const hits = (await rig.exec(['query', 'hydraulic', 'pressure', 'gauge', '--limit', '3', '--json'])).json!.data!.hits as {
      citation: { fragment: string; headingPath: string[] };
    }[];
    const shown = hits.map((hit) => `${hit.citation.headingPath.at(-1)} ${hit.citation.fragment}`);
    assert.equal(shown.length, 3, JSON.stringify(shown));
    assert.equal(shown.indexOf('Towing page=4'), 2, `the other section's weaker hit comes after both pages: ${JSON.stringify(shown)}`);
    assert.deepEqual(new Set(shown.slice(0, 2)), new Set(['Line Maintenance page=1', 'Line Maintenance page=3']), JSON.stringify(shown));
  } finally {
    rig.cleanup();
  }
});

interface DocumentBlock {
  text: string;
  page: number;
  pageStarts?: { page: number; start: number }[];
}

/**
 * A paragraph the page's end interrupts mid-sentence goes on at the next page's first line, and a table
 * goes on in rows on the next page: each is one block over both pages. A match in the part on the later
 * page cites that page, and a piece of the block cut wholly from that part is on that page alone (it
 * cited the block's first page, the page before the one the reader needs).
 */
test('a paragraph or table continued on the next page: its later part cites the later page', async () => {
  const rig = new Rig();
  try {
    const filler = (n: number, page: number): TextSpec[] =>
      Array.from({ length: n }, (_, i) => ({
        x: 72,
        top: 110 + i * 13,
        size: 10,
        text: `the scheduler keeps ordinary queue entries in arrival order while nothing else is waiting ${page}-${i} and`,
      }));
    const page1: TextSpec[] = [
      { x: 72, top: 72, size: 20, text: 'Retry Policy' },
      { x: 72, top: 97, size: 10, text: 'Every request has a retry budget, and when a request fails' },
      ...filler(50, 1),
    ];
    const page2: TextSpec[] = [
      { x: 72, top: 72, size: 10, text: 'after the budget is spent the client waits for the cooldown timer' },
      { x: 72, top: 85, size: 10, text: 'before it sends anything more to the same origin.' },
    ];
    const alerts = [
      ['Alert', 'Code', 'Meaning'],
      ...Array.from({ length: 80 }, (_, i) => [`ALERT_${i}`, String(i), i === 75 ? 'unrecognized server name' : `reason number ${i}`]),
    ];
    // 40 rows a page: the table's text is about two and a half chunks long, its last piece all on page 4.
    const parts = splitOverPages({ rows: alerts, columnWidths: [120, 60, 200], x: 72, top: 90, rules: 'grid' }, 40, false);
    rig.write({
      'guide.pdf': tablePdf([{ texts: page1 }, { texts: page2 }, { tables: [parts[0]!] }, { tables: [parts[1]!] }]),
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/guide.pdf', localPath: 'guide.pdf', contentType: 'application/pdf' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const [documentFile] = fs.readdirSync(rig.path('specs')).filter((name) => name.startsWith('example-test-guide-pdf.'));
    const blocks = (JSON.parse(rig.read(`specs/${documentFile}`)) as { payload: { blocks: DocumentBlock[] } }).payload.blocks;
    const paragraph = blocks.find((b) => b.text.includes('cooldown timer'))!;
    assert.equal(paragraph.page, 1, 'one paragraph over both pages');
    assert.equal(paragraph.pageStarts?.length, 1);
    assert.equal(paragraph.pageStarts![0]!.page, 2);
    assert.ok(
      paragraph.text.slice(paragraph.pageStarts![0]!.start).startsWith('after the budget is spent'),
      JSON.stringify(paragraph.pageStarts),
    );
    const table = blocks.find((b) => b.text.includes('unrecognized server name'))!;
    assert.equal(table.page, 3);
    assert.deepEqual(
      table.pageStarts?.map((s) => [s.page, table.text.slice(s.start).split('\n')[0]]),
      [[4, 'ALERT_40 | 40 | reason number 40']],
    );

    const cite = async (query: string): Promise<{ fragment: string; pages: number[] }> =>
      (await rig.exec(['query', query, '--limit', '1', '--json'])).json!.data!.hits[0]!.citation;
    const cooldown = await cite('cooldown timer same origin');
    assert.equal(cooldown.fragment, 'page=2');
    assert.ok(cooldown.pages.includes(2), JSON.stringify(cooldown));
    const alert = await cite('unrecognized server name alert');
    assert.equal(alert.fragment, 'page=4');
    assert.deepEqual(alert.pages, [4], 'a piece cut from the rows on page 4 is on page 4 alone');
  } finally {
    rig.cleanup();
  }
});
