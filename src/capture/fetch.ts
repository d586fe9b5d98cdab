import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { pipeline, type Readable, type Transform } from 'node:stream';
import got, { TimeoutError, type Request as GotRequest } from 'got';
import type { IncomingMessage } from 'node:http';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import type { CaptureBounds } from './bounds.js';
import { CaptureFailure, sourceFailed } from './failure.js';
import { EpistemeError } from '../failure.js';
import { writeFailure } from '../store/write-failure.js';

/**
 * One bounded, conditional GET of a source URL: redirects followed by hand (counted, http(s) only, never
 * to a URL with credentials), 5xx / 429 / network errors retried with backoff (Retry-After honoured up
 * to a cap), the body streamed to a temp file while it is hashed and counted (after decompression),
 * never buffered past the bound.
 * got's own retry, redirect and decompression are switched off so each bound is enforced here, once.
 */

/** Validators of the recorded representation, sent as If-None-Match / If-Modified-Since. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** What one successful exchange looked like (the final hop, after redirects). */
export interface Observation {
  requestedUrl: string;
  finalUrl: string;
  /** Each Location followed, in order. */
  redirects: string[];
  status: number;
  /** Raw Content-Type and Content-Encoding headers, or null. */
  contentTypeHeader: string | null;
  contentEncoding: string | null;
  /** Content-Length as sent (bytes on the wire), or null when the server sent none. */
  declaredLength: number | null;
  /** Body bytes received after decoding; 0 for a 304. */
  receivedLength: number;
  etag: string | null;
  lastModified: string | null;
  /** ISO 8601 UTC time the response completed. Recorded only; never part of a key or an id. */
  observedAt: string;
  attempts: number;
}

export interface FetchedBody {
  /** Temp file holding the decoded body; the caller renames or removes it. */
  tempPath: string;
  sha256: string;
  byteLength: number;
  /** The first 1024 bytes, for charset sniffing. */
  head: Buffer;
}

export type FetchOutcome =
  | { kind: 'not-modified'; observation: Observation }
  | { kind: 'fetched'; observation: Observation; body: FetchedBody };

export type FetchEvent =
  | { type: 'response'; url: string; status: number; declaredLength: number | null; attempt: number }
  | { type: 'body'; url: string; bytes: number }
  | { type: 'retry'; url: string; reason: string; detail: string; delayMs: number; attempt: number }
  | { type: 'done'; url: string; status: number; bytes: number };

export interface FetchRequest {
  url: string;
  validators: Validators | null;
  bounds: CaptureBounds;
  /** Folder for the temp body file (the bodies folder, so the final rename is atomic). */
  tempDir: string;
  onEvent?: (event: FetchEvent) => void;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const PROGRESS_STEP = 1024 * 1024;
/** Same marker as src/store/atomic-file.ts, so the build's start-up sweep removes a crashed download. */
const TEMP_PREFIX = '.episteme-tmp-';
let tempCounter = 0;

export async function fetchRepresentation(request: FetchRequest): Promise<FetchOutcome> {
  const { bounds } = request;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetchOnce(request, attempt);
    } catch (error) {
      if (error instanceof EpistemeError) throw error; // e.g. write-failed: not the server's doing
      const failure = classify(error);
      if (!failure.retryable || attempt > bounds.retries) throw sourceFailed(request.url, failure, attempt);
      const retryAfter = failure.extra.retryAfterMs;
      if (retryAfter !== undefined && retryAfter > bounds.maxRetryAfterMs) {
        throw sourceFailed(
          request.url,
          new CaptureFailure(
            'retry-after-too-long',
            `status ${failure.extra.status ?? '?'} with Retry-After ${Math.ceil(retryAfter / 1000)} s, ` +
              `over the ${bounds.maxRetryAfterMs} ms cap`,
            failure.extra,
          ),
          attempt,
        );
      }
      const delayMs = retryAfter ?? Math.min(bounds.retryDelayMs * 2 ** (attempt - 1), bounds.maxRetryAfterMs);
      request.onEvent?.({ type: 'retry', url: request.url, reason: failure.reason, detail: failure.message, delayMs, attempt });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

async function fetchOnce(request: FetchRequest, attempt: number): Promise<FetchOutcome> {
  const { bounds } = request;
  const headers: Record<string, string> = {
    'user-agent': `${PRODUCER_NAME}/${PRODUCER_VERSION}`,
    'accept-encoding': 'gzip, deflate, br',
  };
  if (request.validators?.etag) headers['if-none-match'] = request.validators.etag;
  if (request.validators?.lastModified) headers['if-modified-since'] = request.validators.lastModified;
  const redirects: string[] = [];
  let current = request.url;
  for (;;) {
    const deadline = new HopDeadline(bounds.requestTimeoutMs);
    try {
      const outcome = await fetchHop(request, attempt, current, headers, redirects, deadline);
      if (typeof outcome !== 'string') return outcome;
      current = outcome;
    } finally {
      deadline.clear();
    }
  }
}

/**
 * got's request timeout stops when got thinks the exchange is over; an answer that ends it without a
 * response (101 Switching Protocols hands the socket away) left nothing running and the capture waiting
 * for ever. This wall-clock deadline on each hop does not depend on got's state: when it fires it
 * destroys the stream, so whatever is awaited (the head or the body) ends with the timeout.
 */
class HopDeadline {
  failure: CaptureFailure | null = null;
  private stream: GotRequest | null = null;
  private onExpire: ((failure: CaptureFailure) => void) | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => {
      this.failure = new CaptureFailure('timeout', `no complete response within ${ms} ms`);
      this.stream?.destroy(this.failure);
      this.onExpire?.(this.failure);
    }, ms);
  }

