import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedLines } from '../../src/cli/bounded-lines.js';

/** Feeds `chunks` through a BoundedLines and collects what it passes on and what it reports. */
async function run(maxLineBytes: number, chunks: string[]): Promise<{ out: string; overlong: number[] }> {
  const overlong: number[] = [];
  const lines = new BoundedLines(maxLineBytes, (bytes) => overlong.push(bytes));
  const parts: Buffer[] = [];
  lines.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((resolve) => lines.on('end', resolve));
  for (const chunk of chunks) lines.write(Buffer.from(chunk));
  lines.end();
  await ended;
  return { out: Buffer.concat(parts).toString(), overlong };
}

test('lines within the bound pass whole, however the input is cut', async () => {
  const input = '{"a":1}\n{"b":22}\n\n{"c":333}\n';
  for (let cut = 1; cut <= input.length; cut++) {
    const chunks: string[] = [];
    for (let at = 0; at < input.length; at += cut) chunks.push(input.slice(at, at + cut));
    assert.deepEqual(await run(9, chunks), { out: input, overlong: [] }, `pieces of ${cut}`);
  }
});

test('a line past the bound is dropped and reported once with its length; the lines around it pass', async () => {
  const long = 'x'.repeat(50);
  for (const cut of [1, 7, 100]) {
    const input = `{"a":1}\n${long}\n{"b":2}\n`;
    const chunks: string[] = [];
    for (let at = 0; at < input.length; at += cut) chunks.push(input.slice(at, at + cut));
    assert.deepEqual(await run(10, chunks), { out: '{"a":1}\n{"b":2}\n', overlong: [50] }, `pieces of ${cut}`);
  }
  // Exactly at the bound (newline not counted) passes; one byte more does not.
  assert.deepEqual(await run(5, ['12345\n123456\n']), { out: '12345\n', overlong: [6] });
  // A carriage return before the newline is not counted (a CRLF line of 5 bytes passes, without its CR).
  assert.deepEqual(await run(5, ['12345\r\n']), { out: '12345\n', overlong: [] });
  // A last line without its newline: passed on at the end (with one) when within the bound, reported when not.
  assert.deepEqual(await run(5, ['12\n', '345']), { out: '12\n345\n', overlong: [] });
  assert.deepEqual(await run(5, ['12\n', '3456789']), { out: '12\n', overlong: [7] });
});
