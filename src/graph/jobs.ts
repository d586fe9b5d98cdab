import * as os from 'node:os';

/** Default parallelism: every core. */
export function defaultJobs(): number {
  return Math.max(1, os.availableParallelism());
}
