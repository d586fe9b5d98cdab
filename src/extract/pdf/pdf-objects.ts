/**
 * A PDF's objects as its bytes define them, read forward the way a PDF reader rebuilds a damaged
 * cross-reference table: every `N G obj` is an object (the last definition of a number wins, as an
 * incremental update's does), and one whose dictionary is followed by `stream` is a stream, whose data
 * is skipped by its /Length when that is right, else up to `endstream`. Comments are whitespace
 * anywhere, as in the PDF syntax; strings, names, arrays, dictionaries and references are parsed, so a
 * key or comment between tokens cannot hide a /Filter. Objects kept in object streams (/Type /ObjStm)
 * are read when a reference names one (objectStreamMembers).
 *
 * It reads no more than the inflated-bytes check needs (pdf-streams.ts): no cross-reference table,
 * no encryption. Malformed objects are skipped, never thrown.
 */

export type PdfValue =
  | { kind: 'name'; name: string }
  | { kind: 'number'; value: number }
  | { kind: 'ref'; num: number; gen: number }
  | { kind: 'array'; items: PdfValue[] }
  | { kind: 'dict'; entries: Map<string, PdfValue> }
  | { kind: 'string' }
  | { kind: 'other'; word: string };

export interface PdfStream {
  num: number;
  dictionary: Map<string, PdfValue>;
  data: Buffer;
}

type Token =
  | { type: 'eof' }
  | { type: 'number'; value: number; integer: boolean }
  | { type: 'name'; name: string }
  | { type: 'string' }
  | { type: 'punct'; text: '<<' | '>>' | '[' | ']' | '{' | '}' }
  | { type: 'word'; word: string };

/** Nesting of arrays and dictionaries a value may have (a deeper one is skipped as malformed). */
const MAX_DEPTH = 64;

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIMITER[c.charCodeAt(0)] = 1;

class Malformed extends Error {}

export class PdfLexer {
  constructor(
    readonly bytes: Buffer,
    public pos = 0,
  ) {}

  /** Skips whitespace and comments. */
  skipSpace(): void {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const c = bytes[this.pos]!;
      if (WHITE[c]) this.pos++;
      else if (c === 0x25) {
        while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
      } else break;
    }
  }

  next(): Token {
    this.skipSpace();
    const { bytes } = this;
    if (this.pos >= bytes.length) return { type: 'eof' };
    const c = bytes[this.pos]!;
    switch (c) {
      case 0x3c: // <
        if (bytes[this.pos + 1] === 0x3c) {
          this.pos += 2;
          return { type: 'punct', text: '<<' };
        }
        this.pos = indexOrEnd(bytes, 0x3e, this.pos + 1) + 1;
        return { type: 'string' };
      case 0x3e: // >
        this.pos += bytes[this.pos + 1] === 0x3e ? 2 : 1;
        return { type: 'punct', text: '>>' };
      case 0x5b:
      case 0x5d:
      case 0x7b:
      case 0x7d:
        this.pos++;
        return { type: 'punct', text: String.fromCharCode(c) as '[' | ']' | '{' | '}' };
      case 0x28: // (
        this.skipLiteralString();
        return { type: 'string' };
      case 0x29: // ) out of place
        this.pos++;
        return { type: 'word', word: ')' };
      case 0x2f: // /
        return { type: 'name', name: this.readName() };
    }
    const start = this.pos;
    while (this.pos < bytes.length && !WHITE[bytes[this.pos]!] && !DELIMITER[bytes[this.pos]!]) this.pos++;
    const word = bytes.toString('latin1', start, this.pos);
    if (/^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(word)) return { type: 'number', value: Number(word), integer: /^[+-]?\d+$/.test(word) };
    return { type: 'word', word };
  }

  private skipLiteralString(): void {
    const { bytes } = this;
    let depth = 0;
    while (this.pos < bytes.length) {
      const c = bytes[this.pos++]!;
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return;
    }
  }

  private readName(): string {
    const { bytes } = this;
    this.pos++;
    let name = '';
    while (this.pos < bytes.length && !WHITE[bytes[this.pos]!] && !DELIMITER[bytes[this.pos]!]) {
      const c = bytes[this.pos++]!;
      if (c === 0x23 && /^[0-9A-Fa-f]{2}$/.test(bytes.toString('latin1', this.pos, this.pos + 2))) {
        name += String.fromCharCode(Number.parseInt(bytes.toString('latin1', this.pos, this.pos + 2), 16));
        this.pos += 2;
      } else name += String.fromCharCode(c);
    }
    return name;
  }

  /** The value that starts at the next token (a reference `N G R` is one value). */
  parseValue(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new Malformed();
    const token = this.next();
    switch (token.type) {
      case 'eof':
        throw new Malformed();
      case 'name':
        return { kind: 'name', name: token.name };
      case 'string':
        return { kind: 'string' };
      case 'word':
        return { kind: 'other', word: token.word };
      case 'number': {
        if (!token.integer) return { kind: 'number', value: token.value };
        const after = this.pos;
        const gen = this.next();
        if (gen.type === 'number' && gen.integer) {
          const r = this.next();
          if (r.type === 'word' && r.word === 'R') return { kind: 'ref', num: token.value, gen: gen.value };
        }
        this.pos = after;
        return { kind: 'number', value: token.value };
      }
      case 'punct':
        if (token.text === '[') {
          const items: PdfValue[] = [];
          for (;;) {
            this.skipSpace();
            if (this.bytes[this.pos] === 0x5d) {
              this.pos++;
              return { kind: 'array', items };
            }
            items.push(this.parseValue(depth + 1));
          }
        }
        if (token.text === '<<') {
          const entries = new Map<string, PdfValue>();
          for (;;) {
            const key = this.next();
            if (key.type === 'punct' && key.text === '>>') return { kind: 'dict', entries };
            if (key.type !== 'name') throw new Malformed();
            entries.set(key.name, this.parseValue(depth + 1));
          }
        }
        return { kind: 'other', word: token.text };
    }
  }
}

