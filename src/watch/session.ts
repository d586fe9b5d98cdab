import * as path from 'node:path';
import { EpistemeError, describeCause, type Warning } from '../failure.js';
import { findConfigUpward } from '../store/find-workspace.js';
import { isDirectory } from '../store/bounded-read.js';
import { loadWorkspace, CONFIG_FILE_NAME, type Workspace, type WorkspaceFlags } from '../config/workspace.js';
import { forgetRegisteredFamilyIds } from '../config/manifest.js';
import { checkOwnedFolders, ownedFolders } from '../config/owned-folders.js';
import { forgetLoadedFamilies } from '../extract/families.js';
import { rulesDir } from '../extract/package-paths.js';
import { runBuild, type BuildSummary } from '../graph/build.js';
import { StagePool, watchYoungGenerationMb } from '../graph/stage-pool.js';
import { BuildMemory } from '../graph/build-memory.js';
import { loadStageModules } from '../graph/stage-modules.js';
import { isAction } from '../graph/scheduler.js';
import { aggregateNames, targetNames } from '../graph/graph.js';
import { outputFolders } from '../graph/garbage.js';
import { stampOf } from '../graph/state.js';
import { NO_REFRESH } from '../capture/run.js';
import { acquireWorkspaceLock } from '../store/workspace-lock.js';
import { recordFailuresOrWarning } from '../graph-view/failures.js';
import { ContentHashes, DEFAULT_WATCH_MAX_BYTES, FolderWatches, statProbe, workspaceInputs, type WatchedInputs } from './inputs.js';
import { Watcher } from './watcher.js';
import { SaveSpeculation, speculateExtraction } from './speculation.js';
import type { WatchEvent } from './events.js';
import { appendAll } from '../array-extremes.js';

/**
 * One `episteme watch`: the watched inputs, the state kept between builds, and one build per cycle
 * through the engine's own entry point (graph/build.ts runBuild), so every cycle commits exactly what a
 * one-shot build would and leaves the workspace equal to a clean build.
 *
 * Kept in memory between builds: the loaded workspace (reloaded only when the config, map, manifest or
 * a rules file changed; an edited source only has its stat refreshed), the graph derived from it and
 * the build state the last build committed (graph/build-memory.ts: reused while the state files on
 * disk are as that build left them, else read again, so another process's build is never missed), which
 * proof groups are settled (their last check held and no file event touched them since: every event in
 * a watched folder, outputs included, reaches graph/settled-groups.ts), the stage workers (their
 * start-up is paid once, not per edit), and the content hash of every input. Each build commits to
 * disk exactly as a one-shot build does.
 */
export interface WatchSessionOptions {
  cwd: string;
  flags: WorkspaceFlags;
  invocation: string | null;
  jobs: number;
  waitLockMs: number;
  debounceMs: number;
  allowPartial: boolean;
  debug: boolean;
  /**
   * Called with each workspace loaded, before anything is built or watched: writes episteme.json for a
   * workspace given only by flags (config/remember-workspace.ts) and returns its path, else null.
   */
  remember(ws: Workspace): string | null;
  /** The error a one-shot build would report for this summary (failed targets, diagnostics), if any. */
  failureOf(summary: BuildSummary): EpistemeError | undefined;
  emit(event: WatchEvent, warnings: Warning[]): void;
}

/** Quiet time after a build before the no-op proof it deferred is written. */
const PROOF_IDLE_MS = 1000;
/** How long stopping waits for the workspace lock to write that proof. */
const PROOF_LOCK_WAIT_MS = 2000;

