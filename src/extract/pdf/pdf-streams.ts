import { createInflate } from 'node:zlib';
import { objectStreamMembers, readPdfObjects, type PdfStream, type PdfValue } from './pdf-objects.js';

/**
 * Whether a PDF's streams decode to more than `limit` bytes in total. pdfjs decodes a stream into
 * memory outside the JavaScript heap (so a worker's heap limit does not see it), with no bound of its
 * own: a 1 MB Flate bomb becomes gigabytes. Each stream is decoded here once, stage by stage through
 * its filter chain, keeping at most what is left of the limit, and counting stops at the limit.
 *
 * The chain is read as pdfjs reads it: /Filter a name or an array, direct or by reference (through
 * an object stream too), with its /DecodeParms; the expanding filters (Flate, LZW, RunLength) and the
 * ASCII ones before them are decoded, and a chain stops at an image filter (its data is not inflated
 * text). Every stage's output counts (pdfjs holds each). A chain that names an object this reading
 * cannot find counts the most any of the usual chains makes of the data. A stream that does not decode
 * cleanly counts the bytes it gave before its error; pdfjs will report the damage itself.
 *
 * Not covered: an encrypted PDF's streams (decoded after decryption) and inline images inside content
 * streams; see docs/extraction.md, "Bounds".
 */
export async function inflatedBytesOver(body: Uint8Array, limit: number): Promise<boolean> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const { objects, streams } = readPdfObjects(bytes);
  let total = 0;
  const members = new Map<number, PdfValue>();
  const objectStreams = streams.filter((stream) => nameOf(stream.dictionary.get('Type')) === 'ObjStm');
  let membersRead = false;
  /** The value a reference names: a top-level object, else one kept in an object stream. */
  const resolve = async (value: PdfValue | undefined, depth = 0): Promise<PdfValue | undefined> => {
    if (value?.kind !== 'ref' || depth > 8) return value;
    const found = objects.get(value.num);
    if (found !== undefined) return resolve(found, depth + 1);
    if (!membersRead) {
      membersRead = true;
      for (const stream of objectStreams) {
        const chain = await chainOf(stream, async (v) => (v?.kind === 'ref' ? objects.get(v.num) : v));
        if (chain === null) continue;
        const decoded = await decodeChain(stream.data, chain, Math.max(0, limit - total), true);
        for (const [num, member] of objectStreamMembers(stream.dictionary, decoded.last)) if (!members.has(num)) members.set(num, member);
      }
    }
    const member = members.get(value.num);
    return member === undefined ? undefined : resolve(member, depth + 1);
  };
  for (const stream of streams) {
    const budget = limit - total;
    const chain = await chainOf(stream, resolve);
    total += chain === null ? await mostOfUsualChains(stream.data, budget) : (await decodeChain(stream.data, chain, budget)).counted;
    if (total > limit) return true;
  }
  return false;
}

/**
 * How deep two trees of a PDF nest, read from its objects (and those its object streams hold, decoding
 * at most `budget` bytes), where pdfjs cannot bear a deep one: its outline, walked as pdfjs walks it
 * (/First one level down, /Next on the same level, each object once), which pdfjs hands over as nested
 * objects that structuredClone copies recursively (20,000 levels in 2.6 MB overflowed the stack as an
 * uncaught error: an internal error, or the process gone); and the /Parent chains of form fields
 * (objects with /T, /FT or /Subtype /Widget), whose full names pdfjs builds by walking every field's
 * chain (quadratic: 20,000 levels in 1.8 MB ran past the five-minute PDF bound).
 *
 * Not seen: objects of an encrypted PDF's object streams, and an object the cross-reference table
 * names at another definition than the last.
 */
