import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BUILD_YOUNG_GENERATION_MB,
  StagePool,
  startWorkerEarly,
  WATCH_YOUNG_GENERATION_MB,
  watchYoungGenerationMb,
} from '../../src/graph/stage-pool.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../../src/extract/extract.js';
import { sha256Hex } from '../../src/store/hash.js';
import { snapshotFor } from '../extract/helpers.js';
import { tablePdf } from '../helpers/table-pdf.js';
import { DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';

/**
 * The pool moves bytes between threads: a task's body is transferred only when its caller hands it
 * over (the extract rule reads a body for that task alone), and the worker's artifact bytes come
 * back transferred, with the SHA-256 of exactly those bytes. A task that cannot be sent fails alone.
 */
const URL = 'https://example.org/pool';

function extractTask(body: Uint8Array) {
  return {
    stage: 'extract' as const,
    input: {
      documentId: 'pool',
      source: { url: URL },
      snapshot: snapshotFor(URL, 'text/html', body),
      body,
      options: DEFAULT_EXTRACT_OPTIONS,
    },
  };
}

function html(): Uint8Array {
  // A non-Latin-1 character makes the document's JSON a two-byte string: the bytes must still be UTF-8.
  return new TextEncoder().encode('<h1 id="top">Caching – “fresh”</h1><p>A response is fresh until it is stale.</p>\n');
}

test('a handed-over body moves to the worker, a kept one stays, and both give the same artifact bytes', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const kept = html();
    const byKept = await pool.run(extractTask(kept));
    assert.equal(kept.byteLength, html().byteLength, 'a body not handed over is still the caller’s');
    const handed = html();
    const byHanded = await pool.run(extractTask(handed), { handOverBytes: true });
    assert.equal(handed.byteLength, 0, 'a handed-over body was transferred, not copied');
    assert.deepEqual(Buffer.from(byHanded.bytes), Buffer.from(byKept.bytes));
    assert.equal(byHanded.sha256, sha256Hex(byHanded.bytes), 'the hash is of the bytes the worker sent');
    const document = JSON.parse(Buffer.from(byHanded.bytes).toString('utf8')) as { payload: { title: string } };
    assert.match(document.payload.title, /Caching – “fresh”/);
  } finally {
    await pool.close();
  }
});

test('a task whose bytes cannot be sent fails alone, and the pool runs the next task', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const body = html();
    const task = extractTask(body);
    await pool.run(task, { handOverBytes: true });
    // The same task again: its body was moved to the worker and is detached here.
    await assert.rejects(pool.run(task, { handOverBytes: true }));
    const next = await pool.run(extractTask(html()));
    assert.ok(next.bytes.byteLength > 0, 'the lane took the next task');
  } finally {
    await pool.close();
  }
});

test('a worker that sat out several rounds is stopped; quiet rounds stop none; more work starts workers again', async () => {
  const pool = new StagePool(2, { maxHeapMb: 256 });
  try {
    const expected = Buffer.from((await pool.run(extractTask(html()))).bytes);
    // Two tasks at once: two workers.
    await Promise.all([pool.run(extractTask(html()), { affinity: 'a' }), pool.run(extractTask(html()), { affinity: 'b' })]);
    assert.equal(pool.workers, 2);
    assert.equal(pool.releaseIdle(), 0, 'both ran in this round');
    // Rounds in which nothing ran count for nothing.
    for (let quiet = 0; quiet < 5; quiet++) assert.equal(pool.releaseIdle(), 0);
    assert.equal(pool.workers, 2);
    // One document edited round after round: its worker works, the other sits out.
    const stopped: number[] = [];
    for (let round = 0; round < 3; round++) {
      const result = await pool.run(extractTask(html()), { affinity: 'a' });
      assert.deepEqual(Buffer.from(result.bytes), expected);
      stopped.push(pool.releaseIdle());
    }
    assert.deepEqual(stopped, [0, 0, 1], 'stopped after sitting out three working rounds');
    assert.equal(pool.workers, 1);
    // Work for two again: a second worker starts, and every result is the same.
    const both = await Promise.all([pool.run(extractTask(html())), pool.run(extractTask(html()))]);
    for (const result of both) assert.deepEqual(Buffer.from(result.bytes), expected);
    assert.equal(pool.workers, 2);
  } finally {
    await pool.close();
  }
});

/** Waits for `promise` with the event loop held open: an early worker is unref'd, so it does not hold it. */
async function keptAlive<T>(promise: Promise<T>): Promise<T> {
  const handle = setInterval(() => {}, 60_000);
  try {
    return await promise;
  } finally {
    clearInterval(handle);
  }
}

