import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileSource, loadSearchIndex, type LoadedSearchIndex } from '../../src/index/index-reader.js';

/**
 * A workspace built the way a user builds one: files on disk, a manual-ingest map naming them, and
 * `episteme pipeline --map map.json --fail-on never` run as a child process from bin/episteme.cjs (the built CLI;
 * the dev corpus holds an empty, an encrypted and a malformed PDF, whose diagnostics would fail the run).
 * The search index is then opened the way `episteme query` opens it (a file source, segments read
 * beside it), so queries go through the CLI's own loading and ranking code.
 */
export interface BuiltWorkspace {
  root: string;
  index: LoadedSearchIndex;
  buildMs: number;
  /** Removes the temporary folder. */
  dispose(): void;
}

export interface WorkspaceFile {
  sourceUrl: string;
  /** A path relative to the workspace (written there from `text`), or an absolute path read in place. */
  localPath: string;
  contentType: string;
  text?: string;
}

/**
 * Builds (or, with `keep`, reuses) the workspace. `keep` is a folder where workspaces stay between
 * runs (one per label; delete it after changing extraction, chunking or the index): for iterating on
 * query-time ranking without rebuilding.
 */
export function buildWorkspace(repoRoot: string, label: string, files: readonly WorkspaceFile[], keep?: string): BuiltWorkspace {
  const root = keep === undefined ? mkdtempSync(path.join(os.tmpdir(), `episteme-relevance-${label}-`)) : path.resolve(keep, label);
  const indexPath = path.join(root, 'chunks/search-index.json');
  const open = (): LoadedSearchIndex =>
    loadSearchIndex(fileSource(indexPath), indexPath, (name) => fileSource(path.join(root, 'chunks', name)));
  if (keep !== undefined && existsSync(indexPath)) return { root, index: open(), buildMs: 0, dispose: () => {} };
  mkdirSync(root, { recursive: true });
  for (const file of files) {
    if (file.text === undefined) continue;
    const target = path.join(root, file.localPath);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.text);
  }
  const map = files.map(({ sourceUrl, localPath, contentType }) => ({ sourceUrl, localPath, contentType }));
  writeFileSync(path.join(root, 'map.json'), `${JSON.stringify(map, null, 1)}\n`);
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'bin/episteme.cjs'), 'pipeline', '--map', 'map.json', '--fail-on', 'never'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const buildMs = performance.now() - started;
  if (run.status !== 0) {
    throw new Error(`episteme pipeline failed in ${root} (exit ${String(run.status)}):\n${run.stderr.slice(0, 4000)}`);
  }
  const index = open();
  return { root, index, buildMs, dispose: keep !== undefined ? () => {} : () => rmSync(root, { recursive: true, force: true }) };
}

/** A plain-text file as a user would write one: the title on the first line, a blank line, the text (no title: the text alone). */
export function plainTextFile(title: string, text: string): string {
  return title === '' ? `${text}\n` : `${title}\n\n${text}\n`;
}
