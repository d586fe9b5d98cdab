import * as net from 'node:net';

/**
 * GETs of the Bazel HTTP cache protocol, pipelined over a few keep-alive connections (HTTP/1.1,
 * RFC 9112 §9.3.2). A restoring build asks for thousands of small entries; through node:http each
 * costs a request object, a parser round and a socket write of its own (about 0.5 ms of the build's
 * one thread), and a round trip. Here a batch of requests goes out in one write and the responses are
 * read back in order from one buffer.
 *
 * Only what the cache's GETs need: a status, a Content-Length or chunked body, keep-alive or close.
 * GET is idempotent, so requests a connection did not answer (the server closed it after its
 * keep-alive limit, a reset) are sent again on a new one. A request whose whole response does not arrive
 * within the deadline (counted from when the server starts on it), a connection that cannot be opened,
 * and an unparsable response are an outage (`onOutage`). Every body is bounded by the maxBytes its
 * caller sets, and parsed incrementally: linear time however the server slices it.
 */
export interface PipelineOptions {
  host: string;
  port: number;
  /** Request headers other than Host (e.g. a token); values already validated. */
  headers: Record<string, string>;
  /** A whole response (head and body) takes longer than this from when the server starts on it: stalled. */
  timeoutMs: number;
  connections: number;
  /** Requests written ahead of their responses on one connection. */
  depth: number;
  onOutage(message: string): void;
}

export interface PipelinedResponse {
  status: number;
  /** Null when the body exceeds the request's maxBytes (not read through: the connection is dropped). */
  body: Buffer | null;
}

interface PendingGet {
  path: string;
  maxBytes: number;
  attempts: number;
  resolve(response: PipelinedResponse): void;
  reject(error: Error): void;
}

/** A request that was not answered this many times is not retried again (the server keeps dropping it). */
const MAX_ATTEMPTS = 3;
const MAX_HEAD_BYTES = 64 * 1024;

export class PipelinedGets {
  private readonly queue: PendingGet[] = [];
  private readonly connections = new Set<Connection>();
  private readonly headerText: string;
  private failed: string | null = null;

  constructor(private readonly options: PipelineOptions) {
    let text = `Host: ${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}\r\n`;
    for (const [name, value] of Object.entries(options.headers)) text += `${name}: ${value}\r\n`;
    this.headerText = text;
  }

  get(path: string, maxBytes: number): Promise<PipelinedResponse> {
    return new Promise((resolve, reject) => {
      if (this.failed !== null) return reject(new Error(this.failed));
      this.queue.push({ path, maxBytes, attempts: 0, resolve, reject });
      this.pump();
    });
  }

  /** Fails everything outstanding and queued; later calls fail at once. */
  fail(message: string): void {
    if (this.failed !== null) return;
    this.failed = message;
    for (const connection of [...this.connections]) connection.destroy(message);
    for (const request of this.queue.splice(0)) request.reject(new Error(message));
  }

  close(): void {
    for (const connection of [...this.connections]) connection.destroy('closed');
  }

  requestText(path: string): string {
    return `GET ${path} HTTP/1.1\r\n${this.headerText}\r\n`;
  }

  /** Hands queued requests to connections with room, opening connections up to the limit. */
  pump(): void {
    if (this.failed !== null) return;
    while (this.queue.length > 0) {
      let target: Connection | null = null;
      for (const connection of this.connections)
        if (connection.open && connection.room(this.options.depth) && (target === null || connection.load < target.load))
          target = connection;
      if (target === null || (target.load > 0 && this.connections.size < this.options.connections)) {
        if (this.connections.size < this.options.connections) target = this.connect();
      }
      if (target === null) return; // every connection is full: the next response makes room
      const batch = this.queue.splice(0, Math.max(1, this.options.depth - target.load));
      target.send(batch);
    }
  }

  private connect(): Connection {
    const connection = new Connection(this, this.options, () => {
      this.connections.delete(connection);
    });
    this.connections.add(connection);
    return connection;
  }

  /** Unanswered requests of a connection that closed: back to the front of the queue. */
  requeue(requests: PendingGet[]): void {
    const retry: PendingGet[] = [];
    for (const request of requests) {
      if (request.attempts >= MAX_ATTEMPTS)
        request.reject(new Error(`GET ${request.path} was not answered after ${MAX_ATTEMPTS} attempts`));
      else retry.push(request);
    }
    this.queue.unshift(...retry);
    setImmediate(() => this.pump());
  }

