/**
 * The I/O skeleton of a cold Episteme query, as a lower bound: read and check the head of the
 * search index, then read, check and inflate 10 row blocks and print their first rows: the reads a
 * query makes, with no tokenizing, scoring, snippets or CLI. CommonJS, like the other contenders.
 *   node read-skeleton.cjs INDEX
 */
import fs = require('node:fs');
import zlib = require('node:zlib');

const file = process.argv[2]!;
const fd = fs.openSync(file, 'r');
const size = fs.fstatSync(fd).size;
function read(position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  const n = fs.readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, n);
}
let window = read(0, Math.min(size, 64 * 1024));
let headEnd = window.indexOf(',"postings":[');
while (headEnd < 0 && window.length < size) {
  window = Buffer.concat([window, read(window.length, Math.min(size - window.length, window.length))]);
  headEnd = window.indexOf(',"postings":[');
}
const headStart = window.indexOf('"head":') + '"head":'.length;
const headBytes = window.subarray(headStart, headEnd);
const crc = zlib.crc32(headBytes).toString(16).padStart(8, '0');
const tail = read(Math.max(0, size - 256), Math.min(size, 256)).toString('latin1');
if (!tail.includes(`"seal":"crc32:${crc}"`)) throw new Error('seal check failed');
const head = JSON.parse(headBytes.toString('utf8')) as {
  postingBlocks: [number, number, string, string][];
  rowBlocks: [number, number, string, number][];
};
const terms = head.postingBlocks.reduce((n, [count]) => n + count, 0);
// Row block positions follow the posting blocks, as in index-reader.ts.
let position = headEnd + ',"postings":['.length;
head.postingBlocks.forEach(([, byteLength], i) => {
  position += (i > 0 ? 1 : 0) + 2 + byteLength;
});
position += '],"rows":['.length;
const offsets = head.rowBlocks.map(([, byteLength], i) => {
  if (i > 0) position += 1;
  const at = position + 1;
  position += 2 + byteLength;
  return at;
});
const step = Math.max(1, Math.floor(head.rowBlocks.length / 10));
// As a query reads them: each block checked, then all of them inflated in one call (sync-flushed
// DEFLATE members closed by an empty final block, see index-layout.ts) and cut at their sizes.
const members: Buffer[] = [];
const sizes: number[] = [];
for (let i = 0; i < head.rowBlocks.length && sizes.length < 10; i += step) {
  const encoded = read(offsets[i]!, head.rowBlocks[i]![1]);
  if (zlib.crc32(encoded).toString(16).padStart(8, '0') !== head.rowBlocks[i]![2]) throw new Error('block check failed');
  members.push(Buffer.from(encoded.toString('latin1'), 'base64'));
  sizes.push(head.rowBlocks[i]![3]);
}
members.push(Buffer.from([0x03, 0x00]));
const inflated = zlib.inflateRawSync(Buffer.concat(members));
const rows: string[] = [];
let start = 0;
for (const size of sizes) {
  rows.push(inflated.toString('utf8', start, inflated.indexOf(10, start)));
  start += size;
}
process.stdout.write(JSON.stringify({ seal: crc, terms, rows: rows.map((row) => JSON.parse(row)[0]) }) + '\n');
