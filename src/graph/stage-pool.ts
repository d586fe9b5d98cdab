import { Worker } from 'node:worker_threads';
import { runStageTask, type StageTask } from './stage-tasks.js';
import { EpistemeError, FAILURE_CODES, type FailureCode } from '../failure.js';

/**
 * Runs stage tasks on up to `jobs` lanes: the main thread is one lane, worker threads (started only
 * when tasks queue up) are the others. Task results do not depend on the lane, so parallel output equals
 * one-worker output.
 */
interface Pending {
  task: StageTask;
  resolve: (bytes: string) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  worker: Worker | null;
  busy: boolean;
  current: Pending | null;
}

const WORKER_URL = new URL('./stage-worker.js', import.meta.url);

export class StagePool {
  private readonly queue: Pending[] = [];
  private readonly lanes: Lane[] = [];

  constructor(private readonly jobs: number) {
    this.lanes.push({ worker: null, busy: false, current: null });
  }

  run(task: StageTask): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let lane = this.lanes.find((l) => !l.busy);
      if (!lane && this.lanes.length < this.jobs) {
        lane = this.startWorkerLane();
      }
      if (!lane) return;
      const pending = this.queue.shift()!;
      this.dispatch(lane, pending);
    }
  }

  private startWorkerLane(): Lane {
    const lane: Lane = { worker: new Worker(WORKER_URL), busy: false, current: null };
    lane.worker!.unref();
    lane.worker!.on('message', (message: { ok: true; bytes: string } | { ok: false; error: SerializedError }) => {
      const pending = lane.current!;
      lane.current = null;
      lane.busy = false;
      lane.worker!.unref();
      if (message.ok) pending.resolve(message.bytes);
      else pending.reject(deserializeError(message.error));
      this.pump();
    });
    lane.worker!.on('error', (error) => {
      const pending = lane.current;
      lane.current = null;
      lane.busy = false;
      this.lanes.splice(this.lanes.indexOf(lane), 1);
      pending?.reject(error);
      this.pump();
    });
    this.lanes.push(lane);
    return lane;
  }

  private dispatch(lane: Lane, pending: Pending): void {
    lane.busy = true;
    lane.current = pending;
    if (lane.worker === null) {
      // Main-thread lane: yield first so worker lanes get their messages posted before we block.
      setImmediate(() => {
        runStageTask(pending.task).then(
          (bytes) => {
            lane.busy = false;
            lane.current = null;
            pending.resolve(bytes);
            this.pump();
          },
          (error: unknown) => {
            lane.busy = false;
            lane.current = null;
            pending.reject(error);
            this.pump();
          },
        );
      });
    } else {
      lane.worker.ref();
      lane.worker.postMessage(pending.task);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.worker?.terminate()));
  }
}

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; hint?: unknown; details?: unknown };
    const out: SerializedError = { name: e.name, message: e.message };
    if (e.stack !== undefined) out.stack = e.stack;
    if (typeof e.code === 'string') out.code = e.code;
    if (typeof e.hint === 'string') out.hint = e.hint;
    if (e.details && typeof e.details === 'object') out.details = e.details as Record<string, unknown>;
    return out;
  }
  return { name: 'Error', message: String(error) };
}

function deserializeError(s: SerializedError): Error {
  if (s.name === 'EpistemeError' && s.code && s.code in FAILURE_CODES) {
    const opts: { hint?: string; details?: Record<string, unknown> } = {};
    if (s.hint !== undefined) opts.hint = s.hint;
    if (s.details !== undefined) opts.details = s.details;
    return new EpistemeError(s.code as FailureCode, s.message, opts);
  }
  const error = new Error(s.message);
  error.name = s.name;
  if (s.stack !== undefined) error.stack = s.stack;
  return error;
}