export async function pdfTreeDepths(body: Uint8Array, budget: number): Promise<{ outline: number; fields: number }> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const { objects, streams } = readPdfObjects(bytes);
  const members = new Map<number, PdfValue>();
  let spent = 0;
  for (const stream of streams) {
    if (nameOf(stream.dictionary.get('Type')) !== 'ObjStm' || spent > budget) continue;
    const chain = await chainOf(stream, async (v) => (v?.kind === 'ref' ? objects.get(v.num) : v));
    if (chain === null) continue;
    const decoded = await decodeChain(stream.data, chain, budget - spent, true);
    spent += decoded.counted;
    for (const [num, member] of objectStreamMembers(stream.dictionary, decoded.last)) if (!members.has(num)) members.set(num, member);
  }
  const objectNumbered = (num: number): PdfValue | undefined => objects.get(num) ?? members.get(num);
  const dictOf = (value: PdfValue | undefined): Map<string, PdfValue> | undefined => {
    const found = value?.kind === 'ref' ? objectNumbered(value.num) : value;
    return found?.kind === 'dict' ? found.entries : undefined;
  };
  const dicts: Map<string, PdfValue>[] = [];
  for (const value of [...objects.values(), ...members.values()]) if (value.kind === 'dict') dicts.push(value.entries);

  let outline = 0;
  for (const catalog of dicts) {
    if (nameOf(catalog.get('Type')) !== 'Catalog') continue;
    const first = dictOf(catalog.get('Outlines'))?.get('First');
    if (first?.kind !== 'ref') continue;
    // pdfjs's queue: /First one level down, /Next on the same level, each object once.
    const seen = new Set<number>([first.num]);
    const queue: { num: number; depth: number }[] = [{ num: first.num, depth: 1 }];
    for (let head = 0; head < queue.length; head++) {
      const { num, depth } = queue[head]!;
      outline = Math.max(outline, depth);
      const item = dictOf(objectNumbered(num));
      if (item === undefined) continue;
      for (const [key, below] of [
        ['First', 1],
        ['Next', 0],
      ] as const) {
        const next = item.get(key);
        if (next?.kind !== 'ref' || seen.has(next.num)) continue;
        seen.add(next.num);
        queue.push({ num: next.num, depth: depth + below });
      }
    }
  }

  // The length of each field's /Parent chain, each object measured once (a cycle ends a chain).
  const chainLength = new Map<number, number>();
  const lengthFrom = (start: Map<string, PdfValue>): number => {
    const path: number[] = [];
    const onPath = new Set<number>();
    let parent = start.get('Parent');
    let known = 0;
    while (parent?.kind === 'ref' && !onPath.has(parent.num)) {
      const measured = chainLength.get(parent.num);
      if (measured !== undefined) {
        known = measured;
        break;
      }
      path.push(parent.num);
      onPath.add(parent.num);
      parent = dictOf(objectNumbered(parent.num))?.get('Parent');
    }
    for (let i = path.length - 1; i >= 0; i--) chainLength.set(path[i]!, ++known);
    return known + 1;
  };
  let fields = 0;
  for (const dict of dicts) {
    if (dict.has('T') || dict.has('FT') || nameOf(dict.get('Subtype')) === 'Widget') fields = Math.max(fields, lengthFrom(dict));
  }
  return { outline, fields };
}

interface Stage {
  filter: string;
  earlyChange: number;
}

/** Full names of the filters' abbreviations (inline-image forms, which some writers use in streams too). */
const ABBREVIATIONS: Record<string, string> = {
  AHx: 'ASCIIHexDecode',
  A85: 'ASCII85Decode',
  LZW: 'LZWDecode',
  Fl: 'FlateDecode',
  RL: 'RunLengthDecode',
  CCF: 'CCITTFaxDecode',
  DCT: 'DCTDecode',
};

/** A stream's filter chain, or null when a reference in it names nothing this reading found. */
async function chainOf(
  stream: PdfStream,
  resolve: (value: PdfValue | undefined) => Promise<PdfValue | undefined>,
): Promise<Stage[] | null> {
  const filter = await resolve(stream.dictionary.get('Filter'));
  if (filter === undefined) return stream.dictionary.has('Filter') ? null : [];
  const parms = await resolve(stream.dictionary.get('DecodeParms'));
  const filters = filter.kind === 'array' ? filter.items : [filter];
  const stages: Stage[] = [];
  for (let i = 0; i < filters.length; i++) {
    const named = await resolve(filters[i]);
    if (named === undefined) return null;
    const name = nameOf(named);
    if (name === undefined) break;
    const parm = await resolve(parms?.kind === 'array' ? parms.items[i] : parms);
    const early = parm?.kind === 'dict' ? await resolve(parm.entries.get('EarlyChange')) : undefined;
    stages.push({ filter: ABBREVIATIONS[name] ?? name, earlyChange: early?.kind === 'number' ? early.value : 1 });
  }
  return stages;
}

