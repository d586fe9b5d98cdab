import { EpistemeError, type FailureCode } from '../failure.js';
import { relativeToWorkspace } from '../store/write-failure.js';
import { sha256Hex } from '../store/hash.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { writeFileAtomic, writeFileIfChanged } from '../store/atomic-file.js';
import { PRODUCER_VERSION } from '../version.js';
import { sourceOf, type BuildGraph, type TargetNode } from './graph.js';
import { diffComponents, targetKey, type DirtyReason, type KeyComponents } from './key.js';
import { RULES } from './rules/index.js';
import { abs, readVerified } from './rules/files.js';
import type { DepView, Rule, RuleEnv, RuleOutput, TargetCacheRequest } from './rules/types.js';
import { statStamp, sameStamp, type TargetRecord } from './state.js';
import { diagnosticFacts, diagnosticsOf, type TargetDiagnostics } from './diagnostics.js';
import { readRegularFileSync } from '../regular-file.js';
import { appendAll } from '../array-extremes.js';

/**
 * Walks the requested closure, dependencies first, with independent targets in flight at once (CPU work
 * is bounded by the stage pool). For each target: compute the key from its inputs' content hashes; if it
 * is up to date (staleReasons, the one definition), nothing runs; otherwise run the rule, store the bytes
 * (untouched when identical: early cutoff) and record the key.
 */
export type TargetStatus =
  | 'up-to-date' // key and output match the record: no action
  | 'built' // ran and produced new bytes
  | 'unchanged' // ran and produced the bytes it had before (early cutoff: dependents stay clean)
  | 'failed' // the rule failed; previous output and record are kept
  | 'skipped' // a dependency failed
  | 'dirty' // dry run: would run
  | 'maybe-dirty'; // dry run: runs only if an upstream rebuild changes its bytes

export interface TargetResult {
  target: string;
  rule: string;
  status: TargetStatus;
  reasons: DirtyReason[];
  output?: string;
  error?: { code: FailureCode; message: string; hint?: string; details?: Record<string, unknown> };
  /** Present when an aggregate was built from a partial set (--allow-partial). */
  missingSources?: string[];
  /** An extracted document's error and warning diagnostics, when it has any. */
  diagnostics?: TargetDiagnostics;
  /** The output came from the action cache (verified); the rule did not run. */
  restored?: true;
}

/** A settled target's result, with the diagnostics its record carries. */
function settledResult(
  base: { target: string; rule: string },
  status: TargetStatus,
  reasons: DirtyReason[],
  record: TargetRecord,
  env?: RuleEnv,
): TargetResult {
  const result: TargetResult = { target: base.target, rule: base.rule, status, reasons, output: record.output };
  // Only extracted documents carry diagnostics.
  if (base.rule !== 'extract') return result;
  // A document extracted before records carried diagnostics gains them once, from its (verified) file.
  if (env && record.facts?.diagnosticErrors === undefined) {
    try {
      record = { ...record, facts: { ...record.facts, ...diagnosticFacts(readVerified(env.ws, record.output, record.sha256)) } };
      env.state.recordTarget(base.target, record);
    } catch {
      // unreadable: the target is rebuilt by a later build; nothing to report now
    }
  }
  const diagnostics = diagnosticsOf(record.facts);
  if (diagnostics) result.diagnostics = diagnostics;
  return result;
}

export interface ScheduleOptions {
  dryRun: boolean;
  /** Include stack traces of unexpected failures in the target's error details (--debug). */
  debug?: boolean;
  allowPartial: boolean;
  onEvent?: (event: { type: 'start' | 'finish'; target: string; status?: TargetStatus }) => void;
  /** After the first pass: how many targets are left to evaluate (for a done/total counter). */
  onPlan?: (pending: number) => void;
  /** Each of those targets as it settles, whatever its status (failures as they happen). */
  onSettled?: (result: TargetResult) => void;
  /**
   * Proven by the caller (clean-build.ts cleanRecordHolds): nothing that shapes options (config, map,
   * manifest, family rules, versions) changed since the last complete, clean build, so each recorded
   * target's options are current and its key is computed from its recorded options and its inputs now.
   */
  recordedOptionsHold?: boolean;
  /** Targets the no-op proof shows up to date, by group (noop-proof.ts heldGroups): settled as given. */
  proven?: ReadonlyMap<string, TargetResult>;
  /**
   * The build owns its pool (a one-shot build, not a watch session): its workers are stopped as soon
   * as its last extract or chunk target settles, so their heaps' teardown (about 27 ms for a worker
   * that handled the DOM Standard) overlaps the indexes and the commit instead of following them.
   */
  stopWorkersAfterStages?: boolean;
}

