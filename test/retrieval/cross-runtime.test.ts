import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { DEV_CORPUS_MISSING, loadDevCorpus } from './corpus-helpers.js';
import { allRuntimes, ensureRuntimes } from '../helpers/runtimes.js';

/**
 * The search index (and query output) must be byte-identical on Node 20, Node 24, Deno and Bun.
 * This runs dist/test/retrieval/cross-runtime-runner.js under each and compares stdout. The other
 * runtimes come from test/helpers/runtimes.ts (npm packages in a cache folder outside the source
 * tree); when they cannot be installed the test is skipped with the reason. The whole CLI pipeline
 * on every runtime is test/runtimes/whole-pipeline.test.ts.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const runner = path.join(here, 'cross-runtime-runner.js');

test('index bytes and query output are identical on Node 20, Node 24, Deno and Bun', { timeout: 900_000 }, async (t) => {
  const skipReason = ensureRuntimes();
  if (skipReason !== undefined) {
    t.skip(skipReason);
    return;
  }
  // Fixtures always; the dev corpus too when ../shared is present (chunked here, indexed by each runtime).
  const args = [runner];
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'episteme-cross-runtime-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const dev = await loadDevCorpus();
  if (dev === undefined) t.diagnostic(`${DEV_CORPUS_MISSING}: fixtures only`);
  else {
    const chunkFile = path.join(scratch, 'dev-chunks.json');
    writeFileSync(
      chunkFile,
      JSON.stringify(dev.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }))),
    );
    args.push(chunkFile);
  }
  const run = (command: string, prefix: string[]): string =>
    execFileSync(command, [...prefix, ...args], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const reference = run(process.execPath, []);
  assert.ok(reference.length > 1000);
  if (dev !== undefined) assert.match(reference, /"dev":\{"indexSha256"/);
  const outputs: [string, string][] = allRuntimes()
    .slice(1)
    .map((runtime) => [
      runtime.label,
      run(runtime.command, runtime.prefix[0] === 'run' ? ['run', '--no-lock', '--allow-read', '--allow-env'] : runtime.prefix),
    ]);
  for (const [runtime, output] of outputs) {
    t.diagnostic(`${runtime}: ${output.length} bytes`);
    assert.equal(output, reference, `${runtime} differs from Node ${process.version}`);
  }
});
