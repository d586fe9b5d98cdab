import { fastHash } from '../store/hash.js';

/*
 * The seal of the state files (state.json, noop.json and its group files): the body, then a last line
 * `xxh64:<16 hex>` over the body's UTF-8 bytes. Local integrity, not a hash the spec names; callers run
 * initFastHash first.
 */

const CHECKSUM_LINE = '\nxxh64:';
const CHECKSUM_LENGTH = 16;

/** A state file's bytes: its body (UTF-8), then a line with the xxh64 of those bytes. */
export function withChecksum(body: string): Buffer {
  return sealed(body).bytes;
}

/** withChecksum's bytes and the checksum they end with. */
export function sealed(body: string): { bytes: Buffer; checksum: string } {
  const bytes = Buffer.from(body, 'utf8');
  const checksum = fastHash(bytes);
  return { bytes: Buffer.concat([bytes, Buffer.from(`${CHECKSUM_LINE}${checksum}\n`, 'latin1')]), checksum };
}

/** The body of a file written by withChecksum, or null when it is truncated or fails its checksum. */
export function verifiedBody(bytes: Buffer): string | null {
  return verifiedFile(bytes)?.body ?? null;
}

/** The body and its checksum, or null when the file is truncated or fails its checksum. */
export function verifiedFile(bytes: Buffer): { body: string; checksum: string } | null {
  const at = bytes.length - CHECKSUM_LINE.length - CHECKSUM_LENGTH - 1;
  if (at < 0 || bytes.toString('latin1', at, at + CHECKSUM_LINE.length) !== CHECKSUM_LINE || bytes[bytes.length - 1] !== 0x0a) return null;
  const body = bytes.subarray(0, at);
  const checksum = fastHash(body);
  return bytes.toString('latin1', at + CHECKSUM_LINE.length, bytes.length - 1) === checksum
    ? { body: body.toString('utf8'), checksum }
    : null;
}