  outage(message: string): void {
    this.options.onOutage(message);
  }
}

interface ResponseHead {
  status: number;
  close: boolean;
  /** Content-Length, or null for a chunked body. */
  length: number | null;
  /** A chunked body: the bytes received so far (body[0, total)), and what the parser expects next. */
  body: Buffer;
  total: number;
  phase: 'size' | 'data' | 'trailer';
  chunkSize: number;
  trailerBytes: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * The size a chunk-size line states (hex digits, then optional whitespace and `;extensions`), read from
 * buffer[start, end) without making a string.
 */
function chunkSize(buffer: Buffer, start: number, end: number): number {
  let size = 0;
  let digits = 0;
  let at = start;
  for (; at < end; at += 1) {
    const byte = buffer[at]!;
    const value =
      byte >= 0x30 && byte <= 0x39
        ? byte - 0x30
        : byte >= 0x61 && byte <= 0x66
          ? byte - 0x57
          : byte >= 0x41 && byte <= 0x46
            ? byte - 0x37
            : -1;
    if (value < 0) break;
    size = size * 16 + value;
    digits += 1;
  }
  if (digits === 0 || digits > 12) throw new Error('bad chunk size');
  for (; at < end; at += 1) {
    const byte = buffer[at]!;
    if (byte === 0x3b) break; // ';': extensions follow, ignored
    if (byte !== 0x20 && byte !== 0x09) throw new Error('bad chunk size');
  }
  return size;
}

/** `body` with `length` bytes of `source` from `from` written at `used`; grown by doubling, never past `cap`. */
function appendBytes(body: Buffer, used: number, source: Buffer, from: number, length: number, cap: number): Buffer {
  let target = body;
  if (used + length > body.length) {
    target = Buffer.allocUnsafe(Math.min(cap, Math.max(used + length, body.length * 2, 4096)));
    body.copy(target, 0, 0, used);
  }
  source.copy(target, used, from, from + length);
  return target;
}

/** A chunk-size line (with extensions) longer than this is not a server speaking HTTP. */
const MAX_CHUNK_LINE_BYTES = 1024;

class Connection {
  open = true;
  private readonly socket: net.Socket;
  /** Sent, in order, awaiting their responses. */
  private readonly inFlight: PendingGet[] = [];
  /** Received bytes not yet consumed by the parser (a response's consumed bytes are cut off as it goes). */
  private buffer: Buffer = Buffer.alloc(0);
  /**
   * Bytes received after `buffer`, not yet joined to it: a large body arrives in many reads, and joining
   * each one to the buffer would copy the body once per read. They are joined once `wanted` bytes are in.
   */
  private readonly received: Buffer[] = [];
  private receivedBytes = 0;
  /** Buffered bytes the parser needs before it can go on (0: unknown). */
  private wanted = 0;
  /** The head of the response being read, once parsed; its body is read from `buffer` as it arrives. */
  private current: ResponseHead | null = null;
  /**
   * The deadline of the request at the front: the whole response, head and body, must arrive within
   * timeoutMs of the server starting on it (sent, or the response before it complete). A server that
   * drips bytes keeps an idle timer alive for ever; this one it cannot.
   */
  private timer: NodeJS.Timeout | null = null;
  private answered = 0;
  private closed = false;

  constructor(
    private readonly owner: PipelinedGets,
    private readonly options: PipelineOptions,
    private readonly onGone: () => void,
  ) {
    this.socket = net.connect({ host: options.host, port: options.port, noDelay: true });
    this.socket.on('data', (data: Buffer) => this.onData(data));
    this.socket.on('error', (error: NodeJS.ErrnoException) => this.onClose(error.code ?? error.message));
    this.socket.on('close', () => this.onClose('connection closed'));
  }

  get load(): number {
    return this.inFlight.length;
  }

  room(depth: number): boolean {
    return this.inFlight.length < depth;
  }

  send(batch: PendingGet[]): void {
    const wasIdle = this.inFlight.length === 0;
    let text = '';
    for (const request of batch) {
      request.attempts += 1;
      this.inFlight.push(request);
      text += this.owner.requestText(request.path);
    }
    this.socket.write(text, 'latin1');
    if (wasIdle) this.armFront();
  }

