import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { inflatedBytesOver } from '../../src/extract/pdf/pdf-streams.js';
import { readPdfObjects } from '../../src/extract/pdf/pdf-objects.js';
import { pdfFromObjects, textPdf } from '../hostile/hostile-documents.js';
import { seededRandom } from '../helpers/random.js';

/**
 * The inflated-bytes check reads a stream's filter chain as a PDF reader does, so no way of writing
 * the chain hides a bomb: a chain of filters, a filter by reference (also from an object stream), a
 * comment inside the dictionary, a key holding "obj", a long dictionary, LZW and RunLength, a
 * reference to nothing. Bombs here inflate to 8 MiB against a 4 MiB limit.
 */
const LIMIT = 4 * 1024 * 1024;
const MIB = 1024 * 1024;

/** Zlib data of `mib` MiB of spaces, from one fully flushed MiB repeated (cheap to make). */
function zlibBomb(mib: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(MIB, 0x20), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(mib).fill(block), Buffer.from([0x03, 0x00, 0, 0, 0, 0])]);
}

function stream(dictionary: string, data: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
    Buffer.from(data),
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const PAGE = [
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
];

function ascii85(data: Buffer): Buffer {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    const group = data.subarray(i, i + 4);
    const padded = Buffer.concat([group, Buffer.alloc(4 - group.length)]);
    let value = padded.readUInt32BE(0);
    if (value === 0 && group.length === 4) {
      out += 'z';
      continue;
    }
    const chars: string[] = [];
    for (let k = 0; k < 5; k++) {
      chars.unshift(String.fromCharCode(33 + (value % 85)));
      value = Math.floor(value / 85);
    }
    out += chars.join('').slice(0, group.length + 1);
  }
  return Buffer.from(`${out}~>`, 'latin1');
}

/** LZW with 9-bit codes only (a clear code every 200 codes keeps the table small), as PDF reads it. */
function lzw(data: Buffer): Buffer {
  const codes: number[] = [256];
  let table = new Map<string, number>();
  let next = 258;
  const codeOf = (s: string): number => (s.length === 1 ? s.charCodeAt(0) : table.get(s)!);
  let w = '';
  for (const byte of data) {
    const c = String.fromCharCode(byte);
    if (w === '' || table.has(w + c)) {
      w += c;
      continue;
    }
    codes.push(codeOf(w));
    table.set(w + c, next++);
    w = c;
    if (next === 458) {
      codes.push(256);
      table = new Map();
      next = 258;
    }
  }
  if (w !== '') codes.push(codeOf(w));
  codes.push(257);
  let bits = '';
  for (const code of codes) bits += code.toString(2).padStart(9, '0');
  bits = bits.padEnd(Math.ceil(bits.length / 8) * 8, '0');
  return Buffer.from(Array.from({ length: bits.length / 8 }, (_, i) => Number.parseInt(bits.slice(i * 8, i * 8 + 8), 2)));
}

test('every way of writing a stream filter chain counts its inflated bytes', async () => {
  const bomb = zlibBomb(8);
  const cases: Record<string, (string | Uint8Array)[]> = {
    'a plain /FlateDecode': [...PAGE, stream('/Filter /FlateDecode', bomb)],
    'the abbreviation /Fl': [...PAGE, stream('/Filter /Fl', bomb)],
    'ASCII85 before Flate': [...PAGE, stream('/Filter [/ASCII85Decode /FlateDecode]', ascii85(bomb))],
    'ASCIIHex before Flate': [...PAGE, stream('/Filter [/ASCIIHexDecode /FlateDecode]', Buffer.from(`${bomb.toString('hex')}>`))],
    'a filter by reference': [...PAGE, stream('/Filter 5 0 R', bomb), '/FlateDecode'],
    'an array by reference, of references': [...PAGE, stream('/Filter 5 0 R', bomb), '[6 0 R]', '/FlateDecode'],
    'a comment between key and value': [...PAGE, stream('/Filter %not here\n/FlateDecode', bomb)],
    'a key holding "obj" after the filter': [...PAGE, stream('/Filter /FlateDecode /Xobj 1', bomb)],
    'a dictionary longer than 4 KiB': [...PAGE, stream(`/Filter /FlateDecode /Pad (${'x'.repeat(8192)})`, bomb)],
    'a reference to no object (read as the usual chains)': [...PAGE, stream('/Filter 99 0 R', bomb)],
    'RunLength (128 bytes from 2)': [...PAGE, stream('/Filter /RunLengthDecode', Buffer.alloc(2 * 65 * 1024, Buffer.from([129, 0x20])))],
  };
  for (const [name, objects] of Object.entries(cases)) {
    assert.equal(await inflatedBytesOver(pdfFromObjects(objects), LIMIT), true, name);
    // Below the limit, each is counted, not refused.
    assert.equal(await inflatedBytesOver(pdfFromObjects(objects), 16 * MIB), false, `${name}, under a 16 MiB limit`);
  }
});