const ACTION_STATUSES: ReadonlySet<TargetStatus> = new Set(['built', 'unchanged']);

export function isAction(status: TargetStatus): boolean {
  return ACTION_STATUSES.has(status);
}

/** What a target's key is computed from now: its dependencies, the documents it lacks, its options when known. */
interface KeyNow {
  deps: DepView[];
  missing: string[];
  /** Its options, when proven unchanged (recordedOptionsHold): the record's own. */
  knownOptions?: Record<string, string> | undefined;
}

/**
 * What "up to date" means, in one place: every dependency is up to date (the callers see to that), the
 * key computed now (rule, versions, options, and each input's content hash) equals the recorded key,
 * the recorded output (and the files its record stands on) is intact, and no refresh is due. Returns
 * why not; empty when it is.
 */
function staleReasons(env: RuleEnv, graph: BuildGraph, node: TargetNode, record: TargetRecord | undefined, now: KeyNow): DirtyReason[] {
  if (record === undefined) return [{ reason: 'no-record' }];
  if (!keyMatches(record.components, node, env, now)) {
    const reasons = diffComponents(record.components, keyComponents(node, env, now), (input) => graph.nodes.has(input));
    return reasons.length > 0 ? reasons : [{ reason: 'no-record' }];
  }
  const output = outputReasons(node.name, record, env);
  if (output.length > 0) return output;
  const refresh = RULES[node.rule].refreshReason?.(env, node, record);
  return refresh ? [refresh] : [];
}

/**
 * Whether the key components computed now equal the recorded ones (so the keys are equal), compared in
 * place: every target is checked on every build, so this allocates no components of its own.
 */
function keyMatches(recorded: KeyComponents, node: TargetNode, env: RuleEnv, now: KeyNow): boolean {
  const rule = RULES[node.rule];
  if (recorded.rule !== node.rule || recorded.ruleVersion !== rule.version(env) || recorded.producerVersion !== PRODUCER_VERSION)
    return false;
  const partial = now.missing.length > 0 ? JSON.stringify(now.missing) : undefined;
  if (recorded.options['partial.missingSources'] !== partial) return false;
  if (now.knownOptions !== recorded.options) {
    const options = rule.options(env, node, now.deps);
    const count = Object.keys(recorded.options).length - (partial === undefined ? 0 : 1);
    if (Object.keys(options).length !== count) return false;
    for (const name in options) if (recorded.options[name] !== options[name]) return false;
  }
  const inputs = recorded.inputs;
  let count = now.deps.length;
  for (const dep of now.deps) if (inputs[dep.name] !== dep.sha256) return false;
  const sources = rule.sourceInputs?.(env, node);
  if (sources !== undefined)
    for (const name in sources) {
      if (inputs[name] !== sources[name]) return false;
      count += 1;
    }
  return Object.keys(inputs).length === count;
}

