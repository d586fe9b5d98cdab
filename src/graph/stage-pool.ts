import { Worker } from 'node:worker_threads';
import { extractTaskKey, taskTransferables, type StageResult, type StageTask } from './stage-tasks.js';
import { EpistemeError } from '../failure.js';
import { deserializeError, type SerializedError } from './stage-errors.js';

/**
 * Runs stage tasks on up to `jobs` worker threads, never on the main thread: each worker has a heap
 * and stack bound (`resourceLimits`), and a task may have a wall-clock bound that the pool enforces by
 * terminating its worker. A document that trips either bound fails its own target (extract-timeout,
 * extract-memory-limit); the build and the other tasks go on, and the next task gets a fresh worker.
 * Workers start when tasks queue up and are reused across tasks (start-up costs tens of milliseconds),
 * so only a terminated or crashed worker is replaced. Task results do not depend on the worker, so
 * parallel output equals one-worker output.
 *
 * Chunk tasks share the workers and the memory bound but have no time bound: their input is a document
 * this build produced, already bounded, and chunking is linear in it.
 */
export interface PoolBounds {
  /** Heap bound of each worker (V8 old generation), in MiB. */
  maxHeapMb: number;
  /**
   * Each worker's young generation (Node's public resourceLimits.maxYoungGenerationSizeMb), in MiB:
   * BUILD_YOUNG_GENERATION_MB unless said (a long-lived pool: watchYoungGenerationMb).
   */
  youngGenerationMb?: number;
}

export interface TaskBounds {
  /** Wall-clock bound of this task; past it the worker is terminated and the task fails with extract-timeout. */
  timeoutMs?: number;
  /** Names the task in failure messages (a document id). */
  label?: string;
  /**
   * A PDF's extraction: its time bound is pdfTimeoutMs (--pdf-timeout-ms), for the hint, and the
   * worker that runs it takes PDF work only from then on (pickLane).
   */
  pdf?: boolean;
  /**
   * Tasks with the same affinity (a document id) go to the worker that ran the last of them when it is
   * free: it may still hold what they share (worker-memory.ts). Only a preference: results do not depend on it.
   */
  affinity?: string;
  /**
   * The caller hands the task's byte buffers (a snapshot body it read, a document file) over to the
   * worker: they are transferred instead of copied, and are empty in the caller afterwards.
   */
  handOverBytes?: boolean;
}

