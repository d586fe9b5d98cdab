import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { EpistemeError, type Warning } from '../failure.js';
import { initFastHash } from '../store/hash.js';
import { isSystemError, relativeToWorkspace, writeFailure } from '../store/write-failure.js';
import { STATE_DIR_NAME } from '../store/names.js';
import { acquireWorkspaceLock } from '../store/workspace-lock.js';
import { buildGraph, closure } from './graph.js';
import { collectGarbage, collectReleasedGarbage, removeOwnedFile, sweepOwnedTempFiles, sweepTransientFolder } from './garbage.js';
import { runSchedule, isAction, type TargetResult, type TargetStatus } from './scheduler.js';
import { BuildState, type TargetRecord } from './state.js';
import { StagePool } from './stage-pool.js';
import { loadStageModules } from './stage-modules.js';
import { namedOptions } from './key.js';
import { cleanRecordFor, cleanRecordHolds } from './clean-build.js';
import { heldGroups, proofLayout, type ProofCheck } from './noop-proof.js';
import { checkOwnedFolders, claimOwnedFolders, ownedFolders } from '../config/owned-folders.js';
import { CaptureRun, type CaptureRequest } from '../capture/run.js';
import type { TargetCache } from './rules/types.js';
import { RuleMemory } from './rule-memory.js';
import type { BuildMemory } from './build-memory.js';

export interface BuildRequest {
  /** Target paths; empty means every target. */
  targets: string[];
  dryRun: boolean;
  allowPartial: boolean;
  /** --debug: stack traces of unexpected stage failures go into their target's error details. */
  debug?: boolean;
  jobs: number;
  waitLockMs: number;
  command: string;
  /**
   * What the build reads (see clean-build.ts invocationId); when given and the whole graph builds
   * cleanly, the state remembers it so the next no-op is proven from stats alone.
   */
  invocation?: string | null;
  /**
   * Also delete captured snapshots (records, bodies, observation logs) of sources no longer in the
   * graph. Without it they are kept: a capture cannot be recomputed (see garbage.ts).
   */
  pruneSnapshots?: boolean;
  /** HTTP capture: refresh policy (--refresh, --max-age) and per-source progress. Default: no refresh. */
  capture?: CaptureRequest;
  onEvent?: (event: { type: 'start' | 'finish'; target: string; status?: TargetStatus }) => void;
  /** How many targets are left to evaluate after the first pass, and each as it settles (progress). */
  onPlan?: (pending: number) => void;
  onSettled?: (result: TargetResult) => void;
  /** The action cache to consult before running a rule (--remote-cache); none by default. */
  cache?: TargetCache;
  /** Called as each phase of the build begins (for --trace). */
  onPhase?: (phase: 'load-stages' | 'graph' | 'lock' | 'state' | 'schedule' | 'commit' | 'garbage' | 'done') => void;
  /**
   * Workers kept alive by a long-running caller (watch), so an edit does not pay their start-up again.
   * The build uses it as given and leaves it open; without it, a pool lives for this build only.
   */
  pool?: StagePool;
  /** The state and graph a long-running caller (watch) keeps between builds; see build-memory.ts. */
  memory?: BuildMemory;
  /** What the no-op check found when some groups of the proof moved (clean-build.ts): not checked again. */
  proofCheck?: ProofCheck;
}

export interface BuildSummary {
  targets: TargetResult[];
  counts: Record<TargetStatus, number>;
  /** Targets whose rule ran (built or unchanged). */
  actions: number;
  /** Files removed because no generation names them any more. */
  removed: string[];
  ok: boolean;
  /** Damaged state or cache entries that were dropped, snapshot bodies that were repaired. */
  warnings?: Warning[];
}

export { defaultJobs } from './jobs.js';