export async function runSchedule(graph: BuildGraph, names: string[], env: RuleEnv, options: ScheduleOptions): Promise<TargetResult[]> {
  const settled = new Map<string, TargetResult>();
  // Pass 1, synchronous: a target whose dependencies are all up to date and which is up to date itself
  // settles without a promise, which keeps a no-op close to the cost of reading the state and statting
  // files. Everything else goes to pass 2.
  for (const name of names) {
    const proven = options.proven?.get(name);
    if (proven !== undefined) {
      settled.set(name, proven);
      continue;
    }
    const node = graph.nodes.get(name)!;
    if (!node.deps.every((dep) => settled.get(dep)?.status === 'up-to-date')) continue;
    const record = env.state.targets.get(name);
    // With uploads asked for, a cacheable target goes to pass 2 even when up to date: an earlier upload
    // may have been cut off, and pass 2 uploads what the cache does not hold (TargetCache.backfill).
    if (!record || (env.cache?.uploads && RULES[node.rule].cache)) continue;
    const deps = node.deps.map((dep) => depView(env, graph, dep));
    const missing = inheritedMissing(node, deps);
    const knownOptions = options.recordedOptionsHold ? record.components.options : undefined;
    if (staleReasons(env, graph, node, record, { deps, missing, knownOptions }).length === 0)
      settled.set(name, settledResult({ target: name, rule: node.rule }, 'up-to-date', [], env.state.targets.get(name) ?? record, env));
  }
  // Pass 2: everything else, dependencies first, independent targets concurrently.
  const inFlight = new Map<string, Promise<TargetResult>>();
  const evaluate = (name: string): Promise<TargetResult> => {
    let promise = inFlight.get(name);
    if (!promise) {
      const done = settled.get(name);
      promise = done ? Promise.resolve(done) : evaluateTarget(graph.nodes.get(name)!, graph, env, options, evaluate, settled);
      inFlight.set(name, promise);
    }
    return promise;
  };
  const pending = names.filter((name) => !settled.has(name));
  const isStage = (rule: string): boolean => rule === 'extract' || rule === 'chunk';
  // A worker takes a few hundred milliseconds to start: start one now, while snapshots are captured.
  if (!options.dryRun && pending.some((name) => isStage(graph.nodes.get(name)!.rule))) env.pool.warm();
  options.onPlan?.(pending.length);
  // Stage targets still to settle; at the last, a pool this build owns stops its workers (a task after
  // that, which no rule sends, would start one again).
  let stagesLeft = options.stopWorkersAfterStages ? pending.filter((name) => isStage(graph.nodes.get(name)!.rule)).length : 0;
  const settle = (result: TargetResult): TargetResult => {
    options.onSettled?.(result);
    if (stagesLeft > 0 && isStage(result.rule) && --stagesLeft === 0) env.pool.stopIdle();
    return result;
  };
  const evaluated = new Map((await Promise.all(pending.map((name) => evaluate(name).then(settle)))).map((r) => [r.target, r]));
  return names.map((name) => settled.get(name) ?? evaluated.get(name)!);
}

/** The cache request of an up-to-date target (for an upload of what the cache lacks): nothing to run. */
function upToDateRequest(node: TargetNode, record: TargetRecord, deps: DepView[], rule: Rule): TargetCacheRequest {
  return {
    node,
    components: record.components,
    deps,
    adapter: rule.cache,
    run: () => Promise.reject(new Error(`${node.name} is up to date: nothing to run`)),
    inputsUnchanged: () => true,
  };
}

/** An up-to-date target's recorded output, read back and checked against its SHA-256. */
function recordedOutput(env: RuleEnv, record: TargetRecord): RuleOutput {
  const bytes = readVerified(env.ws, record.output, record.sha256);
  return { bytes, sha256: record.sha256, outputPath: () => record.output, ...(record.facts ? { facts: record.facts } : {}) };
}

/** A dependency as a rule sees it: its current record and the source it is of. */
function depView(env: RuleEnv, graph: BuildGraph, name: string): DepView {
  const record = env.state.targets.get(name);
  if (record === undefined)
    throw new EpistemeError('artifact-invalid', `${name} was dropped from the build state during this build.`, {
      hint: 'Run `episteme build` again.',
      details: { target: name },
    });
  return { name, sha256: record.sha256, record, source: sourceOf(graph.nodes.get(name)!) };
}

/**
 * The documents a segmented index leaves out because its segments did (a build with --allow-partial):
 * recorded in each segment's facts, so the index's key and bytes say so too.
 */
function inheritedMissing(node: TargetNode, deps: readonly DepView[]): string[] {
  if (node.kind !== 'index' || !node.segmented) return [];
  const missing: string[] = [];
  for (const dep of deps) {
    const recorded = dep.record.facts?.missingSources;
    if (recorded !== undefined) appendAll(missing, JSON.parse(recorded) as string[]);
  }
  return missing;
}

/** The target's key components now. */
function keyComponents(node: TargetNode, env: RuleEnv, now: KeyNow): KeyComponents {
  const { deps, missing } = now;
  const rule = RULES[node.rule];
  const inputs: Record<string, string> = { ...rule.sourceInputs?.(env, node) };
  for (const dep of deps) inputs[dep.name] = dep.sha256;
  let ruleOptions = rule.options(env, node, deps);
  if (missing.length > 0) ruleOptions = { ...ruleOptions, 'partial.missingSources': JSON.stringify(missing) };
  return { rule: node.rule, ruleVersion: rule.version(env), producerVersion: PRODUCER_VERSION, options: ruleOptions, inputs };
}