interface Pending {
  task: StageTask;
  bounds: TaskBounds;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * An extract task started before a build asked for it: watch starts a saved source's extraction while
 * the save settles (watch/speculation.ts). A build's extract task takes its result only when the two
 * tasks are the same (extractTaskKey: the same document, source, options and snapshot, whose SHA-256
 * names the body), so a result never depends on whether it was started early.
 */
interface Speculation {
  key: string;
  pending: Pending;
  result: Promise<unknown>;
  startedAt: number;
  /** When its result came back (null while it runs). */
  endedAt: number | null;
}

interface Lane {
  worker: Worker;
  current: Pending | null;
  timer: NodeJS.Timeout | null;
  /** Set once the worker is being torn down: no further task goes to it. */
  retired: boolean;
  /** The worker has loaded the stage modules; a task's clock starts only then. */
  ready: boolean;
  /** The affinity of the last task it ran. */
  affinity: string | undefined;
  /** It has run a PDF extraction, so pdf.js has changed its globals (see pickLane): it takes PDF work only. */
  pdf: boolean;
  /** Whether it was given a task since the last round ended (releaseIdle), and how many rounds it sat out since its last task. */
  ranThisRound: boolean;
  idleRounds: number;
}

/**
 * Rounds (watch cycles in which some worker ran) a worker may sit out before it is stopped. A save of
 * one document keeps using one worker; the others, started by the first build, would hold their heaps
 * (about 100 MB each after the dev corpus) for the whole session.
 */
export const IDLE_ROUNDS = 3;

const WORKER_URL = stageWorkerUrl(new URL('./stage-worker.js', import.meta.url));

/** What a stage worker is started with. */
export interface StageWorkerData {
  /**
   * The folder of this process's module compile cache (Node 22.1+, enabled by the launcher), or
   * undefined: a worker thread does not inherit it, so each worker enables it on the same folder and
   * does not compile the stage modules from scratch each time it starts (stage-worker.ts).
   */
  compileCacheDir: string | undefined;
}

const COMPILE_CACHE_DIR: string | undefined = (
  process.getBuiltinModule('node:module') as { getCompileCacheDir?: () => string | undefined }
).getCompileCacheDir?.();
/** V8's default stack for a worker; the parsers' trees are depth-capped, so walks stay far below it. */
const WORKER_STACK_MB = 4;
/** What a failure says the worker was doing when it ran out of heap. */
const STAGE_DOING: Record<StageTask['stage'], string> = {
  extract: 'Extracting',
  chunk: 'Chunking',
  'inspect-restored': 'Checking the restored artifacts of',
};
/**
 * The young generation of a one-shot build's workers. They live for one build, so V8 never grows their
 * young generation far (it starts small and grows with use): 64 MB measured no faster than 32.
 */
export const BUILD_YOUNG_GENERATION_MB = 32;
/**
 * The young generation of a watch session's workers, which extract the edited spec again at every
 * save. A document's tree (about 20 MB for the 1.9 MB DOM Standard) lives until its extraction ends
 * and is garbage right after: with a young generation that holds one extraction's allocation, the
 * tree dies young instead of being copied to the old generation by two scavenges. Measured on dom.html
 * saves (bench/RESULTS.md, session 22): save -> query-ready 363-367 ms at 32 MB, 335-349 at 64, 286-295
 * at 128, 328-338 at 256 (the chunk task's scavenges grow); about 100 MB more RSS per working worker.
 * The session's first build may keep every worker busy, so the workers share a budget: no more young
 * generation in all than a one-shot build with 16 workers has (512 MB), 128 MB each at most.
 */
export const WATCH_YOUNG_GENERATION_MB = 128;
const WATCH_YOUNG_GENERATION_BUDGET_MB = 16 * BUILD_YOUNG_GENERATION_MB;

/** Each worker's young generation in a watch session of `jobs` workers (from 32 to 128 MB). */
export function watchYoungGenerationMb(jobs: number): number {
  const share = Math.floor(WATCH_YOUNG_GENERATION_BUDGET_MB / Math.max(1, jobs));
  return Math.max(BUILD_YOUNG_GENERATION_MB, Math.min(WATCH_YOUNG_GENERATION_MB, share));
}

/**
 * node:worker_threads starts workers from file: and data: URLs only. Code loaded from a URL
 * (`deno run https://...`, `jsr:`, whose modules are https: URLs) starts its worker through a data:
 * module that imports the worker beside it: the same module, the same resource limits.
 */
export function stageWorkerUrl(worker: URL): URL {
  if (worker.protocol === 'file:' || worker.protocol === 'data:') return worker;
  return new URL(`data:text/javascript,${encodeURIComponent(`import ${JSON.stringify(worker.href)};`)}`);
}

/** A stage worker started before its pool (startWorkerEarly), with the bounds it was started with. */
interface EarlyWorker {
  worker: Worker;
  bounds: Required<PoolBounds>;
  /** It has loaded the stage modules (its ready message came before a pool adopted it). */
  ready: boolean;
  /** It exited or failed before a pool adopted it. */
  gone: boolean;
  /** Resolves once it is ready or gone (for a caller that waits: tests). */
  settled: Promise<void>;
  listeners: { message: (message: unknown) => void; gone: () => void };
}

let early: EarlyWorker | undefined;

/**
 * Starts a stage worker before the pool that will use it exists. A one-shot build that will run stages
 * knows so before it loads its workspace, graph and state, and a worker's own start-up (Node's worker
 * bootstrap and the stage modules: about 125 ms on Node 20) then overlaps that work instead of
 * following it. The first
 * pool with the same bounds adopts it; a pool with other bounds (a config that sets
 * options.extract.maxHeapMb) stops it and starts its own. Unref'd: a build that ends up with nothing
 * to run exits without waiting for it. Returns its thread id and a promise of its start-up's end
 * (ready, or exited), which a build need not wait for.
 */
export function startWorkerEarly(bounds: PoolBounds): { threadId: number; settled: Promise<void> } {
  if (early !== undefined) return { threadId: early.worker.threadId, settled: early.settled };
  const full = { maxHeapMb: bounds.maxHeapMb, youngGenerationMb: bounds.youngGenerationMb ?? BUILD_YOUNG_GENERATION_MB };
  const worker = startWorker(full);
  let settle = (): void => {};
  const started: EarlyWorker = {
    worker,
    bounds: full,
    ready: false,
    gone: false,
    settled: new Promise<void>((resolve) => {
      settle = resolve;
    }),
    listeners: {
      message: (message) => {
        if ((message as { ready?: unknown }).ready === true) started.ready = true;
        settle();
      },
      gone: () => {
        started.gone = true;
        settle();
      },
    },
  };
  worker.on('message', started.listeners.message);
  worker.on('error', started.listeners.gone);
  worker.on('exit', started.listeners.gone);
  worker.unref();
  early = started;
  return { threadId: worker.threadId, settled: started.settled };
}

/**
 * The early worker when it was started with `bounds` and is alive, taken over by the caller; else
 * undefined (one with other bounds is stopped).
 */
function takeEarlyWorker(bounds: Required<PoolBounds>): { worker: Worker; ready: boolean } | undefined {
  const taken = early;
  if (taken === undefined) return undefined;
  early = undefined;
  const { worker, listeners } = taken;
  if (taken.gone) return undefined;
  if (taken.bounds.maxHeapMb !== bounds.maxHeapMb || taken.bounds.youngGenerationMb !== bounds.youngGenerationMb) {
    void worker.terminate(); // its own listeners see it exit
    return undefined;
  }
  worker.off('message', listeners.message);
  worker.off('error', listeners.gone);
  worker.off('exit', listeners.gone);
  return { worker, ready: taken.ready };
}

/**
 * The launcher that set itself here (bin/episteme.cjs, on Node with its code cache on) runs a stage
 * worker itself when started as a worker thread with STAGE_WORKER_ARGV: it loads the CommonJS stage
 * worker (dist/bundle/stage-worker-main.cjs) through a V8 code cache written after an earlier worker
 * ran its tasks, so a worker compiles almost nothing. Otherwise (Deno, Bun, the ./cli entry imported
 * by a program, NODE_DISABLE_COMPILE_CACHE=1) the ES module worker, stage-worker.js, runs the same loop.
 */
const STAGE_WORKER_LAUNCHER = Symbol.for('episteme.stageWorkerLauncher');
const STAGE_WORKER_ARGV = ['--stage-worker'];

function startWorker(bounds: Required<PoolBounds>): Worker {
  const launcher = (globalThis as Record<symbol, unknown>)[STAGE_WORKER_LAUNCHER];
  const cached = typeof launcher === 'string';
  return new Worker(cached ? launcher : WORKER_URL, {
    ...(cached ? { argv: STAGE_WORKER_ARGV } : {}),
    workerData: { compileCacheDir: COMPILE_CACHE_DIR } satisfies StageWorkerData,
    resourceLimits: {
      maxOldGenerationSizeMb: bounds.maxHeapMb,
      maxYoungGenerationSizeMb: bounds.youngGenerationMb,
      stackSizeMb: WORKER_STACK_MB,
    },
  });
}

export class StagePool {
  /** Tasks waiting for a lane, in arrival order: PDF extractions apart, as they take other lanes (pickLane). */
  private readonly waiting = { pdf: [] as Pending[], other: [] as Pending[] };
  private readonly lanes: Lane[] = [];
  /** Started extract tasks no build has taken yet, by document id (at most one each). */
  private readonly speculations = new Map<string, Speculation>();
  /** The speculations builds took since the last report: document id -> how long the task ran (ms). */
  private taken = new Map<string, number>();

