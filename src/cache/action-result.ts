/**
 * The action-cache entry: a Bazel `ActionResult` protobuf (build.bazel.remote.execution.v2) holding one
 * `OutputFile` per output file (the artifact, named OUTPUT_PATH, and any others its rule stores beside
 * it: the chunk target's index part) whose digest names the blob in the CAS. Only this subset is
 * written and read; servers that validate action results (bazel-remote) accept it, and unknown fields
 * are skipped.
 *
 *   ActionResult { repeated OutputFile output_files = 2; }
 *   OutputFile   { string path = 1; Digest digest = 2; }
 *   Digest       { string hash = 1; int64 size_bytes = 2; }
 */
import { SHA256_HEX } from './store.js';

export interface Digest {
  hash: string;
  sizeBytes: number;
}

/** The name of the output file every Episteme action result carries (the target's artifact). */
export const OUTPUT_PATH = 'output';

export interface OutputFile {
  path: string;
  digest: Digest;
}

/** Output files in the order given; the first must be OUTPUT_PATH. */
export function encodeActionResult(outputs: OutputFile[]): Buffer {
  return Buffer.concat(
    outputs.map(({ path, digest }) => {
      const digestBytes = Buffer.concat([field(1, Buffer.from(digest.hash, 'ascii')), Buffer.from([0x10]), varint(digest.sizeBytes)]);
      return field(2, Buffer.concat([field(1, Buffer.from(path, 'utf8')), field(2, digestBytes)]));
    }),
  );
}

/**
 * The output digests of an action result by path; throws a plain Error naming the defect when it is
 * malformed, names a path twice, or lacks OUTPUT_PATH.
 */
export function decodeActionResult(bytes: Uint8Array): Map<string, Digest> {
  const outputs = new Map<string, Digest>();
  for (const f of fields(bytes)) {
    if (f.number !== 2) continue;
    if (!(f.value instanceof Uint8Array)) throw new Error('output_files is not a message');
    let path: string | null = null;
    let digest: Digest | null = null;
    for (const g of fields(f.value)) {
      if (g.number === 1 && g.value instanceof Uint8Array) path = Buffer.from(g.value).toString('utf8');
      if (g.number === 2 && g.value instanceof Uint8Array) digest = decodeDigest(g.value);
    }
    if (path === null || digest === null) throw new Error('an output file lacks its path or digest');
    if (outputs.has(path)) throw new Error(`output file ${JSON.stringify(path)} is named twice`);
    outputs.set(path, digest);
  }
  if (!outputs.has(OUTPUT_PATH)) throw new Error(`no output file named ${OUTPUT_PATH}`);
  return outputs;
}

function decodeDigest(bytes: Uint8Array): Digest {
  let hash = '';
  let sizeBytes = 0;
  for (const f of fields(bytes)) {
    if (f.number === 1 && f.value instanceof Uint8Array) hash = Buffer.from(f.value).toString('ascii');
    if (f.number === 2 && typeof f.value === 'number') sizeBytes = f.value;
  }
  if (!SHA256_HEX.test(hash)) throw new Error('the output digest is not a SHA-256 hex string');
  return { hash, sizeBytes };
}

function field(number: number, payload: Uint8Array): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);
}

function varint(value: number): Buffer {
  const out: number[] = [];
  let rest = value;
  // Arithmetic, not bit operators: sizes may exceed 2^31.
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Buffer.from(out);
}

interface Field {
  number: number;
  value: number | Uint8Array;
}

/** The top-level fields of one protobuf message; bounds-checked, since the bytes come from a server. */
function* fields(bytes: Uint8Array): Generator<Field> {
  let at = 0;
  const readVarint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      if (at >= bytes.length) throw new Error('truncated varint');
      const byte = bytes[at++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (!Number.isSafeInteger(result)) throw new Error('varint out of range');
        return result;
      }
      scale *= 0x80;
    }
    throw new Error('varint too long');
  };
  while (at < bytes.length) {
    const tag = readVarint();
    const number = Math.floor(tag / 8);
    switch (tag % 8) {
      case 0:
        yield { number, value: readVarint() };
        break;
      case 1:
      case 5: {
        const width = tag % 8 === 1 ? 8 : 4;
        if (at + width > bytes.length) throw new Error('truncated fixed field');
        at += width;
        break;
      }
      case 2: {
        const length = readVarint();
        if (at + length > bytes.length) throw new Error('truncated length-delimited field');
        yield { number, value: bytes.subarray(at, at + length) };
        at += length;
        break;
      }
      default:
        throw new Error(`unsupported wire type ${tag % 8}`);
    }
  }
}
