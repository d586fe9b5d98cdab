import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { CLI, Rig, assertNoStackTrace, sha256, type CliResult } from '../helpers/rig.js';
import { TestServer } from './server.js';

/**
 * The bytes of one `ulimit -f` block in this shell (POSIX leaves it open: 512 in dash, 1024 in bash),
 * measured: a file written past a limit of one block keeps exactly one block.
 */
function ulimitBlockBytes(dir: string): number {
  const file = `${dir}/block-probe`;
  spawnSync('/bin/sh', [
    '-c',
    `ulimit -f 1 && exec "$0" -e "require('fs').writeFileSync(process.argv[1], Buffer.alloc(8192))" "$1"`,
    process.execPath,
    file,
  ]);
  const bytes = fs.statSync(file).size;
  fs.rmSync(file);
  return bytes;
}

/** The CLI under a file size limit of `bytes` (ulimit -f): Node ignores SIGXFSZ, so a write past it is cut short, then EFBIG. */
function runWithFileSizeLimit(args: string[], cwd: string, bytes: number): Promise<CliResult> {
  const blocks = bytes / ulimitBlockBytes(cwd);
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, CLI, ...args], { cwd });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({ code: code ?? -1, stdout, stderr: Buffer.concat(err).toString('utf8'), json: JSON.parse(stdout) as CliResult['json'] });
    });
  });
}

/**
 * A write(2) that the file system can only partly honour (a disk that fills up, the file size limit)
 * returns fewer bytes than asked and no error; only the next write fails. The capture wrote each part of
 * the body once and ignored the count, so when the last part was cut short the body file lacked its
 * tail, and the record was made from that file: a truncated snapshot, with no error, that every later
 * build took as the source's bytes.
 */
test('a body write cut short by the file system is write-failed, never a truncated snapshot', {
  skip: process.platform === 'win32' ? 'ulimit -f is a POSIX shell limit' : false,
}, async () => {
  const rig = new Rig();
  // 64 KiB + 64 bytes: all but the last 100 bytes fit under the 64 KiB limit, the last part crosses it.
  const head = '<!DOCTYPE html><html><head><title>Long</title></head><body><h1>Long</h1>';
  const tail = '</body></html>\n';
  let text = '';
  for (let i = 0; text.length < 65_600 - head.length - tail.length - 100; i += 1) text += `<p>Paragraph ${i} on zebras.</p>`;
  const body = Buffer.from(`${head}${text}${' '.repeat(65_600 - head.length - tail.length - text.length)}${tail}`);
  assert.equal(body.byteLength, 65_600);
  const server = await TestServer.start({
    '/long': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.byteLength) });
      // The last part arrives on its own and crosses the 64 KiB limit: its write is the short one.
      res.write(body.subarray(0, 65_500), () => setTimeout(() => res.end(body.subarray(65_500)), 100));
    },
  });
  try {
    rig.write({ 'manifest.json': JSON.stringify([{ url: server.url('/long') }]) });
    const result = await runWithFileSizeLimit(['snapshot', '--manifest', 'manifest.json', '--retries', '0', '--json'], rig.dir, 65_536);
    assertNoStackTrace(result);
    // Whatever happened, no record names bytes other than the ones the server sent.
    const records = fs.existsSync(rig.path('snapshots/records')) ? fs.readdirSync(rig.path('snapshots/records')) : [];
    for (const name of records) {
      const record = JSON.parse(rig.read(`snapshots/records/${name}`)) as { sha256: string; byteLength: number };
      assert.equal(record.sha256, sha256(body), `${name} records ${record.byteLength} bytes, not the ${body.byteLength} sent`);
    }
    assert.equal(result.code, 1, result.stdout);
    const row = ((result.json!.data?.targets ?? []) as { target: string; error?: { code: string; details?: { errno?: string } } }[]).find(
      (t) => t.target === 'snapshots/127-0-0-1-long.json',
    );
    assert.equal(row?.error?.code, 'write-failed', JSON.stringify(row));
    assert.equal(row?.error?.details?.errno, 'EFBIG');
    const bodies = fs.existsSync(rig.path('snapshots/bodies')) ? fs.readdirSync(rig.path('snapshots/bodies')) : [];
    assert.deepEqual(bodies, [], 'no body, and no temp file, is left');

    // Without the limit the same capture completes, with the whole body.
    const whole = await rig.exec(['snapshot', '--json']);
    assert.equal(whole.code, 0, whole.stdout);
    assert.deepEqual(fs.readdirSync(rig.path('snapshots/bodies')), [sha256(body)]);
  } finally {
    await server.close();
    rig.cleanup();
  }
});
