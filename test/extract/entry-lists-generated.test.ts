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