  destroy(message: string): void {
    this.open = false;
    this.finish();
    this.socket.destroy();
    for (const request of this.inFlight.splice(0)) request.reject(new Error(message));
  }

  /** Starts the deadline of the request now at the front (none when nothing is outstanding). */
  private armFront(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer =
      this.inFlight.length === 0
        ? null
        : setTimeout(
            () => this.owner.outage(`timed out after ${this.options.timeoutMs} ms (a response must arrive whole within it)`),
            this.options.timeoutMs,
          );
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.onGone();
  }

  private onClose(why: string): void {
    if (this.closed) return;
    this.open = false;
    this.finish();
    const unanswered = this.inFlight.splice(0);
    if (unanswered.length === 0) return;
    // Nothing ever answered on this connection: the server refuses or drops us. An outage, not a retry.
    if (this.answered === 0 && unanswered.every((r) => r.attempts >= 1) && why !== 'connection closed') {
      this.owner.outage(`failed: ${why}`);
      for (const request of unanswered) request.reject(new Error(why));
      return;
    }
    this.owner.requeue(unanswered);
  }

  private onData(data: Buffer): void {
    if (this.closed) return;
    this.received.push(data);
    this.receivedBytes += data.length;
    if (this.buffer.length + this.receivedBytes < this.wanted) return;
    this.buffer =
      this.buffer.length === 0 && this.received.length === 1 ? this.received[0]! : Buffer.concat([this.buffer, ...this.received]);
    this.received.length = 0;
    this.receivedBytes = 0;
    this.wanted = 0;
    try {
      for (;;) {
        const head = this.inFlight[0];
        if (head === undefined) {
          if (this.buffer.length === 0) break;
          throw new Error('a response to no request');
        }
        const response = this.parseOne(head.maxBytes);
        if (response === null) break;
        this.inFlight.shift();
        this.answered += 1;
        head.resolve({ status: response.status, body: response.body });
        if (response.close || response.body === null) {
          // The server ends the connection here (e.g. its keep-alive limit), or the body was too large to
          // read through: what follows is sent again on another connection.
          this.open = false;
          this.finish();
          this.socket.destroy();
          const rest = this.inFlight.splice(0);
          if (rest.length > 0) this.owner.requeue(rest);
          return;
        }
        this.armFront();
      }
    } catch (error) {
      this.owner.outage(`sent an unreadable response (${(error as Error).message})`);
      return;
    }
    this.owner.pump();
  }

  /**
   * One complete response from the front of the buffer (consumed), or null when more bytes are needed.
   * Incremental: what was parsed stays parsed (the head, each complete chunk), so a body that arrives in
   * many reads costs time linear in its size. A body past maxBytes is abandoned (body null) as soon as
   * its length or running total shows it.
   */
  private parseOne(maxBytes: number): { status: number; body: Buffer | null; close: boolean } | null {
    if (this.current === null) {
      const current = this.parseHead();
      if (current === null) return null;
      this.current = current;
    }
    const current = this.current;
    if (current.length !== null) {
      if (current.length > maxBytes) return this.done({ status: current.status, body: null, close: true });
      if (this.buffer.length < current.length) {
        this.wanted = current.length;
        return null;
      }
      const body = sharedCopy(this.buffer.subarray(0, current.length));
      this.buffer = this.buffer.subarray(current.length);
      return this.done({ status: current.status, body, close: current.close });
    }
    // Chunks are copied into one body buffer as they complete, and the parser walks the buffer by offset:
    // no object per chunk, however small the server makes them.
    let at = 0;
    const needMore = (wanted: number): null => {
      this.buffer = this.buffer.subarray(at);
      this.wanted = wanted;
      return null;
    };
    for (;;) {
      if (current.phase === 'size') {
        const lineEnd = this.buffer.indexOf(0x0a, at);
        if (lineEnd < 0) {
          if (this.buffer.length - at > MAX_CHUNK_LINE_BYTES) throw new Error('chunk size line too long');
          return needMore(0);
        }
        if (lineEnd - at > MAX_CHUNK_LINE_BYTES || lineEnd === at || this.buffer[lineEnd - 1] !== 0x0d)
          throw new Error('bad chunk size line');
        const size = chunkSize(this.buffer, at, lineEnd - 1);
        at = lineEnd + 1;
        if (size === 0) current.phase = 'trailer';
        else {
          if (current.total + size > maxBytes) return this.done({ status: current.status, body: null, close: true });
          current.chunkSize = size;
          current.phase = 'data';
        }
      } else if (current.phase === 'data') {
        if (this.buffer.length - at < current.chunkSize + 2) return needMore(current.chunkSize + 2);
        if (this.buffer[at + current.chunkSize] !== 0x0d || this.buffer[at + current.chunkSize + 1] !== 0x0a)
          throw new Error('a chunk without its CRLF');
        current.body = appendBytes(current.body, current.total, this.buffer, at, current.chunkSize, maxBytes);
        current.total += current.chunkSize;
        at += current.chunkSize + 2;
        current.phase = 'size';
      } else {
        // Trailer fields, then the empty line.
        const end = this.buffer.indexOf('\r\n', at, 'latin1');
        if (end < 0) {
          if (current.trailerBytes + this.buffer.length - at > MAX_HEAD_BYTES) throw new Error('trailer too large');
          return needMore(0);
        }
        current.trailerBytes += end + 2 - at;
        if (current.trailerBytes > MAX_HEAD_BYTES) throw new Error('trailer too large');
        const empty = end === at;
        at = end + 2;
        if (empty) {
          this.buffer = this.buffer.subarray(at);
          const body = sharedCopy(current.body.subarray(0, current.total));
          return this.done({ status: current.status, body, close: current.close });
        }
      }
    }
  }

