import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, treeChecksum } from './harness.js';
import { waitUntil } from '../helpers/wait.js';
import { pauseAtFirstOpen } from '../helpers/pause-at-open.js';

/**
 * A config edited while a build runs: the build made its outputs with the options it loaded, so the
 * next build must not take them for the new config's. The clean record stamps the config as the load
 * found it before reading it, not as it is when the build commits (src/config/shaping-files.ts).
 */

/**
 * Pauses the build it is preloaded into (NODE_OPTIONS=--require) when it first opens a file in specs/
 * for writing (an extracted document: the workspace load read the config long before): it writes
 * log/paused and waits for log/go.
 */
const PAUSE_AT_DOCUMENT_WRITE = pauseAtFirstOpen('/specs/', { writing: true });

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

const MAP = [0, 1, 2].map((i) => ({
  sourceUrl: `https://example.test/doc${i}/`,
  localPath: `src/doc${i}.html`,
  contentType: 'text/html',
}));

/** Each file that shapes the graph, edited while a build runs (the edit changes what the next build must make). */
const EDITS: { file: string; edited: string }[] = [
  { file: 'episteme.json', edited: config(200) },
  // Another family for one source (a source taken out would leave its snapshot: kept by design).
  { file: 'map.json', edited: JSON.stringify(MAP.map((entry, i) => (i === 2 ? { ...entry, family: 'w3c' } : entry))) },
];

for (const { file, edited } of EDITS) {
  test(`${file} edited while a build runs is read again by the next build, which then equals a clean build`, async () => {
    const box = new Sandbox('episteme-config-during-build-');
    try {
      box.write({
        'src/doc0.html': html(0, 0),
        'src/doc1.html': html(1, 0),
        'src/doc2.html': html(2, 0),
        'map.json': JSON.stringify(MAP),
        'episteme.json': config(400),
        'tools/pause.cjs': PAUSE_AT_DOCUMENT_WRITE,
        'log/.keep': '',
      });
      assert.equal((await box.run(['build', '--json'])).code, 0);

      box.write({ 'src/doc1.html': html(1, 1) });
      const env = { ...process.env, NODE_OPTIONS: `--require ${path.join(box.ws, 'tools/pause.cjs')}` };
      const during = box.run(['build', '--json'], { env });
      await waitUntil(
        () => fs.existsSync(path.join(box.ws, 'log/paused')),
        'the build has loaded the workspace and begun writing documents',
      );
      fs.writeFileSync(path.join(box.ws, file), edited);
      fs.writeFileSync(path.join(box.ws, 'log/go'), '');
      assert.equal((await during).code, 0);

      const next = await box.run(['build', '--json']);
      assert.equal(next.code, 0, next.stdout);
      const counts = next.json!.data.counts as Record<string, number>;
      assert.ok(counts['up-to-date']! < next.json!.data.targets.length, `the next build did work: ${JSON.stringify(counts)}`);

      const clean = new Sandbox('episteme-config-during-build-clean-');
      try {
        for (const name of ['src/doc0.html', 'src/doc1.html', 'src/doc2.html', 'map.json', 'episteme.json'])
          clean.write({ [name]: fs.readFileSync(path.join(box.ws, name)) });
        assert.equal((await clean.run(['build', '--json'])).code, 0);
        assert.deepEqual(outputs(box.ws), outputs(clean.ws), `the workspace equals a clean build of ${file} as it is now`);
      } finally {
        clean.cleanup();
      }
    } finally {
      box.cleanup();
    }
  });
}
