import type { Workspace, WorkspaceSource } from '../config/workspace.js';
import { extractTask } from '../graph/rules/extract.js';
import { snapshotMetaFor } from '../graph/rules/snapshot.js';
import { loadStageModules } from '../graph/stage-modules.js';
import type { StagePool } from '../graph/stage-pool.js';
import { readBoundedFile } from '../store/bounded-read.js';

/**
 * A save's extraction, started while the save settles. Watch builds once the inputs have been quiet for
 * the debounce window (50 ms by default), so that a burst of writes is one build; the extraction of a
 * large spec is most of the build, and it need not wait for the window: once a saved source has been
 * quiet for SPECULATE_QUIET_MS, its extract task is sent to the stage pool with the bytes the file
 * holds then. The build that follows sends its own task; the pool hands it the started one's result
 * only when the two tasks are the same (stage-pool.ts: the same document, options and snapshot, whose
 * SHA-256 names the body). Nothing is written or committed early, so what a query sees and every
 * artifact are as without it; a save that changes again before its build only costs the work started.
 */
export const SPECULATE_QUIET_MS = 10;

export class SaveSpeculation {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** `start` runs for a file once it has had no event for SPECULATE_QUIET_MS. */
  constructor(private readonly start: (file: string) => void) {}

  /** An event on a watched input: (re)starts its quiet time. */
  note(file: string): void {
    const timer = this.timers.get(file);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.set(
      file,
      setTimeout(() => {
        this.timers.delete(file);
        this.start(file);
      }, SPECULATE_QUIET_MS),
    );
  }

  /** Forgets every quiet time that has not ended (a build started, or watch stops). */
  cancel(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/**
 * Sends the extract task of a local source's current bytes to `pool`, as the build would send it
 * (rules/extract.ts extractTask). A file that cannot be read now is left to the build, which reports it.
 */
export async function speculateExtraction(pool: StagePool, ws: Workspace, source: WorkspaceSource): Promise<void> {
  const capture = source.capture;
  if (capture.method !== 'manual-ingest') return;
  const stages = await loadStageModules();
  let body: Buffer;
  try {
    body = readBoundedFile(capture.absolutePath, { label: 'Source file', maxBytes: ws.limits.maxFileBytes });
  } catch {
    return;
  }
  const meta = snapshotMetaFor(source.spec.url, capture.method, capture.contentType, capture.charset, body);
  const { task, bounds } = extractTask(stages, ws, source, meta, body);
  pool.speculate(task, bounds);
}
