import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
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

/**
 * Hash of the canonical JSON of {keySchemaVersion, ...components}. Written out by hand for the flat
 * string maps, because it runs for every target on every build (a no-op build is mostly this).
 */
export function targetKey(components: KeyComponents): string {
  return fastHash(keyText(components));
}

/** The canonical JSON of key components (flat string maps, keys in code-unit order), built directly. */
export function keyText(components: KeyComponents): string {
  return (
    `{"inputs":${flatStringMap(components.inputs)},"keySchemaVersion":${KEY_SCHEMA_VERSION},` +
    `"options":${flatStringMap(components.options)},"producerVersion":${JSON.stringify(components.producerVersion)},` +
    `"rule":${JSON.stringify(components.rule)},"ruleVersion":${components.ruleVersion}}`
  );
}

function flatStringMap(record: Record<string, string>): string {
  const keys = Object.keys(record);
  // Keys already in code-unit order: JSON.stringify walks the same order with the same escaping.
  if (isSorted(keys)) return JSON.stringify(record);
  keys.sort(compareCodeUnits);
  let text = '{';
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    text += (i ? ',' : '') + JSON.stringify(key) + ':' + JSON.stringify(record[key]);
  }
  return text + '}';
}

/** Longer option values (e.g. a family's whole rule set) are kept as a hash of their canonical JSON. */
const INLINE_OPTION_LIMIT = 80;
const canonicalCache = new WeakMap<object, string>();

/**
 * Flattens a rule's option object one level deep into named values: canonical JSON when short (so
 * explain prints `chunk.maxChars changed 1200 -> 800`), a hash when long. The same option object
 * shared by many targets is serialised once.
 */
export function namedOptions(prefix: string, options: object): Record<string, string> {
  const named: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined) named[`${prefix}.${name}`] = optionValue(value);
  }
  return named;
}

function optionValue(value: unknown): string {
  const json = memoCanonical(value);
  if (json.startsWith('"hash:')) return json.slice(1, -1);
  return json.length <= INLINE_OPTION_LIMIT ? json : `hash:${fastHash(json)}`;
}

/** Nested values longer than this are represented by their hash inside an option's key text. */
const NESTED_HASH_LIMIT = 256;

/**
 * canonicalJson for key purposes: remembers the text of every object it meets (rule sets are shared
 * by many targets), and stands a long nested value in by a hash of its text, so a per-document option
 * that embeds a whole rule set stays short.
 */
function memoCanonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return canonicalJson(value);
  const cached = canonicalCache.get(value);
  if (cached !== undefined) return cached;
  let json: string;
  if (Array.isArray(value)) json = '[' + value.map((item) => memoCanonical(item ?? null)).join(',') + ']';
  else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort(compareCodeUnits);
    json = '{' + keys.map((k) => JSON.stringify(k) + ':' + memoCanonical(record[k])).join(',') + '}';
  }
  if (json.length > NESTED_HASH_LIMIT) json = `"hash:${fastHash(json)}"`;
  canonicalCache.set(value, json);
  return json;
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

/** Whether two sets of components are equal (and so are their keys), without hashing. */
export function sameComponents(a: KeyComponents, b: KeyComponents): boolean {
  return (
    a.rule === b.rule &&
    a.ruleVersion === b.ruleVersion &&
    a.producerVersion === b.producerVersion &&
    sameStringMap(a.options, b.options) &&
    sameStringMap(a.inputs, b.inputs)
  );
}

function sameStringMap(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

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
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length === keysB.length && keysA.every((key, i) => key === keysB[i]) && isSorted(keysA)) return keysA;
  return [...new Set([...keysA, ...keysB])].sort(compareCodeUnits);
}

function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i += 1) if (!(keys[i - 1]! < keys[i]!)) return false;
  return true;
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
