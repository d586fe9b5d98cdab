import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, Rig, writeSmallWorkspace, assertNoStackTrace } from '../helpers/rig.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../../src/rule-versions.js';
import { loadSearchIndex } from '../../src/index/index-reader.js';
import { runQuery } from '../../src/query/query.js';
import { MAX_SELECTOR_NESTING, MAX_SELECTORS_PER_LIST } from '../../src/extract/html/selector-check.js';

/**
 * Three readers that trusted their input: a workspace's family rules (selectors compiled only when a
 * document was extracted, so a bad one failed every document with internal-error), `diff` (an index
 * entry could name a file outside the corpus folder), and query terms of any depth through the library
 * API. Each case ends in a named error naming what is wrong, or an answer, never internal-error.
 */

describe('family rules, diff and query terms from outside', () => {
  const rigs: Rig[] = [];
  const rig = (): Rig => {
    const made = new Rig('episteme-bounds-');
    writeSmallWorkspace(made, 3);
    rigs.push(made);
    return made;
  };
  after(() => {
    for (const r of rigs) r.cleanup();
  });

  it('a family rule that does not parse, nests too deep or lists too many selectors: config-invalid naming file and rule', async () => {
    const generic = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'rules/generic.json'), 'utf8')) as {
      html: Record<string, unknown>;
    } & Record<string, unknown>;
    const cases: [string, string, string[]][] = [
      ['a selector that does not parse', 'pruneSelectors', ['nav', 'div[']],
      [
        'a selector nested too deep',
        'sectionSelectors',
        [`${':not('.repeat(MAX_SELECTOR_NESTING + 1)}p${')'.repeat(MAX_SELECTOR_NESTING + 1)}`],
      ],
      ['a list past its bound', 'noteSelectors', Array.from({ length: MAX_SELECTORS_PER_LIST + 1 }, (_, i) => `.note-${i}`)],
      ['a pseudo-class css-select does not know', 'algorithmSelectors', ['p:frobnicate']],
    ];
    for (const [label, field, selectors] of cases) {
      const r = rig();
      const rules = { ...generic, id: 'acme', description: 'Acme', match: { hosts: ['example.test'], hostSuffixes: [] } };
      rules.html = { ...generic.html, [field]: selectors };
      r.write({
        'my-rules/acme.json': JSON.stringify(rules),
        'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'my-rules' }),
      });
      const result = await r.exec(['build', '--json']);
      assertNoStackTrace(result);
      assert.equal(result.json!.error?.code, 'config-invalid', `${label}: ${result.stdout}`);
      assert.match(result.json!.error!.message, /my-rules\/acme\.json/, label);
      assert.match(result.json!.error!.message, new RegExp(`html\\.${field}`), label);
      assert.equal(fs.existsSync(r.path('specs')), false, `${label}: nothing was extracted`);
    }
  });

  it('diff refuses an index entry naming a file outside its corpus, the same whether or not that file exists', async () => {
    const r = rig();
    assert.equal((await r.exec(['build', '--json'])).code, 0);
    fs.cpSync(r.path('specs'), r.path('before'), { recursive: true });
    fs.writeFileSync(r.path('secret.json'), '{"not":"a document"}');
    const answers: string[] = [];
    for (const name of ['../secret.json', '../no-such-file.json', 'sub/../../secret.json', `/${r.path('secret.json')}`]) {
      const index = JSON.parse(r.read('before/index.json')) as { payload: { entries: { file: string }[] } };
      index.payload.entries[0]!.file = name;
      fs.writeFileSync(
        r.path('before/index.json'),
        artifactBytes(makeArtifact('document-index', STAGE_INDEX_FORMAT_VERSION, index.payload)),
      );
      const result = await r.exec(['diff', '--before', 'before', '--after', 'specs', '--json']);
      assertNoStackTrace(result);
      assert.equal(result.json!.error?.code, 'artifact-invalid', `${name}: ${result.stdout}`);
      assert.match(result.json!.error!.message, /names a file outside its folder/, name);
      answers.push(JSON.stringify(result.json!.error));
    }
    assert.equal(new Set(answers).size, 1, `the refusals differ:\n${answers.join('\n')}`);
  });

  it('a query term of 100,000 words through the library API answers without overflowing the stack', async () => {
    const r = rig();
    assert.equal((await r.exec(['build', '--json'])).code, 0);
    const index = loadSearchIndex(fs.readFileSync(r.path('chunks/search-index.json')), 'search index', () => {
      throw new Error('not segmented');
    });
    const words = Array.from({ length: 100_000 }, (_, i) => ['zebra1', 'alpha', 'paragraph', `w${i}`][i % 4]).join(' ');
    for (const term of [words, `"${words}"`]) {
      for (const options of [{}, { explain: true }, { expand: true }]) {
        const response = runQuery(index, { terms: [term], limit: 10, offset: 0, maxSnippetChars: 200, maxTotalChars: 2000, ...options });
        assert.ok(response.total >= 0);
      }
    }
  });
});
