import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { validateEnvelope } from '../../src/generated/validators.js';

/** Repository root (tests run from dist/test/...). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI = path.join(REPO_ROOT, 'bin', 'episteme.cjs');

/** ../shared beside the repository, or null (tests that need it skip with a message). */
export function sharedDir(): string | null {
  const dir = path.resolve(REPO_ROOT, '..', 'shared');
  return fs.existsSync(path.join(dir, 'corpus')) ? dir : null;
}
export const SHARED_SKIP = sharedDir() === null ? '../shared is absent beside the repository: corpus tests skipped' : false;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Parsed envelope when --json was given (already validated against the envelope schema). */
  json: {
    ok: boolean;
    command: string;
    data?: any;
    error?: { code: string; message: string; hint?: string; details?: any; debug?: string };
    warnings: any[];
  } | null;
}

/** A temporary workspace folder with helpers to write files and run the CLI in it. */
export class Rig {
  readonly dir: string;

  constructor(prefix = 'episteme-test-') {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  }

  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  write(files: Record<string, string | Uint8Array>): void {
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(this.path(name)), { recursive: true });
      fs.writeFileSync(this.path(name), content);
    }
  }

  read(name: string): string {
    return fs.readFileSync(this.path(name), 'utf8');
  }

  /** Runs the CLI (`cli`: another copy's bin/episteme.cjs, e.g. a package copy with edited rules). */
  exec(
    args: string[],
    options: { input?: string | Buffer; cwd?: string; env?: NodeJS.ProcessEnv; cli?: string; killAfterMs?: number } = {},
  ): Promise<CliResult> {
    return runCli(args, {
      cwd: options.cwd ?? this.dir,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.cli ? { cli: options.cli } : {}),
      ...(options.killAfterMs !== undefined ? { killAfterMs: options.killAfterMs } : {}),
    });
  }

  /** SHA-256 of every file under the workspace outputs (not the build state), by relative path. */
  artifacts(dirs = ['snapshots', 'specs', 'chunks']): Map<string, string> {
    const result = new Map<string, string>();
    // The owner marker (.episteme-owner) says which workspace owns the folder; it is not an artifact.
    for (const dir of dirs)
      walk(
        this.path(dir),
        (file) => path.basename(file) !== '.episteme-owner' && result.set(path.relative(this.dir, file), sha256(fs.readFileSync(file))),
      );
    return new Map([...result.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export function startCli(args: string[], cwd: string): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * Runs the CLI to its exit. killAfterMs, for a test of a hang: past it the CLI is killed (SIGKILL, exit
 * code -1), so a regression fails the test instead of holding it until the runner's timeout.
 */
export function runCli(
  args: string[],
  options: { cwd: string; input?: string | Buffer; env?: NodeJS.ProcessEnv; cli?: string; killAfterMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.cli ?? CLI, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.killAfterMs !== undefined ? { timeout: options.killAfterMs, killSignal: 'SIGKILL' as const } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      let json: CliResult['json'] = null;
      if (args.includes('--json')) {
        try {
          json = JSON.parse(stdout) as CliResult['json'];
        } catch {
          reject(new Error(`--json output is not one JSON document (exit ${code}):\n${stdout}\n${stderr}`));
          return;
        }
        if (!validateEnvelope(json)) {
          reject(new Error(`envelope breaks schema/cli-envelope.schema.json: ${JSON.stringify(validateEnvelope.errors)}\n${stdout}`));
          return;
        }
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
  });
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function walk(dir: string, visit: (file: string) => void): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, visit);
    else visit(full);
  }
}

/** Asserts that no stack trace leaked into user-visible output. */
export function assertNoStackTrace(result: CliResult): void {
  assert.doesNotMatch(result.stderr + result.stdout, /\n\s+at .+\(.+:\d+:\d+\)/, 'stack trace in output');
}

/** A small workspace with three HTML/text sources, written by the test itself. */
export function writeSmallWorkspace(rig: Rig, count = 3): void {
  const map: { sourceUrl: string; localPath: string; contentType: string }[] = [];
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) {
    const name = `doc${i}`;
    files[`src/${name}.html`] = sampleHtml(i);
    map.push({ sourceUrl: `https://example.test/${name}/`, localPath: `src/${name}.html`, contentType: 'text/html' });
  }
  files['map.json'] = JSON.stringify(map, null, 2);
  files['episteme.json'] = JSON.stringify({ manualIngest: 'map.json' });
  rig.write(files);
}

export function sampleHtml(i: number, extra = ''): string {
  return `<!DOCTYPE html><html><head><title>Document ${i}</title></head><body>
<h1>Document ${i}</h1>
<p>Introductory text for document ${i} about topic${i} and shared words.</p>
<h2 id="alpha-${i}">Alpha section</h2>
<p>The alpha paragraph of document ${i} mentions zebra${i} and conditional requests.${extra}</p>
<h2 id="beta-${i}">Beta section</h2>
<ul><li>First item ${i}</li><li>Second item mentions giraffe${i}</li></ul>
</body></html>
`;
}
