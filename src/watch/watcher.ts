/**
 * The watch loop as an explicit state machine: when to build, never how (the caller's `build` runs one
 * build through the same engine a one-shot build uses).
 *
 *               start()
 *                  |
 *                  v
 *   +-------> [building] --- file event ---> [building-queued]
 *   |              |                                |
 *   |        build settles                    build settles
 *   |              v                                v
 *   |          [idle] ------ file event -----> [settling] <--- file event (timer restarts:
 *   |              ^                                |           a burst is one build)
 *   |              |                          timer fires: hash
 *   |              +--- same bytes (ignored) -------+ what the events named
 *   |                                               |
 *   +------------- content changed -----------------+
 *
 *   any state --- stop() ---> [stopping] (a build in flight finishes and commits) ---> [stopped]
 *
 * One build is in flight at a time and at most one is queued: events during a build only mark the
 * queue, and the queued build starts from `settling`, so it too waits out the rest of the burst. A
 * change is confirmed by content hash when the timer fires, so a `touch`, a save of the same bytes or a
 * delete-then-recreate of the same bytes within the window runs nothing.
 *
 * A hook that throws from the timer, or a build that rejects (a bug: confirm's probes and a build's
 * failures are values, not exceptions), goes to `fault` instead of the event loop, where it would end
 * the process; the watcher carries on as if the build had run (a confirm that threw: `idle`).
 */
export type WatcherState = 'idle' | 'settling' | 'building' | 'building-queued' | 'stopping' | 'stopped';

export interface WatcherHooks {
  /** Trailing debounce: how long the inputs must be quiet before their changes are confirmed. */
  debounceMs: number;
  /** Of the named inputs, those whose content differs from what the last build saw (and remembers it). */
  confirm(paths: string[]): string[];
  /** Runs one build for the confirmed changes (empty on start); never rejects. */
  build(changed: string[], firstEventAt: number | null): Promise<void>;
  /** Events that named only inputs whose bytes are what they were. */
  ignored(paths: string[]): void;
  /** What a hook threw from the timer, or a build's rejection, with the paths being confirmed (if any). */
  fault(error: unknown, paths: string[]): void;
}

export class Watcher {
  private current: WatcherState = 'idle';
  private readonly noted = new Set<string>();
  private firstEventAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped: (() => void) | null = null;

  constructor(private readonly hooks: WatcherHooks) {}

  get state(): WatcherState {
    return this.current;
  }

  /** The first build, of everything. */
  start(): void {
    this.runBuild([]);
  }

  /** A file event on a watched input (any kind: write, rename, delete). */
  noteEvent(absolutePath: string): void {
    if (this.current === 'stopping' || this.current === 'stopped') return;
    this.noted.add(absolutePath);
    this.firstEventAt ??= performance.now();
    switch (this.current) {
      case 'idle':
      case 'settling':
        this.current = 'settling';
        this.armTimer();
        return;
      case 'building':
        this.current = 'building-queued';
        return;
      case 'building-queued':
        return;
      default:
        unreachable(this.current);
    }
  }

  /** Ends the loop: a build in flight finishes (and commits) first; nothing queued starts. */
  stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.current === 'stopped') return Promise.resolve();
    if (this.inFlight === null) {
      this.current = 'stopped';
      return Promise.resolve();
    }
    this.current = 'stopping';
    return new Promise((resolve) => {
      this.stopped = resolve;
    });
  }

  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.settle(), this.hooks.debounceMs);
  }

  /** The inputs were quiet for the debounce window: build if any content changed. */
  private settle(): void {
    this.timer = null;
    if (this.current !== 'settling') return;
    const paths = [...this.noted].sort();
    this.noted.clear();
    let changed: string[];
    try {
      changed = this.hooks.confirm(paths);
    } catch (error) {
      // Nothing confirmed and nothing built: the next event on these inputs confirms them again.
      this.current = 'idle';
      this.firstEventAt = null;
      this.hooks.fault(error, paths);
      return;
    }
    if (changed.length === 0) {
      this.current = 'idle';
      this.firstEventAt = null;
      try {
        this.hooks.ignored(paths);
      } catch (error) {
        this.hooks.fault(error, paths);
      }
      return;
    }
    this.runBuild(changed);
  }

  private runBuild(changed: string[]): void {
    const firstEventAt = this.firstEventAt;
    this.firstEventAt = null;
    this.current = 'building';
    this.inFlight = this.hooks
      .build(changed, firstEventAt)
      .catch((error: unknown) => this.hooks.fault(error, changed))
      .finally(() => this.built());
  }

  private built(): void {
    this.inFlight = null;
    switch (this.current) {
      case 'stopping':
        this.current = 'stopped';
        this.stopped?.();
        return;
      case 'building-queued':
        // Events came in during the build: wait out the rest of their burst, then confirm them.
        this.current = 'settling';
        this.armTimer();
        return;
      case 'building':
        this.current = 'idle';
        return;
      case 'idle':
      case 'settling':
      case 'stopped':
        return;
      default:
        unreachable(this.current);
    }
  }
}

function unreachable(value: never): never {
  throw new Error(`unreachable watcher state ${String(value)}`);
}