async function evaluateTarget(
  node: TargetNode,
  graph: BuildGraph,
  env: RuleEnv,
  options: ScheduleOptions,
  evaluate: (name: string) => Promise<TargetResult>,
  settled: ReadonlyMap<string, TargetResult>,
): Promise<TargetResult> {
  const depResults = await Promise.all(node.deps.map((dep) => settled.get(dep) ?? evaluate(dep)));
  const base = { target: node.name, rule: node.rule };
  const broken = depResults.filter((r) => r.status === 'failed' || r.status === 'skipped');
  // Only an index (or a segment) may be built without some documents, and only from per-document
  // targets: a failed segment or index leaves no list of what it would have held.
  const partialAllowed =
    options.allowPartial && node.kind !== 'source' && broken.every((r) => graph.nodes.get(r.target)!.kind === 'source');
  if (broken.length > 0 && !partialAllowed) {
    return {
      ...base,
      status: 'skipped',
      reasons: [],
      error: {
        code: 'target-failed',
        message: `Not built: ${broken.length === 1 ? `dependency ${broken[0]!.target} failed` : `${broken.length} dependencies failed`}.`,
        hint:
          node.kind !== 'source'
            ? 'Fix the failing sources, or rebuild with --allow-partial to build from the others (recorded in the index).'
            : '',
      },
    };
  }
  const rule = RULES[node.rule];
  const deps: DepView[] = [];
  const failedDocuments: string[] = [];
  for (const result of depResults) {
    const depNode = graph.nodes.get(result.target)!;
    if (result.status === 'failed' || result.status === 'skipped' || !env.state.targets.has(result.target)) {
      if (depNode.kind === 'source') failedDocuments.push(depNode.source.documentId);
      continue;
    }
    deps.push(depView(env, graph, result.target));
  }
  const missing = [...failedDocuments, ...inheritedMissing(node, deps)].sort(compareCodeUnits);
  const upstreamDirty = depResults.filter((r) => r.status === 'dirty' || r.status === 'maybe-dirty');

  try {
    const record = env.state.targets.get(node.name);
    if (options.dryRun && upstreamDirty.length > 0) {
      // Its inputs are not known until its dependencies run: say what is certain, and what depends on them.
      const reasons: DirtyReason[] = upstreamDirty.map((r) => ({ reason: 'upstream-dirty', input: r.target }) as const);
      let own: DirtyReason[] = [{ reason: 'no-record' }];
      if (record && deps.length === node.deps.length) own = staleReasons(env, graph, node, record, { deps, missing });
      const definite = own.filter((r) =>
        r.reason !== 'upstream-changed' && r.reason !== 'input-changed'
          ? true
          : !upstreamDirty.some((u) => u.target === (r as { input: string }).input),
      );
      const status: TargetStatus = definite.length > 0 ? 'dirty' : 'maybe-dirty';
      return { ...base, status, reasons: [...definite, ...reasons] };
    }
    const reasons = staleReasons(env, graph, node, record, { deps, missing });
    if (reasons.length === 0) {
      if (env.cache?.uploads && env.cache.backfill && rule.cache && record !== undefined && !options.dryRun)
        await env.cache.backfill(env, upToDateRequest(node, record, deps, rule), () => recordedOutput(env, record));
      return settledResult(base, 'up-to-date', reasons, env.state.targets.get(node.name) ?? record!, env);
    }
    if (options.dryRun) return { ...base, status: 'dirty', reasons };
    const components = keyComponents(node, env, { deps, missing });
    const key = targetKey(components);

    env.state.beginChanges();
    options.onEvent?.({ type: 'start', target: node.name });
    // The one consultation of the action cache (src/cache/): it may restore a verified output instead.
    const run = () => rule.run(env, node, deps, missing);
    const inputsUnchanged = (): boolean =>
      deps.every((dep) => {
        const now = env.state.targets.get(dep.name);
        return now !== undefined && now.sha256 === dep.sha256 && outputReasons(dep.name, now, env).length === 0;
      });
    const { output: produced, restored } = env.cache
      ? await env.cache.produce(env, { node, components, deps, adapter: rule.cache, run, inputsUnchanged })
      : { output: await run(), restored: false };
    const bytes = typeof produced.bytes === 'string' ? Buffer.from(produced.bytes, 'utf8') : produced.bytes;
    const sha256 = produced.sha256 ?? sha256Hex(bytes);
    const output = produced.outputPath(sha256);
    const file = abs(env.ws, output);
    // Indexes and segments are written durably: the index that names them is the commit point.
    const durable = node.kind !== 'source';
    // The recorded file is still there, unmodified, with other bytes: write without reading it back.
    const recordedStamp = record !== undefined && record.output === output && record.sha256 !== sha256 ? statStamp(file) : null;
    if (recordedStamp !== null && sameStamp(recordedStamp, record!.stamp)) writeFileAtomic(file, bytes, durable);
    else writeFileIfChanged(file, bytes, durable);
    const stamp = statStamp(file)!;
    const unchanged = record !== undefined && record.sha256 === sha256;
    const newRecord: TargetRecord = { key, components, output, sha256, stamp };
    if (produced.facts) newRecord.facts = produced.facts;
    const bodyStamp = produced.facts?.body ? statStamp(abs(env.ws, produced.facts.body)) : null;
    if (bodyStamp) newRecord.bodyStamp = bodyStamp;
    env.state.recordTarget(node.name, newRecord);
    env.memory.writtenFromHashedBytes.add(newRecord);
    const status: TargetStatus = unchanged ? 'unchanged' : 'built';
    options.onEvent?.({ type: 'finish', target: node.name, status });
    const result = settledResult(base, status, reasons, newRecord);
    if (restored) result.restored = true;
    if (missing.length > 0) result.missingSources = missing;
    return result;
  } catch (caught) {
    // An unexpected exception in a stage is a bug, but it is one target's bug: that target fails
    // (internal-error, with the cause), its previous output is kept, and the other sources go on.
    const error =
      caught instanceof EpistemeError
        ? (relativeToWorkspace(caught, env.ws.root) as EpistemeError)
        : new EpistemeError(
            'internal-error',
            `Unexpected failure in the ${node.rule} rule: ${caught instanceof Error ? caught.message : String(caught)}`,
            {
              hint: 'This is a bug in Episteme; rerun with --debug for the stack trace and report it.',
              ...(options.debug ? { details: { debug: caught instanceof Error ? (caught.stack ?? caught.message) : String(caught) } } : {}),
            },
          );
    options.onEvent?.({ type: 'finish', target: node.name, status: 'failed' });
    const failure: TargetResult['error'] = { code: error.code, message: error.message };
    if (error.hint) failure.hint = error.hint;
    if (error.details) failure.details = error.details;
    return { ...base, status: 'failed', reasons: [], error: failure };
  }
}