function nameOf(value: PdfValue | undefined): string | undefined {
  return value?.kind === 'name' ? value.name : undefined;
}

/** What a stage gave: its length, and its bytes when they were kept (a later stage reads them). */
interface Decoded {
  length: number;
  bytes: Buffer | null;
}

/** A decoder gives at most `max` bytes; with `keep` false it only counts them (nothing reads them). */
type Decoder = (data: Buffer, max: number, stage: Stage, keep: boolean) => Decoded | Promise<Decoded>;

/** The decoders of the filters that make more (or other) bytes of text data; image filters end a chain. */
const DECODERS: Record<string, Decoder> = {
  FlateDecode: (data, max, _stage, keep) => inflate(data, max, keep),
  LZWDecode: (data, max, stage, keep) => lzwDecode(data, new BoundedOutput(max, keep), stage.earlyChange),
  RunLengthDecode: (data, max, _stage, keep) => runLengthDecode(data, new BoundedOutput(max, keep)),
  ASCII85Decode: (data, max, _stage, keep) => ascii85Decode(data, new BoundedOutput(max, keep)),
  ASCIIHexDecode: (data, max, _stage, keep) => asciiHexDecode(data, new BoundedOutput(max, keep)),
};

/**
 * Each stage's output (at most `budget` + 1 bytes in all), the count of all of them, and the last
 * stage's bytes when `keepLast` (else only the stages a later one reads are kept).
 */
async function decodeChain(data: Buffer, chain: Stage[], budget: number, keepLast = false): Promise<{ counted: number; last: Buffer }> {
  let current = data;
  let counted = 0;
  // The stages up to the first one without a decoder (an image filter) are decoded.
  const end = chain.findIndex((stage) => DECODERS[stage.filter] === undefined);
  const stages = end < 0 ? chain : chain.slice(0, end);
  for (const [i, stage] of stages.entries()) {
    const keep = keepLast || i + 1 < stages.length;
    const decoded = await DECODERS[stage.filter]!(current, budget - counted + 1, stage, keep);
    counted += decoded.length;
    if (counted > budget || decoded.bytes === null) break;
    current = decoded.bytes;
  }
  return { counted, last: current };
}

/** What pdfjs would make of a chain this reading could not resolve: the most of the usual chains. */
const USUAL_CHAINS: Stage[][] = [['FlateDecode'], ['ASCII85Decode', 'FlateDecode'], ['ASCIIHexDecode', 'FlateDecode'], ['LZWDecode']].map(
  (filters) => filters.map((filter) => ({ filter, earlyChange: 1 })),
);

async function mostOfUsualChains(data: Buffer, budget: number): Promise<number> {
  let most = 0;
  for (const chain of USUAL_CHAINS) {
    most = Math.max(most, (await decodeChain(data, chain, budget)).counted);
    if (most > budget) break;
  }
  return most;
}

/** The zlib data inflated, at most `max` bytes of it (what came before an error, if any). */
function inflate(data: Buffer, max: number, keep: boolean): Promise<Decoded> {
  return new Promise((resolve) => {
    const inflater = createInflate({ chunkSize: 256 * 1024 });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      inflater.destroy();
      resolve({ length: Math.min(size, max), bytes: keep ? Buffer.concat(chunks).subarray(0, max) : null });
    };
    inflater.on('data', (chunk: Buffer) => {
      if (keep) chunks.push(chunk);
      size += chunk.length;
      if (size >= max) finish();
    });
    inflater.on('end', finish);
    inflater.on('error', finish);
    inflater.on('close', finish);
    inflater.end(data);
  });
}

/** Bytes into a buffer that stops growing at `max` (or, with `keep` false, only their count). */
class BoundedOutput {
  private buffer: Buffer;
  length = 0;

  constructor(
    private readonly max: number,
    private readonly keep = true,
  ) {
    this.buffer = Buffer.allocUnsafe(keep ? Math.min(max, 64 * 1024) : 0);
  }

  get full(): boolean {
    return this.length >= this.max;
  }

