import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BuildReads } from '../../src/graph/build-reads.js';
import { stampOf, statStamp } from '../../src/graph/state.js';
import { readBoundedFileWithStat } from '../../src/store/bounded-read.js';
import { Rig, sampleHtml } from '../helpers/rig.js';

test('build reads: a source stands for its file only under the stamp it was read with; take hands it over once', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-reads-'));
  try {
    const file = path.join(dir, 'a.txt');
    fs.writeFileSync(file, 'first version');
    const reads = new BuildReads();
    const read = readBoundedFileWithStat(file, { label: 'Source file', maxBytes: 1024 });
    reads.rememberSource(file, stampOf(read.stat), read.bytes);
    assert.equal(reads.source(file, statStamp(file))?.toString(), 'first version');
    // Peeking keeps it; taking forgets it.
    assert.equal(reads.takeSource(file, statStamp(file))?.toString(), 'first version');
    assert.equal(reads.source(file, statStamp(file)), undefined);
    // Edited after the read: the stamp differs, so the bytes no longer stand for the file.
    reads.rememberSource(file, stampOf(read.stat), read.bytes);
    fs.writeFileSync(file, 'second version, longer');
    assert.equal(reads.source(file, statStamp(file)), undefined);
    assert.equal(reads.takeSource(file, null), undefined);
    assert.equal(reads.heldBytes, 0, 'a take that finds another stamp still forgets the entry');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('build reads: bodies by SHA-256 are taken once; the bound keeps what would pass it out', () => {
  const reads = new BuildReads(10);
  const stamp = { size: 6, mtimeMs: '1', ctimeMs: '1', ino: 1 };
  reads.rememberBody('aa', Buffer.from('123456'));
  assert.equal(reads.heldBytes, 6);
  reads.rememberSource('/x', stamp, Buffer.from('12345'));
  assert.equal(reads.source('/x', stamp), undefined, 'past the bound: not remembered');
  assert.equal(reads.takeBody('aa')?.toString(), '123456');
  assert.equal(reads.takeBody('aa'), undefined);
  reads.rememberSource('/x', stamp, Buffer.from('12345'));
  assert.equal(reads.source('/x', stamp)?.toString(), '12345');
  // Remembering a file again replaces its entry (and its bytes in the count).
  reads.rememberSource('/x', stamp, Buffer.from('1234567890'));
  assert.equal(reads.heldBytes, 10);
  reads.clear();
  assert.equal(reads.heldBytes, 0);
  assert.equal(reads.source('/x', stamp), undefined);
});

test('a bounded read gives a buffer of its own, exactly the file, which can be transferred to a worker', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-reads-'));
  try {
    for (const size of [0, 1, 100, 5000, 70_000]) {
      const file = path.join(dir, `f${size}`);
      const bytes = Buffer.alloc(size, 7);
      fs.writeFileSync(file, bytes);
      const read = readBoundedFileWithStat(file, { label: 'Source file', maxBytes: 100_000 });
      assert.ok(read.bytes.equals(bytes), `${size} bytes read back`);
      assert.equal(read.bytes.byteOffset, 0, `${size}: not a view into a shared pool`);
      assert.equal(read.bytes.buffer.byteLength, size, `${size}: the whole buffer is the file`);
      assert.equal(read.stat.size, size);
    }
    // At the bound exactly: read; one byte over: refused before a byte is read.
    const file = path.join(dir, 'bound');
    fs.writeFileSync(file, Buffer.alloc(64, 1));
    assert.equal(readBoundedFileWithStat(file, { label: 'Source file', maxBytes: 64 }).bytes.length, 64);
    assert.throws(() => readBoundedFileWithStat(file, { label: 'Source file', maxBytes: 63 }), { code: 'input-too-large' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a build that reads each source once per build equals a clean build, edit after edit', async () => {
  const rig = new Rig();
  try {
    const map = [1, 2, 3].map((n) => ({ sourceUrl: `https://example.test/d${n}`, localPath: `d${n}.html` }));
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }), 'map.json': JSON.stringify(map) });
    for (const n of [1, 2, 3]) rig.write({ [`d${n}.html`]: sampleHtml(n) });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    for (let edit = 0; edit < 3; edit++) {
      rig.write({ 'd2.html': sampleHtml(2).replace('<p>', `<p>edit${edit} `) });
      const built = await rig.exec(['build', '--json']);
      assert.equal(built.code, 0, built.stdout);
      assert.deepEqual(
        built
          .json!.data.targets.filter((t: { status: string }) => t.status === 'built')
          .map((t: { target: string }) => t.target)
          .sort(),
        [
          'chunks/example-test-d2.json',
          'chunks/index.json',
          'chunks/search-index.json',
          'snapshots/example-test-d2.json',
          'snapshots/index.json',
          'specs/example-test-d2.json',
          'specs/index.json',
        ].sort(),
      );
      const hits = await rig.exec(['query', '--term', `edit${edit}`, '--json']);
      assert.equal(hits.json!.data.total, 1, 'the edit is what the index holds');
      const clean = new Rig();
      try {
        clean.write({ 'episteme.json': rig.read('episteme.json'), 'map.json': rig.read('map.json') });
        for (const n of [1, 2, 3]) clean.write({ [`d${n}.html`]: rig.read(`d${n}.html`) });
        assert.equal((await clean.exec(['build', '--json'])).code, 0);
        assert.deepEqual(rig.artifacts(['specs', 'chunks']), clean.artifacts(['specs', 'chunks']), `edit ${edit}`);
      } finally {
        clean.cleanup();
      }
    }
  } finally {
    rig.cleanup();
  }
});