function indexOrEnd(bytes: Buffer, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length - 1 : at;
}

/** The objects and streams defined in `bytes`. */
export function readPdfObjects(bytes: Buffer): { objects: Map<number, PdfValue>; streams: PdfStream[] } {
  const objects = new Map<number, PdfValue>();
  const streams: PdfStream[] = [];
  const lexer = new PdfLexer(bytes);
  // The two tokens before the current one: `N G obj` opens an object.
  let before: Token = { type: 'eof' };
  let last: Token = { type: 'eof' };
  for (let token = lexer.next(); token.type !== 'eof'; token = lexer.next()) {
    if (
      token.type === 'word' &&
      token.word === 'obj' &&
      before.type === 'number' &&
      before.integer &&
      last.type === 'number' &&
      last.integer
    ) {
      const num = before.value;
      const start = lexer.pos;
      let value: PdfValue;
      try {
        value = lexer.parseValue();
      } catch (error) {
        if (!(error instanceof Malformed)) throw error;
        lexer.pos = start;
        before = last = { type: 'eof' };
        continue;
      }
      objects.set(num, value);
      if (value.kind === 'dict') {
        const afterValue = lexer.pos;
        const keyword = lexer.next();
        if (keyword.type === 'word' && keyword.word === 'stream') {
          const data = streamData(bytes, lexer.pos, value.entries.get('Length'));
          streams.push({ num, dictionary: value.entries, data: bytes.subarray(data.start, data.end) });
          lexer.pos = data.end;
        } else lexer.pos = afterValue;
      }
      before = last = { type: 'eof' };
      continue;
    }
    before = last;
    last = token;
  }
  return { objects, streams };
}

/** Where a stream's data lies: after the end of the `stream` line, for /Length bytes when `endstream` follows them. */
function streamData(bytes: Buffer, afterKeyword: number, length: PdfValue | undefined): { start: number; end: number } {
  let start = afterKeyword;
  if (bytes[start] === 0x0d) start++;
  if (bytes[start] === 0x0a) start++;
  if (length?.kind === 'number' && Number.isSafeInteger(length.value) && length.value >= 0 && start + length.value <= bytes.length) {
    const end = start + length.value;
    let at = end;
    while (at < bytes.length && WHITE[bytes[at]!]) at++;
    if (bytes.toString('latin1', at, at + 9) === 'endstream') return { start, end };
  }
  const end = bytes.indexOf('endstream', start, 'latin1');
  return { start, end: end < 0 ? bytes.length : end };
}

/**
 * The objects an object stream holds, from its decoded bytes: `/N` pairs of object number and offset
 * (from `/First`), each followed by its value.
 */
export function objectStreamMembers(dictionary: Map<string, PdfValue>, decoded: Buffer): Map<number, PdfValue> {
  const members = new Map<number, PdfValue>();
  const n = dictionary.get('N');
  const first = dictionary.get('First');
  if (n?.kind !== 'number' || first?.kind !== 'number') return members;
  const lexer = new PdfLexer(decoded);
  const pairs: [number, number][] = [];
  for (let i = 0; i < n.value && i < 1_000_000; i++) {
    const num = lexer.next();
    const offset = lexer.next();
    if (num.type !== 'number' || offset.type !== 'number') break;
    pairs.push([num.value, offset.value]);
  }
  for (const [num, offset] of pairs) {
    lexer.pos = first.value + offset;
    try {
      members.set(num, lexer.parseValue());
    } catch (error) {
      if (!(error instanceof Malformed)) throw error;
    }
  }
  return members;
}
