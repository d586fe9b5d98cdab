import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { CLI, REPO_ROOT, assertNoStackTrace, sampleHtml, type CliResult } from '../helpers/rig.js';
import { validateEnvelope } from '../../src/generated/validators.js';

/**
 * Shared harness of the hostile-input suite: runs the CLI as a user would, and measures what an
 * attacker could make it spend (wall time and the process's peak resident memory), and what it
 * touched (a checksum of a folder tree, symlinks and special files included, taken before and after).
 */

/** Records the child's peak RSS at exit (process.resourceUsage().maxRSS, KiB) into a file. */
const RSS_PRELOAD = path.join(REPO_ROOT, 'test', 'hostile', 'record-peak-rss.cjs');

export interface MeasuredResult extends CliResult {
  /** Wall time of the whole process, milliseconds. */
  elapsedMs: number;
  /** Peak resident set size of the CLI process (its worker threads included), MiB; null if it died before exit. */
  peakRssMb: number | null;
}

export async function runMeasured(
  args: string[],
  options: { cwd: string; input?: string | Buffer; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<MeasuredResult> {
  const rssFile = path.join(os.tmpdir(), `episteme-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const started = process.hrtime.bigint();
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', RSS_PRELOAD, CLI, ...args], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), EPISTEME_TEST_RSS_FILE: rssFile },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  let peakRssMb: number | null = null;
  try {
    peakRssMb = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
    fs.rmSync(rssFile, { force: true });
  } catch {
    peakRssMb = null;
  }
  let json: CliResult['json'] = null;
  if (args.includes('--json')) {
    try {
      json = JSON.parse(stdout) as CliResult['json'];
    } catch {
      throw new Error(`--json output is not one JSON document (exit ${code}):\n${stdout}\n${stderr}`);
    }
    if (!validateEnvelope(json)) throw new Error(`envelope breaks the schema: ${JSON.stringify(validateEnvelope.errors)}\n${stdout}`);
  }
  return { code, stdout, stderr, json, elapsedMs, peakRssMb };
}

/** A failure as the contract states it: the code, the exit code, no stack trace, within time and memory bounds. */
export function assertFailure(result: MeasuredResult, expected: { code: string; exit: number; maxMs: number; maxRssMb: number }): void {
  assertNoStackTrace(result);
  assert.doesNotMatch(result.stderr, /FATAL ERROR|JavaScript heap out of memory|Maximum call stack/, 'a V8 crash reached stderr');
  assert.equal(result.json?.error?.code, expected.code, `error code (stdout: ${result.stdout.slice(0, 2000)})`);
  assert.equal(result.code, expected.exit, 'exit code');
  assertBounded(result, expected);
}

export function assertBounded(result: MeasuredResult, bounds: { maxMs: number; maxRssMb: number }): void {
  assert.ok(result.elapsedMs <= bounds.maxMs, `took ${Math.round(result.elapsedMs)} ms, bound ${bounds.maxMs} ms`);
  assert.ok(result.peakRssMb !== null, 'the process did not reach a normal exit');
  assert.ok(result.peakRssMb <= bounds.maxRssMb, `peak RSS ${Math.round(result.peakRssMb)} MiB, bound ${bounds.maxRssMb} MiB`);
}

/**
 * A checksum of everything under `dir`: names, kinds, modes, symlink targets and file bytes. Equal
 * before and after a command means it wrote, deleted and replaced nothing there.
 */
export function treeChecksum(dir: string, options: { skip?: (relative: string) => boolean } = {}): string {
  const hash = createHash('sha256');
  const visit = (relative: string): void => {
    const full = path.join(dir, relative);
    const stat = fs.lstatSync(full);
    hash.update(`${relative}\0${stat.mode}\0`);
    if (stat.isSymbolicLink()) hash.update(`link:${fs.readlinkSync(full)}\0`);
    else if (stat.isFile()) hash.update(fs.readFileSync(full));
    else if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) {
        const child = relative ? `${relative}/${name}` : name;
        if (!options.skip?.(child)) visit(child);
      }
    }
  };
  visit('');
  return hash.digest('hex');
}

/**
 * A sandbox for one attack: `parent` holds the workspace folder and anything the attack points at
 * outside it, so "nothing written outside the workspace" is a checksum of `parent` without `ws/`.
 */
export class Sandbox {
  readonly parent: string;
  readonly ws: string;

  constructor(prefix = 'episteme-hostile-') {
    this.parent = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.ws = path.join(this.parent, 'ws');
    fs.mkdirSync(this.ws);
  }

  /** Writes files relative to the workspace. */
  write(files: Record<string, string | Uint8Array>): void {
    for (const [name, content] of Object.entries(files)) {
      const full = path.join(this.ws, name);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
  }

  /** Checksum of the parent folder outside the workspace. */
  outside(): string {
    return treeChecksum(this.parent, { skip: (relative) => relative === 'ws' });
  }

  run(
    args: string[],
    options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
  ): Promise<MeasuredResult> {
    return runMeasured(args, { cwd: options.cwd ?? this.ws, ...options });
  }

  cleanup(): void {
    // A test may leave a read-only folder behind: make it writable before removing.
    try {
      fs.chmodSync(this.ws, 0o755);
    } catch {
      // gone already
    }
    fs.rmSync(this.parent, { recursive: true, force: true });
  }
}

/** Whether this process can mount filesystems and make devices (root in CI). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Two small HTML sources in a configured workspace: the starting point of many attacks. */
export function writeTwoDocumentWorkspace(sandbox: Sandbox): void {
  sandbox.write({
    'src/doc0.html': sampleHtml(0),
    'src/doc1.html': sampleHtml(1),
    'map.json': JSON.stringify([
      { sourceUrl: 'https://example.test/doc0/', localPath: 'src/doc0.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/doc1/', localPath: 'src/doc1.html', contentType: 'text/html' },
    ]),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
  });
}
