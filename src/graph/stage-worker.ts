import { parentPort } from 'node:worker_threads';
import { runStageTask, type StageTask } from './stage-tasks.js';
import { serializeError } from './stage-pool.js';

// Worker-thread side of StagePool: one task at a time, results posted back as artifact bytes.
parentPort!.on('message', (task: StageTask) => {
  runStageTask(task).then(
    (bytes) => parentPort!.postMessage({ ok: true, bytes }),
    (error: unknown) => parentPort!.postMessage({ ok: false, error: serializeError(error) }),
  );
});
