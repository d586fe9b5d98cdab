import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compile } from 'css-select';
import { type AnyNode, type Element, isTag } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { compileRules, subjectGate, subjectRequirements } from '../../src/extract/html/compiled-rules.js';
import { compileSelector } from '../../src/extract/html/selector-compile.js';
import { loadFamilies } from '../../src/extract/families.js';
import { REPO_ROOT, sharedDir } from '../helpers/rig.js';

/**
 * The compiled rules refuse an element by its type and attributes before running a selector. That
 * must never change a match: every family's every selector list, on every element of the HTML
 * fixtures (and of the dev corpus's specs when ../shared is there), answers as css-select does alone.
 */
function elements(node: AnyNode, out: Element[] = []): Element[] {
  if (isTag(node)) out.push(node);
  if ('children' in node) for (const child of node.children) elements(child as AnyNode, out);
  return out;
}

function htmlFiles(): string[] {
  const fixtures = path.join(REPO_ROOT, 'test', 'fixtures', 'extract');
  const files = fs
    .readdirSync(fixtures)
    .filter((name) => name.endsWith('.html'))
    .map((name) => path.join(fixtures, name));
  const shared = sharedDir();
  if (shared !== null) {
    for (const folder of ['w3c', 'whatwg']) {
      const dir = path.join(shared, 'corpus', 'dev', folder);
      if (fs.existsSync(dir))
        files.push(
          ...fs
            .readdirSync(dir)
            .filter((n) => n.endsWith('.html'))
            .map((n) => path.join(dir, n))
            .slice(0, 2),
        );
    }
  }
  return files;
}

test('the prefilter of compiled rules never changes what a selector list matches', () => {
  const families = loadFamilies();
  const docs = htmlFiles().map((file) => elements(parseDocument(fs.readFileSync(file, 'utf8'))));
  let checked = 0;
  for (const { rules } of families) {
    const compiled = compileRules(rules.html) as unknown as Record<string, unknown>;
    for (const [key, selectors] of Object.entries(rules.html)) {
      if (!key.endsWith('Selectors') || !Array.isArray(selectors) || selectors.length === 0) continue;
      const matcher = compiled[key.replace(/Selectors$/, '')];
      if (typeof matcher !== 'function') continue;
      const plain = compile<AnyNode, Element>((selectors as string[]).join(', '));
      for (const els of docs)
        for (const el of els) {
          assert.equal((matcher as (e: Element) => boolean)(el), plain(el), `${rules.id} ${key} on <${el.name}>`);
          checked++;
        }
    }
  }
  assert.ok(checked > 10_000, `checked ${checked} element/list pairs`);
});

test('subject requirements: type, id, class or attribute of the last compound; null when unsure', () => {
  assert.deepEqual(subjectRequirements(['em.rfc2119', 'div.head > dl', 'h1 + table.simple']), {
    types: new Set(['em', 'dl', 'table']),
    attributes: [],
  });
  assert.deepEqual(subjectRequirements(['#toc > ol', '.secno', '[data-algorithm]', 'ul li:first-child']), {
    types: new Set(['ol', 'li']),
    attributes: ['class', 'data-algorithm'],
  });
  assert.deepEqual(subjectRequirements(['#menu']), { types: new Set(), attributes: ['id'] });
  assert.equal(subjectRequirements(['*']), null);
  assert.equal(subjectRequirements([':is(h2, h3)']), null);
  assert.equal(subjectRequirements(['a[href^="#"]']), null);
  assert.equal(subjectRequirements(['p, li']), null);
  assert.deepEqual(subjectRequirements(['body > emu-annex:not([normative])']), { types: new Set(['emu-annex']), attributes: [] });
});

test('subject gate: the type, class names, ids and attributes of the last compound; null when unsure', () => {
  assert.deepEqual(subjectGate('div.head > p.copyright'), { type: 'p', classes: ['copyright'], ids: [], attributes: [] });
  assert.deepEqual(subjectGate('.sourcecode.lang-abnf'), { classes: ['sourcecode', 'lang-abnf'], ids: [], attributes: [] });
  assert.deepEqual(subjectGate('dl#identifiers'), { type: 'dl', classes: [], ids: ['identifiers'], attributes: [] });
  assert.deepEqual(subjectGate('a[name][href]'), { type: 'a', classes: [], ids: [], attributes: ['name', 'href'] });
  assert.deepEqual(subjectGate('[aria-hidden=true]'), { classes: [], ids: [], attributes: ['aria-hidden'] });
  assert.deepEqual(subjectGate('bdi.secno+a'), { type: 'a', classes: [], ids: [], attributes: [] });
  assert.deepEqual(subjectGate('#spec-container > emu-annex:not([normative])'), {
    type: 'emu-annex',
    classes: [],
    ids: [],
    attributes: [],
  });
  assert.equal(subjectGate('*'), null);
  assert.equal(subjectGate(':is(h2, h3)'), null);
  assert.equal(subjectGate('a[href^="#"]'), null);
  assert.equal(subjectGate('*.note'), null);
});

test('compileSelector answers `:has()` as css-select does, on every element', () => {
  // Its own search for `:has(> a > b)` and `:has(x)` (selector-compile.ts): same answers, linear time.
  const html =
    '<div class="manual-text"><p><font><a href="/texi2html/">t</a></font></p><span class="Nd">n</span>' +
    '<dl class="Bl-tag"><dt></dt><dd>x</dd></dl><dl class="Bl-tag"><dt>a</dt></dl>' +
    '<dl class="variablelist"><dt><a name="n">n</a> x</dt><dt>x <a name="m">m</a></dt></dl></div>' +
    '<div class="manual-text"><div class="Bd-indent"><template><span class="Nd">t</span></template></div>' +
    '<pre><code class="idl">i</code></pre><pre><span><code class="idl">j</code></span></pre>' +
    '<table><tr><td><a title="Cover (top) of document">c</a></td></tr></table><a><span class="viewcode-link">v</span></a>' +
    '<div class="status"><p class="support">s</p><div class="status"><div><p class="support">s</p></div></div></div>' +
    '<template><p><b>x</b></p></template></div>';
  const selectors = [
    'table:has(a[title="Cover (top) of document"])',
    'p:has(> font > a[href$="/texi2html/"])',
    'dl.variablelist > dt:has(> a[name]:first-child)',
    'div.manual-text:not(:has(.Nd)) div.Bd-indent',
    'div.manual-text:not(:has(.Nd)) dl.Bl-tag:not(:has(> dt:not(:empty)))',
    'a:has(> .viewcode-link)',
    'div.status:has(> p.support)',
    'pre:has(> code.idl)',
    'div:has(> p > b, .Nd)',
    'template:has(> p > b)',
    'div:has(> template > p)',
    'div:has(template p)',
    'div:has(> div + pre)',
    'div:has(:has(> p.support))',
    ':has(.Nd):has(> div)',
  ];
  const all = elements(parseDocument(html));
  for (const selector of selectors) {
    const ours = compileSelector(selector);
    const theirs = compile<AnyNode, Element>(selector);
    const differ = all.filter((el) => ours(el) !== theirs(el)).map((el) => `<${el.name} ${JSON.stringify(el.attribs)}>`);
    assert.deepEqual(differ, [], selector);
  }
});