  watch(stream: GotRequest, onExpire: (failure: CaptureFailure) => void): void {
    this.stream = stream;
    this.onExpire = onExpire;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** One request of the redirect chain: the outcome, or the next URL to request. */
async function fetchHop(
  request: FetchRequest,
  attempt: number,
  current: string,
  headers: Record<string, string>,
  redirects: string[],
  deadline: HopDeadline,
): Promise<FetchOutcome | string> {
  const { bounds } = request;
  const { stream, response } = await open(current, headers, bounds, deadline);
  const status = response.statusCode ?? 0;
  if (REDIRECT_STATUSES.has(status)) {
    stream.destroy();
    const next = redirectTarget(current, response.headers.location, status);
    if (redirects.length >= bounds.maxRedirects) {
      throw new CaptureFailure('redirect-limit', `more than ${bounds.maxRedirects} redirects (next: ${next})`, { status });
    }
    redirects.push(next);
    return next;
  }
  const declaredLength = contentLength(response);
  request.onEvent?.({ type: 'response', url: request.url, status, declaredLength, attempt });
  const base = {
    requestedUrl: request.url,
    finalUrl: current,
    redirects,
    status,
    contentTypeHeader: header(response, 'content-type'),
    contentEncoding: header(response, 'content-encoding'),
    declaredLength,
    etag: header(response, 'etag'),
    lastModified: header(response, 'last-modified'),
    attempts: attempt,
  };
  if (status === 304) {
    stream.destroy();
    if (request.validators === null)
      throw new CaptureFailure('unexpected-not-modified', 'status 304 to an unconditional request', { status });
    request.onEvent?.({ type: 'done', url: request.url, status, bytes: 0 });
    return { kind: 'not-modified', observation: { ...base, receivedLength: 0, observedAt: new Date().toISOString() } };
  }
  if (status !== 200) {
    stream.destroy();
    // 5xx and 429 are worth another attempt; other statuses are the answer.
    const retryable = status === 429 || status >= 500;
    const retryAfterMs = retryable ? parseRetryAfter(header(response, 'retry-after')) : undefined;
    throw new CaptureFailure('http-status', `status ${status}`, {
      status,
      retryable,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  const identity = base.contentEncoding === null || base.contentEncoding.toLowerCase() === 'identity';
  if (identity && declaredLength !== null && declaredLength > bounds.maxResponseBytes) {
    stream.destroy();
    throw new CaptureFailure('too-large', `Content-Length ${declaredLength} is over the ${bounds.maxResponseBytes}-byte bound`, {
      status,
    });
  }
  const body = await readBody(stream, base.contentEncoding, request, status, deadline);
  request.onEvent?.({ type: 'done', url: request.url, status, bytes: body.byteLength });
  return { kind: 'fetched', observation: { ...base, receivedLength: body.byteLength, observedAt: new Date().toISOString() }, body };
}

/** Starts one GET and waits for its response head, within the hop's deadline. */
function open(
  url: string,
  headers: Record<string, string>,
  bounds: CaptureBounds,
  deadline: HopDeadline,
): Promise<{ stream: GotRequest; response: IncomingMessage }> {
  const stream = got.stream(url, {
    method: 'GET',
    headers,
    followRedirect: false,
    throwHttpErrors: false,
    decompress: false,
    strictContentLength: true,
    retry: { limit: 0 },
    http2: false,
    cache: false,
    timeout: {
      lookup: bounds.connectTimeoutMs,
      connect: bounds.connectTimeoutMs,
      secureConnect: bounds.connectTimeoutMs,
      request: bounds.requestTimeoutMs,
    },
  });
  // Errors after the head are read through the body iterator; this keeps a late one from going unhandled.
  stream.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    deadline.watch(stream, reject);
    stream.once('response', (response: IncomingMessage) => resolve({ stream, response }));
    stream.once('error', reject);
    // A 101 to a GET that asked for no upgrade: the server now speaks another protocol on the socket,
    // and no HTTP response follows. got forwards it as an event, not as a response or an error.
    stream.once('upgrade', (_response: IncomingMessage, socket: { destroy(): void }) => {
      socket.destroy();
      stream.destroy();
      reject(new CaptureFailure('http-status', 'status 101 (Switching Protocols) to a request that asked for no upgrade', { status: 101 }));
    });
  });
}

/** Streams the body to a temp file, decoding, hashing and counting it; aborts past the byte bound. */
async function readBody(
  stream: GotRequest,
  encoding: string | null,
  request: FetchRequest,
  status: number,
  deadline: HopDeadline,
): Promise<FetchedBody> {
  const { bounds } = request;
  tempCounter += 1;
  const tempPath = path.join(request.tempDir, `${TEMP_PREFIX}${process.pid}-capture-${tempCounter}`);
  let source: Readable = stream;
  const decoder = decoderFor(encoding);
  if (decoder === 'unsupported') {
    stream.destroy();
    throw new CaptureFailure('decompression-failed', `unsupported Content-Encoding ${JSON.stringify(encoding)}`, { status });
  }
  if (decoder !== null) source = pipeline(stream, decoder, () => undefined);
  let file: fs.promises.FileHandle;
  try {
    fs.mkdirSync(request.tempDir, { recursive: true });
    file = await fs.promises.open(tempPath, 'w');
  } catch (error) {
    stream.destroy();
    throw writeFailure(error, tempPath);
  }
  const hash = createHash('sha256');
  const headParts: Buffer[] = [];
  let headBytes = 0;
  let total = 0;
  let nextProgress = PROGRESS_STEP;
  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      total += buffer.byteLength;
      if (total > bounds.maxResponseBytes) {
        throw new CaptureFailure(
          'too-large',
          `body is over the ${bounds.maxResponseBytes}-byte bound${decoder ? ' after decompression' : ''}`,
          { status },
        );
      }
      hash.update(buffer);
      if (headBytes < 1024) {
        headParts.push(buffer.subarray(0, 1024 - headBytes));
        headBytes += Math.min(buffer.byteLength, 1024 - headBytes);
      }
      // A refused write (disk full, read-only) is the machine's failure, not the server's: never retried.
      await writeAll(file, buffer).catch((error: unknown) => {
        throw writeFailure(error, tempPath);
      });
      if (total >= nextProgress) {
        request.onEvent?.({ type: 'body', url: request.url, bytes: total });
        nextProgress += PROGRESS_STEP;
      }
    }
  } catch (error) {
    stream.destroy();
    source.destroy();
    await file.close().catch(() => undefined);
    fs.rmSync(tempPath, { force: true });
    // The deadline destroyed the stream: a decoder in between reports only a premature close.
    if (deadline.failure !== null) throw deadline.failure;
    throw decoder !== null && isZlibError(error)
      ? new CaptureFailure('decompression-failed', `corrupt ${encoding} body`, { status, cause: error })
      : error;
  }
  try {
    await file.close();
  } catch (error) {
    fs.rmSync(tempPath, { force: true });
    throw writeFailure(error, tempPath);
  }
  return { tempPath, sha256: hash.digest('hex'), byteLength: total, head: Buffer.concat(headParts) };
}

/**
 * Writes all of `buffer`. A write(2) the file system can honour only in part (a disk filling up, the
 * file size limit) writes what fits and reports the count, not an error: a single write that ignored it
 * left the body without its tail when the last part was cut. The next write reports the cause.
 */
async function writeAll(file: fs.promises.FileHandle, buffer: Buffer): Promise<void> {
  for (let at = 0; at < buffer.byteLength; ) {
    const { bytesWritten } = await file.write(buffer, at, buffer.byteLength - at);
    if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    at += bytesWritten;
  }
}

function decoderFor(encoding: string | null): Transform | null | 'unsupported' {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === '' || name === 'identity') return null;
  if (name === 'gzip' || name === 'x-gzip' || name === 'deflate') return zlib.createUnzip(); // gzip or zlib-wrapped deflate
  if (name === 'br') return zlib.createBrotliDecompress();
  return 'unsupported';
}

