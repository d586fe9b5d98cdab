import { spawn, type ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import { CLI, Rig, writeSmallWorkspace } from './rig.js';

/** A watch event as printed by `episteme watch --json` (one JSON object per stdout line). */
export type WatchLine = { event: string; [field: string]: any };

/**
 * A real `episteme watch --json` child process. Tests wait for events, never for time: each wait has a
 * generous deadline that only bounds a hung process.
 */
export class WatchProcess {
  readonly lines: WatchLine[] = [];
  stderr = '';
  private readonly child: ChildProcess;
  private readonly waiters: (() => void)[] = [];
  private exit: Promise<number | null>;
  private partial = '';

  /**
   * `command`: how watch is invoked (`build` runs it as `build --json ...args`, args holding --watch).
   * `wrapper`: a command that runs node (e.g. setpriv as another user), if any.
   */
  constructor(cwd: string, args: string[] = [], command = 'watch', wrapper: string[] = []) {
    const [file, ...argv] = [...wrapper, process.execPath, CLI, command, '--json', ...args];
    this.child = spawn(file!, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.partial += chunk.toString('utf8');
      for (let at = this.partial.indexOf('\n'); at >= 0; at = this.partial.indexOf('\n')) {
        const line = this.partial.slice(0, at);
        this.partial = this.partial.slice(at + 1);
        if (line.trim() !== '') this.lines.push(JSON.parse(line) as WatchLine);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exit = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        for (const wake of this.waiters.splice(0)) wake();
        resolve(code);
      }),
    );
  }

  /** Cycle events seen so far. */
  get cycles(): WatchLine[] {
    return this.lines.filter((l) => l.event === 'cycle');
  }

  /** The first line at or after index `from` that matches; waits for it (up to `timeoutMs`). */
  async waitFor(match: (line: WatchLine) => boolean, from = 0, timeoutMs = 60_000): Promise<WatchLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find(match);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`watch exited before the awaited event; lines:\n${this.dump()}`);
      if (Date.now() > deadline) throw new Error(`no matching watch event within ${timeoutMs} ms; lines:\n${this.dump()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(10, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next cycle after the lines seen so far (returns it and the index after it). */
  async nextCycle(from = this.lines.length): Promise<WatchLine> {
    return this.waitFor((l) => l.event === 'cycle', from);
  }

  /** Sends a signal and resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exit;
  }

  dump(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n') + `\nstderr:\n${this.stderr}`;
  }
}

/**
 * A watch of a fresh small workspace of `count` documents (`prepare` may change it first), its first
 * cycle done and successful; the watch is killed and the folder removed after the test.
 */
export async function watchSmallWorkspace(
  t: { after: (fn: () => Promise<void> | void) => void },
  prefix: string,
  count: number,
  prepare?: (rig: Rig) => void,
): Promise<{ rig: Rig; watch: WatchProcess; first: WatchLine }> {
  const rig = new Rig(prefix);
  writeSmallWorkspace(rig, count);
  prepare?.(rig);
  const watch = new WatchProcess(rig.dir);
  t.after(async () => {
    await watch.stop('SIGKILL');
    rig.cleanup();
  });
  const first = await watch.nextCycle(0);
  assert.equal(first.ok, true, watch.dump());
  return { rig, watch, first };
}
