import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Generated entry lists (extract rules 51, 53, 55, 56), in pod2html's and mandoc's markup: terms with
 * and without ids, list marks plain and set as names, item numbers, empty and placeholder definitions,
 * loose text, `<div>` groups and nested lists. Whatever becomes an entry, every word is read exactly
 * once, in document order, and every entry's heading is its term's text.
 */
const PAGES = {
  pod2html: (list: string): string =>
    '<html><head><title>perlvar</title><link rev="made" href="mailto:root@localhost" /></head><body>\n' +
    `<ul id="index"><li><a href="#NAME">NAME</a></li></ul>\n<h1 id="NAME">NAME</h1>\n${list}\n</body></html>\n`,
  mandoc: (list: string): string =>
    '<html><body><table class="head"><tr><td class="head-ltitle">X(1)</td></tr></table><div class="manual-text">' +
    `<section class="Sh"><h1 class="Sh" id="OPTIONS">OPTIONS</h1>${list}</section></div></body></html>`,
};

test('generated entry lists: every word read once, in order; an entry is headed by its term', async () => {
  const random = seededRandom(55);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (const [family, page] of Object.entries(PAGES)) {
    const listTag = family === 'mandoc' ? '<dl class="Bl-tag">' : '<dl>';
    for (let round = 0; round < 60; round++) {
      let word = 0;
      const words: string[] = [];
      const next = (): string => {
        const w = `w${round}x${word++}`;
        words.push(w);
        return w;
      };
      const list = (depth: number): string => {
        let html = listTag;
        for (let i = 0, n = 1 + Math.floor(random() * 6); i < n; i++) {
          const id = random() < 0.8 ? ` id="t${round}-${depth}-${i}"` : '';
          const term = pick(['name', 'name', 'mark', 'boldmark', 'number', 'empty']);
          if (term === 'name') html += `<dt${id}>${next()} ${next()}</dt>`;
          else if (term === 'mark') html += `<dt${id}>o</dt>`;
          else if (term === 'boldmark') html += `<dt${id}><b>-</b></dt>`;
          else if (term === 'number') html += `<dt${id}>${i + 1}.</dt>`;
          else html += `<dt${id}></dt>`;
          const body = pick(['text', 'text', 'empty', 'nbsp', 'nested', 'loose', 'div']);
          if (body === 'text') html += `<dd><p>${next()}</p></dd>`;
          else if (body === 'empty') html += '<dd>\n</dd>';
          else if (body === 'nbsp') html += '<dd>&nbsp;</dd>';
          else if (body === 'nested' && depth < 3) html += `<dd><p>${next()}</p>${list(depth + 1)}</dd>`;
          else if (body === 'loose') html += `${next()} <i>${next()}</i>`;
          else html += `<div><dt>${next()}</dt><dd><p>${next()}</p></dd></div>`;
        }
        return `${html}</dl>`;
      };
      const doc = await extractBytes(page(list(0)), 'https://x.test/page', 'text/html');
      assert.equal(doc.family, family);
      const read = doc.blocks.flatMap((b) => b.text.match(/w\d+x\d+/g) ?? []);
      assert.deepEqual(read, words, `${family} round ${round}: every word once, in order`);
      for (const section of doc.sections.slice(1)) {
        const first = doc.blocks.find((b) => b.sectionId === section.id);
        if (first === undefined || section.heading === '') continue;
        assert.ok(first.text.startsWith(section.heading), `${family} round ${round}: ${section.heading} heads its term`);
      }
    }
  }
});

test('generated man(7) pages: what follows a tagged list goes where its last item is read; in mdoc, in the section', async () => {
  // Extract rule 57. Whatever the list's last item is (an entry, a mark, a number, an untagged <dt></dt>
  // going on with the entry before it), the .RS displays and untagged .IP lists right after the list are
  // read where that item's text is; a paragraph after them is the section's, and so is all of it in mdoc.
  const random = seededRandom(57);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (let round = 0; round < 80; round++) {
    const mdoc = round % 4 === 3;
    let word = 0;
    const next = (): string => `w${round}x${word++}`;
    let html = '<dl class="Bl-tag">';
    let lastText = '';
    for (let i = 0, n = 1 + Math.floor(random() * 5); i < n; i++) {
      const id = random() < 0.8 ? ` id="t${round}-${i}"` : '';
      const term = pick(['name', 'name', 'mark', 'number', 'empty']);
      if (term === 'name') html += `<dt${id}>${next()}</dt>`;
      else if (term === 'mark') html += `<dt${id}>o</dt>`;
      else if (term === 'number') html += `<dt${id}>${i + 1}.</dt>`;
      else html += '<dt></dt>';
      lastText = next();
      html += `<dd>${lastText}</dd>`;
    }
    html += '</dl>\n';
    const continued: string[] = [];
    for (let k = 0, n = Math.floor(random() * 3); k < n; k++) {
      const w = next();
      continued.push(w);
      html += random() < 0.5 ? `<div class="Bd-indent"><pre>${w}</pre></div>\n` : `<dl class="Bl-tag"><dt></dt><dd>${w}</dd></dl>\n`;
    }
    const after = next();
    html += `<p class="Pp">${after}</p>`;
    const name = mdoc ? '<p class="Pp"><code class="Nm">x</code> - <span class="Nd">a page</span></p>' : '<p class="Pp">x - a page</p>';
    const page =
      '<html><body><table class="head"><tr><td class="head-ltitle">X(1)</td></tr></table><div class="manual-text">' +
      `<section class="Sh"><h1 class="Sh" id="NAME">NAME</h1>${name}</section>` +
      `<section class="Sh"><h1 class="Sh" id="OPTIONS">OPTIONS</h1>${html}</section></div></body></html>`;
    const doc = await extractBytes(page, 'https://x.test/page', 'text/html');
    const sectionOf = (w: string): string | null | undefined => doc.blocks.find((b) => b.text.split(/\s+/).includes(w))?.sectionId;
    const options = doc.sections.find((s) => s.fragment === 'OPTIONS')!.id;
    for (const w of continued) assert.equal(sectionOf(w), mdoc ? options : sectionOf(lastText), `round ${round}: ${w}\n${html}`);
    assert.equal(sectionOf(after), options, `round ${round}: the paragraph after the list\n${html}`);
  }
});
