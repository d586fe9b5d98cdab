import { Buffer } from 'node:buffer';
/**
 * Canonical JSON: object keys sorted by UTF-16 code unit (never localeCompare), no whitespace,
 * no undefined, no non-finite numbers. Equal values always give equal bytes, on every runtime.
 *
 * JSON.stringify already writes strings and numbers canonically and keys in their property order, so
 * a value whose objects hold their keys in code-unit order is serialised by it (native, one pass).
 * Objects whose keys are in another order are copied with sorted keys first, and only those (and the
 * containers above them). What JSON.stringify would write differently (a toJSON method, a non-finite
 * number, an integer-like key it reorders, a function) goes through the slow serializer, which names
 * the place of an unsupported value.
 */
export function canonicalJson(value: unknown): string {
  const ordered = inCodeUnitOrder(value, 0);
  return ordered === UNSUPPORTED ? serialize(value, '$') : JSON.stringify(ordered);
}

/**
 * canonicalJson(value) as UTF-8 bytes, serialised member by member and each long array item by item.
 * One character outside Latin-1 makes a JavaScript string two bytes per character: serialised whole,
 * a document with such characters anywhere (the DOM Standard has 16,601, spread over the whole file)
 * is one two-byte string, which JSON.stringify and the UTF-8 encoder write slowly (20-48 ms for its
 * 1.9 MB on Node 20 and 24). In pieces only the pieces that hold such a character are two-byte
 * (10-11 ms). The same bytes; a value it does not split (not a plain object, or one with toJSON or
 * integer-like keys) is serialised whole, and so is one holding what canonical JSON refuses, so the
 * error names the place as canonicalJson's does. `splitArraysOver`: arrays longer than this are split.
 */
export function canonicalJsonBytes(value: unknown, splitArraysOver = 16): Buffer {
  const whole = (): Buffer => Buffer.from(canonicalJson(value), 'utf8');
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return whole();
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort(compareCodeUnits);
  if (keys.some((key) => INTEGER_KEY.test(key))) return whole();
  const pieces: Buffer[] = [];
  try {
    keys.forEach((key, i) => {
      const member = record[key];
      pieces.push(Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`, 'utf8'));
      if (Array.isArray(member) && member.length > splitArraysOver && typeof (member as { toJSON?: unknown }).toJSON !== 'function') {
        // An index loop: a hole is written as null, as JSON.stringify writes it.
        for (let j = 0; j < member.length; j++) {
          const item = member[j] as unknown;
          pieces.push(Buffer.from(`${j === 0 ? '[' : ','}${item === undefined ? 'null' : canonicalJson(item)}`, 'utf8'));
        }
        pieces.push(Buffer.from(']', 'utf8'));
      } else pieces.push(Buffer.from(canonicalJson(member), 'utf8'));
    });
  } catch {
    return whole();
  }
  pieces.push(Buffer.from(keys.length === 0 ? '{}' : '}', 'utf8'));
  return Buffer.concat(pieces);
}

/** Canonical JSON plus a trailing newline, as written to disk. */
export function canonicalJsonFile(value: unknown): string {
  return canonicalJson(value) + '\n';
}

const UNSUPPORTED: unique symbol = Symbol('unsupported');
// Deeper values take the slow serializer, which recurses the same way (and names the place).
const MAX_DEPTH = 2000;
const INTEGER_KEY = /^(?:0|[1-9][0-9]*)$/;

/**
 * The value itself when JSON.stringify writes it canonically, a copy with sorted keys where only the
 * key order differs, UNSUPPORTED when it holds something JSON.stringify writes otherwise.
 */
function inCodeUnitOrder(value: unknown, depth: number): unknown {
  if (value === null) return value;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : UNSUPPORTED;
    case 'object':
      break;
    default:
      return UNSUPPORTED;
  }
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return UNSUPPORTED;
  // Strings, booleans and null (most members) are checked inline; nothing is allocated unless a
  // member must change (a copy with sorted keys somewhere below).
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as unknown;
      // undefined: written as null by both
      if (item === undefined || item === null || typeof item === 'string' || typeof item === 'boolean') continue;
      const ordered = inCodeUnitOrder(item, depth + 1);
      if (ordered === UNSUPPORTED) return UNSUPPORTED;
      if (ordered !== item) {
        copy ??= value.slice();
        copy[i] = ordered;
      }
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  let changed: unknown[] | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0 && !(keys[i - 1]! < key)) sorted = false;
    const item = record[key];
    if (item === undefined || item === null || typeof item === 'string' || typeof item === 'boolean') continue;
    const ordered = inCodeUnitOrder(item, depth + 1);
    if (ordered === UNSUPPORTED) return UNSUPPORTED;
    if (ordered !== item) {
      changed ??= new Array<unknown>(keys.length);
      changed[i] = ordered;
    }
  }
  if (sorted && changed === null) return value;
  const order = keys.map((_, i) => i);
  if (!sorted) {
    // An object orders integer-like keys first, numerically: no copy can hold them in code-unit order.
    if (keys.some((key) => INTEGER_KEY.test(key))) return UNSUPPORTED;
    order.sort((a, b) => compareCodeUnits(keys[a]!, keys[b]!));
  }
  const copy: Record<string, unknown> = {};
  for (const i of order) {
    const item = changed?.[i] ?? record[keys[i]!];
    if (item !== undefined) copy[keys[i]!] = item;
  }
  return copy;
}

function serialize(value: unknown, where: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: non-finite number at ${where}`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return '[' + value.map((item, i) => serialize(item === undefined ? null : item, `${where}[${i}]`)).join(',') + ']';
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort(compareCodeUnits);
      return '{' + keys.map((k) => JSON.stringify(k) + ':' + serialize(record[k], `${where}.${k}`)).join(',') + '}';
    }
    default:
      throw new TypeError(`canonical JSON: unsupported ${typeof value} at ${where}`);
  }
}

/** Sort comparator by UTF-16 code unit; the only string order used for derived artifacts. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
