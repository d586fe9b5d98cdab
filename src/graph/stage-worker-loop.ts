import { parentPort } from 'node:worker_threads';
import { runStageTask, transferablesOf, type StageTask } from './stage-tasks.js';
import { serializeError } from './stage-errors.js';
import { WorkerMemory } from './worker-memory.js';

/**
 * Worker-thread side of StagePool: one task at a time, results posted back as artifact bytes and
 * facts. The caller has loaded the stage modules, so a task's time bound measures the task, not the
 * worker's start-up. `afterTask` runs once a task has settled, before its result is posted (the
 * launcher's stage worker writes its code cache there: bin/episteme.cjs).
 */
export function serveStageTasks(afterTask?: (stage: StageTask['stage']) => void): void {
  // What this worker keeps between its tasks (a document it extracted for its chunk task, the last
  // round of a document's chunking): it lives as long as the worker, which lives as long as its
  // build or watch.
  const memory = new WorkerMemory();
  parentPort!.on('message', (task: StageTask) => {
    runStageTask(task, memory).then(
      (result) => {
        afterTask?.(task.stage);
        // The artifact bytes move to the main thread (transferred: a large document is not copied).
        parentPort!.postMessage({ ok: true, result }, transferablesOf(result));
      },
      (error: unknown) => {
        afterTask?.(task.stage);
        parentPort!.postMessage({ ok: false, error: serializeError(error) });
      },
    );
  });
  parentPort!.postMessage({ ready: true });
}