test('LZW counts what it decodes to, as pdfjs reads it', async () => {
  const text = Buffer.from('BT (LZW keeps the words and the words and the words) Tj ET '.repeat(9000), 'latin1');
  const pdf = pdfFromObjects([...PAGE, stream('/Filter /LZWDecode /DecodeParms << /EarlyChange 1 >>', lzw(text))]);
  assert.equal(await inflatedBytesOver(pdf, text.length), false, 'exactly its length');
  assert.equal(await inflatedBytesOver(pdf, text.length - 1), true, 'one byte less is over');
});

test('a filter kept in an object stream is found through it', async () => {
  const bomb = zlibBomb(8);
  // Object 6 (/FlateDecode) lives in object stream 5; the content stream names it.
  const header = '6 0 ';
  const members = `${header}/FlateDecode`;
  const objectStream = deflateSync(Buffer.from(members, 'latin1'));
  const pdf = pdfFromObjects([
    ...PAGE,
    stream('/Filter 6 0 R', bomb),
    stream(`/Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode`, objectStream),
  ]);
  assert.ok(readPdfObjects(Buffer.from(pdf)).streams.length === 2);
  assert.equal(await inflatedBytesOver(pdf, LIMIT), true);
});

test('the count is exact at the limit, and real text PDFs pass', async () => {
  const exact = pdfFromObjects([...PAGE, stream('/Filter /FlateDecode', deflateSync(Buffer.alloc(LIMIT, 0x20)))]);
  assert.equal(await inflatedBytesOver(exact, LIMIT), false, 'inflating to the limit itself');
  assert.equal(await inflatedBytesOver(exact, LIMIT - 1), true, 'one byte past it');
  assert.equal(await inflatedBytesOver(textPdf(40), 1024 * 1024), false);
  // Images are not inflated text: a chain stops at its image filter.
  const image = pdfFromObjects([...PAGE, stream('/Filter /DCTDecode', Buffer.alloc(1024, 0xff))]);
  assert.equal(await inflatedBytesOver(image, 1), false);
});

/** RunLength as literal runs of up to 128 bytes, then the end marker. */
function runLength(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += 128) {
    const run = data.subarray(i, i + 128);
    parts.push(Buffer.from([run.length - 1]), run);
  }
  parts.push(Buffer.from([128]));
  return Buffer.concat(parts);
}

const ENCODERS: Record<string, (data: Buffer) => Buffer> = {
  FlateDecode: (data) => deflateSync(data),
  ASCII85Decode: ascii85,
  ASCIIHexDecode: (data) => Buffer.from(`${data.toString('hex')}>`, 'latin1'),
  RunLengthDecode: runLength,
  LZWDecode: lzw,
};

/**
 * Generated chains of one to three filters over generated data, each written one of the ways a PDF may
 * write it (a name, an array, by reference, a reference inside an array, a comment before the value,
 * keys around it, a long dictionary): the count is every stage's output, exactly, whichever way.
 */
test('generated filter chains, however written, count every stage exactly', async () => {
  const random = seededRandom(27);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const names = Object.keys(ENCODERS);
  for (let round = 0; round < 60; round++) {
    const length = 1 + Math.floor(random() * 20_000);
    const data = Buffer.from(Array.from({ length }, () => pick([0x20, 0x41, 0x42, 0x00, Math.floor(random() * 256)])));
    const chain = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(names));
    // /Filter [/A /B] decodes A first: the data is encoded by B, then by A.
    let raw: Buffer = data;
    let expected = 0;
    for (let i = chain.length - 1; i >= 0; i--) {
      expected += raw.length;
      raw = ENCODERS[chain[i]!]!(raw);
    }
    const list = `[${chain.map((name) => `/${name}`).join(' ')}]`;
    const extra: string[] = [];
    const style = pick(['name-or-array', 'reference', 'reference-inside', 'comment', 'keys', 'long']);
    let filter = chain.length === 1 ? `/${chain[0]}` : list;
    if (style === 'reference') {
      filter = '5 0 R';
      extra.push(list);
    } else if (style === 'reference-inside') {
      filter = `[${chain.map((_, i) => `${5 + i} 0 R`).join(' ')}]`;
      extra.push(...chain.map((name) => `/${name}`));
    } else if (style === 'comment') filter = `%${list}\n${list}`;
    const around = style === 'keys' ? '/Xobj 1 /Subobj (obj) ' : style === 'long' ? `/Pad (${'p'.repeat(6000)}) ` : '';
    const pdf = pdfFromObjects([...PAGE, stream(`${around}/Filter ${filter}`, raw), ...extra]);
    const label = `round ${round}: ${chain.join(' ')} (${style}), ${length} bytes`;
    assert.equal(await inflatedBytesOver(pdf, expected), false, label);
    assert.equal(await inflatedBytesOver(pdf, expected - 1), true, label);
  }
});
