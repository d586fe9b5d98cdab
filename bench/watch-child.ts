import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

/** One JSON line of `episteme watch --json`, as a bench reads it (fields by name, unchecked). */
// biome-ignore lint/suspicious/noExplicitAny: a bench reads whatever event fields it reports
export type WatchEvent = Record<string, any>;

/** An `episteme watch --json` child (the CLI at `cli`, run in `dir`); each JSON line is stamped on arrival. */
export class WatchChild {
  private readonly lines: { at: number; line: WatchEvent }[] = [];
  private readonly waiters: (() => void)[] = [];
  private partial = '';
  readonly child;

  constructor(cli: string, dir: string, args: string[] = [], nodeFlags: string[] = []) {
    this.child = spawn(process.execPath, [...nodeFlags, cli, 'watch', '--json', ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      const at = performance.now();
      this.partial += chunk.toString('utf8');
      for (let nl = this.partial.indexOf('\n'); nl >= 0; nl = this.partial.indexOf('\n')) {
        const text = this.partial.slice(0, nl);
        this.partial = this.partial.slice(nl + 1);
        if (text.trim()) this.lines.push({ at, line: JSON.parse(text) as WatchEvent });
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** The first `cycle` event from line `from` on, waiting for it. */
  async nextCycle(from: number): Promise<{ at: number; line: WatchEvent }> {
    for (;;) {
      const found = this.lines.slice(from).find((l) => l.line.event === 'cycle');
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error('watch exited');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /**
   * The first cycle from line `from` on that ran a target or failed: the cycle of a save made after
   * line `from`. A cycle that ran nothing is skipped: an event on an input while an earlier cycle was
   * building (a late event of the previous save's write), which watch confirms again by a build that
   * finds every target up to date.
   */
  async nextSaveCycle(from: number): Promise<{ at: number; line: WatchEvent }> {
    for (let at = from; ; ) {
      const cycle = await this.nextCycle(at);
      if (!cycle.line.ok || Object.keys(cycle.line.ranMs ?? {}).length > 0) return cycle;
      at = this.lines.indexOf(cycle) + 1;
    }
  }

  /** Lines received so far. */
  get count(): number {
    return this.lines.length;
  }

  /** Peak resident set of the child so far, in MB (Linux /proc; NaN elsewhere). */
  peakRssMb(): number {
    try {
      const status = fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
    } catch {
      return Number.NaN;
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.on('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}