  constructor(
    private readonly jobs: number,
    private readonly bounds: PoolBounds,
  ) {}

  /** Starts a worker ahead of the first task, so its start-up overlaps other work. */
  warm(): void {
    if (this.lanes.length === 0 && this.jobs > 0) this.startLane();
  }

  run<T extends StageTask>(task: T, bounds: TaskBounds = {}): Promise<StageResult<T>> {
    if (task.stage === 'extract') {
      const started = this.takeSpeculation(task.input.documentId, extractTaskKey(task.input));
      // A speculation that failed is not taken: the build runs its own task (a failure is its own).
      if (started !== undefined)
        return started.then(
          (result) => result as StageResult<T>,
          () => this.enqueue(task, bounds),
        );
    }
    return this.enqueue(task, bounds);
  }

  private enqueue<T extends StageTask>(task: T, bounds: TaskBounds): Promise<StageResult<T>> {
    return new Promise((resolve, reject) => {
      this.queueOf(bounds).push({ task, bounds, resolve: (result) => resolve(result as StageResult<T>), reject });
      this.pump();
    });
  }

  /**
   * Starts an extract task before any build asks for it; a build whose own task is the same takes its
   * result (run). One per document: a newer one replaces the last, which is dropped from the queue if it
   * has not started (a running one finishes, unused). At most one per worker is held (a checkout that
   * touches a thousand sources must not queue a thousand bodies): past that, none is started. Tasks
   * with workspace families are not compared, so not started.
   */
  speculate(task: Extract<StageTask, { stage: 'extract' }>, bounds: TaskBounds = {}): void {
    const key = extractTaskKey(task.input);
    if (key === null) return;
    this.dropSpeculation(task.input.documentId);
    if (this.speculations.size >= Math.max(1, this.jobs)) return;
    let pending: Pending | undefined;
    const result = new Promise<unknown>((resolve, reject) => {
      pending = { task, bounds, resolve, reject };
    });
    const speculation: Speculation = { key, pending: pending!, result, startedAt: performance.now(), endedAt: null };
    const ended = (): void => {
      speculation.endedAt = performance.now();
    };
    // A speculation no build takes must not surface as an unhandled rejection (nor one that failed: run).
    result.then(ended, ended);
    this.speculations.set(task.input.documentId, speculation);
    this.queueOf(bounds).push(speculation.pending);
    this.pump();
  }