function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__ERROR'));
}

function redirectTarget(from: string, location: string | undefined, status: number): string {
  if (!location) throw new CaptureFailure('redirect-invalid', `status ${status} without a Location header`, { status });
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new CaptureFailure('redirect-invalid', `status ${status} with a malformed Location ${JSON.stringify(location.slice(0, 200))}`, {
      status,
    });
  }
  // Credentials in a Location would be sent (Authorization: Basic) and recorded in the snapshot's
  // observation and the build state; a manifest URL with them is refused, so is a redirect to one.
  // Neither message shows them.
  const shown = withoutCredentials(next).slice(0, 200);
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new CaptureFailure('redirect-scheme', `redirect to ${next.protocol} (${shown}); only http: and https: are followed`, { status });
  }
  if (next.username !== '' || next.password !== '') {
    throw new CaptureFailure(
      'redirect-credentials',
      `redirect to a URL with a user name or password (${shown}); credentials are never sent`,
      {
        status,
      },
    );
  }
  return next.href;
}

function withoutCredentials(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

function header(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function contentLength(response: IncomingMessage): number | null {
  const raw = header(response, 'content-length');
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** Retry-After as delta-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Maps whatever one attempt threw to a failure reason. */
function classify(error: unknown): CaptureFailure {
  if (error instanceof CaptureFailure) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TimeoutError) {
    return error.event === 'request'
      ? new CaptureFailure('timeout', `no complete response within ${message.match(/\d+/)?.[0] ?? '?'} ms`, { cause: error })
      : new CaptureFailure('connect-timeout', `${error.event} took longer than ${message.match(/\d+/)?.[0] ?? '?'} ms`, { cause: error });
  }
  switch (code) {
    case 'ERR_HTTP_CONTENT_LENGTH_MISMATCH':
      return new CaptureFailure('body-truncated', message, { cause: error });
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return new CaptureFailure('connection-reset', message, { cause: error });
    case 'ECONNREFUSED':
      return new CaptureFailure('connection-refused', message, { cause: error });
    case 'ENOTFOUND':
      return new CaptureFailure('dns-failed', message, { cause: error });
    case 'ERR_INVALID_URL':
      return new CaptureFailure('redirect-invalid', message, { cause: error });
    default:
      break;
  }
  if (
    typeof code === 'string' &&
    (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('SELF_SIGNED'))
  ) {
    return new CaptureFailure('tls-failed', message, { cause: error });
  }
  if (isZlibError(error)) return new CaptureFailure('decompression-failed', message, { cause: error });
  // llhttp's parse errors (HPE_*): the server's bytes are not HTTP, and the same bytes come back on a
  // retry. Not an end of input inside the response (HPE_INVALID_EOF_STATE): that is a cut connection.
  if (typeof code === 'string' && code.startsWith('HPE_') && code !== 'HPE_INVALID_EOF_STATE')
    return new CaptureFailure('protocol-error', `${code}: ${message}`, { cause: error });
  return new CaptureFailure('network-error', `${typeof code === 'string' ? code + ': ' : ''}${message}`, { cause: error });
}
