import { workerData } from 'node:worker_threads';
import type { StageWorkerData } from './stage-pool.js';

// The ES module stage worker (StagePool starts it unless the launcher's CommonJS one can be used:
// stage-worker-main.ts). The launcher's module compile cache, which a worker thread does not inherit
// (Node 22.1+; see StageWorkerData): enabled before the stage modules below are loaded.
const compileCacheDir = (workerData as StageWorkerData | null)?.compileCacheDir;
const moduleApi = process.getBuiltinModule('node:module') as { enableCompileCache?: (directory: string) => unknown };
if (compileCacheDir !== undefined && typeof moduleApi.enableCompileCache === 'function') {
  try {
    moduleApi.enableCompileCache(compileCacheDir);
  } catch {
    // A cache that cannot be set up only costs speed.
  }
}

// The stage modules load before the worker reports ready (serveStageTasks).
const [{ serveStageTasks }] = await Promise.all([
  import('./stage-worker-loop.js'),
  import('../extract/extract.js'),
  import('../chunk/chunker.js'),
  import('../index/search-index.js'),
]);
serveStageTasks();