  /** Drops every speculation no build took (a watch cycle ended; the save changed nothing). */
  dropSpeculations(): void {
    for (const documentId of [...this.speculations.keys()]) this.dropSpeculation(documentId);
  }

  /**
   * The speculations builds took since the last call, and how long each task ran (ms): the build waited
   * only for what was left of it.
   */
  takeSpeculationReport(): Map<string, number> {
    const report = this.taken;
    this.taken = new Map();
    return report;
  }

  private takeSpeculation(documentId: string, key: string | null): Promise<unknown> | undefined {
    const speculation = this.speculations.get(documentId);
    if (speculation === undefined) return undefined;
    if (key !== speculation.key) {
      this.dropSpeculation(documentId);
      return undefined;
    }
    this.speculations.delete(documentId);
    return speculation.result.then((result) => {
      this.taken.set(documentId, Math.round((speculation.endedAt ?? performance.now()) - speculation.startedAt));
      return result;
    });
  }

  private dropSpeculation(documentId: string): void {
    const speculation = this.speculations.get(documentId);
    if (speculation === undefined) return;
    this.speculations.delete(documentId);
    const queue = this.queueOf(speculation.pending.bounds);
    const queued = queue.indexOf(speculation.pending);
    if (queued !== -1) {
      queue.splice(queued, 1);
      speculation.pending.reject(new Error('speculative extraction dropped before it started'));
    }
  }

  private queueOf(bounds: TaskBounds): Pending[] {
    return bounds.pdf === true ? this.waiting.pdf : this.waiting.other;
  }

  private pump(): void {
    // Each kind's first waiting task, in turn, while one of them gets a lane: a task that waits for a
    // lane of its kind does not hold back the other kind.
    for (let progressed = true; progressed; ) {
      progressed = false;
      for (const queue of [this.waiting.other, this.waiting.pdf]) {
        const next = queue[0];
        const lane = next === undefined ? undefined : this.pickLane(next);
        if (lane === undefined) continue;
        queue.shift();
        this.dispatch(lane, next!);
        progressed = true;
      }
    }
  }