export class WatchSession {
  private ws: Workspace | null = null;
  private sourcesByPath = new Map<string, Workspace['sources'][number]>();
  private inputs: WatchedInputs = { files: new Set(), shaping: new Set() };
  /**
   * Folders whose .json files are all family rules: the built-in rules folder and the workspace's own
   * (episteme.json "rules", as the last good load named it). Watched as folders, so a file added to
   * one is seen, not only edits of the files a build read.
   */
  private rulesFolders: string[] = [];
  /** The workspace object the watches were last armed for: an edit that reloads nothing keeps them. */
  private watchedFor: Workspace | null | undefined = undefined;
  // What confirm reads of a changed input, the build it starts takes instead of reading it again.
  private readonly hashes = new ContentHashes(
    () => this.ws?.limits.maxFileBytes ?? DEFAULT_WATCH_MAX_BYTES,
    (file, stat, bytes) => this.memory.rules.reads.rememberSource(file, stampOf(stat), bytes),
  );
  private readonly folders: FolderWatches;
  private readonly watcher: Watcher;
  private pool: StagePool | null = null;
  /** Starts a saved source's extraction while its save settles (speculation.ts). */
  private readonly speculation = new SaveSpeculation((file) => this.guarded(() => this.speculate(file)));
  private readonly memory = new BuildMemory();
  private cycles = 0;
  /** The config this watch wrote, until the next cycle event reports it. */
  private configWritten: string | null = null;
  /** Writes the no-op proof the last build deferred, once the watch has been idle a while. */
  private proofTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: WatchSessionOptions) {
    this.folders = new FolderWatches(
      (file) => this.noteInput(file),
      (file) => this.isInput(file),
      // Every event in a watched folder (inputs and outputs) reaches the memos of settled groups.
      {
        file: (file) => {
          this.memory.settled.noteFile(file);
          // Any event in a folder (its permission given back reports only the folder) looks again at
          // the inputs there that could not be read.
          for (const input of this.hashes.unreadableIn(path.dirname(file))) this.noteInput(input);
        },
        folderLost: () => this.memory.settled.noteFolderLost(),
        fault: (error) => this.fault(error),
      },
    );
    this.memory.settled.listen(this.folders);
    this.watcher = new Watcher({
      debounceMs: options.debounceMs,
      confirm: (paths) => this.hashes.confirm(paths),
      build: (changed, firstEventAt) => this.cycle(changed, firstEventAt),
      ignored: (paths) => {
        this.memory.rules.reads.clear();
        this.pool?.dropSpeculations();
        options.emit({ event: 'ignored', paths: paths.map((p) => this.label(p)) }, []);
      },
      fault: (error, paths) => this.fault(error, paths),
    });
  }

  /** Loads the workspace, arms the watches and runs the first build. */
  async start(): Promise<void> {
    try {
      this.ws = await this.loadWorkspace();
    } catch {
      // Reported by the first cycle, which loads again; the fallback inputs are watched meanwhile.
      this.ws = null;
    }
    this.watchInputs();
    this.options.emit({ event: 'watching', inputs: this.inputs.files.size, debounceMs: this.options.debounceMs }, []);
    this.watcher.start();
  }

  /** Stops watching; a build in flight finishes and commits first; the workers end. */
  async stop(signal: string): Promise<void> {
    this.folders.close();
    this.speculation.cancel();
    if (this.proofTimer) clearTimeout(this.proofTimer);
    await this.watcher.stop();
    // The proof the last build deferred: a one-shot build after watch then proves its no-op from stats.
    if (this.ws !== null) await this.writeDeferredProof(this.ws, PROOF_LOCK_WAIT_MS);
    await this.pool?.close();
    this.pool = null;
    this.options.emit({ event: 'stopped', signal, cycles: this.cycles }, []);
  }

  /**
   * Enters the folder the watch started in again, by name, before anything that may start a worker. A
   * workspace folder deleted and created again (or replaced by a copy) leaves this process in the
   * deleted folder, and Node's worker start-up reads the current folder (getcwd: ENOENT), so every
   * worker started there failed; the main thread's process.cwd() is cached and never tells. One chdir
   * costs less than comparing the two folders' identities. Everything else uses the absolute path the
   * watch started from.
   */
  private reenterWorkspaceFolder(): void {
    try {
      process.chdir(this.options.cwd);
    } catch {
      // not there (yet): the load reports the missing workspace, and a later cycle tries again
    }
  }

  private async loadWorkspace(): Promise<Workspace> {
    const ws = await loadWorkspace(this.options.cwd, this.options.flags);
    // Written before the inputs are armed, so the new config is watched like any other.
    this.configWritten ??= this.options.remember(ws);
    return ws;
  }

  /** An event on an input: a change to confirm once the burst settles. */
  private noteInput(file: string): void {
    // The build in flight may have read it before or after this event: the next confirm must not
    // compare with what the last confirm saw, so it reports the input changed and the build checks it.
    if (this.watcher.state === 'building' || this.watcher.state === 'building-queued') this.hashes.forget(file);
    this.watcher.noteEvent(file);
    if (this.watcher.state === 'settling') this.speculation.note(file);
  }

  /** A saved source quiet for a moment while the save settles: start its extraction (speculation.ts). */
  private speculate(file: string): void {
    const source = this.sourcesByPath.get(file);
    if (this.watcher.state !== 'settling' || this.pool === null || this.ws === null || source === undefined) return;
    this.reenterWorkspaceFolder();
    speculateExtraction(this.pool, this.ws, source).catch(() => {
      // Only time is lost: the build extracts the source itself and reports what fails.
    });
  }

  private isRulesFile(file: string): boolean {
    return file.endsWith('.json') && this.rulesFolders.includes(path.dirname(file));
  }

  private isInput(file: string): boolean {
    return this.inputs.files.has(file) || this.isRulesFile(file);
  }

  private isShaping(file: string): boolean {
    return this.inputs.shaping.has(file) || this.isRulesFile(file);
  }

  /** Watches what the current workspace reads; while it cannot load, also the files that define it. */
  private watchInputs(): void {
    // The same workspace object reads the same files: nothing to learn or re-arm (O(changed) cycles).
    if (this.ws !== null && this.ws === this.watchedFor) return;
    this.watchedFor = this.ws;
    const fresh = this.ws ? workspaceInputs(this.ws) : { files: new Set<string>(), shaping: new Set<string>() };
    if (this.ws === null) {
      // Keep watching what the last good workspace read, plus the files that name the workspace.
      for (const file of [...this.inputs.files, ...this.fallbackInputs()]) fresh.files.add(file);
      for (const file of [...this.inputs.shaping, ...this.fallbackInputs()]) fresh.shaping.add(file);
    }
    this.inputs = fresh;
    this.hashes.learn(fresh.files);
    this.hashes.keepOnly(fresh.files);
    const builtin = rulesDir();
    if (this.ws !== null || this.rulesFolders.length === 0)
      this.rulesFolders = [
        ...(builtin === undefined ? [] : [builtin]),
        ...(this.ws?.rulesFolder != null ? [path.join(this.ws.root, this.ws.rulesFolder)] : []),
      ];
    // The output folders too: an output deleted or damaged while watching drops its group's memo
    // (graph/settled-groups.ts), as a changed stamp voids a group of the one-shot proof.
    const outputs = this.ws === null ? [] : outputFolders(this.ws).map((folder) => path.join(this.ws!.root, folder));
    this.folders.update(fresh.files, [...this.rulesFolders, ...outputs]);
    this.sourcesByPath = new Map(
      (this.ws?.sources ?? []).flatMap((s) => (s.capture.method === 'manual-ingest' ? [[s.capture.absolutePath, s] as const] : [])),
    );
  }

  /** The config, map and manifest the flags name (or the nearest episteme.json): watched even while invalid. */
  private fallbackInputs(): string[] {
    const { cwd, flags } = this.options;
    const files: string[] = [];
    if (flags.config !== undefined) {
      const config = path.resolve(cwd, flags.config);
      files.push(isDirectory(config) ? path.join(config, CONFIG_FILE_NAME) : config);
    } else files.push(findConfigUpward(cwd) ?? path.join(cwd, CONFIG_FILE_NAME));
    for (const file of [flags.map, flags.manifest]) if (file !== undefined && file !== '-') files.push(path.resolve(cwd, file));
    return files;
  }

  /**
   * The no-op proof (state.ts) names every target, megabytes at 10,000 sources: each build defers it
   * (off the save-to-query path), and it is written under the workspace lock once no build has run for
   * PROOF_IDLE_MS, or when watch stops. Until then a one-shot build only takes its full no-op path.
   */
  private scheduleProof(): void {
    if (this.proofTimer) clearTimeout(this.proofTimer);
    this.proofTimer = setTimeout(() => {
      this.proofTimer = null;
      if (this.watcher.state === 'idle' && this.ws !== null) this.writeDeferredProof(this.ws, 0).catch((error) => this.fault(error));
    }, PROOF_IDLE_MS);
  }

  private async writeDeferredProof(ws: Workspace, waitMs: number): Promise<void> {
    let lock: Awaited<ReturnType<typeof acquireWorkspaceLock>>;
    try {
      // The folders checked again before the proof is written into .episteme, as a build checks them.
      lock = await acquireWorkspaceLock(ws.root, ws.stateDir, {
        waitMs,
        command: 'watch',
        verify: () => checkOwnedFolders(ws.root, ownedFolders(ws.outputs)),
      });
    } catch {
      // Another writer holds the workspace (its commit replaces what the proof stood on), or a folder
      // was replaced (the next cycle reports it).
      return;
    }
    try {
      // A build that started meanwhile will commit (and defer) its own.
      if (this.watcher.state === 'idle' || this.watcher.state === 'stopped') this.memory.writeDeferredProof();
    } catch {
      // The proof only speeds up a later one-shot no-op; without it that build checks every target.
    } finally {
      await lock.release();
    }
  }

  /** One build for the confirmed changes; reports the cycle and never rejects. */
  private async cycle(changed: string[], firstEventAt: number | null): Promise<void> {
    const cycle = ++this.cycles;
    const started = performance.now();
    const warnings: Warning[] = [];
    let summary: BuildSummary | null = null;
    this.memory.settled.lastSettled = 0;
    this.speculation.cancel();
    let error: EpistemeError | undefined;
    const phases: { name: string; at: number }[] = [{ name: 'workspace', at: started }];
    const targetStarts = new Map<string, number>();
    const ranMs: Record<string, number> = {};
    // When a query first sees this build: its search index committed (the chunk index is committed
    // before it); when the search index did not run, the answers did not change: the schedule's end.
    let readyAt: number | null = null;
    try {
      this.reenterWorkspaceFolder();
      // The confirmed changes, whichever events told of them: their groups are checked by this build.
      for (const file of changed) this.memory.settled.noteFile(file);
      const ws = await this.workspaceFor(changed);
      this.pool ??= new StagePool(this.options.jobs, {
        maxHeapMb: (await loadStageModules()).extractOptions(ws.options.extract).maxHeapMb,
        // Its workers live as long as the session and extract the edited documents again and again.
        youngGenerationMb: watchYoungGenerationMb(this.options.jobs),
      });
      summary = await runBuild(ws, {
        targets: [],
        dryRun: false,
        allowPartial: this.options.allowPartial,
        debug: this.options.debug,
        jobs: this.options.jobs,
        waitLockMs: this.options.waitLockMs,
        command: 'watch',
        invocation: this.options.invocation,
        capture: { refresh: NO_REFRESH, offline: false },
        pool: this.pool,
        memory: this.memory,
        onPhase: (name) => {
          const at = performance.now();
          phases.push({ name, at });
          if (name === 'commit') readyAt ??= at;
        },
        onEvent: ({ type, target, status }) => {
          const at = performance.now();
          if (type === 'start') targetStarts.set(target, at);
          else ranMs[target] = Math.round(at - (targetStarts.get(target) ?? started));
          if (type === 'finish' && status !== 'failed' && target === aggregateNames(ws).searchIndex) readyAt = at;
        },
      });
      appendAll(warnings, summary.warnings ?? []);
      const failuresWarning = recordFailuresOrWarning(ws.stateDir, summary);
      if (failuresWarning !== null) warnings.push(failuresWarning);
      error = this.options.failureOf(summary);
    } catch (caught) {
      error = this.asError(caught);
    }
    // What this cycle read and no reader took is read from disk by the next one.
    this.memory.rules.reads.clear();
    this.pool?.dropSpeculations();
    const speculated = this.pool?.takeSpeculationReport() ?? new Map<string, number>();
    // Workers that several cycles in a row did not need (the first build's, while one spec is being
    // edited) are stopped, giving their memory back; the worker that keeps working stays warm.
    this.pool?.releaseIdle();
    this.watchInputs();
    this.scheduleProof();
    const ended = performance.now();
    const targets = summary?.targets ?? [];
    const diagnostics = targets
      .filter((t) => isAction(t.status) && t.diagnostics !== undefined)
      .map((t) => ({ target: t.target, ...t.diagnostics! }));
    this.options.emit(
      {
        event: 'cycle',
        cycle,
        trigger: cycle === 1 ? 'start' : 'change',
        changed: changed.map((file) => this.label(file)),
        ok: error === undefined,
        ran: targets.filter((t) => isAction(t.status)).map((t) => t.target),
        failed: targets.filter((t) => t.status === 'failed' || t.status === 'skipped').map((t) => t.target),
        counts: Object.fromEntries(Object.entries(summary?.counts ?? {}).filter(([, n]) => n > 0)),
        settled: this.memory.settled.lastSettled,
        buildMs: Math.round(ended - started),
        phasesMs: Object.fromEntries(phases.map((p, i) => [p.name, Math.round((phases[i + 1]?.at ?? ended) - p.at)])),
        ranMs,
        settleMs: firstEventAt === null ? null : Math.round(started - firstEventAt),
        ...(speculated.size > 0 && this.ws !== null
          ? { speculatedMs: Object.fromEntries([...speculated].map(([id, ms]) => [targetNames(this.ws!, id).extract, ms])) }
          : {}),
        queryReadyMs: firstEventAt === null || summary === null ? null : Math.round((readyAt ?? ended) - firstEventAt),
        ...(diagnostics.length > 0 ? { diagnostics } : {}),
        ...(this.configWritten !== null ? { configWritten: this.configWritten } : {}),
        ...(error ? { error: reported(error) } : {}),
      },
      warnings,
    );
    this.configWritten = null;
  }

  /**
   * What a timer or a file watch callback of the watcher threw (a bug: its probes never throw, and a
   * build reports its own failures): a failed cycle that ran nothing, with the structured error; watch
   * goes on, and the next event on an input confirms it again.
   */
  private fault(caught: unknown, paths: string[] = []): void {
    this.options.emit(
      {
        event: 'cycle',
        cycle: ++this.cycles,
        trigger: 'change',
        changed: paths.map((file) => this.label(file)),
        ok: false,
        ran: [],
        failed: [],
        counts: {},
        settled: 0,
        buildMs: 0,
        phasesMs: {},
        ranMs: {},
        settleMs: null,
        queryReadyMs: null,
        error: reported(this.asError(caught)),
      },
      [],
    );
  }

  /** Runs a timer's callback: what it throws is reported (fault), never the end of the process. */
  private guarded(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.fault(error);
    }
  }

  /** The structured error of a failure: its own, or internal-error for an unexpected one (a bug). */
  private asError(caught: unknown): EpistemeError {
    if (caught instanceof EpistemeError) return caught;
    return new EpistemeError('internal-error', `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}`, {
      hint: 'This is a bug in Episteme; please report it (rerun with --debug for the stack trace). Watch goes on.',
      ...(this.options.debug ? { details: { debug: describeCause(caught) } } : {}),
    });
  }

  /**
   * The workspace for this build: loaded again when a file that shapes it changed (or the last load
   * failed, or an input is gone); otherwise the one in memory with the edited sources' stats refreshed.
   */
  private async workspaceFor(changed: string[]): Promise<Workspace> {
    let reload = this.ws === null || changed.some((file) => this.isShaping(file));
    if (!reload) {
      for (const file of changed) {
        const source = this.sourcesByPath.get(file);
        // A path that cannot be stat'ed (a symlink loop, a folder on it now a file) reloads, and the
        // loader reports it with its structured error.
        const stat = statProbe(file);
        if (source === undefined || source.capture.method !== 'manual-ingest' || typeof stat !== 'object' || !stat.isFile()) {
          reload = true;
          break;
        }
        source.capture.stat = stat;
      }
    }
    if (!reload) return this.ws!;
    if (changed.some((file) => this.isShaping(file))) {
      // Rules and options shape the workers too: start fresh ones, which read the rules again.
      forgetLoadedFamilies();
      forgetRegisteredFamilyIds();
      await this.pool?.close();
      this.pool = null;
    }
    this.ws = null;
    this.ws = await this.loadWorkspace();
    return this.ws;
  }

  /** Workspace-relative where possible: reports carry no absolute paths of the machine. */
  private label(file: string): string {
    if (path.dirname(file) === rulesDir()) return `rules/${path.basename(file)}`;
    const root = this.ws?.root ?? this.options.cwd;
    const relative = path.relative(root, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
  }
}

/** A structured error as a cycle event carries it. */
function reported(error: EpistemeError): NonNullable<Extract<WatchEvent, { event: 'cycle' }>['error']> {
  return {
    code: error.code,
    message: error.message,
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.details ? { details: error.details } : {}),
  };
}
