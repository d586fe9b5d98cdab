/** Hashing: the project's hash functions against node:crypto's SHA-256 called directly, on 1 MiB. */
import { createHash } from 'node:crypto';
import { crc32Hex } from '../../src/index/index-layout.js';
import { fastHash, initFastHash, sha256Hex } from '../../src/store/hash.js';
import { microCorpus } from './corpus.js';
import { keep, runSuite } from './suite.js';

await initFastHash();
const bytes = new TextEncoder().encode(microCorpus().indexText).subarray(0, 1 << 20);
const text = new TextDecoder().decode(bytes);
await runSuite(
  'hashing',
  `${bytes.length} bytes per call`,
  { name: "createHash('sha256') bytes (baseline)", fn: () => keep(createHash('sha256').update(bytes).digest('hex')) },
  [
    { name: 'sha256Hex bytes', fn: () => keep(sha256Hex(bytes)) },
    { name: 'sha256Hex string', fn: () => keep(sha256Hex(text)) },
    { name: 'fastHash (xxh64) bytes', fn: () => keep(fastHash(bytes)) },
    { name: 'fastHash (xxh64) string', fn: () => keep(fastHash(text)) },
    { name: 'crc32Hex bytes', fn: () => keep(crc32Hex(bytes)) },
  ],
);