  /**
   * The lane for a task, starting or replacing a worker where the rules allow; undefined: it waits.
   * pdf.js's legacy build, which the PDF extractor loads, installs core-js polyfills in the worker's
   * globals when it loads (on Node 20 it replaces Array.prototype.push and JSON.parse, and adds the
   * iterator helpers): every later task on that worker runs slower (an HTML spec's extraction about
   * 20%, bench/RESULTS.md, session 26). So a worker that ran a PDF extraction takes PDF work only
   * (PDF extractions, and the chunk task of a document it holds), and other tasks go to clean workers.
   * At most `jobs` tasks run at once, on at most `jobs + 1` workers: the one more lets PDF work start a
   * worker of its own instead of taking the last clean one, so a clean worker warm from the HTML it ran
   * is always kept (watch extracts the edited spec there; a fresh worker runs its first saves cold).
   * When the pool is full and no clean worker is free, a free PDF worker is replaced by a fresh one once
   * no PDF task waits.
   */
  private pickLane(pending: Pending): Lane | undefined {
    if (this.lanes.filter((l) => l.current !== null).length >= this.jobs) return undefined;
    const { affinity, pdf = false } = pending.bounds;
    const free = this.lanes.filter((l) => l.current === null && !l.retired);
    const held = affinity === undefined ? undefined : free.find((l) => l.affinity === affinity);
    if (held !== undefined && (held.pdf ? pdf || pending.task.stage === 'chunk' : !pdf)) return held;
    const full = this.lanes.length > this.jobs;
    if (pdf) {
      // Full, with fewer than `jobs` tasks running: at least two workers are free, none of them a PDF
      // worker, so one takes PDF work and another stays clean.
      return free.find((l) => l.pdf) ?? (full ? free[0] : this.startLane());
    }
    const clean = free.find((l) => !l.pdf);
    if (clean !== undefined) return clean;
    if (!full) return this.startLane();
    // A PDF task waiting takes the free PDF worker first: a build's PDFs are drained before the worker
    // is replaced, rather than one replacement per PDF among the HTML.
    const tainted = free.find((l) => l.pdf);
    if (tainted === undefined || this.waiting.pdf.length > 0) return undefined;
    this.retire(tainted);
    void tainted.worker.terminate();
    return this.startLane();
  }

  private startLane(): Lane {
    const bounds = { maxHeapMb: this.bounds.maxHeapMb, youngGenerationMb: this.bounds.youngGenerationMb ?? BUILD_YOUNG_GENERATION_MB };
    const adopted = takeEarlyWorker(bounds);
    const worker = adopted?.worker ?? startWorker(bounds);
    const lane: Lane = {
      worker,
      current: null,
      timer: null,
      retired: false,
      ready: adopted?.ready ?? false,
      affinity: undefined,
      pdf: false,
      ranThisRound: false,
      idleRounds: 0,
    };
    worker.unref();
    worker.on('message', (message: { ready: true } | { ok: true; result: unknown } | { ok: false; error: SerializedError }) => {
      if ('ready' in message) {
        lane.ready = true;
        if (lane.current) this.startClock(lane, lane.current);
        return;
      }
      const pending = this.release(lane);
      if (!pending) return;
      worker.unref();
      if (message.ok) pending.resolve(message.result);
      else pending.reject(deserializeError(message.error));
      this.pump();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const pending = this.retire(lane);
      if (pending) pending.reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? this.memoryFailure(pending) : error);
      this.pump();
    });
    worker.on('exit', (code) => {
      const pending = this.retire(lane);
      if (pending) pending.reject(new Error(`The stage worker exited (code ${code}) while running a task.`));
      this.pump();
    });
    this.lanes.push(lane);
    return lane;
  }

  private dispatch(lane: Lane, pending: Pending): void {
    lane.current = pending;
    lane.affinity = pending.bounds.affinity;
    if (pending.bounds.pdf === true) lane.pdf = true;
    lane.ranThisRound = true;
    if (lane.ready) this.startClock(lane, pending);
    lane.worker.ref();
    try {
      lane.worker.postMessage(pending.task, pending.bounds.handOverBytes ? taskTransferables(pending.task) : []);
    } catch (error) {
      // A task that cannot be sent (a detached buffer) fails alone; the lane takes the next one.
      this.release(lane);
      lane.worker.unref();
      pending.reject(error);
    }
  }

  private startClock(lane: Lane, pending: Pending): void {
    const timeoutMs = pending.bounds.timeoutMs;
    if (timeoutMs === undefined) return;
    lane.timer = setTimeout(() => {
      const timedOut = this.retire(lane);
      void lane.worker.terminate();
      if (timedOut) timedOut.reject(this.timeoutFailure(timedOut, timeoutMs));
      this.pump();
    }, timeoutMs);
  }

  /** Ends the lane's current task, returning it (null when it had already settled). */
  private release(lane: Lane): Pending | null {
    const pending = lane.current;
    lane.current = null;
    if (lane.timer !== null) clearTimeout(lane.timer);
    lane.timer = null;
    return pending;
  }

