import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A `<title>` is the document's title, never a block: with an explicit `<head>`, with none (the
 * tree builder implies no head, so the title sat among the body's content and became a paragraph
 * "Doc Title"), and written in the body.
 */
test('a <title> outside an explicit <head> titles the document and is no block', async () => {
  const withHead = await extractBytes(
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8">\n<title>Doc Title</title></head>\n<body><h1>A</h1><p>x</p></body></html>',
    'https://example.org/a',
    'text/html',
  );
  for (const source of [
    '<!DOCTYPE html>\n<meta charset="utf-8">\n<title>Doc Title</title>\n<h1>A</h1><p>x</p>',
    '<!DOCTYPE html>\n<h1>A</h1><title>Doc Title</title><p>x</p>',
  ]) {
    const doc = await extractBytes(source, 'https://example.org/a', 'text/html');
    assert.equal(doc.title, 'Doc Title');
    assert.deepEqual(
      doc.blocks.map((b) => [b.id, b.text]),
      [['~s1~b1', 'x']],
      source,
    );
    assert.deepEqual(
      doc.blocks.map((b) => [b.id, b.text]),
      withHead.blocks.map((b) => [b.id, b.text]),
    );
  }
});
