import type { TargetResult } from '../graph/scheduler.js';
import type { Output } from './output.js';

/**
 * Build progress, like ninja's: on a terminal, one status line rewritten in place,
 * `[12/3004] extract specs/x.json  0:07, ETA 0:41`, with each failure printed above it as it
 * happens (target and reason); without a terminal (`--progress always`), plain lines that carry the
 * same count; with --json, the JSON Lines of Output.progress. `total` counts the targets that must
 * run (known after the scheduler's first pass); up-to-date targets are not counted, as in ninja.
 */
export class BuildProgress {
  private total = 0;
  private done = 0;
  private started = 0;
  private readonly startedAt = Date.now();
  private current = '';

  constructor(
    private readonly output: Output,
    /** A target as the lines show it: its path from the current folder (see shown-path.ts). */
    private readonly shown: (target: string) => string = (target) => target,
  ) {}

  plan(total: number): void {
    this.total = total;
  }

  start(target: string): void {
    this.started += 1;
    this.current = this.shown(target);
    if (this.output.liveTerminal) this.output.status(this.statusText());
    else this.output.progress({ message: `${this.counter()} running ${this.shown(target)}`, event: 'start', target });
  }

  /** Every evaluated target as it settles; a failure is printed at once, with its reason. */
  settled(result: TargetResult): void {
    this.done += 1;
    const { target, status } = result;
    if (status === 'failed') {
      this.output.progress({
        message: `${this.counter()} failed ${this.shown(target)}: ${result.error?.message ?? ''}`,
        event: 'finish',
        target,
        status,
        ...(result.error ? { code: result.error.code } : {}),
      });
    } else if (this.output.liveTerminal) {
      this.output.status(this.statusText());
    } else if (status !== 'up-to-date') {
      this.output.progress({ message: `${this.counter()} ${status} ${this.shown(target)}`, event: 'finish', target, status });
    }
  }

  /**
   * A message for the log (a capture step): a line of its own without a live terminal. On one, the
   * routine steps only show in the status line; a step that is news (a retry: the server is failing
   * or slow) gets a line of its own above it, as failures do, so it is seen while the build waits.
   */
  note(event: Record<string, unknown> & { message: string }): void {
    if (!this.output.liveTerminal) {
      this.output.progress(event);
      return;
    }
    if (event.event === 'capture-retry') this.output.progress(event);
    this.output.status(`${this.statusText()}  ${event.message}`);
  }

  end(): void {
    this.output.status(null);
  }

  private counter(): string {
    return `[${this.done}/${Math.max(this.total, this.started)}]`;
  }

  private statusText(): string {
    const elapsedMs = Date.now() - this.startedAt;
    const total = Math.max(this.total, this.started);
    const eta = this.done > 0 && total > this.done ? `, ETA ${clock((elapsedMs / this.done) * (total - this.done))}` : '';
    return `${this.counter()} ${this.current}  ${clock(elapsedMs)}${eta}`;
  }
}

/** m:ss (or h:mm:ss) of a duration in milliseconds. */
export function clock(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
