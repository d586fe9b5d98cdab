import { writeUserOutputFile } from '../config/user-output-file.js';
import { Option } from 'clipanion';
import { EpistemeError, type Warning } from '../failure.js';
import type { BuildSummary } from '../graph/build.js';
import { defaultJobs } from '../graph/jobs.js';
import { buildGraph, aggregateNames, type RuleId } from '../graph/graph.js';
import { describeReason, unreachable } from '../graph/key.js';
import type { TargetResult } from '../graph/scheduler.js';
import type { Workspace } from '../config/workspace.js';
import type { CommandResult } from './base-command.js';
import { inRange, JOBS_RANGE, MAX_AGE_SECONDS_RANGE, rangeText, WAIT_LOCK_SECONDS_RANGE } from './option-validators.js';
import { WorkspaceCommand } from './workspace-command.js';
import { mainEnteredAt, type Output } from './output.js';
import { BuildProgress } from './build-progress.js';
import { NO_REFRESH, type CaptureEvent, type RefreshPolicy } from '../capture/run.js';
import { oneOf } from './option-validators.js';
import { failsOn, type FailOn } from '../graph/diagnostics.js';
import { invocationId, tryCleanNoop } from '../graph/clean-build.js';
import type { ProofCheck } from '../graph/noop-proof.js';
import { shownFrom, targetNameOf } from './shown-path.js';
import { nearest } from './usage-errors.js';
import { DEFAULT_EXTRACT_OPTIONS, EXTRACT_MS_PER_MIB, EXTRACT_OPTION_RANGES } from '../extract/options.js';
import { withLocatingArgs } from './hint-commands.js';
import path from 'node:path';
import type { RemoteCache } from '../cache/remote-cache.js';
import { readRegularFileSync } from '../regular-file.js';

/** Options of every command that runs the build engine. */
export abstract class GraphCommand extends WorkspaceCommand {
  jobs = Option.String('--jobs', {
    description: `Parallel workers (default: all cores, here ${defaultJobs()}; ${rangeText(JOBS_RANGE)}).`,
    validator: inRange(JOBS_RANGE),
  });
  allowPartial = Option.Boolean('--allow-partial', false, {
    description:
      'Build the chunk and search indexes from the sources that succeeded when some failed; the index records which are missing.',
  });
  trace = Option.String('--trace', {
    description: 'Write a timing trace (phases and per-target milliseconds) to this JSON file. For diagnosis; not an artifact.',
  });
  waitLock = Option.String('--wait-lock', {
    description:
      'Seconds to wait for another writer to release the workspace lock ' +
      `(default 0: fail at once with workspace-locked; ${rangeText(WAIT_LOCK_SECONDS_RANGE)}).`,
    validator: inRange(WAIT_LOCK_SECONDS_RANGE),
  });
  failOn = Option.String('--fail-on', 'error', {
    description:
      'Exit 1 when a built document carries extraction diagnostics of this severity or worse: ' +
      'error (the default: e.g. an empty, encrypted or malformed PDF), ' +
      'warning (also known, bounded losses such as a truncated page range), or never. ' +
      'The summary counts and names them either way.',
    validator: oneOf(['error', 'warning', 'never'] as const),
  });
  verbose = Option.Boolean('--verbose', false, {
    description: 'List every target in the summary (default: counts, then only changed and failed targets).',
  });
  pruneSnapshots = Option.Boolean('--prune-snapshots', false, {
    description:
      'Also delete the captured snapshots (records, bodies, observation logs) of sources no longer in the inputs. ' +
      'Without it they are kept, since a capture cannot be recomputed, and a source that returns is up to date again without a refetch.',
  });

