import { canonicalJson } from '../store/canonical-json.js';
import { fastHash } from '../store/hash.js';

/** Bump to disown every recorded key at once (a bad cache, a key-format change). */
export const KEY_SCHEMA_VERSION = 1;

/**
 * Everything that decides a target's bytes. The key is a hash of these; the state keeps them too, so
 * `explain` can name which one changed.
 */
export interface KeyComponents {
  rule: string;
  ruleVersion: number;
  producerVersion: string;
  /** Named options that shape the output, each as canonical JSON (so a change prints as before -> after). */
  options: Record<string, string>;
  /** Direct inputs: dependency target or source file -> content hash of its current output/bytes. */
  inputs: Record<string, string>;
}

export function targetKey(components: KeyComponents): string {
  return fastHash(canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...components }));
}

/** Flattens a rule's option object one level deep into named, canonical-JSON values. */
export function namedOptions(prefix: string, options: object): Record<string, string> {
  const named: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined) named[`${prefix}.${name}`] = canonicalJson(value);
  }
  return named;
}

/** Why a target is (or would be) rebuilt. A closed set; rendered by explain and the build summary. */
export type DirtyReason =
  | { reason: 'no-record' }
  | { reason: 'rule-version-changed'; before: number; after: number }
  | { reason: 'producer-version-changed'; before: string; after: string }
  | { reason: 'option-changed'; name: string; before: string | null; after: string | null }
  | { reason: 'input-changed'; input: string; before: string | null; after: string | null }
  | { reason: 'upstream-changed'; input: string; before: string | null; after: string | null }
  | { reason: 'upstream-dirty'; input: string }
  | { reason: 'output-missing'; output: string }
  | { reason: 'output-modified'; output: string }
  | { reason: 'refresh-requested'; by: 'refresh' | 'max-age'; ageSeconds: number | null; maxAgeSeconds: number | null };

/** Compares recorded and current components; `isTarget` tells target inputs from source inputs. */
export function diffComponents(before: KeyComponents, after: KeyComponents, isTarget: (input: string) => boolean): DirtyReason[] {
  const reasons: DirtyReason[] = [];
  if (before.rule !== after.rule || before.ruleVersion !== after.ruleVersion) {
    reasons.push({ reason: 'rule-version-changed', before: before.ruleVersion, after: after.ruleVersion });
  }
  if (before.producerVersion !== after.producerVersion) {
    reasons.push({ reason: 'producer-version-changed', before: before.producerVersion, after: after.producerVersion });
  }
  for (const name of unionKeys(before.options, after.options)) {
    const a = before.options[name] ?? null;
    const b = after.options[name] ?? null;
    if (a !== b) reasons.push({ reason: 'option-changed', name, before: a, after: b });
  }
  for (const input of unionKeys(before.inputs, after.inputs)) {
    const a = before.inputs[input] ?? null;
    const b = after.inputs[input] ?? null;
    if (a !== b) reasons.push({ reason: isTarget(input) ? 'upstream-changed' : 'input-changed', input, before: a, after: b });
  }
  return reasons;
}

function unionKeys(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}

export function describeReason(r: DirtyReason): string {
  switch (r.reason) {
    case 'no-record':
      return 'no previous record';
    case 'rule-version-changed':
      return `rule version ${r.before} -> ${r.after}`;
    case 'producer-version-changed':
      return `producer version ${r.before} -> ${r.after}`;
    case 'option-changed':
      return `option ${r.name} changed ${r.before ?? '(unset)'} -> ${r.after ?? '(unset)'}`;
    case 'input-changed':
      return `input ${r.input} changed ${short(r.before)} -> ${short(r.after)}`;
    case 'upstream-changed':
      return `upstream ${r.input} rebuilt with different content ${short(r.before)} -> ${short(r.after)}`;
    case 'upstream-dirty':
      return `upstream ${r.input} is dirty (rebuilds first; this target reruns only if its bytes change)`;
    case 'output-missing':
      return `output ${r.output} is missing`;
    case 'output-modified':
      return `output ${r.output} was modified outside Episteme`;
    case 'refresh-requested':
      if (r.by === 'refresh') return 'refresh requested (--refresh): conditional refetch';
      return r.ageSeconds === null
        ? `no recorded observation time, --max-age ${r.maxAgeSeconds}: conditional refetch`
        : `last observed ${r.ageSeconds} s ago, over --max-age ${r.maxAgeSeconds}: conditional refetch`;
    default:
      return unreachable(r);
  }
}

function short(hash: string | null): string {
  return hash === null ? '(none)' : hash.slice(0, 12);
}

export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
