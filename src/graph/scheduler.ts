import * as fs from 'node:fs';
import { EpistemeError, type FailureCode } from '../failure.js';
import { relativeToWorkspace } from '../store/write-failure.js';
import { sha256Hex } from '../store/hash.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { writeFileAtomic, writeFileIfChanged } from '../store/atomic-file.js';
import { PRODUCER_VERSION } from '../version.js';
import type { BuildGraph, TargetNode } from './graph.js';
import {
  derivePatchedKeyText,
  diffComponents,
  sameComponents,
  sameExceptInputs,
  targetKey,
  type DirtyReason,
  type KeyComponents,
} from './key.js';
import { RULES, WRITTEN_FROM_HASHED_BYTES, abs, readVerified, segmentReason, type DepView, type RuleEnv } from './rules.js';
import { statStamp, sameStamp, stampOf, type FileStamp, type ProofStamp, type ProofTarget, type TargetRecord } from './state.js';
import { diagnosticFacts, diagnosticsOf, type TargetDiagnostics } from './diagnostics.js';

/**
 * Walks the requested closure, dependencies first, with independent targets in flight at once (CPU work
 * is bounded by the stage pool). For each target: compute the key from its inputs' content hashes; if it
 * matches the record and the output is intact, nothing runs; otherwise run the rule, store the bytes
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
  const result: TargetResult = { ...base, status, reasons, output: record.output };
  // A document extracted before records carried diagnostics gains them once, from its (verified) file.
  if (env && base.rule === 'extract' && record.facts?.diagnosticErrors === undefined) {
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
   * target's options are current and pass 1 compares inputs and outputs only (stat-only freshness),
   * without recomputing every target's options.
   */
  recordedOptionsHold?: boolean;
  /**
   * A long-running caller's memory of the targets its last build left current (build-memory.ts): such
   * a target settles up to date in pass 1 without its key or output being checked again.
   */
  vouch?: {
    /** The targets a whole-graph build may vouch for without a look, and those to check (build-memory.ts). */
    vouchPlan?(graph: BuildGraph, names: readonly string[], state: RuleEnv['state']): VouchPlan | undefined;
    vouchedResult(node: TargetNode, record: TargetRecord): TargetResult | undefined;
    /** Whether this record is the one the last build left current for this target (vouched for or not). */
    leftCurrent(name: string, record: TargetRecord): boolean;
  };
}

/**
 * A watch's plan for a build of the same whole graph as its last one: every target at a position not
 * in `mask` is up to date with the result given (its record and files are as that build left them,
 * and so are its dependencies'); only those at `positions` (in graph order) go through pass 1.
 */
export interface VouchPlan {
  results: readonly (TargetResult | undefined)[];
  positionOf: ReadonlyMap<string, number>;
  mask: Uint8Array;
  positions: readonly number[];
}

/** The settled results of a build: this build's, over the vouched results of a plan. */
class SettledResults {
  private readonly own = new Map<string, TargetResult>();

  constructor(private readonly plan: VouchPlan | undefined) {}

  /** Whether the plan vouches for this target (it is not one to check). */
  vouches(name: string): boolean {
    if (this.plan === undefined) return false;
    const at = this.plan.positionOf.get(name);
    return at !== undefined && this.plan.mask[at] === 0;
  }

