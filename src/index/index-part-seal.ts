import { sha256Hex } from '../store/hash.js';

/**
 * Cached index parts (a document's postings) end with a line holding the SHA-256 of their key (the
 * chunks' content hash) and the part, so an entry is bound to the chunk content it was made from and
 * any damage (truncation, a flipped byte, a part copied under another name) is caught before a merge
 * uses it.
 */
const PART_SEAL = '\n#part-sha256:';

function partSeal(part: string, key: string): string {
  return sha256Hex(`${key}\n${part}`);
}

export function sealPart(part: string, key: string): string {
  return `${part}${PART_SEAL}${partSeal(part, key)}\n`;
}

/** The part inside a sealed entry, when the seal binds it to `key` and it is intact; otherwise null. */
export function unsealPart(text: string, key: string): string | null {
  const at = text.lastIndexOf(PART_SEAL);
  if (at < 0 || !text.endsWith('\n')) return null;
  const part = text.slice(0, at);
  return text.slice(at + PART_SEAL.length, -1) === partSeal(part, key) ? part : null;
}