/** A document whose extraction takes far longer than a few milliseconds (about 2 MB of paragraphs). */
function largeHtml(): Uint8Array {
  return new TextEncoder().encode(`<h1>Large</h1>${'<p>A response is fresh until it is stale, and stale after.</p>\n'.repeat(30_000)}`);
}

test('a worker started early is adopted by a pool with its bounds, ready or not, and its clock still runs', async () => {
  // Ready before the pool exists: the pool must know, or a task's time bound would never start.
  const ready = startWorkerEarly({ maxHeapMb: 256 });
  await keptAlive(ready.settled);
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    await assert.rejects(pool.run(extractTask(largeHtml()), { timeoutMs: 5 }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'extract-timeout');
      return true;
    });
    assert.equal(pool.workers, 0, 'the timed-out worker was stopped');
  } finally {
    await pool.close();
  }
  // Still starting when the pool takes it: it runs the pool's first task on that worker.
  const starting = startWorkerEarly({ maxHeapMb: 256 });
  const second = new StagePool(1, { maxHeapMb: 256 });
  try {
    const result = await second.run(extractTask(html()));
    assert.ok(result.bytes.byteLength > 0);
    assert.deepEqual(second.threadIds, [starting.threadId], 'the early worker ran the task');
  } finally {
    await second.close();
  }
});

test('a worker started early with other bounds is stopped, and the pool starts its own', async () => {
  const early = startWorkerEarly({ maxHeapMb: 256 });
  const pool = new StagePool(1, { maxHeapMb: 512 });
  try {
    const result = await pool.run(extractTask(html()));
    assert.ok(result.bytes.byteLength > 0);
    assert.equal(pool.workers, 1);
    assert.notDeepEqual(pool.threadIds, [early.threadId], 'a worker with a 256 MiB heap bound must not run a 512 MiB pool’s tasks');
    await keptAlive(early.settled); // it exits (or had become ready before it was stopped)
  } finally {
    await pool.close();
  }
});

test('stopping idle workers leaves a running task alone, and a later task starts a worker again', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const expected = Buffer.from((await pool.run(extractTask(html()))).bytes);
    // run() hands the task to the idle worker at once: it is busy when stopIdle runs, and kept.
    const running = pool.run(extractTask(largeHtml()));
    pool.stopIdle();
    assert.equal(pool.workers, 1, 'a worker running a task is not stopped');
    assert.ok((await running).bytes.byteLength > 0, 'the running task finished');
    pool.stopIdle();
    assert.equal(pool.workers, 0);
    assert.deepEqual(Buffer.from((await pool.run(extractTask(html()))).bytes), expected, 'a later task starts a worker again');
    assert.equal(pool.workers, 1);
  } finally {
    await pool.close();
  }
});

test("a watch session's workers share a young-generation budget: 128 MB each for a few, never under a build's", () => {
  assert.equal(watchYoungGenerationMb(1), WATCH_YOUNG_GENERATION_MB);
  assert.equal(watchYoungGenerationMb(2), WATCH_YOUNG_GENERATION_MB);
  assert.equal(watchYoungGenerationMb(4), WATCH_YOUNG_GENERATION_MB);
  assert.equal(watchYoungGenerationMb(8), 64);
  assert.equal(watchYoungGenerationMb(16), BUILD_YOUNG_GENERATION_MB);
  assert.equal(watchYoungGenerationMb(64), BUILD_YOUNG_GENERATION_MB);
  for (let jobs = 1; jobs <= 64; jobs++) {
    const each = watchYoungGenerationMb(jobs);
    assert.ok(each >= BUILD_YOUNG_GENERATION_MB && each <= WATCH_YOUNG_GENERATION_MB);
    // The whole session never holds more than 16 one-shot workers would, unless each is at the build's floor.
    assert.ok(each * jobs <= 16 * BUILD_YOUNG_GENERATION_MB || each === BUILD_YOUNG_GENERATION_MB);
  }
});

/**
 * Watch starts a saved source's extraction while the save settles (StagePool.speculate); a build's own
 * task takes that result only when the two are the same task. Which one ran is seen in the build's
 * body: a task the pool runs itself takes its handed-over body, a taken speculation leaves it alone.
 */
function page(word: string): Uint8Array {
  return new TextEncoder().encode(`<title>${word}</title><h1 id="top">${word}</h1><p>A ${word} paragraph.</p>\n`);
}

function titleOf(result: { bytes: Uint8Array }): string {
  return (JSON.parse(Buffer.from(result.bytes).toString('utf8')) as { payload: { title: string } }).payload.title;
}

