import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The other JavaScript runtimes the spec promises (Node 24, the pinned Deno, the pinned Bun), installed
 * from their npm packages (whose binaries are inside the packages) into a cache folder outside the
 * repository: EPISTEME_RUNTIMES_DIR, else $XDG_CACHE_HOME/episteme-runtimes, else
 * ~/.cache/episteme-runtimes. Installed once, reused by every later run.
 */
export const RUNTIME_PACKAGES = ['node@24', 'deno@2.9.6', 'bun@1.4.5'];
export const RUNTIMES_DIR =
  process.env['EPISTEME_RUNTIMES_DIR'] ??
  path.join(process.env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache'), 'episteme-runtimes');

export const runtimeBin = (name: 'node' | 'deno' | 'bun'): string => path.join(RUNTIMES_DIR, 'node_modules', '.bin', name);

/** Installs the runtimes when missing; returns a reason to skip when they cannot be installed. */
export function ensureRuntimes(): string | undefined {
  const installed = (): boolean => (['node', 'deno', 'bun'] as const).every((name) => existsSync(runtimeBin(name)));
  if (installed()) return undefined;
  mkdirSync(RUNTIMES_DIR, { recursive: true });
  if (!existsSync(path.join(RUNTIMES_DIR, 'package.json'))) writeFileSync(path.join(RUNTIMES_DIR, 'package.json'), '{"private":true}\n');
  const result = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', RUNTIMES_DIR, ...RUNTIME_PACKAGES], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (result.status !== 0 || !installed()) {
    const lastErrorLines = (result.stderr || String(result.error ?? '')).trim().split('\n').slice(-3).join(' | ');
    return `could not install ${RUNTIME_PACKAGES.join(', ')} from the npm registry into ${RUNTIMES_DIR}: ${lastErrorLines}`;
  }
  return undefined;
}

/** Deno's permissions for the CLI, exactly as README.md lists them. */
export const DENO_PERMISSIONS = ['--allow-read', '--allow-write', '--allow-net', '--allow-env'];

export interface Runtime {
  /** e.g. "node v24.21.0" */
  label: string;
  /** The executable and the arguments before the script. */
  command: string;
  prefix: string[];
}

/** Node (this process's), Node 24, Deno and Bun; call after ensureRuntimes(). */
export function allRuntimes(): Runtime[] {
  const version = (name: 'node' | 'deno' | 'bun', flag = '--version'): string =>
    execFileSync(runtimeBin(name), [flag], { encoding: 'utf8' }).split('\n')[0]!.trim();
  return [
    { label: `node ${process.version}`, command: process.execPath, prefix: [] },
    { label: `node ${version('node')}`, command: runtimeBin('node'), prefix: [] },
    { label: version('deno'), command: runtimeBin('deno'), prefix: ['run', '--no-lock', ...DENO_PERMISSIONS] },
    { label: `bun ${version('bun')}`, command: runtimeBin('bun'), prefix: [] },
  ];
}
