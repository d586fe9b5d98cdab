import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Block, Chunk } from '../../src/document/types.js';
import { Sandbox } from '../hostile/harness.js';
import { extractBytes, fixturesDir, snapshotFor } from './helpers.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../../src/extract/extract.js';
import { type LoadedFamily, loadFamilies } from '../../src/extract/families.js';

/**
 * Algorithms: emu-alg, div.algorithm and an <ol> introduced as steps become `algorithm` blocks with
 * numbered, nested steps (path, own text, id, variables, links), never one run-on paragraph; chunks of
 * a long algorithm cite the steps they cover, and the step paths are searchable.
 */

interface Step {
  path: string;
  text: string;
  id?: string;
  variables?: string[];
  links?: { text: string; href: string }[];
  steps?: Step[];
}

async function blocksOf(body: string, url = 'https://example.spec.whatwg.org/'): Promise<Block[]> {
  const doc = await extractBytes(`<!doctype html><head><title>t</title></head><body><h2 id="s">S</h2>${body}`, url, 'text/html');
  return doc.blocks;
}

function flatten(steps: Step[]): Step[] {
  return steps.flatMap((s) => [s, ...flatten(s.steps ?? [])]);
}

test('the three algorithm forms give the same steps', async () => {
  const steps =
    '<li>Let <var>x</var> be <a href="#zero">zero</a>.' +
    '<li id="step-loop">While <var>x</var> &lt; 3:<ol><li>Increment <var>x</var>.</ol><li>Return <var>x</var>.';
  const forms = {
    'emu-alg': `<emu-alg><ol>${steps}</ol></emu-alg>`,
    'div.algorithm': `<div class="algorithm"><ol>${steps}</ol></div>`,
    'ol after an introduction': `<p>To count, run these steps:</p><ol>${steps}</ol>`,
    'ol after "algorithm steps are:"': `<p>The count algorithm steps are:</p>\n<ol>${steps}</ol>`,
  };
  for (const [form, html] of Object.entries(forms)) {
    const algorithms = (await blocksOf(html)).filter((b) => b.kind === 'algorithm');
    assert.equal(algorithms.length, 1, form);
    const alg = algorithms[0]!;
    assert.equal(alg.text, '1. Let x be zero.\n2. While x < 3:\n  2.1. Increment x.\n3. Return x.', form);
    const flat = flatten(alg['steps'] as Step[]);
    assert.deepEqual(
      flat.map((s) => [s.path, s.text, s.id ?? null, s.variables ?? []]),
      [
        ['1', 'Let x be zero.', null, ['x']],
        ['2', 'While x < 3:', 'step-loop', ['x']],
        ['2.1', 'Increment x.', null, ['x']],
        ['3', 'Return x.', null, ['x']],
      ],
      form,
    );
    assert.deepEqual(flat[0]!.links, [{ text: 'zero', href: 'https://example.spec.whatwg.org/#zero' }], form);
    assert.deepEqual(alg['links'], flat[0]!.links, `${form}: the block keeps its links too`);
  }
});

test('an <ol> without an introduction is a list; steps inside a note stay the note', async () => {
  const blocks = await blocksOf('<p>The values are:</p><ol><li>a<li>b</ol><div class="note"><p>Run these steps:</p><ol><li>x</ol></div>');
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ['paragraph', 'list', 'note'],
  );
});

test('steps and lists a paragraph defines cite the definition, not the section; an id of their own or nearer still wins', async () => {
  const blocks = await blocksOf(
    '<p>To <dfn id="forgiving-decode">forgiving decode</dfn> a string <var>s</var>, run these steps:</p>' +
      '<ol><li>Remove whitespace from <var>s</var>.<li>Return failure when its length is odd.</ol>' +
      // Not steps by the family's introductions, but led into by the definition: a list of its rules.
      '<p>Execute the following <dfn id="rules-for-text">rules for text</dfn>:</p><ol><li>Look at the first bytes.</ol>' +
      '<p>A <a href="#x" id="ref-for-x">linked term</a> and no definition, run these steps:</p><ol><li>Skip.</ol>' +
      '<p>To <dfn id="own">own</dfn>, run these steps:</p><ol id="own-steps"><li>Keep your id.</ol>' +
      '<div id="wrapper"><p>To <dfn id="wrapped">wrap</dfn>, run these steps:</p><ol><li>Stay in the wrapper.</ol></div>' +
      '<p>To <dfn id="noted">note</dfn> things, see below.</p><ol><li>Not led into.</ol>',
  );
  const fragmentOf = (start: string): [string, string | null] => {
    const block = blocks.find((b) => b.text.startsWith(start))!;
    return [block.kind, block.fragment];
  };
  assert.deepEqual(fragmentOf('1. Remove whitespace'), ['algorithm', 'forgiving-decode']);
  assert.deepEqual(fragmentOf('1. Look at'), ['list', 'rules-for-text']);
  assert.deepEqual(fragmentOf('1. Skip'), ['algorithm', 's'], 'a back-reference defines nothing: the section');
  assert.deepEqual(fragmentOf('1. Keep your id'), ['algorithm', 'own-steps']);
  assert.deepEqual(fragmentOf('1. Stay in'), ['algorithm', 'wrapper']);
  assert.deepEqual(fragmentOf('1. Not led'), ['list', 's'], 'a paragraph that does not end in a colon leads into nothing');
});

