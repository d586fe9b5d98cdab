import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { DEV_CORPUS_MISSING, loadDevCorpus } from './corpus-helpers.js';

/**
 * The search index (and query output) must be byte-identical on Node 20, Node 24, Deno and Bun.
 * This runs dist/test/retrieval/cross-runtime-runner.js under each and compares stdout.
 * The other runtimes are npm packages installed into a cache directory outside the source tree
 * (EPISTEME_RUNTIMES_DIR, else node_modules/.cache/episteme-runtimes); when the npm registry is
 * unreachable the test is skipped with the reason.
 */
const RUNTIME_PACKAGES = ['node@24', 'deno@2.9.6', 'bun@1.4.5'];
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const runner = path.join(here, 'cross-runtime-runner.js');
const runtimesDir = process.env['EPISTEME_RUNTIMES_DIR'] ?? path.join(repoRoot, 'node_modules/.cache/episteme-runtimes');
const bin = (name: string): string => path.join(runtimesDir, 'node_modules/.bin', name);

function ensureRuntimes(): string | undefined {
  if (['node', 'deno', 'bun'].every((name) => existsSync(bin(name)))) return undefined;
  mkdirSync(runtimesDir, { recursive: true });
  if (!existsSync(path.join(runtimesDir, 'package.json'))) writeFileSync(path.join(runtimesDir, 'package.json'), '{"private":true}\n');
  const result = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', runtimesDir, ...RUNTIME_PACKAGES], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (result.status !== 0 || !['node', 'deno', 'bun'].every((name) => existsSync(bin(name)))) {
    return `could not install ${RUNTIME_PACKAGES.join(', ')} from the npm registry into ${runtimesDir}: ${(result.stderr || String(result.error ?? '')).trim().split('\n').slice(-3).join(' | ')}`;
  }
  return undefined;
}

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
    writeFileSync(chunkFile, JSON.stringify(dev.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }))));
    args.push(chunkFile);
  }
  const run = (command: string, prefix: string[]): string => execFileSync(command, [...prefix, ...args], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const reference = run(process.execPath, []);
  assert.ok(reference.length > 1000);
  if (dev !== undefined) assert.match(reference, /"dev":\{"indexSha256"/);
  const outputs: [string, string][] = [
    [`node ${execFileSync(bin('node'), ['--version'], { encoding: 'utf8' }).trim()}`, run(bin('node'), [])],
    [`deno ${execFileSync(bin('deno'), ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim()}`, run(bin('deno'), ['run', '--no-lock', '--allow-read', '--allow-env'])],
    [`bun ${execFileSync(bin('bun'), ['--version'], { encoding: 'utf8' }).trim()}`, run(bin('bun'), [])],
  ];
  for (const [runtime, output] of outputs) {
    t.diagnostic(`${runtime}: ${output.length} bytes`);
    assert.equal(output, reference, `${runtime} differs from Node ${process.version}`);
  }
});
