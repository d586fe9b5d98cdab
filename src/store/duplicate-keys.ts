/**
 * Duplicate member names in JSON text. JSON.parse keeps the last of two equal keys in one object
 * (RFC 8259 §4 leaves it open), so `{"manualIngest": "a.json", "manualIngest": "b.json"}` would use
 * b.json and ignore a.json without a word. The inputs a user writes (config, map, manifest, rules)
 * are scanned for them once JSON.parse has accepted the text.
 *
 * Not a parser: it relies on the text being valid JSON, so it only tracks nesting, skips strings with
 * indexOf, and compares each object's keys as JSON.parse would see them (escapes decoded: "a" and
 * "\u0061" are one key). Linear in the text, one small set per object.
 */

/** Where the first duplicate is: the path to its object (array indexes, keys), the key, its offset. */
export interface DuplicateKey {
  path: (string | number)[];
  key: string;
  /** Offset in the text of the second occurrence's opening quote. */
  offset: number;
}

interface ObjectFrame {
  keys: Set<string>;
  /** The key whose value is being read (null right after `{` or `,`). */
  key: string | null;
}

interface ArrayFrame {
  keys: null;
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The first key that appears twice in one object of `text` (valid JSON), or null. */
export function firstDuplicateKey(text: string): DuplicateKey | null {
  const stack: (ObjectFrame | ArrayFrame)[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      const top = stack[stack.length - 1];
      if (top !== undefined && top.keys !== null && top.key === null) {
        const raw = text.slice(at + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
        if (top.keys.has(key)) return { path: pathTo(stack), key, offset: at };
        top.keys.add(key);
        top.key = key;
      }
      at = end;
    } else if (code === 0x7b) stack.push({ keys: new Set(), key: null });
    else if (code === 0x5b) stack.push({ keys: null, index: 0 });
    else if (code === 0x7d || code === 0x5d) stack.pop();
    else if (code === 0x2c) {
      const top = stack[stack.length - 1]!;
      if (top.keys === null) top.index += 1;
      else top.key = null;
    }
  }
  return null;
}

/** The offset of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    if (end < 0) return text.length; // not JSON after all: the caller parsed it first, so never here
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** The keys and indexes leading to the innermost object (the one holding the duplicate). */
function pathTo(stack: (ObjectFrame | ArrayFrame)[]): (string | number)[] {
  const path: (string | number)[] = [];
  for (const frame of stack.slice(0, -1)) path.push(frame.keys === null ? frame.index : frame.key!);
  return path;
}

/** The 1-based line of `offset` in `text`, for messages. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}
