import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SKIP_CORPUS, extractBytes, extractCorpusFile, fixturesDir } from './helpers.js';

/**
 * RFC plain-text titles (issue 31): the title is the title lines of the first page, never the first
 * heading ("Abstract"), so citations read "<title> > <section>".
 */

const read = (name: string): Uint8Array => new Uint8Array(readFileSync(path.join(fixturesDir, '..', 'rfc-text', name)));

test('first-page titles: two centred lines, a title under the old "Status of this Memo" layout, a draft name dropped', async () => {
  const cases: [string, string, string][] = [
    [
      'rfc7301-front.txt',
      'https://www.rfc-editor.org/rfc/rfc7301.txt',
      'Transport Layer Security (TLS) Application-Layer Protocol Negotiation Extension',
    ],
    ['rfc2616-front.txt', 'https://www.rfc-editor.org/rfc/rfc2616.txt', 'Hypertext Transfer Protocol -- HTTP/1.1'],
    ['no-title.txt', 'https://www.rfc-editor.org/rfc/rfc9989.txt', 'RFC 9989'],
  ];
  for (const [file, url, title] of cases) {
    const doc = await extractBytes(read(file), url, 'text/plain');
    assert.equal(doc.title, title, file);
    assert.ok(!doc.blocks.some((b) => b.text.includes(title) && title !== 'RFC 9989'), `${file}: the title is not a block`);
  }
  const draft = await extractBytes(
    readFileSync(path.join(fixturesDir, 'ietf-draft.txt')),
    'https://www.ietf.org/archive/id/draft-author-example-00.txt',
    'text/plain',
  );
  assert.equal(draft.title, 'An Example Draft Protocol');
});

test('dev corpus RFC and draft text files are titled from their first page', { skip: SKIP_CORPUS }, async () => {
  const expected: Record<string, string> = {
    'rfc/rfc6635.txt': 'RFC Editor Model (Version 2)',
    'rfc/rfc6787.txt': 'Media Resource Control Protocol Version 2 (MRCPv2)',
    'rfc/draft-west-webappsec-csp-reg-04.txt': 'Initial Assignment for a Content Security Policy Directive Registry',
  };
  for (const [file, title] of Object.entries(expected)) {
    const doc = await extractCorpusFile(file);
    assert.equal(doc.title, title, file);
    assert.notEqual(doc.title, doc.sections[0]?.heading, `${file}: titled by its first heading`);
  }
});
