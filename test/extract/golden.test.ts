import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { validateDocument } from '../../src/extract/extract.js';
import { extractBytes, fixturesDir } from './helpers.js';

/**
 * Golden documents for fixtures written for this project: one per family and block kind. Each
 * golden file is the exact canonical document, pretty-printed. Regenerate deliberately with
 * EPISTEME_UPDATE_GOLDEN=1 and review the diff: a changed golden is a changed extraction.
 */
const CASES: { fixture: string; url: string; contentType: string }[] = [
  { fixture: 'whatwg-bikeshed.html', url: 'https://widget.spec.whatwg.org/', contentType: 'text/html' },
  { fixture: 'w3c-respec.html', url: 'https://www.w3.org/TR/gadget/', contentType: 'text/html; charset=utf-8' },
  { fixture: 'rfc-xml2rfc.html', url: 'https://www.rfc-editor.org/rfc/rfc9999.html', contentType: 'text/html' },
  { fixture: 'rfc-paginated.txt', url: 'https://www.rfc-editor.org/rfc/rfc9998.txt', contentType: 'text/plain' },
  { fixture: 'rfc-v2.xml', url: 'https://www.rfc-editor.org/rfc/rfc9997.xml', contentType: 'application/rfc+xml' },
  { fixture: 'rfc-pair-v3.html', url: 'https://www.rfc-editor.org/rfc/rfc9996.html', contentType: 'text/html' },
  { fixture: 'rfc-pair-v3.xml', url: 'https://www.rfc-editor.org/rfc/rfc9996.xml', contentType: 'application/rfc+xml' },
  { fixture: 'rfc-pair-rfc2629.html', url: 'https://httpwg.org/specs/rfc9995.html', contentType: 'text/html' },
  { fixture: 'rfc-pair-rfc2629.xml', url: 'https://httpwg.org/specs/rfc9995.xml', contentType: 'application/rfc+xml' },
  { fixture: 'unicode-uax.html', url: 'https://www.unicode.org/reports/tr99/', contentType: 'text/html' },
  { fixture: 'ietf-draft.txt', url: 'https://www.ietf.org/archive/id/draft-author-example-00.txt', contentType: 'text/plain' },
  { fixture: 'generic.xml', url: 'https://example.org/manual.xml', contentType: 'application/xml' },
  { fixture: 'tc39-ecmarkup.html', url: 'https://tc39.es/ecma262/', contentType: 'text/html' },
  { fixture: 'bikeshed-algorithms.html', url: 'https://streams.spec.whatwg.org/', contentType: 'text/html' },
  { fixture: 'w3c-normativity.html', url: 'https://www.w3.org/TR/gizmo/', contentType: 'text/html' },
  { fixture: 'explainer.md', url: 'https://github.com/example/gadget-sensors/blob/main/explainer.md', contentType: 'text/markdown' },
  {
    fixture: 'kramdown-rfc-draft.md',
    url: 'https://raw.githubusercontent.com/example/gadget/main/draft-example-gadget-transfer.md',
    contentType: 'text/plain; charset=utf-8',
  },
];

for (const c of CASES) {
  test(`golden: ${c.fixture}`, async () => {
    const body = new Uint8Array(readFileSync(path.join(fixturesDir, c.fixture)));
    const doc = await extractBytes(body, c.url, c.contentType);
    assert.deepEqual(validateDocument(doc), { ok: true });
    const actual = JSON.stringify(JSON.parse(canonicalJson(doc)), null, 1) + '\n';
    const goldenPath = path.join(fixturesDir, c.fixture + '.golden.json');
    if (process.env['EPISTEME_UPDATE_GOLDEN'] === '1' || !existsSync(goldenPath)) {
      if (process.env['EPISTEME_UPDATE_GOLDEN'] !== '1') assert.fail(`missing golden ${goldenPath}; run with EPISTEME_UPDATE_GOLDEN=1`);
      writeFileSync(goldenPath, actual);
    }
    assert.equal(actual, readFileSync(goldenPath, 'utf8'));
  });
}
