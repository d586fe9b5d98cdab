import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { validateDocument } from '../../src/extract/extract.js';
import { seededRandom } from '../helpers/random.js';
import { extractBytes } from './helpers.js';

/**
 * Generated Markdown documents (headings ATX and setext, repeated headings, paragraphs, nested lists,
 * fenced code, tables, quotes and alerts, raw HTML, front matter, CRLF line ends), each content word a
 * unique marker: whatever the mix, every marker is in exactly one block (no text lost or doubled),
 * every span is whole source lines holding its block's markers, section ids are unique, the document
 * validates, and extracting twice gives the same bytes.
 */
function generate(seed: number): { source: string; markers: string[] } {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const markers: string[] = [];
  const word = (): string => {
    const marker = `w${seed}x${markers.length}`;
    markers.push(marker);
    return marker;
  };
  const words = (n: number): string => Array.from({ length: n }, word).join(' ');
  const parts: string[] = [];
  if (random() < 0.3) parts.push('---\ntitle: Generated\nkeywords: [a, b]\n---');
  const headings = ['Overview', 'Details', 'Overview', 'Security & Privacy', 'The `open()` method'];
  for (let i = 0, n = 4 + Math.floor(random() * 10); i < n; i++) {
    switch (pick(['h', 'h', 'setext', 'p', 'p', 'list', 'code', 'table', 'quote', 'alert', 'html'] as const)) {
      case 'h':
        parts.push(`${'#'.repeat(1 + Math.floor(random() * 4))} ${pick(headings)}`);
        break;
      case 'setext':
        parts.push(`${pick(headings)}\n${pick(['===', '---'])}`);
        break;
      case 'p':
        parts.push(`${words(3)} *${word()}* \`${word()}\`\n[${word()}](https://example.test/x) ${words(2)}`);
        break;
      case 'list':
        parts.push(`- ${words(2)}\n- ${words(2)}\n  1. ${words(2)}\n  2. ${words(1)}\n- ${words(1)}`);
        break;
      case 'code':
        parts.push(`\`\`\`js\n${words(2)}\n  ${words(2)}\n\`\`\``);
        break;
      case 'table':
        parts.push(`| ${word()} | ${word()} |\n|---|---|\n| ${word()} | ${word()} |`);
        break;
      case 'quote':
        parts.push(`> ${words(3)}\n> ${words(2)}`);
        break;
      case 'alert':
        parts.push(`> [!${pick(['NOTE', 'WARNING', 'TIP'])}]\n> ${words(3)}`);
        break;
      case 'html':
        parts.push(`<details><summary>${word()}</summary>\n${words(2)} <span>${word()}</span>.\n</details>`);
        break;
    }
  }
  const source = `${parts.join('\n\n')}\n`;
  return { source: random() < 0.3 ? source.replace(/\n/g, '\r\n') : source, markers };
}

test('generated Markdown: no text lost or doubled, spans are the source lines, ids unique, output deterministic', async () => {
  for (let seed = 1; seed <= 150; seed++) {
    const { source, markers } = generate(seed);
    const doc = await extractBytes(source, `https://example.test/gen-${seed}.md`, 'text/markdown');
    assert.deepEqual(validateDocument(doc), { ok: true }, `seed ${seed}`);
    const texts = doc.blocks.map((b) => b.text);
    for (const marker of markers) {
      const holding = texts.filter((t) => new RegExp(`\\b${marker}\\b`).test(t)).length;
      assert.equal(holding, 1, `seed ${seed}: ${marker} is in ${holding} blocks\n${source}`);
    }
    const lineStarts = [0];
    for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
    for (const block of doc.blocks) {
      const span = block.span as { start: number; end: number; line: number; endLine: number };
      assert.equal(span.start, lineStarts[span.line - 1], `seed ${seed}: a span starts at its line`);
      const written = source.slice(span.start, span.end);
      for (const marker of block.text.match(/\bw\d+x\d+\b/g) ?? [])
        assert.ok(written.includes(marker), `seed ${seed}: the span of ${JSON.stringify(block.text)} holds ${marker}`);
    }
    const ids = doc.sections.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length, `seed ${seed}: section ids are unique`);
    const again = await extractBytes(source, `https://example.test/gen-${seed}.md`, 'text/markdown');
    assert.equal(canonicalJson(again), canonicalJson(doc), `seed ${seed}: deterministic`);
  }
});