  extractTimeoutMs = Option.String('--extract-timeout-ms', {
    description:
      `Wall-clock bound on extracting one HTML, XML or text document, plus ${EXTRACT_MS_PER_MIB.other} ms per MiB of it ` +
      `(default: options.extract.timeoutMs, else ${DEFAULT_EXTRACT_OPTIONS.timeoutMs}; ${rangeText(EXTRACT_OPTION_RANGES.timeoutMs)}). ` +
      'Not in any key: raising it re-extracts nothing that succeeded.',
    validator: inRange(EXTRACT_OPTION_RANGES.timeoutMs),
  });
  pdfTimeoutMs = Option.String('--pdf-timeout-ms', {
    description:
      `Wall-clock bound on extracting one PDF, plus ${EXTRACT_MS_PER_MIB.pdf} ms per MiB of it ` +
      `(default: options.extract.pdfTimeoutMs, else ${DEFAULT_EXTRACT_OPTIONS.pdfTimeoutMs}; ` +
      `${rangeText(EXTRACT_OPTION_RANGES.pdfTimeoutMs)}). Not in any key.`,
    validator: inRange(EXTRACT_OPTION_RANGES.pdfTimeoutMs),
  });
  extractMaxHeapMb = Option.String('--extract-max-heap-mb', {
    description:
      `Heap bound of each extraction worker, in MiB (default: options.extract.maxHeapMb, else ${DEFAULT_EXTRACT_OPTIONS.maxHeapMb}; ` +
      `${rangeText(EXTRACT_OPTION_RANGES.maxHeapMb)}). Not in any key.`,
    validator: inRange(EXTRACT_OPTION_RANGES.maxHeapMb),
  });

  /** The extraction bounds given as flags, over the config's (options.extract): bounds, never keys. */
  protected withBoundFlags(ws: Workspace): void {
    const given = { timeoutMs: this.extractTimeoutMs, pdfTimeoutMs: this.pdfTimeoutMs, maxHeapMb: this.extractMaxHeapMb };
    for (const [name, value] of Object.entries(given))
      if (value !== undefined) ws.options.extract = { ...ws.options.extract, [name]: value };
  }

  /** Whether this command may capture over HTTP; the stage commands run offline. */
  protected readonly captures: boolean = false;

  /** Output folders given as flags (--snapshots), which a remembered workspace's config names too. */
  protected outputFlags(): { snapshots?: string | undefined } {
    return {};
  }

  /** When recorded HTTP snapshots are refetched: never for an offline command (see CaptureCommand). */
  protected refreshPolicy(): RefreshPolicy {
    return NO_REFRESH;
  }

  protected summaryOptions(root: string): SummaryOptions {
    return { failOn: this.failOn as FailOn, verbose: this.verbose, shown: shownFrom(root, process.cwd()) };
  }

  /**
   * For a build of everything: proves a no-op from stats alone when nothing changed since the last
   * clean build (see graph/clean-build.ts); null means "run the build".
   */
  /** The no-op proof the fast path refused (damaged or forged): reported by the full build that follows. */
  private refusedProof: Warning | undefined;
  /** What the fast path found when some groups moved (an edit): the full build checks only those. */
  private proofCheck: ProofCheck | undefined;

  protected async noopFastPath(): Promise<CommandResult | null> {
    const policy = this.refreshPolicy();
    if (policy.force || policy.maxAgeSeconds !== null || this.trace !== undefined || this.pruneSnapshots) return null;
    const summary = await tryCleanNoop(
      process.cwd(),
      { config: this.config, map: this.map, manifest: this.manifest },
      { waitMs: (this.waitLock ?? 0) * 1000, command: this.commandName },
    );
    if (!summary) return null;
    if ('refusedProof' in summary) {
      this.refusedProof = summary.refusedProof;
      return null;
    }
    if ('proofCheck' in summary) {
      this.proofCheck = summary.proofCheck;
      return null;
    }
    const { config } = JSON.parse(invocationId(process.cwd(), { config: this.config, map: this.map, manifest: this.manifest })!) as {
      config: string | null;
    };
    return summaryResult(summary, false, {
      ...this.summaryOptions(config === null ? process.cwd() : path.dirname(config)),
      config: config === null ? null : path.relative(path.dirname(config), config),
    });
  }

  /**
   * A build of everything that the no-op proof did not settle will most likely run stages: its first
   * stage worker starts now, while the workspace, graph and state load (stage-pool.ts startWorkerEarly).
   */
  protected async startStageWorkerEarly(): Promise<void> {
    const { startWorkerEarly } = await import('../graph/stage-pool.js');
    startWorkerEarly({ maxHeapMb: this.extractMaxHeapMb ?? DEFAULT_EXTRACT_OPTIONS.maxHeapMb });
  }

  /** The action cache this build consults (build --remote-cache); none for the other commands. */
  protected async openCache(_ws: Workspace, _dryRun: boolean): Promise<RemoteCache | undefined> {
    return undefined;
  }