  get(name: string): TargetResult | undefined {
    if (this.plan !== undefined) {
      const at = this.plan.positionOf.get(name);
      if (at !== undefined && this.plan.mask[at] === 0) return this.plan.results[at];
    }
    return this.own.get(name);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  set(name: string, result: TargetResult): void {
    this.own.set(name, result);
  }
}

const ACTION_STATUSES: ReadonlySet<TargetStatus> = new Set(['built', 'unchanged']);

export function isAction(status: TargetStatus): boolean {
  return ACTION_STATUSES.has(status);
}

export async function runSchedule(graph: BuildGraph, names: string[], env: RuleEnv, options: ScheduleOptions): Promise<TargetResult[]> {
  // Pass 1, synchronous: a target whose dependencies are all up to date, whose key matches its record
  // and whose output is intact is up to date. On a no-op build this settles everything without a
  // single promise, which keeps the no-op close to the cost of reading the state and statting files.
  // A watch's plan vouches for all but what may have changed: pass 1 looks at those only.
  const plan = options.vouch?.vouchPlan?.(graph, names, env.state);
  const settled = new SettledResults(plan);
  const checked = plan === undefined ? names : plan.positions.map((at) => names[at]!);
  // Targets settled by the no-op proof's stamps, without reading their records (see provenCurrent).
  const proven = new Set<string>();
  // Targets settled on the watch's word (build-memory.ts), without a check: those the plan vouches for too.
  const vouchedHere = new Set<string>();
  const vouched = { has: (name: string): boolean => vouchedHere.has(name) || settled.vouches(name) };
  for (const name of checked) {
    const node = graph.nodes.get(name)!;
    if (!node.deps.every((dep) => settled.get(dep)?.status === 'up-to-date')) continue;
    // A watch vouches for what its last build left current (no stat, no key): checked first.
    if (options.vouch !== undefined) {
      const held = env.state.targets.get(name);
      const vouchedResult = held === undefined ? undefined : options.vouch.vouchedResult(node, held);
      if (vouchedResult !== undefined) {
        settled.set(name, vouchedResult);
        vouchedHere.add(name);
        continue;
      }
    }
    const row = options.recordedOptionsHold ? env.state.provenTarget(name) : undefined;
    if (row !== undefined && row[1] === node.rule && provenCurrent(env, node, row)) {
      const result: TargetResult = { target: name, rule: node.rule, status: 'up-to-date', reasons: [], output: row[2] };
      const diagnostics = diagnosticsOf(env.state.provenDiagnostics(name));
      if (diagnostics) result.diagnostics = diagnostics;
      settled.set(name, result);
      proven.add(name);
      continue;
    }
    const record = env.state.targets.get(name);
    if (!record) continue;
    const deps = node.deps.map((dep) => depView(env, dep, graph.nodes.get(dep)!.source));
    // Equal components mean an equal key: compare them directly and skip hashing on the hot path.
    if (
      !sameComponents(
        record.components,
        keyComponents(node, env, deps, [], options.recordedOptionsHold ? record.components.options : undefined),
      )
    )
      continue;
    if (outputReasons(name, record, env).length === 0 && !RULES[node.rule].refreshReason?.(env, node, record)) {
      settled.set(name, settledResult({ target: name, rule: node.rule }, 'up-to-date', [], env.state.targets.get(name) ?? record, env));
    }
  }
  // Pass 2: everything else, dependencies first, independent targets concurrently.
  const inFlight = new Map<string, Promise<TargetResult>>();
  const evaluate = (name: string): Promise<TargetResult> => {
    let promise = inFlight.get(name);
    if (!promise) {
      const done = settled.get(name);
      promise = done
        ? Promise.resolve(done)
        : evaluateTarget(graph.nodes.get(name)!, graph, env, options, evaluate, settled, { proven, vouched });
      inFlight.set(name, promise);
    }
    return promise;
  };
  const pending = checked.filter((name) => !settled.has(name));
  // A worker takes a few hundred milliseconds to start: start one now, while snapshots are captured.
  if (!options.dryRun && pending.some((name) => graph.nodes.get(name)!.rule === 'extract' || graph.nodes.get(name)!.rule === 'chunk'))
    env.pool.warm();
  options.onPlan?.(pending.length);
  const settle = (result: TargetResult): TargetResult => {
    options.onSettled?.(result);
    return result;
  };
  const evaluated = new Map((await Promise.all(pending.map((name) => evaluate(name).then(settle)))).map((r) => [r.target, r]));
  if (plan === undefined) return names.map((name) => settled.get(name) ?? evaluated.get(name)!);
  const results = plan.results.slice() as TargetResult[];
  for (const at of plan.positions) results[at] = settled.get(names[at]!) ?? evaluated.get(names[at]!)!;
  return results;
}

/**
 * Whether a target the no-op proof vouches for is still up to date, from stats alone: its source file
 * (a local snapshot's), its output and the other files its record stands on carry the stamps the proof
 * recorded. The caller has checked that its dependencies are up to date and that nothing which shapes
 * options changed (recordedOptionsHold), so its key is the recorded one: the argument of the no-op
 * fast path (clean-build.ts), made per target, so an edit reads only the records of what changed.
 */
function provenCurrent(env: RuleEnv, node: TargetNode, row: ProofTarget): boolean {
  const capture = node.source?.capture;
  if (node.rule === 'snapshot') {
    // An HTTP snapshot's refresh policy reads its record.
    if (capture === undefined || capture.method !== 'manual-ingest') return false;
    const recorded = env.state.provenSource(capture.relativePath);
    if (recorded === undefined || !sameStamp(capture.stat ? stampOf(capture.stat) : NO_FILE, proofStamp(recorded))) return false;
  }
  const output = statStamp(abs(env.ws, row[2]));
  if (output === null || !sameStamp(output, { size: row[3], mtimeMs: row[4], ino: row[5], ctimeMs: row[6] })) return false;
  for (const also of row[7]) {
    const now = statStamp(abs(env.ws, also[0]));
    if (now === null || !sameStamp(now, proofStamp(also))) return false;
  }
  return true;
}

const NO_FILE: Omit<FileStamp, 'hash'> = { size: -1, mtimeMs: '', ctimeMs: '', ino: -1 };

function proofStamp(stamp: ProofStamp): Omit<FileStamp, 'hash'> {
  return { size: stamp[1], mtimeMs: stamp[2], ino: stamp[3], ctimeMs: stamp[4] };
}

/**
 * A dependency as a rule sees it. Its record is read when first used; its output's SHA-256 is given
 * when the caller knows it without the record (an aggregate's recorded input for a proven dependency).
 */
function depView(env: RuleEnv, name: string, source: TargetNode['source'], sha256?: string): DepView {
  return new LazyDepView(env, name, source, sha256);
}

/** A class rather than an object literal with a getter: an aggregate makes 10,000 of them per build. */
class LazyDepView implements DepView {
  readonly sha256: string;
  private read: TargetRecord | undefined;

