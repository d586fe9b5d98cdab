import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AnsweringTransport } from '../../src/cli/mcp-server.js';

/** A stdout that takes one write at a time: full after each, drained when the test says so. */
class SlowStdout extends Writable {
  readonly written: string[] = [];
  mostDrainListeners = 0;
  private release: (() => void) | null = null;

  constructor() {
    super({ highWaterMark: 1 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.written.push(chunk.toString('utf8'));
    this.release = () => done();
  }

  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === 'drain') this.mostDrainListeners = Math.max(this.mostDrainListeners, this.listenerCount('drain'));
    return this;
  }

  override once(event: string | symbol, listener: (...args: any[]) => void): this {
    super.once(event, listener);
    if (event === 'drain') this.mostDrainListeners = Math.max(this.mostDrainListeners, this.listenerCount('drain'));
    return this;
  }

  /** Lets the pending write finish (stdout drains). */
  drain(): boolean {
    const release = this.release;
    this.release = null;
    release?.();
    return release !== null;
  }
}

test('serve transport: answers sent together wait for stdout one at a time, in order, with one drain listener at most', async () => {
  const stdout = new SlowStdout();
  const transport = new AnsweringTransport(new PassThrough(), stdout);
  const answers = Array.from({ length: 30 }, (_, id) => ({ jsonrpc: '2.0', id, result: {} }) as JSONRPCMessage);
  const sent = Promise.all(answers.map((answer) => transport.send(answer)));
  for (let spins = 0; stdout.written.length < answers.length && spins < 10_000; spins++) {
    await new Promise((resolve) => setImmediate(resolve));
    stdout.drain();
  }
  stdout.drain();
  await sent;
  assert.deepEqual(
    stdout.written.map((line) => (JSON.parse(line) as { id: number }).id),
    answers.map((_, id) => id),
  );
  assert.ok(stdout.mostDrainListeners <= 1, `${stdout.mostDrainListeners} drain listeners at once`);
});

test('serve transport: counts the requests read until each has its answer; a cancelled one counts as answered', async () => {
  const transport = new AnsweringTransport(new PassThrough(), new PassThrough());
  let answered = 0;
  transport.onAnswered = () => answered++;
  transport.count({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'status' } } as JSONRPCMessage);
  transport.count({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'status' } } as JSONRPCMessage);
  transport.count({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  assert.equal(transport.unanswered, 2);
  // A notification the server sends (progress) is no answer.
  await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } } as JSONRPCMessage);
  assert.equal(transport.unanswered, 2);
  await transport.send({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage);
  assert.equal(transport.unanswered, 1);
  transport.count({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b' } } as JSONRPCMessage);
  assert.equal(transport.unanswered, 0);
  assert.equal(answered, 2);
  // An answer to a request it never read changes nothing.
  await transport.send({ jsonrpc: '2.0', id: 99, result: {} } as JSONRPCMessage);
  assert.equal(transport.unanswered, 0);
});
