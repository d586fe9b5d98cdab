// The stage worker as one self-contained CommonJS file (dist/bundle/stage-worker-main.cjs), which the
// launcher loads in a worker thread through a V8 code cache of its own (bin/episteme.cjs,
// serveStageWorker): the same loop as stage-worker.ts, with the stage modules loaded before it starts.
import '../extract/extract.js';
import '../chunk/chunker.js';
import '../index/search-index.js';

export { serveStageTasks } from './stage-worker-loop.js';
