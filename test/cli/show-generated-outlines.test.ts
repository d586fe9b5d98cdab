import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';
import { seededRandom } from '../helpers/random.js';

/**
 * `show URL#id` over generated outlines: sections at levels 2 to 4, with or without an id, with 0 to 13
 * paragraphs (more than ten in some, where chunk-id order differs from document order) and now and
 * then a paragraph long enough to be cut into several chunks. For every id, show prints, in document
 * order, the section's own paragraphs and those of the subsections that cite it: the subsections
 * without an id, with none between them and the section (a block takes its nearest enclosing
 * fragment). A section with an id but no paragraph of its own is named by its subsections alone.
 * Some ids have the shapes of the ids Episteme makes up (`~s3`, `~front`).
 */
interface Section {
  level: number;
  id: string | null;
  paragraphs: string[];
  /** The nearest section at or above this one that has an id (this one when it has one). */
  citedAs: string | null;
}

interface ShownBlock {
  text: string;
  subsection?: { sectionId: string | null; headingPath: string[] };
}

function outline(seed: number): Section[] {
  const next = seededRandom(seed);
  const sections: Section[] = [];
  const open: Section[] = [];
  const used = new Set<string>();
  let level = 2;
  for (let i = 0; i < 30; i++) {
    level = Math.max(2, Math.min(4, level + (next() < 0.4 ? 1 : next() < 0.5 ? -1 : 0)));
    if (sections.length === 0) level = 2;
    else level = Math.min(level, sections.at(-1)!.level + 1);
    while (open.length > 0 && open.at(-1)!.level >= level) open.pop();
    const id = next() < 0.5 ? idFor(seed, i, next, used) : null;
    if (id !== null) used.add(id);
    const count = next() < 0.25 ? 11 + Math.floor(next() * 3) : Math.floor(next() * 4);
    const paragraphs = Array.from({ length: count }, (_, k) => {
      const words = next() < 0.08 ? 320 : 6 + Math.floor(next() * 30);
      return `Paragraph ${i}.${k} ${Array.from({ length: words }, (_, w) => `w${(w * 7 + i + k) % 97}`).join(' ')}.`;
    });
    const citedAs = id ?? [...open].reverse().find((s) => s.id !== null)?.id ?? null;
    const section: Section = { level, id, paragraphs, citedAs };
    sections.push(section);
    open.push(section);
  }
  return sections;
}

/**
 * A section's id: now and then one shaped like those Episteme makes up for sections without an id
 * (`~s<n>`, low numbers, which earlier sections without an id already had before ids were settled) or
 * for front matter's blocks (`~front`), which the source may use too: `show` must open the source's own.
 */
function idFor(seed: number, i: number, next: () => number, used: ReadonlySet<string>): string {
  const plain = `s${seed}-${i}`;
  if (i < 6 || next() >= 0.4) return plain;
  const madeUp = next() < 0.75 ? `~s${1 + (i % 3)}` : '~front';
  return used.has(madeUp) ? plain : madeUp;
}

function html(sections: Section[]): string {
  const body = sections
    .map(
      (s, i) =>
        `<h${s.level}${s.id === null ? '' : ` id="${s.id}"`}>Heading ${i}</h${s.level}>${s.paragraphs.map((p) => `<p>${p}</p>`).join('')}`,
    )
    .join('\n');
  return `<!DOCTYPE html><html><head><title>Outline</title></head><body><h1>Outline</h1>\n${body}\n</body></html>\n`;
}

test('show URL#id prints a section and the subsections that cite it, in document order, over generated outlines', async () => {
  for (const seed of [3, 17, 2026]) {
    const rig = new Rig();
    try {
      const sections = outline(seed);
      rig.write({
        'src/outline.html': html(sections),
        'map.json': JSON.stringify([
          { sourceUrl: 'https://example.test/outline', localPath: 'src/outline.html', contentType: 'text/html' },
        ]),
        'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
      });
      assert.equal((await rig.exec(['build'])).code, 0);
      // The URL alone: the first paragraph in reading order (ids such as s3-10 sort before s3-2).
      const first = await rig.exec(['show', 'https://example.test/outline', '--json']);
      assert.equal(first.code, 0, first.stderr);
      const opening = (first.json!.data as { blocks: ShownBlock[] }).blocks[0]!.text;
      assert.ok(opening.startsWith(sections.flatMap((s) => s.paragraphs)[0]!), `seed ${seed}: ${opening.slice(0, 60)}`);
      for (const section of sections) {
        if (section.id === null) continue;
        const expected = sections.filter((s) => s.citedAs === section.id).flatMap((s) => s.paragraphs);
        const answer = await rig.exec(['show', `https://example.test/outline#${section.id}`, '--max-chars', '1000000', '--json']);
        if (expected.length === 0) {
          assert.equal(answer.code, 2, `seed ${seed}, #${section.id}: nothing cites it`);
          continue;
        }
        assert.equal(answer.code, 0, answer.stdout + answer.stderr);
        const data = answer.json!.data as { citation: { headingPath: string[] }; blocks: ShownBlock[] };
        const text = data.blocks.map((b) => b.text).join(' ');
        assert.equal(text.replace(/\s+/g, ' '), expected.join(' '), `seed ${seed}, #${section.id}`);
        // Each block names the heading it stands under: the cited section's, or its subsection's.
        for (const block of data.blocks) {
          const numbers = new Set([...block.text.matchAll(/Paragraph (\d+)\./g)].map((m) => m[1]));
          const heading = (block.subsection?.headingPath ?? data.citation.headingPath).at(-1);
          assert.deepEqual(
            [...numbers].map((i) => `Heading ${i}`),
            [heading],
            `seed ${seed}, #${section.id}: ${block.text.slice(0, 40)}`,
          );
        }
      }
    } finally {
      rig.cleanup();
    }
  }
});

/**
 * `show URL` and `show documentId` name the document's first section, in reading order: the index holds
 * chunks in chunk-id order, where a section named `cookie-objects` sorts before `module-cookies`, the
 * first on the page.
 */
test('show with a URL or document id alone prints the first section in reading order, not in id order', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/cookies.html': `<!DOCTYPE html><html><head><title>cookies</title></head><body>
<section id="module-cookies"><h1>cookies: HTTP state</h1><p>The module reads and writes cookie headers.</p>
<section id="cookie-objects"><h2>Cookie objects</h2><p>A cookie object maps names to morsels.</p></section>
<section id="example"><h2>Example</h2><p>An example of a session.</p></section>
</section></body></html>`,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://docs.example.org/cookies.html', localPath: 'src/cookies.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    for (const citation of ['https://docs.example.org/cookies.html', 'docs-example-org-cookies-html']) {
      const shown = await rig.exec(['show', citation, '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      const data = shown.json!.data as { citation: { fragment: string }; blocks: { text: string }[] };
      assert.equal(data.citation.fragment, 'module-cookies', citation);
      assert.equal(data.blocks[0]!.text, 'The module reads and writes cookie headers.');
    }
  } finally {
    rig.cleanup();
  }
});