  /** Workers running or ready to run. */
  get workers(): number {
    return this.lanes.length;
  }

  /** The thread ids of those workers. */
  get threadIds(): number[] {
    return this.lanes.map((lane) => lane.worker.threadId);
  }

  /**
   * Ends a round of work (a watch cycle). A worker that ran no task in the last `rounds` rounds in which
   * some worker ran one is stopped, giving its heap back; a round in which no worker ran counts for
   * none, so a quiet spell stops nothing. A later task that needs more workers than are left starts
   * them again (pump). Returns how many were stopped.
   */
  releaseIdle(rounds = IDLE_ROUNDS): number {
    if (!this.lanes.some((lane) => lane.ranThisRound)) return 0;
    let stopped = 0;
    for (const lane of [...this.lanes]) {
      lane.idleRounds = lane.ranThisRound ? 0 : lane.idleRounds + 1;
      lane.ranThisRound = false;
      if (lane.idleRounds < rounds || lane.current !== null) continue;
      this.retire(lane);
      void lane.worker.terminate();
      stopped++;
    }
    return stopped;
  }

  /**
   * Stops every worker not running a task, without waiting for them to exit: a one-shot build whose
   * stage targets have all settled (scheduler.ts). A later task starts a worker again (pump).
   */
  stopIdle(): void {
    for (const lane of [...this.lanes]) {
      if (lane.current !== null) continue;
      this.retire(lane);
      void lane.worker.terminate();
    }
  }

  /** Takes a lane out of service (terminated, out of memory, crashed): the next task gets a fresh worker. */
  private retire(lane: Lane): Pending | null {
    const pending = this.release(lane);
    if (!lane.retired) {
      lane.retired = true;
      lane.worker.unref();
      const index = this.lanes.indexOf(lane);
      if (index !== -1) this.lanes.splice(index, 1);
    }
    return pending;
  }

  private timeoutFailure(pending: Pending, timeoutMs: number): EpistemeError {
    const what = pending.bounds.label ?? pending.task.stage;
    const flag = pending.bounds.pdf ? '--pdf-timeout-ms' : '--extract-timeout-ms';
    const suggested = Math.min(3_600_000, timeoutMs * 4);
    return new EpistemeError('extract-timeout', `Extracting ${what} ran past its ${timeoutMs} ms bound and was stopped.`, {
      hint:
        'A timeout depends on the machine and its load, so nothing was recorded and the next build tries again. ' +
        'If the document is trusted, raise the bound (it does not enter keys: nothing that succeeded is re-extracted): ' +
        `\`episteme build ${flag} ${suggested}\`, or options.extract.${pending.bounds.pdf ? 'pdfTimeoutMs' : 'timeoutMs'} in the config.`,
      // The flag and value the hint names: a build that tripped several bounds says them in one command.
      details: { timeoutMs, raise: { flag, value: suggested } },
    });
  }

  /**
   * Every stage's worker has the extraction's heap bound (options.extract.maxHeapMb), so running out
   * of it is the same failure whatever the task: a chunk task of a document its extraction made too
   * large is bounded input, not a bug in Episteme.
   */
  private memoryFailure(pending: Pending): EpistemeError {
    const what = pending.bounds.label ?? pending.task.stage;
    const doing = STAGE_DOING[pending.task.stage];
    return new EpistemeError(
      'extract-memory-limit',
      `${doing} ${what} ran out of its ${this.bounds.maxHeapMb} MiB heap bound and was stopped.`,
      {
        hint:
          'Nothing was recorded. If the document is trusted and large, raise the bound: ' +
          `\`episteme build --extract-max-heap-mb ${Math.min(16_384, this.bounds.maxHeapMb * 2)}\`, or options.extract.maxHeapMb.`,
        details: {
          maxHeapMb: this.bounds.maxHeapMb,
          raise: { flag: '--extract-max-heap-mb', value: Math.min(16_384, this.bounds.maxHeapMb * 2) },
        },
      },
    );
  }

  async close(): Promise<void> {
    const lanes = this.lanes.splice(0);
    for (const lane of lanes) lane.retired = true;
    await Promise.all(lanes.map((lane) => lane.worker.terminate()));
  }
}