/** One build: lock, recover from any crash, evaluate the requested closure, commit state, collect garbage. */
export async function runBuild(ws: Workspace, request: BuildRequest): Promise<BuildSummary> {
  request.onPhase?.('load-stages');
  await initFastHash();
  // Option names and types are checked before anything runs: a bad config is exit 2, not N failed targets.
  const stages = await loadStageModules();
  const extractOptions = stages.extractOptions(ws.options.extract);
  const shared = {
    chunk: namedOptions('chunk', stages.chunkOptions(ws.options.chunk)),
    index: namedOptions('index', stages.indexOptions(ws.options.index)),
  };
  request.onPhase?.('graph');
  const graph = request.memory ? request.memory.graphFor(ws) : buildGraph(ws);
  const names = closure(graph, request.targets);
  request.onPhase?.('lock');
  const lock = request.dryRun
    ? null
    : await acquireWorkspaceLock(ws.root, ws.stateDir, {
        waitMs: request.waitLockMs,
        command: request.command,
        // The load checked the workspace's folders, but they may have been replaced since (watch builds
        // again and again from one load): checked again under the lock, before the first write.
        verify: () => checkOwnedFolders(ws.root, ownedFolders(ws.outputs)),
      });
  const pool = request.pool ?? new StagePool(request.dryRun ? 1 : request.jobs, { maxHeapMb: extractOptions.maxHeapMb });
  try {
    if (!request.dryRun) claimOwnedFolders(ws.root, ownedFolders(ws.outputs));
    request.onPhase?.('state');
    const state = request.memory && !request.dryRun ? request.memory.takeState(ws.stateDir) : BuildState.load(ws.stateDir, request.dryRun);
    // Temp files are what a writer left when it crashed; nothing has written since a clean commit the
    // no-op proof still vouches for, so then there are none (and no listing of every output folder). A
    // long-running caller (watch) sweeps once, not on every edit; a later one-shot build sweeps the rest.
    if (!request.dryRun && !state.untouchedSinceCleanCommit() && (request.memory?.firstSweep(ws.root) ?? true)) {
      for (const dir of [
        ws.outputs.snapshots,
        `${ws.outputs.snapshots}/records`,
        `${ws.outputs.snapshots}/bodies`,
        `${ws.outputs.snapshots}/observations`,
        ws.outputs.specs,
        ws.outputs.chunks,
        STATE_DIR_NAME,
        `${STATE_DIR_NAME}/noop`,
      ]) {
        sweepOwnedTempFiles(ws.root, dir);
      }
    }
    // A blob streamed from the remote cache stays there from its download to its check (remote-cache.ts):
    // a build killed in between left it, verified (its final name) or not, whatever the state says, and
    // no later build would ever read it (up to 8 x limits.maxFileBytes each). None is in use now.
    if (!request.dryRun) sweepTransientFolder(ws.root, `${STATE_DIR_NAME}/cache/remote-blobs`);
    // A state that is not clean may hold a crashed build's garbage even when no record changes: the
    // clean record is written only after a build's garbage is collected (below).
    const cleanAtLoad = state.clean !== null;
    const recordedOptionsHold = state.clean !== null && cleanRecordHolds(state.clean, request.invocation);
    // The last build was complete and clean, of the same inputs and versions, so it left no garbage
    // behind: this one can only make its own.
    const followsCleanBuild = recordedOptionsHold && !state.mayHoldUnknownGarbage();
    // While the state is as the last clean build left it, the groups whose proof still holds are up to
    // date as a whole (noop-proof.ts): an edit checks one group target by target, not the corpus. Not
    // for a refresh (a recorded snapshot may be due) or an upload (up-to-date targets go to the cache).
    // Watch keeps the same memo per group in memory, fed by its file events (settled-groups.ts).
    const refresh = request.capture?.refresh;
    const groupsMaySettle = !request.cache?.uploads && !refresh?.force && (refresh?.maxAgeSeconds ?? null) === null;
    const proofApplies = groupsMaySettle && recordedOptionsHold && state.untouchedSinceCleanCommit() && request.memory === undefined;
    const held = proofApplies ? heldGroups(ws.root, ws.stateDir, graph, request.proofCheck) : null;
    if (held !== null) state.keepProofGroups(held.kept);
    const settled =
      request.memory !== undefined && !request.dryRun && groupsMaySettle && names === graph.order ? request.memory.settled : null;
    const proven = held?.proven ?? settled?.begin(graph);
    // Anything may change from here on: the no-op proof no longer holds until this build ends cleanly.
    state.setClean(null);
    // Records of targets that left the graph (sources removed from the map, or a one-off --map) are
    // dropped and their derived files go once no committed index names them. Snapshot records stay
    // (unless --prune-snapshots): they keep the captured record and body alive, and bring the source
    // back as up to date, without a recapture, when it returns to the graph.
    for (const name of state.targets.names()) {
      if (graph.nodes.has(name)) continue;
      if (state.targets.get(name)?.components.rule === 'snapshot' && !request.pruneSnapshots) continue;
      state.recordTarget(name, null);
    }
    const liveFiles = new Set(ws.sources.flatMap((s) => (s.capture.method === 'manual-ingest' ? [s.capture.relativePath] : [])));
    for (const file of [...state.files.keys()]) if (!liveFiles.has(file)) state.forgetFile(file);

    request.onPhase?.('schedule');
    const capture = new CaptureRun(ws.limits.capture, request.capture);
    const warnings: Warning[] = [...state.diagnostics];
    const results = await runSchedule(
      graph,
      names,
      {
        ws,
        state,
        pool,
        stages,
        shared,
        capture,
        warnings,
        memory: request.memory?.rules ?? new RuleMemory(),
        ...(request.cache ? { cache: request.cache } : {}),
      },
      {
        dryRun: request.dryRun,
        debug: request.debug ?? false,
        allowPartial: request.allowPartial,
        onEvent: request.onEvent,
        onPlan: request.onPlan,
        onSettled: request.onSettled,
        recordedOptionsHold,
        ...(proven !== undefined ? { proven } : {}),
        stopWorkersAfterStages: request.pool === undefined,
      },
    );
    let removed: string[] = [];
    if (!request.dryRun) {
      claimOwnedFolders(ws.root, ownedFolders(ws.outputs));
      request.onPhase?.('commit');
      const completeAndClean =
        request.targets.length === 0 && results.every((r) => r.status === 'up-to-date' || r.status === 'built' || r.status === 'unchanged');
      // The records first, the clean record (and the no-op proof) only once the garbage they release
      // is collected: a build killed in between leaves a state that says it is not clean, so the next
      // build sweeps. A clean record written first told the next build there was nothing to collect
      // (or only its own replaced files), and the killed build's garbage stayed for good.
      const cleanRecordFollows = completeAndClean && Boolean(request.invocation);
      const hadChanges = state.hasChanges();
      state.compact({ deferProof: request.memory !== undefined });
      request.onPhase?.('garbage');
      // Garbage only appears when a record changed (this run or a crashed one, folded in above), or
      // when a build ended without its clean record (it may have been killed before collecting).
      if (completeAndClean && followsCleanBuild && !request.pruneSnapshots) {
        // The indexes this build committed name exactly what the records name: only the files of
        // replaced records can be unreachable (O(changed), not a pass over every output folder).
        removed = collectReleasedGarbage(ws, state);
        pruneReleasedIndexParts(ws, state, stages.indexPartFormat);
      } else if (state.recordsHaveChanged() || request.pruneSnapshots || !cleanAtLoad) {
        removed = collectGarbage(ws, state, {
          pruneSnapshots: request.pruneSnapshots === true,
          liveDocumentIds: new Set(ws.sources.map((s) => s.documentId)),
        });
        pruneIndexParts(ws, state, stages.indexPartFormat);
      }
      if (cleanRecordFollows && request.invocation) {
        // Nothing written so far: the workspace was clean and stays as it is; only the clean record may
        // differ (another invocation proved it clean: `pipeline --map map.json`, then `build` reading the
        // config that run wrote), and it only lets later builds of this invocation skip the checks.
        const changedNothing = !hadChanges && !state.recordsHaveChanged() && removed.length === 0;
        try {
          state.setClean(cleanRecordFor(ws, graph, request.invocation), proofLayout(graph));
          state.compact({ deferProof: request.memory !== undefined });
          if (request.memory === undefined) state.writeProofIfMissing(held?.refused ?? false);
        } catch (error) {
          // A build that finds nothing to do writes nothing it needs: on a workspace that refuses
          // writes (read-only) it succeeds, keeping the clean record on disk, which is as true.
          if (!changedNothing || request.memory !== undefined || !refusedWrite(error)) throw error;
        }
      }
    }
    request.onPhase?.('done');
    state.close();
    if (!request.dryRun) request.memory?.keepState(state);
    settled?.end(graph, results, state.targets, ws.root);
    const counts: Record<TargetStatus, number> = {
      'up-to-date': 0,
      built: 0,
      unchanged: 0,
      failed: 0,
      skipped: 0,
      dirty: 0,
      'maybe-dirty': 0,
    };
    for (const result of results) counts[result.status] += 1;
    return {
      targets: results,
      counts,
      actions: results.filter((r) => isAction(r.status) && !r.restored).length,
      removed,
      ok: counts.failed === 0 && counts.skipped === 0,
      warnings,
    };
  } catch (error) {
    request.memory?.settled.abandon();
    // Commit, compaction and garbage collection write and delete: a refusal from the file system
    // (read-only, disk full) is write-failed naming the workspace-relative path, never internal-error.
    const failure = isSystemError(error) ? writeFailure(error, error.path ?? ws.stateDir) : error;
    throw relativeToWorkspace(failure, ws.root);
  } finally {
    if (request.pool === undefined) await pool.close();
    await lock?.release();
  }
}

