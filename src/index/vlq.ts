/**
 * Base64 variable-length quantities (the source-map encoding): each character carries 5 payload
 * bits plus a continuation bit, so encoded integers are self-delimiting at character granularity.
 * That lets two encoded runs be concatenated as strings, which is what makes index parts cheap to
 * merge. Only non-negative integers are stored. Pure JS: no Buffer, identical on every runtime.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_VALUE[ALPHABET.charCodeAt(i)] = i;

const CONTINUE = 32;
const PAYLOAD = 31;

/** Appends the encoding of one non-negative safe integer. */
export function encodeVlq(value: number, out: string[]): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`vlq: not a non-negative integer: ${value}`);
  let rest = value;
  do {
    let digit = rest % 32;
    rest = Math.floor(rest / 32);
    if (rest > 0) digit |= CONTINUE;
    out.push(ALPHABET[digit]!);
  } while (rest > 0);
}

const DIGIT_CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));

/** Writes the encoding of a non-negative safe integer as ASCII codes at `position`; returns the end. */
export function writeVlq(value: number, out: Uint8Array, position: number): number {
  let rest = value;
  let at = position;
  do {
    let digit = rest % 32;
    rest = Math.floor(rest / 32);
    if (rest > 0) digit |= CONTINUE;
    out[at++] = DIGIT_CODES[digit]!;
  } while (rest > 0);
  return at;
}

/** Sequential reader over an encoded string. */
export class VlqReader {
  position: number;
  constructor(
    readonly text: string,
    start = 0,
  ) {
    this.position = start;
  }

  get done(): boolean {
    return this.position >= this.text.length;
  }

  next(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const code = this.text.charCodeAt(this.position++);
      const digit = code < 128 ? DIGIT_VALUE[code]! : -1;
      if (digit < 0) throw new RangeError(`vlq: bad digit at ${this.position - 1}`);
      value += (digit & PAYLOAD) * scale;
      if ((digit & CONTINUE) === 0) return value;
      scale *= 32;
      if (scale > 2 ** 53) throw new RangeError('vlq: integer too large');
    }
  }
}
