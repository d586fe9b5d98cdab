import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runStageTask, type StageTask } from '../../src/graph/stage-tasks.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../../src/extract/extract.js';
import { DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { fixturesDir, snapshotFor } from '../extract/helpers.js';

/**
 * A worker that extracted a document cuts the very same bytes from the object it still holds instead
 * of parsing them (stage-tasks.ts): the chunk file, its content hash and the index part must be the
 * bytes a worker that parses them gives, for every extractor's fixtures.
 */
const CASES: { fixture: string; url: string; contentType: string }[] = [
  { fixture: 'whatwg-bikeshed.html', url: 'https://widget.spec.whatwg.org/', contentType: 'text/html' },
  { fixture: 'bikeshed-algorithms.html', url: 'https://algo.spec.whatwg.org/', contentType: 'text/html' },
  { fixture: 'w3c-respec.html', url: 'https://www.w3.org/TR/gadget/', contentType: 'text/html; charset=utf-8' },
  { fixture: 'w3c-normativity.html', url: 'https://www.w3.org/TR/normativity/', contentType: 'text/html' },
  { fixture: 'tc39-ecmarkup.html', url: 'https://tc39.es/ecma262/', contentType: 'text/html' },
  { fixture: 'unicode-uax.html', url: 'https://www.unicode.org/reports/tr9/', contentType: 'text/html' },
  { fixture: 'rfc-xml2rfc.html', url: 'https://www.rfc-editor.org/rfc/rfc9999.html', contentType: 'text/html' },
  { fixture: 'rfc-pair-rfc2629.html', url: 'https://httpwg.org/specs/rfc9995.html', contentType: 'text/html' },
  { fixture: 'rfc-paginated.txt', url: 'https://www.rfc-editor.org/rfc/rfc9998.txt', contentType: 'text/plain' },
  { fixture: 'ietf-draft.txt', url: 'https://www.ietf.org/archive/id/draft-x-00.txt', contentType: 'text/plain' },
  { fixture: 'rfc-v2.xml', url: 'https://www.rfc-editor.org/rfc/rfc9997.xml', contentType: 'application/rfc+xml' },
  { fixture: 'rfc-pair-v3.xml', url: 'https://www.rfc-editor.org/rfc/rfc9996.xml', contentType: 'application/rfc+xml' },
  { fixture: 'generic.xml', url: 'https://example.org/generic.xml', contentType: 'application/xml' },
];

function extractTask(fixture: string, url: string, contentType: string): Extract<StageTask, { stage: 'extract' }> {
  const body = new Uint8Array(fs.readFileSync(path.join(fixturesDir, fixture)));
  const options = DEFAULT_EXTRACT_OPTIONS;
  return {
    stage: 'extract',
    input: { documentId: 'doc-test', source: { url }, snapshot: snapshotFor(url, contentType, body), body, options },
  };
}

test('a chunk task on the bytes this worker just extracted equals one that parses them', async () => {
  const other = await runStageTask(extractTask('whatwg-bikeshed.html', 'https://widget.spec.whatwg.org/', 'text/html'));
  for (const { fixture, url, contentType } of CASES) {
    const extracted = await runStageTask(extractTask(fixture, url, contentType));
    const chunkTask = {
      stage: 'chunk',
      documentId: 'doc-test',
      documentBytes: new Uint8Array(Buffer.from(extracted.bytes, 'utf8')),
      options: DEFAULT_CHUNK_OPTIONS,
    } as const;
    const handedOver = await runStageTask(chunkTask); // right after its extraction: the object is taken
    const parsed = await runStageTask(chunkTask); // nothing held any more: parsed
    assert.equal(handedOver.bytes, parsed.bytes, fixture);
    assert.equal(handedOver.chunksContentHash, parsed.chunksContentHash, fixture);
    assert.equal(handedOver.part, parsed.part, fixture);
    assert.ok(JSON.parse(parsed.bytes).payload.chunks.length > 0, `${fixture} has chunks`);
  }
  // Bytes other than the ones held are parsed: the held document is never used for them.
  await runStageTask(extractTask('w3c-respec.html', 'https://www.w3.org/TR/gadget/', 'text/html'));
  const chunkOther = {
    stage: 'chunk',
    documentId: 'doc-test',
    documentBytes: Buffer.from(other.bytes),
    options: DEFAULT_CHUNK_OPTIONS,
  } as const;
  const fromOther = await runStageTask(chunkOther);
  assert.equal(fromOther.bytes, (await runStageTask(chunkOther)).bytes);
  assert.match(fromOther.bytes, /widget\.spec\.whatwg\.org/);
});