  protected async runTargets(
    output: Output,
    ws: Workspace,
    targets: string[],
    dryRun = false,
  ): Promise<{ summary: BuildSummary; result: CommandResult }> {
    const trace = new BuildTrace();
    this.withBoundFlags(ws);
    const shown = shownFrom(ws.root, process.cwd());
    // Every command that writes remembers a workspace given by flags; a dry run writes nothing.
    const written: Record<string, unknown> = {};
    const remembered = dryRun ? null : this.remember(ws, written, this.outputFlags());
    const progress = new BuildProgress(output, shown);
    const { runBuild } = await import('../graph/build.js');
    const cache = await this.openCache(ws, dryRun);
    const summary = await runBuild(ws, {
      ...(cache ? { cache } : {}),
      onPhase: (phase) => trace.phase(phase),
      targets: targetNames(ws, targets),
      dryRun,
      debug: this.debug,
      invocation:
        targets.length === 0 ? invocationId(process.cwd(), { config: this.config, map: this.map, manifest: this.manifest }) : null,
      allowPartial: this.allowPartial,
      pruneSnapshots: this.pruneSnapshots,
      ...(this.proofCheck ? { proofCheck: this.proofCheck } : {}),
      jobs: this.jobs ?? defaultJobs(),
      waitLockMs: (this.waitLock ?? 0) * 1000,
      command: this.commandName,
      capture: { refresh: this.refreshPolicy(), offline: !this.captures, onEvent: (event) => progress.note(describeCaptureEvent(event)) },
      onEvent: (event) => {
        trace.event(event.type, event.target);
        if (event.type === 'start') progress.start(event.target);
      },
      onPlan: (pending) => progress.plan(pending),
      onSettled: (result) => progress.settled(result),
    }).finally(() => {
      progress.end();
      cache?.close();
    });
    if (!dryRun) await recordLastFailures(ws, summary, output);
    for (const target of summary.targets)
      if (target.error?.hint !== undefined) target.error.hint = withLocatingArgs(target.error.hint, this.hintArgs);
    for (const warning of [...(this.refusedProof ? [this.refusedProof] : []), ...(summary.warnings ?? [])]) output.warn(warning);
    if (this.trace !== undefined) {
      try {
        trace.write(this.trace, summary);
      } catch (error) {
        output.warn({ code: 'trace-not-written', message: `Could not write the trace to ${this.trace}: ${(error as Error).message}` });
      }
    }
    const result = summaryResult(summary, dryRun, { ...this.summaryOptions(ws.root), config: ws.configFile });
    if (remembered !== null) {
      Object.assign(result.data, written);
      result.human.push(remembered);
    }
    if (cache) {
      const stats = cache.summary();
      result.data.remoteCache = stats;
      result.human.push(
        `remote cache ${stats.cache}: ${stats.hits} restored, ${stats.misses} built locally, ${stats.uploaded} uploaded` +
          (stats.notUploaded ? `, ${stats.notUploaded} not uploaded (a later --remote-cache-upload build uploads them)` : '') +
          (stats.rejected ? `, ${stats.rejected} rejected` : '') +
          (stats.verified ? `, ${stats.verified} verified` : '') +
          (stats.unavailable ? ' (unavailable: built locally)' : ''),
      );
    }
    return { summary, result };
  }
}

/** What `episteme graph` shows as failed (graph-view/failures.ts); a report, so a refusal only warns. */
async function recordLastFailures(ws: Workspace, summary: BuildSummary, output: Output): Promise<void> {
  const { recordFailuresOrWarning } = await import('../graph-view/failures.js');
  const warning = recordFailuresOrWarning(ws.stateDir, summary);
  if (warning !== null) output.warn(warning);
}

/** The commands that capture over HTTP (snapshot, build, pipeline), with the refresh flags. */
export abstract class CaptureCommand extends GraphCommand {
  refresh = Option.Boolean('--refresh', {
    description:
      'Refetch the HTTP snapshots in the closure with conditional requests (If-None-Match / If-Modified-Since). ' +
      'A 304 or identical bytes keep the recorded snapshot and cause no downstream work. ' +
      '--no-refresh fetches only missing snapshots: the default of build and pipeline ' +
      '(snapshot refreshes unless given --no-refresh or --max-age).',
  });
  maxAge = Option.String('--max-age', {
    description:
      'Refetch (conditionally) only the HTTP snapshots last observed more than SECONDS ago ' +
      `(default: none, recorded snapshots are reused; ${rangeText(MAX_AGE_SECONDS_RANGE)}).`,
    validator: inRange(MAX_AGE_SECONDS_RANGE),
  });

