import { sha256Hex } from '../store/hash.js';

/**
 * `build --shard I/N`: which sources one of N machines builds. A source's shard depends on its document
 * id alone (the first 32 bits of its SHA-256, modulo N), so every machine computes the same partition
 * without coordination, and it stays put when other sources come and go.
 */
export interface Shard {
  /** 1-based, as written on the command line. */
  index: number;
  count: number;
}

export const MAX_SHARDS = 1024;

export function parseShard(text: string): Shard | null {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  if (!match) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return count >= 1 && count <= MAX_SHARDS && index >= 1 && index <= count ? { index, count } : null;
}

export function inShard(documentId: string, shard: Shard): boolean {
  return parseInt(sha256Hex(documentId).slice(0, 8), 16) % shard.count === shard.index - 1;
}