  constructor(
    private readonly env: RuleEnv,
    readonly name: string,
    readonly source: TargetNode['source'],
    sha256: string | undefined,
  ) {
    this.sha256 = sha256 ?? this.record.sha256;
  }

  get record(): TargetRecord {
    this.read ??= this.env.state.targets.get(this.name);
    if (this.read === undefined)
      throw new EpistemeError('artifact-invalid', `${this.name} was dropped from the build state during this build.`, {
        hint: 'Run `episteme build` again.',
        details: { target: this.name },
      });
    return this.read;
  }
}

/** The target's key components now; `knownOptions`: its options, when proven unchanged (pass 1). */
function keyComponents(
  node: TargetNode,
  env: RuleEnv,
  deps: DepView[],
  missing: string[],
  knownOptions?: Record<string, string>,
): KeyComponents {
  const rule = RULES[node.rule];
  const inputs: Record<string, string> = rule.sourceInputs?.(env, node) ?? {};
  for (const dep of inNameOrder(node, deps)) inputs[dep.name] = dep.sha256;
  let ruleOptions = knownOptions ?? rule.options(env, node, deps);
  if (missing.length > 0) ruleOptions = { ...ruleOptions, 'partial.missingSources': JSON.stringify(missing) };
  return { rule: node.rule, ruleVersion: rule.version(env), producerVersion: PRODUCER_VERSION, options: ruleOptions, inputs };
}

/** The target's rule, versions and options now, with no inputs (compared with a record's: sameExceptInputs). */
function keyComponentsHeader(node: TargetNode, env: RuleEnv, deps: DepView[]): KeyComponents {
  const rule = RULES[node.rule];
  return {
    rule: node.rule,
    ruleVersion: rule.version(env),
    producerVersion: PRODUCER_VERSION,
    options: rule.options(env, node, deps),
    inputs: {},
  };
}

/**
 * The results of these dependencies, in order: those pass 1 settled as they are, the others once
 * evaluated (an aggregate has thousands of dependencies, nearly all settled: no promise for each).
 */
async function dependencyResults(
  names: readonly string[],
  settled: { get(name: string): TargetResult | undefined },
  evaluate: (name: string) => Promise<TargetResult>,
): Promise<TargetResult[]> {
  const results = new Array<TargetResult>(names.length);
  const waits: Promise<void>[] = [];
  for (let i = 0; i < names.length; i += 1) {
    const done = settled.get(names[i]!);
    if (done !== undefined) results[i] = done;
    else
      waits.push(
        evaluate(names[i]!).then((result) => {
          results[i] = result;
        }),
      );
  }
  await Promise.all(waits);
  return results;
}

/** Each aggregate's dependency names in code-unit order, sorted once per graph. */
const sortedDeps = new WeakMap<TargetNode, string[]>();

/**
 * The dependencies in code-unit order of their names, the order a key lists its inputs in: inserted so,
 * the key text needs no sort (key.ts sortedKeys). Only worth it for an aggregate's thousands of inputs.
 */
function inNameOrder(node: TargetNode, deps: DepView[]): DepView[] {
  if (deps.length < 64) return deps;
  let names = sortedDeps.get(node);
  if (names === undefined) {
    names = [...node.deps].sort(compareCodeUnits);
    sortedDeps.set(node, names);
  }
  const byName = new Map(deps.map((dep) => [dep.name, dep]));
  const ordered: DepView[] = [];
  for (const name of names) {
    const dep = byName.get(name);
    if (dep !== undefined) ordered.push(dep);
  }
  return ordered;
}

/** How many inputs a recorded input map has, counted once per map (an aggregate's has thousands). */
const inputCounts = new WeakMap<Record<string, string>, number>();

function inputCount(inputs: Record<string, string>): number {
  let count = inputCounts.get(inputs);
  if (count === undefined) {
    count = Object.keys(inputs).length;
    inputCounts.set(inputs, count);
  }
  return count;
}

/**
 * The inputs of an aggregate that differ from its record's (name -> SHA-256 now), given the
 * dependencies to compare: all but those whose recorded input is, without a look, their SHA-256 now.
 * Those are the dependencies the no-op proof settled (their records are the last clean build's, and so
 * is the aggregate's, as the recorded-input shortcut assumes), and, when the watch's last build left
 * this very record current, those it vouched for (their records are the ones that build ended with, as
 * was this one). Null when the record's inputs are not exactly the dependencies (a source added or
 * removed): the caller then computes every input.
 */
function inputsDelta(node: TargetNode, record: TargetRecord, compared: readonly string[], env: RuleEnv): Map<string, string> | null {
  const before = record.components.inputs;
  if (node.deps.length < 64 || RULES[node.rule].sourceInputs !== undefined || inputCount(before) !== node.deps.length) return null;
  const changed = new Map<string, string>();
  for (const name of compared) {
    const was = before[name];
    const now = env.state.targets.get(name);
    if (was === undefined || now === undefined) return null;
    if (now.sha256 !== was) changed.set(name, now.sha256);
  }
  return changed;
}

/** The record's components with these inputs changed (the record's own object when none did). */
function patchedComponents(recorded: KeyComponents, changed: ReadonlyMap<string, string>): KeyComponents {
  if (changed.size === 0) return recorded;
  // A copy in the same (code-unit) order, so the key text needs no sort.
  const inputs = { ...recorded.inputs };
  for (const [name, sha256] of changed) inputs[name] = sha256;
  const components = { ...recorded, inputs };
  inputCounts.set(inputs, inputCount(recorded.inputs));
  derivePatchedKeyText(recorded, components, changed);
  return components;
}

/** What diffComponents says of components that differ in these inputs only, in the same order. */
function changedInputReasons(before: Record<string, string>, changed: ReadonlyMap<string, string>, graph: BuildGraph): DirtyReason[] {
  return [...changed.keys()].sort(compareCodeUnits).map((input) => ({
    reason: graph.nodes.has(input) ? 'upstream-changed' : 'input-changed',
    input,
    before: before[input] ?? null,
    after: changed.get(input)!,
  }));
}

/**
 * A vouched dependency's view, made once per result the watch keeps: such a result stands for the record
 * the last build left, in the same graph (a new graph or state drops every vouch), so neither is looked up.
 */
const vouchedViews = new WeakMap<TargetResult, DepView>();

function vouchedView(env: RuleEnv, result: TargetResult, graph: BuildGraph): DepView {
  let view = vouchedViews.get(result);
  if (view === undefined) {
    const record = env.state.targets.get(result.target)!;
    view = { name: result.target, source: graph.nodes.get(result.target)!.source, sha256: record.sha256, record };
    vouchedViews.set(result, view);
  }
  return view;
}

async function evaluateTarget(
  node: TargetNode,
  graph: BuildGraph,
  env: RuleEnv,
  options: ScheduleOptions,
  evaluate: (name: string) => Promise<TargetResult>,
  settled: { get(name: string): TargetResult | undefined },
  carried: { proven: ReadonlySet<string>; vouched: { has(name: string): boolean } },
): Promise<TargetResult> {
  const { proven } = carried;
  const depResults = await dependencyResults(node.deps, settled, evaluate);
  const base = { target: node.name, rule: node.rule };
  const broken = depResults.filter((r) => r.status === 'failed' || r.status === 'skipped');
  const isAggregate = node.source === null;
  if (broken.length > 0 && (!isAggregate || !options.allowPartial)) {
    return {
      ...base,
      status: 'skipped',
      reasons: [],
      error: {
        code: 'target-failed',
        message: `Not built: ${broken.length === 1 ? `dependency ${broken[0]!.target} failed` : `${broken.length} dependencies failed`}.`,
        hint: isAggregate
          ? 'Fix the failing sources, or rebuild with --allow-partial to build from the others (recorded in the index).'
          : '',
      },
    };
  }
  const rule = RULES[node.rule];
  const deps: DepView[] = [];
  const missing: string[] = [];
  // A proven dependency's record is the one the last clean build left, when this target's record took
  // its output's SHA-256 as an input: an aggregate reads it there instead of parsing 10,000 records.
  const recordedInputs = proven.size > 0 && isAggregate ? env.state.targets.get(node.name)?.components.inputs : undefined;
  // The dependencies the watch vouched for and the others but those proven (inputsDelta compares those).
  const vouchedDeps: string[] = [];
  const checkedDeps: string[] = [];
  for (const result of depResults) {
    // Vouched: the graph and the record are the ones the last build left (build-memory.ts).
    if (carried.vouched.has(result.target)) {
      deps.push(vouchedView(env, result, graph));
      vouchedDeps.push(result.target);
      continue;
    }
    const depNode = graph.nodes.get(result.target)!;
    if (result.status === 'failed' || result.status === 'skipped' || !env.state.targets.has(result.target)) {
      if (depNode.source) missing.push(depNode.source.documentId);
      continue;
    }
    const isProven = proven.has(result.target);
    if (!isProven) checkedDeps.push(result.target);
    const known = recordedInputs !== undefined && isProven ? recordedInputs[result.target] : undefined;
    deps.push(depView(env, result.target, depNode.source, known));
  }
  const upstreamDirty = depResults.filter((r) => r.status === 'dirty' || r.status === 'maybe-dirty');

  try {
    const record = env.state.targets.get(node.name);
    let reasons: DirtyReason[];
    if (options.dryRun && upstreamDirty.length > 0) {
      reasons = upstreamDirty.map((r) => ({ reason: 'upstream-dirty', input: r.target }) as const);
      let own: DirtyReason[] = [{ reason: 'no-record' }];
      if (record && deps.length === node.deps.length) {
        const components = keyComponents(node, env, deps, missing);
        own = ownReasons(node.name, record, components, targetKey(components), env, graph);
      }
      const definite = own.filter((r) =>
        r.reason !== 'upstream-changed' && r.reason !== 'input-changed'
          ? true
          : !upstreamDirty.some((u) => u.target === (r as { input: string }).input),
      );
      const status: TargetStatus = definite.length > 0 ? 'dirty' : 'maybe-dirty';
      return { ...base, status, reasons: [...definite, ...reasons] };
    }
    // An aggregate whose record took its inputs from what its dependencies are now, but for a few: its
    // components are the record's with those few changed (an edit does not walk 10,000 inputs four times).
    const delta =
      record !== undefined && isAggregate && missing.length === 0
        ? inputsDelta(node, record, options.vouch?.leftCurrent(node.name, record) ? checkedDeps : [...checkedDeps, ...vouchedDeps], env)
        : null;
    const components =
      delta !== null && sameExceptInputs(record!.components, keyComponentsHeader(node, env, deps))
        ? patchedComponents(record!.components, delta)
        : keyComponents(node, env, deps, missing);
    const key = targetKey(components);
    if (record === undefined) reasons = [{ reason: 'no-record' }];
    else if (delta !== null && components.inputs !== record.components.inputs && record.key !== key)
      reasons = changedInputReasons(record.components.inputs, delta, graph);
    else reasons = ownReasons(node.name, record, components, key, env, graph);
    const refresh = reasons.length === 0 ? rule.refreshReason?.(env, node, record!) : null;
    if (refresh) reasons = [refresh];
    if (reasons.length === 0) return settledResult(base, 'up-to-date', reasons, env.state.targets.get(node.name) ?? record!, env);
    if (options.dryRun) return { ...base, status: 'dirty', reasons };

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
      ? await env.cache.produce(env, { node, components, deps, run, inputsUnchanged })
      : { output: await run(), restored: false };
    const bytes = typeof produced.bytes === 'string' ? Buffer.from(produced.bytes, 'utf8') : produced.bytes;
    const sha256 = produced.sha256 ?? sha256Hex(bytes);
    const output = produced.outputPath(sha256);
    const file = abs(env.ws, output);
    // The recorded file is still there, unmodified, with other bytes: write without reading it back
    // to compare (an aggregate is megabytes at 10,000 sources, and an edit always changes it).
    const recordedStamp = record !== undefined && record.output === output && record.sha256 !== sha256 ? statStamp(file) : null;
    if (recordedStamp !== null && sameStamp(recordedStamp, record!.stamp)) writeFileAtomic(file, bytes, node.source === null);
    else writeFileIfChanged(file, bytes, node.source === null);
    const stamp = statStamp(file)!;
    const unchanged = record !== undefined && record.sha256 === sha256;
    const newRecord: TargetRecord = { key, components, output, sha256, stamp };
    if (produced.facts) newRecord.facts = produced.facts;
    const bodyStamp = produced.facts?.body ? statStamp(abs(env.ws, produced.facts.body)) : null;
    if (bodyStamp) newRecord.bodyStamp = bodyStamp;
    env.state.recordTarget(node.name, newRecord, delta !== null && components.inputs !== record!.components.inputs ? delta : undefined);
    WRITTEN_FROM_HASHED_BYTES.add(newRecord);
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

/** Reasons the recorded target is dirty, given current components; empty when it is up to date. */
function ownReasons(
  name: string,
  record: TargetRecord,
  components: KeyComponents,
  key: string,
  env: RuleEnv,
  graph: BuildGraph,
): DirtyReason[] {
  if (record.key !== key) {
    const reasons = diffComponents(record.components, components, (input) => graph.nodes.has(input));
    return reasons.length > 0 ? reasons : [{ reason: 'no-record' }];
  }
  return outputReasons(name, record, env);
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
  const segment = segmentReason(env, name, record);
  return segment === null ? [] : [segment];
}

function hashMatches(absolute: string, sha256: string): boolean {
  try {
    return sha256Hex(fs.readFileSync(absolute)) === sha256;
  } catch {
    return false;
  }
}