  private done(response: { status: number; body: Buffer | null; close: boolean }): typeof response {
    this.current = null;
    return response;
  }

  /**
   * The head of the next final response (consumed from the buffer), or null when it is not all here yet.
   * Interim 1xx responses before it (103 Early Hints, 100 Continue) are consumed and skipped (RFC 9110
   * §15.2): they answer no request of their own, so taking one as the answer would shift every response
   * behind it onto the wrong request. 101 switches protocols, which these GETs never ask for.
   */
  private parseHead(): ResponseHead | null {
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n', 0, 'latin1');
      if (headEnd < 0) {
        if (this.buffer.length > MAX_HEAD_BYTES) throw new Error('response head too large');
        return null;
      }
      if (headEnd > MAX_HEAD_BYTES) throw new Error('response head too large');
      const status = statusOf(this.buffer.toString('latin1', 0, Math.min(headEnd, 32)));
      if (status === 101) throw new Error('101 Switching Protocols to a request that asked for no upgrade');
      if (status >= 200) return this.parseFinalHead(headEnd, status);
      this.buffer = this.buffer.subarray(headEnd + 4);
    }
  }

  /** The head of a final (2xx-5xx) response that ends at headEnd. */
  private parseFinalHead(headEnd: number, status: number): ResponseHead {
    const head = this.buffer.toString('latin1', 0, headEnd).split('\r\n');
    let length: number | null = null;
    let chunked = false;
    let close = head[0]!.startsWith('HTTP/1.0');
    for (let i = 1; i < head.length; i += 1) {
      const line = head[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('malformed header line');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== null && length !== Number(value))) throw new Error('bad Content-Length');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = value.split(',').some((coding) => coding.trim() === 'chunked');
      else if (name === 'connection') close = value.split(',').some((token) => token.trim() === 'close');
    }
    this.buffer = this.buffer.subarray(headEnd + 4);
    // 204 and 304 have no body; otherwise a body without a length runs to the end of the connection,
    // which a pipeline cannot use.
    if (chunked) length = null;
    else if (length === null) {
      if (status === 204 || status === 304) length = 0;
      else throw new Error('a response without Content-Length or chunked coding');
    }
    return { status, close, length, body: EMPTY, total: 0, phase: 'size', chunkSize: 0, trailerBytes: 0 };
  }
}

/** The status code of a response head's status line (its first bytes suffice). */
function statusOf(start: string): number {
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(start);
  if (!statusLine) throw new Error('no status line');
  const status = Number(statusLine[1]);
  if (status < 100) throw new Error(`status ${status}`);
  return status;
}

/**
 * A body's own copy, in shared memory when it is large: the build checks restored blobs on its worker
 * threads (inspect.ts), and a message to a worker shares a SharedArrayBuffer where it would copy any
 * other buffer (about a tenth of a restoring build's main-thread time went to those copies).
 */
function sharedCopy(bytes: Buffer): Buffer {
  if (bytes.length < 4096) return Buffer.from(bytes);
  const copy = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(copy);
  return copy;
}
