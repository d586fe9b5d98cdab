import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { binarySignature } from '../../src/extract/signatures.js';
import { REPO_ROOT, sharedDir } from '../helpers/rig.js';
import { seededRandom } from '../helpers/random.js';

/**
 * The signature check that warns content-type-mismatch: every binary format's prefix is found
 * whatever follows it, and no real text document (the extraction fixtures, the dev corpus's HTML,
 * text and XML) is taken for one.
 */
const PREFIXES: [string, number[]][] = [
  ['application/pdf', [...'%PDF-'].map((c) => c.charCodeAt(0))],
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/gif', [...'GIF89a'].map((c) => c.charCodeAt(0))],
  ['image/gif', [...'GIF87a'].map((c) => c.charCodeAt(0))],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/x-gzip', [0x1f, 0x8b, 0x08]],
];

test('each binary signature is found whatever follows it, and a prefix cut short is not', () => {
  const random = seededRandom(31);
  for (const [contentType, prefix] of PREFIXES) {
    for (let trial = 0; trial < 50; trial++) {
      const tail = Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256));
      assert.equal(binarySignature(Uint8Array.from([...prefix, ...tail]))?.contentType, contentType);
    }
    assert.equal(binarySignature(Uint8Array.from(prefix.slice(0, -1))), null, `${contentType}: a prefix cut short`);
    assert.equal(binarySignature(Uint8Array.from([0x20, ...prefix])), null, `${contentType}: not at the start`);
  }
});

test('no text document of the fixtures or the dev corpus is taken for a binary format', () => {
  const files: string[] = [];
  const fixtures = path.join(REPO_ROOT, 'test', 'fixtures', 'extract');
  for (const name of fs.readdirSync(fixtures)) if (!name.endsWith('.json')) files.push(path.join(fixtures, name));
  const shared = sharedDir();
  const dev = shared === null ? null : path.join(shared, 'corpus', 'dev');
  if (dev !== null && fs.existsSync(path.join(dev, 'manual-ingest.json'))) {
    const map = JSON.parse(fs.readFileSync(path.join(dev, 'manual-ingest.json'), 'utf8')) as { localPath: string; contentType: string }[];
    for (const entry of map) if (!entry.contentType.includes('pdf')) files.push(path.join(dev, entry.localPath));
  }
  assert.ok(files.length >= 10, 'text documents found');
  for (const file of files) assert.equal(binarySignature(fs.readFileSync(file)), null, file);
});
