/**
 * Tag and attribute names read from markup, each distinct name one shared string for the life of the
 * process (as browsers' parsers keep an atom table). A name is looked up by its code units in the
 * source, so reading one allocates nothing: no substring, no lower-cased copy, and every later
 * `Set`/`Map` lookup of a name (tags.ts, the tree builder's lists) is of one string whose hash is
 * computed once. The table's strings are copies made of their code units, so they hold no part of a
 * source document alive.
 *
 * Bounded: names longer than MAX_NAME_LENGTH, names with non-ASCII code units, and new names once the
 * table holds MAX_NAMES are read as plain substrings, so hostile markup with a million distinct names
 * costs what it did before and holds no memory past its document.
 */

const MAX_NAME_LENGTH = 32;
const MAX_NAMES = 2048;
/** Slots: a power of two, at most half full, so linear probing stays short. */
const SLOTS = 4096;

const slots: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
let count = 0;

/** A copy of a short name built from its code units: a slice would keep the whole source it was cut from. */
function ownCopy(name: string): string {
  const codes: number[] = [];
  for (let i = 0; i < name.length; i++) codes.push(name.charCodeAt(i));
  return String.fromCharCode(...codes);
}

/**
 * The name `source.slice(start, end)`, ASCII-lower-cased when `lowerCase` (then equal to
 * `.toLowerCase()` of it: names that are not ASCII take that path).
 */
export function readName(source: string, start: number, end: number, lowerCase: boolean): string {
  const length = end - start;
  if (length <= 0) return '';
  if (length > MAX_NAME_LENGTH) return plainName(source, start, end, lowerCase);
  let hash = 0;
  for (let i = start; i < end; i++) {
    let c = source.charCodeAt(i);
    if (c > 127) return plainName(source, start, end, lowerCase);
    if (lowerCase && c >= 65 && c <= 90) c += 32;
    hash = (Math.imul(hash, 31) + c) | 0;
  }
  let slot = hash & (SLOTS - 1);
  for (;;) {
    const known = slots[slot];
    if (known === undefined) break;
    if (known.length === length && sameName(known, source, start, lowerCase)) return known;
    slot = (slot + 1) & (SLOTS - 1);
  }
  const name = plainName(source, start, end, lowerCase);
  if (count >= MAX_NAMES) return name;
  const shared = ownCopy(name);
  slots[slot] = shared;
  count++;
  return shared;
}

function sameName(known: string, source: string, start: number, lowerCase: boolean): boolean {
  for (let i = 0; i < known.length; i++) {
    let c = source.charCodeAt(start + i);
    if (lowerCase && c >= 65 && c <= 90) c += 32;
    if (known.charCodeAt(i) !== c) return false;
  }
  return true;
}

function plainName(source: string, start: number, end: number, lowerCase: boolean): string {
  const raw = source.slice(start, end);
  return lowerCase ? raw.toLowerCase() : raw;
}
