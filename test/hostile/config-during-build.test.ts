import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, treeChecksum } from './harness.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * A config edited while a build runs: the build made its outputs with the options it loaded, so the
 * next build must not take them for the new config's. The clean record stamps the config as the load
 * found it before reading it, not as it is when the build commits (src/config/shaping-files.ts).
 */

/**
 * Pauses the build it is preloaded into (NODE_OPTIONS=--require) when it first opens a file in specs/
 * (to write an extracted document: the workspace load read the config long before): it writes
 * log/paused and waits for log/go.
 */
const PAUSE_AT_SOURCE = `
const fs = require('node:fs');
const openSync = fs.openSync;
let paused = false;
fs.openSync = function (file, ...rest) {
  if (!paused && String(file).includes('/specs/')) {
    paused = true;
    fs.writeFileSync('log/paused', String(file));
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (!fs.existsSync('log/go')) Atomics.wait(nap, 0, 0, 10);
  }
  return openSync.call(this, file, ...rest);
};
`;

function html(doc: number, revision: number): string {
  const paragraphs = Array.from(
    { length: 12 },
    (_, p) => `<p>Paragraph ${p} of document ${doc}, revision ${revision}, long enough to be cut differently by other chunk options.</p>`,
  );
  return `<!DOCTYPE html><html><head><title>Doc ${doc}</title></head><body><h1>Doc ${doc}</h1>${paragraphs.join('')}</body></html>\n`;
}

const config = (maxChars: number): string =>
  JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars, overlapChars: 40 } } });

/** The workspace's output folders: what a clean build must equal. */
const outputs = (ws: string): string[] => ['snapshots', 'specs', 'chunks'].map((folder) => treeChecksum(path.join(ws, folder)));

test('a config edited while a build runs is read again by the next build, which then equals a clean build', async () => {
  const box = new Sandbox('episteme-config-during-build-');
  try {
    const map = [0, 1, 2].map((i) => ({
      sourceUrl: `https://example.test/doc${i}/`,
      localPath: `src/doc${i}.html`,
      contentType: 'text/html',
    }));
    box.write({
      'src/doc0.html': html(0, 0),
      'src/doc1.html': html(1, 0),
      'src/doc2.html': html(2, 0),
      'map.json': JSON.stringify(map),
      'episteme.json': config(400),
      'tools/pause.cjs': PAUSE_AT_SOURCE,
      'log/.keep': '',
    });
    const configFile = path.join(box.ws, 'episteme.json');
    assert.equal((await box.run(['build', '--json'])).code, 0);

    box.write({ 'src/doc1.html': html(1, 1) });
    const env = { ...process.env, NODE_OPTIONS: `--require ${path.join(box.ws, 'tools/pause.cjs')}` };
    const during = box.run(['build', '--json'], { env });
    await waitUntil(() => fs.existsSync(path.join(box.ws, 'log/paused')), 'the build has loaded the config and begun writing documents');
    fs.writeFileSync(configFile, config(200));
    fs.writeFileSync(path.join(box.ws, 'log/go'), '');
    assert.equal((await during).code, 0);

    const next = await box.run(['build', '--json']);
    assert.equal(next.code, 0, next.stdout);
    const counts = next.json!.data.counts as Record<string, number>;
    assert.ok(counts['built']! + counts['unchanged']! > 0, `the next build rebuilt the chunks: ${JSON.stringify(counts)}`);

    const clean = new Sandbox('episteme-config-during-build-clean-');
    try {
      for (const name of ['src/doc0.html', 'src/doc1.html', 'src/doc2.html', 'map.json', 'episteme.json'])
        clean.write({ [name]: fs.readFileSync(path.join(box.ws, name)) });
      assert.equal((await clean.run(['build', '--json'])).code, 0);
      assert.deepEqual(outputs(box.ws), outputs(clean.ws), 'the workspace equals a clean build of the config as it is now');
    } finally {
      clean.cleanup();
    }
  } finally {
    box.cleanup();
  }
});