/**
 * Whether the recorded output (and, for a snapshot, its body) is still there, unmodified: the stat fast
 * path with a hash fallback. The stamp includes the change time, which the kernel sets on every write
 * and no user call can set back, so an edit that restores size and mtime still falls to the hash.
 */
function outputReasons(name: string, record: TargetRecord, env: RuleEnv): DirtyReason[] {
  const absolute = abs(env.ws, record.output);
  const stamp = statStamp(absolute);
  if (stamp === null) return [{ reason: 'output-missing', output: record.output }];
  if (!sameStamp(stamp, record.stamp)) {
    // Stat changed (touched, copied back, edited): trust only the content hash.
    if (!hashMatches(absolute, record.sha256)) return [{ reason: 'output-modified', output: record.output }];
    record = { ...record, stamp };
    env.state.recordTarget(name, record);
  }
  const body = record.facts?.body;
  if (body && record.facts?.sha256) {
    const bodyAbsolute = abs(env.ws, body);
    const bodyStamp = statStamp(bodyAbsolute);
    if (bodyStamp === null) return [{ reason: 'output-missing', output: body }];
    if (record.bodyStamp === undefined || !sameStamp(bodyStamp, record.bodyStamp)) {
      if (!hashMatches(bodyAbsolute, record.facts.sha256)) return [{ reason: 'output-modified', output: body }];
      env.state.recordTarget(name, { ...record, bodyStamp });
    }
  }
  return [];
}

function hashMatches(absolute: string, sha256: string): boolean {
  try {
    return sha256Hex(readRegularFileSync(absolute)) === sha256;
  } catch {
    return false;
  }
}