/** Whether `error` is the file system refusing a write (as raised, or already made write-failed). */
function refusedWrite(error: unknown): boolean {
  return isSystemError(error) || (error instanceof EpistemeError && error.code === 'write-failed');
}

/** Removes the cached index parts of chunk content that only a replaced record named. */
function pruneReleasedIndexParts(ws: Workspace, state: BuildState, partFormat: string): void {
  const released = new Set<string>();
  for (const record of state.releasedRecords())
    if (record.components.rule === 'chunk' && record.facts?.chunksContentHash) released.add(record.facts.chunksContentHash);
  if (released.size === 0) return;
  // Only chunk records whose text names one of those hashes can still use its part (no parse of every record).
  const live = new Set<string>();
  const chunkFolder = `${ws.outputs.chunks}/`;
  const isChunk = (name: string): boolean => name.startsWith(chunkFolder);
  const naming = (record: TargetRecord): boolean => released.has(record.facts?.chunksContentHash ?? '');
  for (const record of state.targets.mentioning(isChunk, [...released], naming).values())
    if (record.components.rule === 'chunk' && record.facts?.chunksContentHash) live.add(record.facts.chunksContentHash);
  for (const key of released)
    if (!live.has(key)) removeOwnedFile(path.join(ws.stateDir, 'cache', 'index-parts', `${key}.p${partFormat}.part`));
}

/** Keeps only cached index parts, in the current part format, of chunk content that a current record names. */
function pruneIndexParts(ws: Workspace, state: BuildState, partFormat: string): void {
  const dir = path.join(ws.stateDir, 'cache', 'index-parts');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const live = new Set<string>();
  for (const record of state.targets.values())
    if (record.components.rule === 'chunk' && record.facts?.chunksContentHash) live.add(record.facts.chunksContentHash);
  for (const name of names) {
    const key = name.split('.')[0]!;
    if (!live.has(key) || name !== `${key}.p${partFormat}.part`) removeOwnedFile(path.join(dir, name));
  }
}
