import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, assertBounded, writeTwoDocumentWorkspace } from './harness.js';

/**
 * `query --batch` holds a line only up to its bound (1 MiB): a line of hundreds of megabytes is dropped
 * as it arrives and answered in its place with a usage error, in order, and the lines after it are
 * answered as usual. Before, the whole line was read into one string first (peak RSS above 600 MiB for
 * this input; from about 512 MiB, a crash without an envelope).
 */
test('query --batch answers an over-long line in its place without holding it, and goes on', async () => {
  const box = new Sandbox('episteme-batch-lines-');
  try {
    writeTwoDocumentWorkspace(box);
    assert.equal((await box.run(['build', '--json'])).code, 0);
    const input = Buffer.concat([
      Buffer.from('{"terms":["topic0"]}\n'),
      Buffer.alloc(300 * 1024 * 1024, 'a'),
      // A CRLF line, then a last line without its newline.
      Buffer.from('\n{"terms":["topic1"]}\r\n{"terms":["shared words"],"limit":1}'),
    ]);
    const batch = await box.run(['query', '--batch'], { input });
    assertBounded(batch, { maxMs: 60_000, maxRssMb: 250 });
    const answers = batch.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { ok: boolean; error?: { code: string; message: string }; data?: { total: number } });
    assert.equal(answers.length, 4, batch.stdout.slice(0, 2000));
    assert.equal(answers[0]!.ok, true);
    assert.deepEqual(answers[1]!.error && [answers[1]!.error.code, answers[1]!.error.message], [
      'usage-error',
      'Line 2 is longer than 1048576 bytes.',
    ]);
    assert.equal(answers[2]!.ok, true);
    assert.equal(answers[3]!.ok, true);
    assert.equal(batch.code, 2, 'the worst line decides the exit code');
  } finally {
    box.cleanup();
  }
});