test('a build takes a started extraction of the same task: same bytes, its own body left alone', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const direct = await pool.run(extractTask(page('numbat')));
    pool.speculate(extractTask(page('numbat')), { handOverBytes: true });
    const body = page('numbat');
    const taken = await pool.run(extractTask(body), { handOverBytes: true });
    assert.equal(body.byteLength, page('numbat').byteLength, 'the build did not send its own task');
    assert.deepEqual(Buffer.from(taken.bytes), Buffer.from(direct.bytes));
    assert.deepEqual([...pool.takeSpeculationReport().keys()], ['pool']);
    assert.equal(pool.takeSpeculationReport().size, 0, 'a report is taken once');
  } finally {
    await pool.close();
  }
});

test('a started extraction of other bytes, or one replaced or dropped, is never taken', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    // Other bytes: the build runs its own task.
    pool.speculate(extractTask(page('quokka')));
    const body = page('wombat');
    assert.equal(titleOf(await pool.run(extractTask(body), { handOverBytes: true })), 'wombat');
    assert.equal(body.byteLength, 0, 'the build ran its own task');
    // Replaced by a later save's: the earlier bytes are not taken even when a build asks for them.
    pool.speculate(extractTask(page('quokka')));
    pool.speculate(extractTask(page('wombat')));
    const earlier = page('quokka');
    assert.equal(titleOf(await pool.run(extractTask(earlier), { handOverBytes: true })), 'quokka');
    assert.equal(earlier.byteLength, 0);
    // Dropped (a cycle ended without taking it).
    pool.speculate(extractTask(page('dingo')));
    pool.dropSpeculations();
    const dropped = page('dingo');
    assert.equal(titleOf(await pool.run(extractTask(dropped), { handOverBytes: true })), 'dingo');
    assert.equal(dropped.byteLength, 0);
    assert.equal(pool.takeSpeculationReport().size, 0);
  } finally {
    await pool.close();
  }
});

test('a started extraction that failed is not taken: the build runs its own task, and nothing is left unhandled', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const body = page('bilby');
    const task = extractTask(body);
    await pool.run(task, { handOverBytes: true }); // moves the body to the worker: this task cannot be sent again
    pool.speculate(task, { handOverBytes: true });
    const fresh = page('bilby');
    assert.equal(titleOf(await pool.run(extractTask(fresh), { handOverBytes: true })), 'bilby');
    assert.equal(fresh.byteLength, 0, 'the build ran its own task');
    pool.speculate(task, { handOverBytes: true });
    pool.dropSpeculations();
  } finally {
    await pool.close();
  }
});

test('at most one started extraction per worker is held: past that, none is started', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const task = (documentId: string, body: Uint8Array) => ({ ...extractTask(body), input: { ...extractTask(body).input, documentId } });
    pool.speculate(task('first', page('first')));
    pool.speculate(task('second', page('second')));
    const second = page('second');
    assert.equal(titleOf(await pool.run(task('second', second), { handOverBytes: true })), 'second');
    assert.equal(second.byteLength, 0, 'the second was not started: the build ran its own task');
    const first = page('first');
    assert.equal(titleOf(await pool.run(task('first', first), { handOverBytes: true })), 'first');
    assert.equal(first.byteLength, page('first').byteLength, 'the first was started and taken');
  } finally {
    await pool.close();
  }
});

/**
 * pdf.js's legacy build installs core-js polyfills in the globals of the worker that loads it (on Node
 * 20 Array.prototype.push and JSON.parse among them), which slows every later task there: a worker that
 * ran a PDF extraction takes PDF work only, and other tasks go to clean workers.
 */
function pdfTask(documentId: string) {
  const body = tablePdf([{ texts: [{ x: 72, top: 72, size: 12, text: `The ${documentId} report.` }] }]);
  const url = `https://example.org/${documentId}.pdf`;
  return {
    stage: 'extract' as const,
    input: { documentId, source: { url }, snapshot: snapshotFor(url, 'application/pdf', body), body, options: DEFAULT_EXTRACT_OPTIONS },
  };
}

test('a worker that ran a PDF extraction takes PDF work only: other tasks get a clean worker', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    await pool.run(pdfTask('first'), { pdf: true, affinity: 'first' });
    const [pdfWorker] = pool.threadIds;
    await pool.run(pdfTask('second'), { pdf: true, affinity: 'second' });
    assert.deepEqual(pool.threadIds, [pdfWorker], 'PDF after PDF: the same worker');
    const extracted = await pool.run(pdfTask('third'), { pdf: true, affinity: 'third' });
    // The chunk task of a PDF goes to the worker that holds its document, tainted or not.
    const chunked = await pool.run(
      { stage: 'chunk', documentId: 'third', documentSha256: extracted.sha256, options: DEFAULT_CHUNK_OPTIONS },
      { affinity: 'third' },
    );
    assert.ok(!('missing' in chunked), 'the chunk task ran on the worker that extracted the PDF');
    assert.deepEqual(pool.threadIds, [pdfWorker]);
    await pool.run(extractTask(page('markup')), { affinity: 'markup' });
    const clean = pool.threadIds.find((id) => id !== pdfWorker);
    assert.ok(clean !== undefined, 'HTML after PDF: a clean worker of its own');
    await pool.run(extractTask(page('markup again')), { affinity: 'markup' });
    await pool.run(pdfTask('fourth'), { pdf: true, affinity: 'fourth' });
    await pool.run(extractTask(page('markup once more')), { affinity: 'markup' });
    assert.deepEqual(pool.threadIds, [pdfWorker, clean], 'one job: one worker of each kind, each kept');
  } finally {
    await pool.close();
  }
});

