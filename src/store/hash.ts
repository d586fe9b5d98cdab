import { createHash } from 'node:crypto';

/** SHA-256 as lowercase hex: used wherever the spec names SHA-256 and for content addresses. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

type XXHash = Awaited<ReturnType<typeof import('xxhash-wasm')['default']>>;
let xxhash: XXHash | undefined;

/** Loads the wasm hasher once; call before fastHash. */
export async function initFastHash(): Promise<void> {
  // Loaded on first use: commands that never hash quickly (query, the no-op check) skip the wasm.
  xxhash ??= await (await import('xxhash-wasm')).default();
}

/**
 * xxh64 as 16 hex chars: fast local fingerprints (build keys, stat-fallback input hashes).
 * Never written into provenance, where SHA-256 is required.
 */
export function fastHash(data: string | Uint8Array): string {
  if (!xxhash) throw new Error('fastHash used before initFastHash()');
  if (typeof data === 'string') return xxhash.h64ToString(data);
  if (data.byteLength <= FAST_HASH_CHUNK) return xxhash.h64Raw(data).toString(16).padStart(16, '0');
  // Streamed: h64Raw copies the whole input into wasm memory, growing it by the input's size (a first
  // 32 MB state file cost ~60 ms in that growth alone); the digest is the same.
  const hasher = xxhash.create64();
  for (let at = 0; at < data.byteLength; at += FAST_HASH_CHUNK) hasher.update(data.subarray(at, at + FAST_HASH_CHUNK));
  return hasher.digest().toString(16).padStart(16, '0');
}

const FAST_HASH_CHUNK = 1 << 20;
