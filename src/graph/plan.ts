import type { Workspace } from '../config/workspace.js';
import { defaultJobs, runBuild, type BuildSummary } from './build.js';

/**
 * What a build of `targets` would do, without doing it: each target's status and reasons. The dry run
 * behind `explain` and `graph`; it never takes the writer lock, so it can run beside a build.
 */
export function planBuild(ws: Workspace, targets: string[], command: string): Promise<BuildSummary> {
  return runBuild(ws, { targets, dryRun: true, allowPartial: false, jobs: defaultJobs(), waitLockMs: 0, command });
}