  protected override readonly captures: boolean = true;

  /** When recorded HTTP snapshots are refetched: with --refresh, or past --max-age; never by default. */
  protected override refreshPolicy(): RefreshPolicy {
    return { force: this.refresh === true, maxAgeSeconds: this.maxAge ?? null };
  }
}

/** Wall-clock timings of one build, for `--trace`: where the time went (startup, phases, targets). */
class BuildTrace {
  private readonly phases: { name: string; startMs: number }[] = [
    { name: 'node-startup-and-imports', startMs: 0 },
    { name: 'parse-and-workspace', startMs: mainEnteredAt() },
  ];
  private readonly starts = new Map<string, number>();
  /** Each target that ran: its time, and when it started and finished (ms since the process started). */
  private readonly targets: { target: string; ms: number; startMs: number; endMs: number }[] = [];

  phase(name: string): void {
    this.phases.push({ name, startMs: performance.now() });
  }

  event(type: 'start' | 'finish', target: string): void {
    if (type === 'start') this.starts.set(target, performance.now());
    else {
      const endMs = performance.now();
      const startMs = this.starts.get(target) ?? endMs;
      this.targets.push({ target, ms: round(endMs - startMs), startMs: round(startMs), endMs: round(endMs) });
    }
  }

  write(file: string, summary: BuildSummary): void {
    const phases = this.phases.map((p, i) => ({ name: p.name, ms: round((this.phases[i + 1]?.startMs ?? performance.now()) - p.startMs) }));
    // A user-named file: never written through a symlink or into a FIFO, device or workspace folder.
    writeUserOutputFile(file, JSON.stringify({ phases, targets: this.targets, actions: summary.actions }, null, 1) + '\n', {
      flag: '--trace',
      cwd: process.cwd(),
    });
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** Target paths of the given rules, for the stage commands that build one stage. */
export function targetsOfRules(ws: Workspace, rules: RuleId[]): string[] {
  const graph = buildGraph(ws);
  return graph.order.filter((name) => rules.includes(graph.nodes.get(name)!.rule));
}

export { aggregateNames };

/**
 * Target arguments as graph names: a name, a path from the current folder to an output, or the file
 * a target wrote (see shown-path.ts). One that names no target is `unknown-target` with the nearest
 * names (by edit distance, also to the document id alone), so a typo gets its correction.
 */
export function targetNames(ws: Workspace, targets: string[]): string[] {
  if (targets.length === 0) return targets;
  const graph = buildGraph(ws);
  return targets.map((argument) => {
    const name = targetNameOf(argument, ws.root, process.cwd(), (n) => graph.nodes.has(n));
    if (graph.nodes.has(name)) return name;
    const snapshot = snapshotTargetOf(ws, argument);
    if (snapshot !== null && graph.nodes.has(snapshot)) return snapshot;
    const near = nearestTargets(argument, graph.order);
    const examples = graph.order.filter((n) => graph.nodes.get(n)!.kind === 'source').slice(0, 2);
    const indexes = graph.order.filter((n) => graph.nodes.get(n)!.kind === 'index').slice(-1);
    throw new EpistemeError('unknown-target', `No target named ${JSON.stringify(argument)} in this workspace.`, {
      hint:
        (near.length > 0 ? `Did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}? ` : '') +
        'Targets are paths from the workspace root (or, from another folder, paths to those outputs; or the files the summary ' +
        `names), e.g. ${[...examples, ...indexes].join(', ')}; list them all with \`episteme build --dry-run\`.`,
      details: { target: argument, ...(near.length > 0 ? { nearest: near } : {}) },
    });
  });
}

/** A snapshot record file (`snapshots/records/<id>.json`, as the summary shows it) names its source's snapshot target. */
function snapshotTargetOf(ws: Workspace, argument: string): string | null {
  const file = path.resolve(process.cwd(), argument);
  if (path.dirname(file) !== path.join(ws.root, ws.outputs.snapshots, 'records')) return null;
  try {
    const record = JSON.parse(readRegularFileSync(file, 'utf8')) as { sourceUrl?: unknown };
    const source = ws.sources.find((s) => s.spec.url === record.sourceUrl);
    return source === undefined ? null : `${ws.outputs.snapshots}/${source.documentId}.json`;
  } catch {
    return null;
  }
}

/** The target names nearest an argument: by the whole name, or by the document id alone. */
function nearestTargets(argument: string, names: string[]): string[] {
  const bare = (name: string) => name.replace(/^.*\//, '').replace(/\.json$/, '');
  const word = argument.replace(CONTENT_ADDRESSED_SUFFIX, '.json');
  const whole = nearest(word, names);
  if (whole.length > 0) return whole;
  const byId = new Set(nearest(bare(word), names.map(bare)));
  return names.filter((name) => byId.has(bare(name)) && !name.endsWith('/index.json')).slice(0, 3);
}
const CONTENT_ADDRESSED_SUFFIX = /\.[0-9a-f]{16}\.json$/;

export interface SummaryOptions {
  failOn: FailOn;
  /** List every target, not only changed and failed ones. */
  verbose: boolean;
  /** A target as human messages show it: its path from the current folder (see shown-path.ts). */
  shown?: (target: string) => string;
  /** The workspace config used (workspace-relative), or null for a workspace given by flags only. */
  config?: string | null;
}

/** Lines per group in the compact human summary; --verbose and --json list everything. */
const SUMMARY_LINES_PER_GROUP = 10;

export function summaryResult(
  summary: BuildSummary,
  dryRun: boolean,
  options: SummaryOptions = { failOn: 'error', verbose: false },
): CommandResult {
  const shown = options.shown ?? ((target: string) => target);
  const withDiagnostics = summary.targets.filter((t) => t.diagnostics !== undefined);
  const data: Record<string, unknown> = {
    dryRun,
    actions: summary.actions,
    counts: summary.counts,
    diagnostics: {
      documentsWithErrors: withDiagnostics.filter((t) => t.diagnostics!.errors > 0).length,
      documentsWithWarnings: withDiagnostics.filter((t) => t.diagnostics!.warnings > 0).length,
      failOn: options.failOn,
      documents: withDiagnostics.map((t) => ({ target: t.target, ...t.diagnostics! })),
    },
    targets: summary.targets,
    removed: summary.removed,
  };
  const human = dryRun ? dryRunLines(summary.targets, shown) : buildLines(summary, options.verbose, shown);
  if (options.config !== undefined) {
    // Which workspace ran, as a path from the current folder: found upward, it may not be this folder's.
    data.config = options.config === null ? null : shown(options.config);
    if (options.config !== null && shown(options.config) !== options.config) human.unshift(`workspace ${shown(options.config)}`);
  }
  const failure = summaryFailure(summary, options);
  return failure === undefined ? { data, human } : { data, human, failure };
}

/**
 * The error a build's summary ends in, if any (summaryResult's failure), without the human lines and
 * JSON data: watch asks it of every cycle, whose summary lists every target (30,000 at 10,000 sources).
 */
export function summaryFailure(
  summary: BuildSummary,
  options: SummaryOptions = { failOn: 'error', verbose: false },
): EpistemeError | undefined {
  const shown = options.shown ?? ((target: string) => target);
  const failed = summary.targets.filter((t) => t.status === 'failed');
  if (!summary.ok) {
    // A file system that refuses writes (disk full, read-only) is the build's failure, not a target's.
    const refused = failed.find((t) => t.error?.code === 'write-failed');
    if (refused?.error) {
      return new EpistemeError('write-failed', `${shown(refused.target)}: ${refused.error.message}`, {
        hint: `${refused.error.hint ?? ''} Previous outputs and the last commit are kept.`.trim(),
        details: refused.error.details,
      });
    }
    // A remote cache caught serving a wrong result is the build's headline, not one target's detail.
    const mismatch = failed.find((t) => t.error?.code === 'remote-cache-mismatch');
    if (mismatch?.error) {
      return new EpistemeError('remote-cache-mismatch', mismatch.error.message, {
        hint: mismatch.error.hint,
        details: mismatch.error.details,
      });
    }
    // An offline stage asked for captures that were never made: a usage problem with one fix.
    if (failed.length > 0 && failed.every((t) => t.error?.code === 'snapshot-missing')) {
      const urls = failed.map((t) => String(t.error?.details?.url ?? shown(t.target)));
      return new EpistemeError(
        'snapshot-missing',
        `${urls.length} source(s) have no recorded snapshot, and this command runs offline: ${listed(urls, 3)}.`,
        {
          hint:
            'Capture them first with `episteme snapshot`, or run `episteme build`, ' +
            'which captures what is missing and then extracts, chunks and indexes.',
          details: { urls },
        },
      );
    }
    const first = failed[0] ?? summary.targets.find((t) => t.status === 'skipped');
    const firstText = first ? `; first: ${shown(first.target)}: ${first.error?.message ?? ''}` : '';
    const raise = raisedBounds(failed);
    const firstHint =
      raise !== null
        ? `Every failure tripped an extraction bound, which depends on the machine and its load; if the sources are trusted, ` +
          `raise the bounds in one build (they do not enter keys: nothing that succeeded is re-extracted): \`episteme build ${raise}\`. `
        : first?.error?.hint
          ? `${first.error.hint} `
          : '';
    return new EpistemeError('target-failed', `${summary.counts.failed} target(s) failed, ${summary.counts.skipped} skipped${firstText}`, {
      hint:
        `${firstHint}Previous outputs of failed targets are kept. ` +
        'Fix the cause and build again; see data.targets (with --json) for each reason.',
    });
  }
  const failing = summary.targets.filter((t) => t.diagnostics !== undefined && failsOn(t.diagnostics, options.failOn));
  if (failing.length > 0) {
    return new EpistemeError(
      'document-diagnostics',
      `${failing.length} document(s) carry ${options.failOn === 'warning' ? 'error or warning' : 'error'} diagnostics: ${listed(
        failing.map((t) => `${shown(fileOf(t))} (${t.diagnostics!.codes.join(', ')})`),
        3,
      )}.`,
      {
        hint:
          'The documents were built; their `diagnostics` say what was lost (e.g. an encrypted or empty PDF). ' +
          'Fix or replace the source, or choose what fails the run with --fail-on error|warning|never.',
        details: { documents: failing.map((t) => t.target) },
      },
    );
  }
  return undefined;
}

/**
 * When every failed target tripped an extraction bound (a timeout, the heap), the flags that raise all
 * of them, each to the largest value one of them asked for (`--pdf-timeout-ms 40000 --extract-timeout-ms
 * 20000`); else null. One command then retries every failure, where the first target's hint raised one bound.
 */
function raisedBounds(failed: TargetResult[]): string | null {
  const values = new Map<string, number>();
  for (const t of failed) {
    const raise = t.error?.details?.raise as { flag?: unknown; value?: unknown } | undefined;
    if (typeof raise?.flag !== 'string' || typeof raise.value !== 'number') return null;
    values.set(raise.flag, Math.max(values.get(raise.flag) ?? 0, raise.value));
  }
  if (values.size === 0) return null;
  return [...values].map(([flag, value]) => `${flag} ${value}`).join(' ');
}

/** The first `max` items, then how many more. */
function listed(items: string[], max: number): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/**
 * Counts, documents with diagnostics, then only changed (built) and failed targets, each group cut at
 * SUMMARY_LINES_PER_GROUP lines so a build of thousands of sources fits a screen; --verbose lists all.
 */
function buildLines(summary: BuildSummary, verbose: boolean, shown: (target: string) => string): string[] {
  const c = summary.counts;
  const lines = [
    `${summary.targets.length} targets: ${c.built} built, ${c.unchanged} unchanged, ${c['up-to-date']} up to date` +
      (c.failed ? `, ${c.failed} failed` : '') +
      (c.skipped ? `, ${c.skipped} skipped` : '') +
      ` (${summary.actions} actions)`,
  ];
  const withDiagnostics = summary.targets.filter((t) => t.diagnostics !== undefined);
  if (withDiagnostics.length > 0) {
    const errors = withDiagnostics.filter((t) => t.diagnostics!.errors > 0).length;
    const warnings = withDiagnostics.filter((t) => t.diagnostics!.warnings > 0).length;
    lines.push(`diagnostics: ${errors} document(s) with errors, ${warnings} with warnings`);
    group(
      lines,
      'with diagnostics',
      withDiagnostics,
      verbose,
      (t) => `  ${(t.diagnostics!.errors > 0 ? 'error' : 'warning').padEnd(10)} ${shown(fileOf(t))}: ${diagnosticText(t)}`,
    );
  }
  if (verbose) {
    for (const t of summary.targets) lines.push(`  ${t.status.padEnd(10)} ${shown(fileOf(t))}${detail(t)}`);
  } else {
    group(
      lines,
      'built',
      summary.targets.filter((t) => t.status === 'built'),
      false,
      (t) => `  ${t.status.padEnd(10)} ${shown(fileOf(t))}${detail(t)}`,
    );
    group(
      lines,
      'failed',
      summary.targets.filter((t) => t.status === 'failed'),
      false,
      (t) => `  ${t.status.padEnd(10)} ${shown(t.target)}${detail(t)}`,
    );
    const skipped = summary.targets.filter((t) => t.status === 'skipped').length;
    if (skipped > 0) lines.push(`  ${'skipped'.padEnd(10)} ${skipped} target(s) whose dependencies failed`);
  }
  // With --debug, a failed target's error carries the cause's stack (details.debug): the hint of an
  // internal error sends the user here for it, so the human summary shows it too, not only --json.
  for (const t of summary.targets) {
    const debug = t.status === 'failed' ? t.error?.details?.['debug'] : undefined;
    if (typeof debug !== 'string') continue;
    lines.push(`  debug      ${shown(t.target)}:`);
    for (const line of debug.split('\n')) lines.push(`    ${line}`);
  }
  if (summary.removed.length) lines.push(`  removed ${summary.removed.length} orphaned file(s)`);
  return lines;
}

function group(lines: string[], label: string, targets: TargetResult[], all: boolean, line: (t: TargetResult) => string): void {
  const shown = all ? targets : targets.slice(0, SUMMARY_LINES_PER_GROUP);
  for (const t of shown) lines.push(line(t));
  if (shown.length < targets.length)
    lines.push(`  ... and ${targets.length - shown.length} more ${label} (--verbose lists all; --json has every target)`);
}

function diagnosticText(t: TargetResult): string {
  const d = t.diagnostics!;
  const counts = [d.errors ? `${d.errors} error(s)` : '', d.warnings ? `${d.warnings} warning(s)` : ''].filter(Boolean).join(', ');
  return `${counts} (${d.codes.join(', ')})`;
}

function dryRunLines(targets: TargetResult[], shown: (target: string) => string): string[] {
  const dirty = targets.filter((t) => t.status !== 'up-to-date').length;
  const lines = [`${targets.length} targets, ${dirty} would run (dry run: nothing was written)`];
  for (const t of targets) lines.push(`  ${t.status.padEnd(11)} ${shown(fileOf(t))}${detail(t)}`);
  return lines;
}

/**
 * What a human line names: the file the target wrote, which can be opened (`specs/<doc>.<hash>.json`,
 * `snapshots/records/<id>.json`); the target's name only while it has none (never built, or failed
 * before its first success). `build` and `explain` take either back (see shown-path.ts).
 */
function fileOf(t: TargetResult): string {
  return t.output ?? t.target;
}

function detail(t: TargetResult): string {
  if (t.error) return `: ${t.error.message}`;
  if (t.restored) return '  (restored from the remote cache)';
  if (t.reasons.length === 0) return '';
  return `  (${t.reasons.map(describeReason).join('; ')})`;
}

/** One progress line per fetch step: response status and declared length, bytes so far, retries, result. */
function describeCaptureEvent(event: CaptureEvent): Record<string, unknown> & { message: string } {
  const { type, ...fields } = event;
  switch (event.type) {
    case 'response':
      return {
        message: `GET ${event.url}: ${event.status}${event.declaredLength === null ? '' : `, ${event.declaredLength} bytes declared`}`,
        event: `capture-${type}`,
        ...fields,
      };
    case 'body':
      return { message: `GET ${event.url}: ${event.bytes} bytes`, event: `capture-${type}`, ...fields };
    case 'retry':
      return {
        message: `GET ${event.url}: ${event.reason}: ${event.detail}, retry ${event.attempt} in ${event.delayMs} ms`,
        event: `capture-${type}`,
        ...fields,
      };
    case 'done':
      return { message: `GET ${event.url}: done, ${event.status}, ${event.bytes} bytes`, event: `capture-${type}`, ...fields };
    default:
      return unreachable(event);
  }
}