test('a family introduction that does not end in a colon still makes the <ol> after it steps', async () => {
  // A workspace family's algorithmIntroductions are any endings (rules.schema.json): "as follows." is one.
  const generic = loadFamilies().find((family) => family.rules.id === 'generic')!;
  const html = generic.rules.html!;
  const acme: LoadedFamily = {
    rules: {
      ...generic.rules,
      id: 'acme',
      match: { hosts: ['docs.acme.test'], hostSuffixes: [] },
      html: { ...html, algorithmIntroductions: ['the steps are as follows.', 'run these steps:'] },
    },
    file: 'acme.json',
    workspaceFile: 'my-rules/acme.json',
  };
  const url = 'https://docs.acme.test/spin';
  const bytes = new TextEncoder().encode(
    '<!doctype html><title>t</title><h2 id="s">S</h2><p>To spin, the steps are as follows.</p><ol><li>Grease the axle.<li>Turn it.</ol>' +
      '<p>To stop, run these steps:</p><ol><li>Brake.</ol>',
  );
  const doc = await extractDocument({
    documentId: 'doc-test',
    source: { url },
    snapshot: snapshotFor(url, 'text/html', bytes),
    body: bytes,
    options: DEFAULT_EXTRACT_OPTIONS,
    families: [acme],
  });
  assert.equal(doc.family, 'acme');
  assert.deepEqual(
    doc.blocks.filter((b) => b.kind !== 'paragraph').map((b) => [b.kind, b.text]),
    [
      ['algorithm', '1. Grease the axle.\n2. Turn it.'],
      ['algorithm', '1. Brake.'],
    ],
  );
});

test('WHATWG-style steps with omitted </p> and </li> stay siblings, with numbering from start=', async () => {
  const [, alg] = await blocksOf(
    '<p>To go, run these steps:</p><ol><li><p>One.<li><p>Two:<ol start="3"><li><p>Three.<li><p>Four.</ol><li><p>Five.</ol>',
  );
  assert.equal(alg!.kind, 'algorithm');
  assert.deepEqual(
    flatten(alg!['steps'] as Step[]).map((s) => `${s.path} ${s.text}`),
    ['1 One.', '2 Two:', '2.3 Three.', '2.4 Four.', '3 Five.'],
  );
});

test('a long algorithm is chunked with step paths in its text and each chunk citing its steps', async () => {
  const box = new Sandbox();
  try {
    const items = Array.from(
      { length: 60 },
      (_, i) =>
        `<li id="step-${i + 1}">Let <var>v${i + 1}</var> be the result of frobnicating the widget number ${i + 1} with the sprocket.` +
        `<ol><li>Assert: <var>v${i + 1}</var> is a sprocket-compatible value.</ol>`,
    ).join('');
    box.write({
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: 600, overlapChars: 100 } } }),
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.org/spec/', localPath: 'spec.html', contentType: 'text/html' }]),
      'spec.html': `<!doctype html><title>Spec</title><h2 id="algo">Algorithm</h2><p>To frobnicate, run these steps:</p><ol>${items}</ol>`,
    });
    const built = await box.run(['pipeline', '--json']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const chunkDir = path.join(box.ws, 'chunks');
    const file = readdirSync(chunkDir).find((f) => f.endsWith('.json') && f !== 'index.json' && f !== 'search-index.json');
    assert.ok(file, 'a chunk file was written');
    const parsed = JSON.parse(readFileSync(path.join(chunkDir, file), 'utf8')) as { payload?: { chunks?: Chunk[] } } & { chunks?: Chunk[] };
    const chunks = (parsed.payload?.chunks ?? parsed.chunks ?? (parsed as unknown as { payload: Chunk[] }).payload) as Chunk[];
    const algorithmChunks = chunks.filter((c) => c.citation.steps !== undefined);
    assert.ok(algorithmChunks.length >= 5, `the algorithm is cut into pieces (${algorithmChunks.length})`);
    for (const chunk of algorithmChunks) {
      const { first, last } = chunk.citation.steps!;
      // The chunk text shows the last step it cites on its own line, and starts inside or at its first.
      assert.match(chunk.text, new RegExp(`(^|\\n) *${last.replace(/\./g, '\\.')}\\. `), `${chunk.chunkId} shows step ${last}`);
      const firstLine = /(?:^|\n) *(\d+(?:\.\d+)*)\. /.exec(chunk.text)?.[1];
      if (chunk.text.startsWith(`${first}. `) || firstLine === undefined) continue;
      assert.ok(
        firstLine === first || chunk.text.indexOf(`${first}. `) === -1,
        `${chunk.chunkId}: first cited step ${first} precedes its first full step ${firstLine}`,
      );
    }
    const cited = algorithmChunks.map((c) => c.citation.steps!);
    assert.equal(cited[0]!.first, '1');
    assert.equal(cited[cited.length - 1]!.last, '60.1', 'the last chunk reaches the last step');

    const hit = await box.run(['query', '--index', 'chunks/search-index.json', '--term', 'widget number 42', '--json']);
    assert.equal(hit.code, 0, hit.stderr);
    assert.match(
      hit.stdout,
      /42\. Let v42 be the result of frobnicating the widget number 42/,
      'the step and its path are found by search',
    );
  } finally {
    box.cleanup();
  }
});

