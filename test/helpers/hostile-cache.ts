import * as net from 'node:net';

/**
 * A Bazel-protocol cache server on 127.0.0.1 written on raw sockets, so a test can make it misbehave
 * in ways node:http would not let it: drip a response byte by byte, head included; claim one size and
 * send another; send a chunked body that never ends; stall after some requests. It answers pipelined
 * requests in order, as a real server does, and counts what it was asked and what it sent.
 */
export interface CacheRequest {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  /** `ac` or `cas` and the key, when the target names an entry below the server's base path. */
  area: string | null;
  key: string | null;
  /** The request line and headers as received, each byte one character (latin1). */
  head: string;
  body: Buffer;
}

/** What the server does with one request: answer it (the default: the store), or misbehave. */
export type Behaviour =
  | { kind: 'store' }
  | { kind: 'status'; status: number }
  /** The stored entry (or a 1,000-byte body), head sent whole, then its body one byte every `everyMs`. */
  | { kind: 'drip-body'; everyMs: number }
  /** The stored entry's whole response (or a 1,000-byte one) one byte every `everyMs`, head included. */
  | { kind: 'drip-head'; everyMs: number }
  /** 200, chunked, chunks of `chunkBytes` for ever (until the client goes). */
  | { kind: 'endless-chunked'; chunkBytes: number }
  /** Accept the request and never answer. */
  | { kind: 'silent' };

export class HostileCache {
  readonly store = new Map<string, Buffer>();
  readonly requests: CacheRequest[] = [];
  /** Body bytes written to clients for requests handled by a misbehaviour. */
  hostileBytesSent = 0;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  port = 0;

  constructor(
    /** Chooses the behaviour for a request (called in arrival order). */
    public behaviour: (request: CacheRequest) => Behaviour = () => ({ kind: 'store' }),
    /** The base path entries live under, e.g. `/base/` (ending in a slash). */
    readonly basePath = '/',
  ) {
    this.server = net.createServer((socket) => this.serve(socket));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  url(suffix = ''): string {
    return `http://127.0.0.1:${this.port}${this.basePath}${suffix}`;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    let busy = false;
    const next = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          const headEnd = buffer.indexOf('\r\n\r\n');
          if (headEnd < 0) return;
          const head = buffer.toString('latin1', 0, headEnd);
          const lines = head.split('\r\n');
          const [method = '', target = ''] = lines[0]!.split(' ');
          const length = Number(/^content-length:\s*(\d+)/im.exec(lines.slice(1).join('\n'))?.[1] ?? 0);
          if (buffer.length < headEnd + 4 + length) return;
          const body = buffer.subarray(headEnd + 4, headEnd + 4 + length);
          buffer = buffer.subarray(headEnd + 4 + length);
          const pathname = target.split('?')[0]!;
          const entry = pathname.startsWith(this.basePath) ? /^(ac|cas)\/([0-9a-f]{64})$/.exec(pathname.slice(this.basePath.length)) : null;
          const request: CacheRequest = {
            method,
            target,
            area: entry?.[1] ?? null,
            key: entry?.[2] ?? null,
            head,
            body: Buffer.from(body),
          };
          this.requests.push(request);
          const goOn = await this.answer(socket, request, this.behaviour(request));
          if (!goOn || socket.destroyed) return;
        }
      } finally {
        busy = false;
      }
    };
    socket.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      void next();
    });
  }

  /** Answers one request; false when the connection is not to be read further. */
  private answer(socket: net.Socket, request: CacheRequest, behaviour: Behaviour): Promise<boolean> {
    const name = `${request.area}/${request.key}`;
    const write = (head: string, body: Buffer = Buffer.alloc(0)): boolean => {
      if (!socket.destroyed) socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
      return true;
    };
    switch (behaviour.kind) {
      case 'store': {
        if (request.area === null) return Promise.resolve(write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
        if (request.method === 'PUT') {
          this.store.set(name, request.body);
          return Promise.resolve(write('HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n'));
        }
        const stored = this.store.get(name);
        if (stored === undefined) return Promise.resolve(write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'));
        // A HEAD's answer has the head a GET's would have, and no body.
        const body = request.method === 'HEAD' ? Buffer.alloc(0) : stored;
        return Promise.resolve(write(`HTTP/1.1 200 OK\r\nContent-Length: ${stored.length}\r\n\r\n`, body));
      }
      case 'status':
        return Promise.resolve(write(`HTTP/1.1 ${behaviour.status} Refused\r\nContent-Length: 0\r\n\r\n`));
      case 'silent':
        return Promise.resolve(false);
      case 'drip-body':
      case 'drip-head':
      case 'endless-chunked':
        return new Promise((resolve) => {
          // A body as long as the client expects, so only time can tell it is dripped.
          const body = this.store.get(name) ?? Buffer.alloc(1000, 0x78);
          const head =
            behaviour.kind === 'endless-chunked'
              ? 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
              : `HTTP/1.1 200 OK\r\nX-Padding: yes\r\nContent-Length: ${body.length}\r\n\r\n`;
          let sent = 0;
          if (behaviour.kind === 'drip-body') write(head);
          const chunk =
            behaviour.kind === 'endless-chunked'
              ? Buffer.from(`${behaviour.chunkBytes.toString(16)}\r\n${'x'.repeat(behaviour.chunkBytes)}\r\n`, 'latin1')
              : null;
          const pending =
            behaviour.kind === 'drip-head'
              ? Buffer.concat([Buffer.from(head, 'latin1'), body])
              : behaviour.kind === 'drip-body'
                ? body
                : null;
          const step = (): void => {
            if (socket.destroyed || !socket.writable) {
              clearInterval(timer);
              this.timers.delete(timer);
              resolve(false);
              return;
            }
            if (chunk !== null) {
              // As fast as the client takes it: the client's own bound must end this.
              while (socket.writableLength < 1 << 20) {
                socket.write(chunk);
                this.hostileBytesSent += chunk.length;
              }
            } else if (pending !== null && sent < pending.length) {
              socket.write(pending.subarray(sent, sent + 1));
              sent += 1;
              this.hostileBytesSent += 1;
            }
          };
          const timer = setInterval(step, behaviour.kind === 'endless-chunked' ? 1 : behaviour.everyMs);
          this.timers.add(timer);
          step();
        });
    }
  }
}