  push(byte: number): void {
    if (this.length >= this.max) return;
    if (!this.keep) {
      this.length++;
      return;
    }
    if (this.length === this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.max, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer[this.length++] = byte;
  }

  decoded(): Decoded {
    return { length: this.length, bytes: this.keep ? this.buffer.subarray(0, this.length) : null };
  }
}

/**
 * LZW as PDF uses it (9 to 12-bit codes, 256 clear, 257 end; EarlyChange 1 by default), read as pdfjs
 * reads it (LZWStream): a code past the table repeats the previous string.
 */
function lzwDecode(data: Buffer, out: BoundedOutput, earlyChange: number): Decoded {
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const scratch = new Uint8Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    suffix[i] = i;
    lengths[i] = 1;
  }
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let held = 0;
  const emit = (code: number): number => {
    // Writes the string of `code` (backwards through its prefixes); returns its first byte.
    let n = lengths[code]!;
    for (let c = code; c >= 0 && n > 0; c = prefix[c]!) scratch[--n] = suffix[c]!;
    for (let i = 0; i < lengths[code]!; i++) out.push(scratch[i]!);
    return scratch[0]!;
  };
  for (let i = 0; i < data.length && !out.full; i++) {
    held = (held << 8) | data[i]!;
    bits += 8;
    while (bits >= width && !out.full) {
      bits -= width;
      const code = (held >>> bits) & ((1 << width) - 1);
      held &= (1 << bits) - 1;
      if (code === 256) {
        next = 258;
        width = 9;
        previous = -1;
        continue;
      }
      if (code === 257) return out.decoded();
      if (previous === -1) {
        if (code > 255) continue;
        emit(code);
        previous = code;
        continue;
      }
      let first: number;
      if (code < next) first = emit(code);
      else {
        // The code being defined (or, damaged, one past it, which pdfjs reads the same way): the
        // previous string and its own first byte.
        first = emit(previous);
        out.push(first);
      }
      if (next < 4096) {
        prefix[next] = previous;
        suffix[next] = first;
        lengths[next] = lengths[previous]! + 1;
        next++;
      }
      if (next + earlyChange >= 1 << width && width < 12) width++;
      previous = code;
    }
  }
  return out.decoded();
}

function runLengthDecode(data: Buffer, out: BoundedOutput): Decoded {
  for (let i = 0; i < data.length && !out.full; ) {
    const n = data[i++]!;
    if (n === 128) break;
    if (n < 128) for (let k = 0; k <= n && i < data.length; k++) out.push(data[i++]!);
    else {
      const byte = data[i++];
      if (byte === undefined) break;
      for (let k = 0; k < 257 - n && !out.full; k++) out.push(byte);
    }
  }
  return out.decoded();
}

function ascii85Decode(data: Buffer, out: BoundedOutput): Decoded {
  let group = 0;
  let count = 0;
  for (let i = 0; i < data.length && !out.full; i++) {
    const c = data[i]!;
    if (c === 0x7e) break; // ~> ends the data
    if (WHITESPACE.has(c)) continue;
    if (c === 0x7a && count === 0) {
      for (let k = 0; k < 4; k++) out.push(0);
      continue;
    }
    if (c < 0x21 || c > 0x75) break;
    group = group * 85 + (c - 0x21);
    if (++count === 5) {
      for (let k = 3; k >= 0; k--) out.push((group >>> (8 * k)) & 0xff);
      group = 0;
      count = 0;
    }
  }
  if (count > 1) {
    for (let k = count; k < 5; k++) group = group * 85 + 84;
    for (let k = 3; k > 4 - count; k--) out.push((group >>> (8 * k)) & 0xff);
  }
  return out.decoded();
}

const WHITESPACE = new Set([0, 9, 10, 12, 13, 32]);

function asciiHexDecode(data: Buffer, out: BoundedOutput): Decoded {
  let high = -1;
  for (let i = 0; i < data.length && !out.full; i++) {
    const c = data[i]!;
    if (c === 0x3e) break;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (digit < 0) continue;
    if (high < 0) high = digit;
    else {
      out.push((high << 4) | digit);
      high = -1;
    }
  }
  if (high >= 0) out.push(high << 4);
  return out.decoded();
}
