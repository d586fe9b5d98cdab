import { parentPort, workerData } from 'node:worker_threads';
import { runStageTask, transferablesOf, type StageTask } from './stage-tasks.js';
import { serializeError, type StageWorkerData } from './stage-pool.js';
import { WorkerMemory } from './worker-memory.js';

// The launcher's module compile cache, which a worker thread does not inherit (Node 22.1+; see
// StageWorkerData): enabled before the stage modules below are loaded.
const compileCacheDir = (workerData as StageWorkerData | null)?.compileCacheDir;
const moduleApi = process.getBuiltinModule('node:module') as { enableCompileCache?: (directory: string) => unknown };
if (compileCacheDir !== undefined && typeof moduleApi.enableCompileCache === 'function') {
  try {
    moduleApi.enableCompileCache(compileCacheDir);
  } catch {
    // A cache that cannot be set up only costs speed.
  }
}

// Worker-thread side of StagePool: one task at a time, results posted back as artifact bytes and facts. The
// stage modules load before the worker reports ready, so a task's time bound measures the task, not
// the worker's start-up.
await Promise.all([import('../extract/extract.js'), import('../chunk/chunker.js'), import('../index/search-index.js')]);
// What this worker keeps between its tasks (a document it extracted for its chunk task, the last round
// of a document's chunking): it lives as long as the worker, which lives as long as its build or watch.
const memory = new WorkerMemory();
parentPort!.on('message', (task: StageTask) => {
  runStageTask(task, memory).then(
    // The artifact bytes move to the main thread (transferred: a large document is not copied).
    (result) => parentPort!.postMessage({ ok: true, result }, transferablesOf(result)),
    (error: unknown) => parentPort!.postMessage({ ok: false, error: serializeError(error) }),
  );
});
parentPort!.postMessage({ ready: true });