test('with room for two workers, PDFs keep one and HTML the other', async () => {
  const pool = new StagePool(2, { maxHeapMb: 256 });
  try {
    await pool.run(pdfTask('report'), { pdf: true, affinity: 'report' });
    const [pdfWorker] = pool.threadIds;
    await pool.run(extractTask(page('markup')), { affinity: 'markup' });
    assert.equal(pool.threadIds.length, 2);
    const clean = pool.threadIds.find((id) => id !== pdfWorker)!;
    await Promise.all([pool.run(pdfTask('other'), { pdf: true }), pool.run(extractTask(page('more')))]);
    assert.deepEqual([...pool.threadIds].sort(), [pdfWorker, clean].sort(), 'each kind kept its worker');
  } finally {
    await pool.close();
  }
});

test('PDFs and HTML sent together to one worker all finish, each with its own document', async () => {
  const pool = new StagePool(1, { maxHeapMb: 256 });
  try {
    const names = ['alpha', 'beta', 'gamma'];
    const results = await Promise.all(
      names.flatMap((name) => [
        pool.run(pdfTask(`${name}-pdf`), { pdf: true, affinity: `${name}-pdf` }).then((r) => titleOf(r)),
        pool.run(extractTask(page(`${name}-html`)), { affinity: `${name}-html` }).then((r) => titleOf(r)),
      ]),
    );
    assert.deepEqual(
      results.filter((_, i) => i % 2 === 1),
      names.map((name) => `${name}-html`),
    );
    assert.ok(pool.workers <= 2, 'one job: a PDF worker and a clean one at most');
  } finally {
    await pool.close();
  }
});

test('PDF work never takes the last clean worker: HTML after PDFs starts no fresh worker', async () => {
  const pool = new StagePool(2, { maxHeapMb: 256 });
  try {
    await Promise.all([pool.run(extractTask(page('one'))), pool.run(extractTask(page('two')))]);
    assert.equal(pool.workers, 2);
    // Three PDFs while both clean workers are free: one more worker starts for them, and then one of
    // the two clean workers may take PDF work, never both.
    await Promise.all(['p1', 'p2', 'p3'].map((name) => pool.run(pdfTask(name), { pdf: true, affinity: name })));
    assert.equal(pool.workers, 3, 'jobs + 1 workers at most');
    const afterPdfs = [...pool.threadIds].sort();
    // One at a time, as a watch session's saves come: each on the clean worker.
    assert.equal(titleOf(await pool.run(extractTask(page('three')))), 'three');
    assert.equal(titleOf(await pool.run(extractTask(page('four')))), 'four');
    assert.deepEqual([...pool.threadIds].sort(), afterPdfs, 'the HTML ran on a worker that ran HTML before and no PDF');
  } finally {
    await pool.close();
  }
});

test('a chunk task past the heap bound fails as extraction does: extract-memory-limit with a hint, not an internal error', async () => {
  const pool = new StagePool(1, { maxHeapMb: 64 });
  try {
    // An artifact of three million small objects: parsing it needs far more than 64 MiB.
    const documentBytes = new TextEncoder().encode(`{"payload":{"blocks":[${'{"a":1},'.repeat(3_000_000)}{}]}}`);
    const task = { stage: 'chunk' as const, documentId: 'huge', documentBytes, options: DEFAULT_CHUNK_OPTIONS };
    await assert.rejects(pool.run(task, { label: 'the huge document' }), (error: unknown) => {
      const failure = error as { code?: string; message: string; hint?: string };
      assert.equal(failure.code, 'extract-memory-limit');
      assert.match(failure.message, /^Chunking the huge document ran out of its 64 MiB heap bound/);
      assert.match(failure.hint ?? '', /--extract-max-heap-mb 128/);
      return true;
    });
    const next = await pool.run(extractTask(html()));
    assert.ok(next.bytes.byteLength > 0, 'a new worker takes the next task');
  } finally {
    await pool.close();
  }
});
