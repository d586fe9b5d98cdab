import { parentPort } from 'node:worker_threads';
import { runStageTask, type StageTask } from './stage-tasks.js';
import { serializeError } from './stage-pool.js';

// Worker-thread side of StagePool: one task at a time, results posted back as artifact bytes and facts. The
// stage modules load before the worker reports ready, so a task's time bound measures the task, not
// the worker's start-up.
await Promise.all([import('../extract/extract.js'), import('../chunk/chunker.js'), import('../index/search-index.js')]);
parentPort!.on('message', (task: StageTask) => {
  runStageTask(task).then(
    (result) => parentPort!.postMessage({ ok: true, result }),
    (error: unknown) => parentPort!.postMessage({ ok: false, error: serializeError(error) }),
  );
});
parentPort!.postMessage({ ready: true });
