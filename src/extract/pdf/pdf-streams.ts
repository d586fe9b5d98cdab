import { createInflate } from 'node:zlib';

/**
 * Whether the Flate-compressed streams of a PDF inflate to more than `limit` bytes in total. pdfjs
 * inflates a stream into memory outside the JavaScript heap (so a worker's heap limit does not see
 * it), with no bound of its own: a 1 MB Flate bomb becomes gigabytes. Streams are inflated here once,
 * chunk by chunk, counting bytes and keeping none, and counting stops at the limit.
 *
 * Streams are found by their `stream` keyword, with the dictionary looked up in the bytes before it
 * (since the preceding `obj`, at most 4 KiB): one whose /Filter starts with /FlateDecode (or /Fl)
 * counts. A stream that does not inflate cleanly counts the bytes it gave before its error; pdfjs
 * will report the damage itself.
 */
export async function inflatedBytesOver(body: Uint8Array, limit: number): Promise<boolean> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let total = 0;
  // Dictionaries are looked up no further back than the previous keyword: every byte is read once.
  let previous = 0;
  for (let at = bytes.indexOf('stream'); at !== -1; at = bytes.indexOf('stream', at + 6)) {
    const windowStart = Math.max(0, at - 4096, previous);
    previous = at + 6;
    if (at >= 3 && bytes.toString('latin1', at - 3, at) === 'end') continue;
    let start = at + 6;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] === 0x0a) start++;
    if (start === at + 6) continue; // "stream" must end its line
    const window = bytes.subarray(windowStart, at);
    const objAt = window.lastIndexOf('obj');
    const dictionary = window.toString('latin1', objAt === -1 ? 0 : objAt);
    if (!/\/Filter\s*\[?\s*\/(?:FlateDecode|Fl)(?![A-Za-z])/.test(dictionary)) continue;
    let end = bytes.indexOf('endstream', start);
    if (end === -1) end = bytes.length;
    total += await inflatedSize(bytes.subarray(start, end), limit - total);
    if (total > limit) return true;
    at = end;
    previous = end;
  }
  return false;
}

/** Bytes the zlib data inflates to, counted up to just past `limit`. */
function inflatedSize(data: Buffer, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 256 * 1024 });
    let size = 0;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      resolve(size);
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish();
    });
    inflate.on('end', finish);
    inflate.on('error', finish);
    inflate.on('close', finish);
    inflate.end(data);
  });
}