/** Every step with its path, text, id, variables and links: what "the same steps" compares. */
function stepFacts(steps: Step[]): unknown[] {
  return flatten(steps).map((s) => ({ path: s.path, text: s.text, id: s.id ?? null, variables: s.variables ?? [], links: s.links ?? [] }));
}

test('an <emu-alg> of ecmarkdown source gives the steps of its rendered <ol> form (ToPrimitive)', async () => {
  const dir = path.join(fixturesDir, '..', 'ecmarkdown');
  const url = 'https://tc39.es/ecma262/';
  const forms = await Promise.all(
    ['toprimitive.source.html', 'toprimitive.rendered.html'].map(async (file) => {
      const doc = await extractBytes(readFileSync(path.join(dir, file)), url, 'text/html');
      const algorithms = doc.blocks.filter((b) => b.kind === 'algorithm');
      assert.equal(algorithms.length, 1, file);
      return algorithms[0]!;
    }),
  );
  const [source, rendered] = forms as [Block, Block];
  const steps = stepFacts(source['steps'] as Step[]);
  assert.equal(steps.length, 16, 'every source line is a step');
  assert.deepEqual(steps, stepFacts(rendered['steps'] as Step[]));
  assert.equal(source.text, rendered.text);
  assert.deepEqual(source['links'], rendered['links']);
  const exotic = flatten(source['steps'] as Step[]).find((s) => s.id === 'step-toprimitive-exotic');
  assert.equal(exotic?.path, '1.2');
  assert.equal(exotic?.text, 'If exoticToPrim is not undefined, then');
  assert.deepEqual(exotic?.variables, ['exoticToPrim']);
  assert.match(source.text, /^ {6}1\.2\.1\.1\. Let hint be "default"\.$/m);
});

test('ecmarkdown source: bullets, continuation lines, start numbers, escapes and inline formats', async () => {
  const src = [
    '<emu-alg>',
    '  3. Let _list_ be a new empty List.',
    '  4. For each element _e_ of |ArgumentList|, do',
    '    * Append _e_ to _list_,',
    '      then continue with the next element.',
    '    * Call `f` on \\_not\\_a\\_var and 5 * 3.',
    '  5. Return ~unused~.',
    '</emu-alg>',
  ].join('\n');
  const [alg] = (await blocksOf(src, 'https://tc39.es/proposal-x/')).filter((b) => b.kind === 'algorithm');
  assert.ok(alg, 'an algorithm block');
  assert.deepEqual(
    flatten(alg['steps'] as Step[]).map((s) => [s.path, s.text, s.variables ?? []]),
    [
      ['3', 'Let list be a new empty List.', ['list']],
      ['4', 'For each element e of ArgumentList, do', ['e']],
      ['4.1', 'Append e to list, then continue with the next element.', ['e', 'list']],
      ['4.2', 'Call f on _not_a_var and 5 * 3.', []],
      ['5', 'Return unused.', []],
    ],
  );
});

test('an <emu-alg> of prose without step markers stays one algorithm block of text, without steps', async () => {
  const [alg] = (await blocksOf('<emu-alg>Return the result of evaluating _x_.</emu-alg>', 'https://tc39.es/x/')).filter(
    (b) => b.kind === 'algorithm',
  );
  assert.equal(alg?.text, 'Return the result of evaluating _x_.');
  assert.equal(alg?.['steps'], undefined);
});
