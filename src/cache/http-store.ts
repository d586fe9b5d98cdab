import * as http from 'node:http';
import * as https from 'node:https';
import { BlobFile, type BlobFileResult } from './blob-file.js';
import { PipelinedGets } from './http-pipeline.js';
import { displayUrl } from '../config/cache-url.js';
import type { Secrets } from './secrets.js';
import { CacheUnavailable, SHA256_HEX, type Area, type CacheStore } from './store.js';

/**
 * The Bazel HTTP cache protocol: `GET`/`PUT` `<base>/ac/<sha256>` and `<base>/cas/<sha256>`; 200 is a
 * hit, 404 a miss; a PUT carries Content-Length (nginx's WebDAV refuses chunked bodies) and succeeds
 * with 200, 201 or 204; a HEAD asks whether a blob is still held (an upload build's repair of evicted
 * entries). Every request has a deadline, so a stalled server costs one timeout.
 *
 * node:http rather than got (the capture client): the cache needs two plain verbs with a fixed length,
 * a hard deadline and a keep-alive pool, and none of got's retries, redirects or decompression, all of
 * which would have to be switched off; it also keeps got's load time off builds that capture nothing.
 */
export interface HttpStoreOptions {
  headers: Record<string, string>;
  secrets: Secrets;
  /** Deadline of one request, connection included: the whole response must arrive within it. */
  timeoutMs: number;
  /**
   * Wall time the cache may take in one build, from its first request: past it the cache is abandoned
   * for the rest of the build (an outage), so a server that answers each request just inside the
   * deadline still cannot hold a build for long.
   */
  budgetMs?: number;
}

const DEFAULT_BUDGET_MS = 600_000;

export class HttpStore implements CacheStore {
  readonly label: string;
  private readonly base: URL;
  private readonly agent: http.Agent;
  /** Set by the first outage: every request in flight or queued then fails at once, as do later ones. */
  private outage: string | null = null;
  private readonly inFlight = new Set<(message: string) => void>();
  /** GETs over plain HTTP go through a pipeline (http-pipeline.ts); PUTs and HTTPS through node:http(s). */
  private readonly pipeline: PipelinedGets | null = null;

  /** Started by the first request; trips the outage when the build's budget for the cache is spent. */
  private budget: NodeJS.Timeout | null = null;

  constructor(
    url: URL,
    private readonly options: HttpStoreOptions,
  ) {
    // The URL as given, its path made a folder: requests resolve against it and keep its query. Any
    // user info is dropped: credentials come as a header (cache/open.ts makes it from the user info).
    this.base = new URL(url.href);
    this.base.hash = '';
    this.base.username = '';
    this.base.password = '';
    if (!this.base.pathname.endsWith('/')) this.base.pathname = `${this.base.pathname}/`;
    this.label = displayUrl(this.base);
    const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 8 });
    if (url.protocol === 'http:') {
      this.pipeline = new PipelinedGets({
        host: this.base.hostname.replace(/^\[|\]$/g, ''),
        port: Number(this.base.port || 80),
        headers: this.requestHeaders(),
        timeoutMs: options.timeoutMs,
        connections: 4,
        depth: 32,
        onOutage: (message) => this.trip(`GET ${this.label}… ${message}`),
      });
    }
  }

  /** Where a request for this entry goes: the base URL (path and query kept) resolved with `area/hash`. */
  entryUrl(area: Area, hash: string): URL {
    const url = new URL(`${area}/${hash}`, this.base);
    url.search = this.base.search;
    return url;
  }

  async get(area: Area, hash: string, maxBytes: number): Promise<Buffer | null> {
    this.startBudget();
    if (this.pipeline !== null) return this.pipelinedGet(area, hash, maxBytes);
    const response = await this.request('GET', area, hash, null, maxBytes);
    if (response.status === 404) return null;
    if (response.status === 200) return response.body;
    throw this.refused('GET', area, response.status);
  }

  /** Over node:http(s), not the pipeline: one large body streams to its file, with the same deadline. */
  async getFile(sha256: string, sizeBytes: number, file: string): Promise<'absent' | BlobFileResult> {
    this.startBudget();
    const response = await this.request('GET', 'cas', sha256, null, sizeBytes, file);
    if (response.status === 404) return 'absent';
    if (response.status === 200) return response.stored ?? 'absent';
    throw this.refused('GET', 'cas', response.status);
  }

  async put(area: Area, hash: string, bytes: Buffer): Promise<void> {
    this.startBudget();
    const response = await this.request('PUT', area, hash, bytes, 64 * 1024);
    if (response.status === 200 || response.status === 201 || response.status === 204) return;
    throw this.refused('PUT', area, response.status);
  }

  /** A HEAD over node:http(s): 200 holds it, 404 does not; the body is never sent. */
  async has(area: Area, hash: string): Promise<boolean> {
    this.startBudget();
    const response = await this.request('HEAD', area, hash, null, 0);
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    throw this.refused('HEAD', area, response.status);
  }

  close(): void {
    if (this.budget !== null) clearTimeout(this.budget);
    this.agent.destroy();
    this.pipeline?.close();
  }

  private async pipelinedGet(area: Area, hash: string, maxBytes: number): Promise<Buffer | null> {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 key: ${hash}`);
    if (this.outage !== null) throw new CacheUnavailable(this.outage);
    let response: Awaited<ReturnType<PipelinedGets['get']>>;
    try {
      const url = this.entryUrl(area, hash);
      response = await this.pipeline!.get(`${url.pathname}${url.search}`, maxBytes);
    } catch (error) {
      this.trip(`GET ${this.label}${area}/… failed: ${(error as Error).message}`);
      throw new CacheUnavailable(this.outage!);
    }
    if (response.status === 404) return null;
    // A null body is larger than the action result says the blob is: not this entry. A miss, not an outage.
    if (response.status === 200) return response.body;
    throw this.refused('GET', area, response.status);
  }

  /** The configured headers, a copy per request (node:http's content headers are added to it). */
  private requestHeaders(): Record<string, string> {
    return { ...this.options.headers };
  }

  /** A refusal (5xx, 507, 401, …) is an outage like a timeout: nothing queued behind it is sent. */
  private refused(method: string, area: Area, status: number): CacheUnavailable {
    const why =
      status === 507
        ? ' (the cache is full)'
        : status === 401 || status === 403
          ? ' (credentials refused; see EPISTEME_REMOTE_CACHE_HEADERS)'
          : '';
    this.trip(`${method} ${this.label}${area}/… answered ${status}${why}`);
    return new CacheUnavailable(this.outage!);
  }

  private startBudget(): void {
    if (this.budget !== null || this.outage !== null) return;
    const budgetMs = this.options.budgetMs ?? DEFAULT_BUDGET_MS;
    this.budget = setTimeout(() => this.trip(`${this.label} used up this build's budget of ${budgetMs / 1000} s for the cache`), budgetMs);
    this.budget.unref();
  }

  private trip(message: string): void {
    this.outage ??= this.options.secrets.redact(message);
    for (const abandon of [...this.inFlight]) abandon(this.outage);
    this.pipeline?.fail(this.outage);
  }

  /**
   * One request over node:http(s). With `toFile`, a 200 body is streamed into that file (blob-file.ts)
   * rather than gathered: `stored` says how that ended.
   */
  private request(
    method: 'GET' | 'PUT' | 'HEAD',
    area: Area,
    hash: string,
    body: Buffer | null,
    maxBytes: number,
    toFile: string | null = null,
    retried = false,
  ): Promise<{ status: number; body: Buffer | null; stored?: BlobFileResult }> {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 key: ${hash}`);
    const url = this.entryUrl(area, hash);
    const client = url.protocol === 'https:' ? https : http;
    const headers = this.requestHeaders();
    if (body !== null) {
      headers['content-length'] = String(body.length);
      headers['content-type'] = 'application/octet-stream';
    }
    if (this.outage !== null) return Promise.reject(new CacheUnavailable(this.outage));
    return new Promise((resolve, reject) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      /** The file a 200 body streams into; whatever ends the request before its end removes it. */
      let blob: BlobFile | null = null;
      /** Ends this request's bookkeeping once; false when it had already ended. */
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.inFlight.delete(abandon);
        clearTimeout(deadline);
        blob?.abort();
        blob = null;
        return true;
      };
      const abandon = (message: string): void => {
        if (!settle()) return;
        request.destroy();
        reject(new CacheUnavailable(message));
      };
      // Larger than the action result says the blob is: not this entry. A miss, not an outage.
      const tooLarge = (): void => {
        if (!settle()) return;
        request.destroy();
        resolve({ status: 404, body: null });
      };
      // One stalled or dead server costs one deadline, not one per request queued behind it.
      const fail = (message: string): void => {
        if (!settled) this.trip(message);
      };
      this.inFlight.add(abandon);
      let request: http.ClientRequest;
      try {
        request = this.send(client, url, method, headers, body);
      } catch (error) {
        // Refused before anything was sent (node:http checks the headers and the URL as it builds the
        // request): no request of this cache can go out, which is an outage, never a failed build.
        settle();
        this.trip(`${method} ${this.label}${area}/… could not be sent: ${(error as Error).message}`);
        reject(new CacheUnavailable(this.outage!));
        return;
      }
      request.on('response', (response: http.IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const declared = Number(response.headers['content-length'] ?? NaN);
        if (status === 200 && method === 'GET' && declared > maxBytes) {
          tooLarge();
          return;
        }
        if (toFile !== null && status === 200 && method === 'GET') {
          try {
            blob = new BlobFile(toFile, hash, maxBytes);
          } catch {
            tooLarge(); // the file cannot be written here (a local disk problem): a miss, built locally
            return;
          }
        }
        const parts: Buffer[] = [];
        let length = 0;
        response.on('data', (part: Buffer) => {
          if (blob !== null) {
            let written = false;
            try {
              written = blob.write(part);
            } catch {
              // a local write failure: a miss, as above
            }
            if (!written) tooLarge();
            return;
          }
          length += part.length;
          if (length > maxBytes && status === 200 && method === 'GET') {
            tooLarge();
            return;
          }
          if (length <= maxBytes) parts.push(part);
        });
        response.on('error', (error) => fail(`${method} ${this.label}${area}/… failed: ${error.message}`));
        response.on('end', () => {
          if (settled) return;
          let stored: BlobFileResult | undefined;
          if (blob !== null) {
            try {
              stored = blob.finish();
            } catch {
              stored = undefined; // not renamed into place (a local failure): a miss
            }
            blob = null;
          }
          if (!settle()) return;
          if (toFile !== null && status === 200 && stored === undefined) resolve({ status: 404, body: null });
          else resolve({ status, body: Buffer.concat(parts), ...(stored === undefined ? {} : { stored }) });
        });
      });
      // The deadline runs from when the request gets a socket: time spent queued behind the pool's
      // other requests is the build's own concurrency, not the server's slowness.
      request.once('socket', () => {
        deadline = setTimeout(
          () => fail(`${method} ${this.label}${area}/… timed out after ${this.options.timeoutMs} ms`),
          this.options.timeoutMs,
        );
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A keep-alive connection the server closed just as this request went out (its idle timeout
        // or request limit) is not an outage: GET and PUT of a content address are idempotent, so
        // send it once more on a fresh connection, as Node's documentation advises.
        const staleConnection = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        if (staleConnection && !retried && settle()) {
          resolve(this.request(method, area, hash, body, maxBytes, toFile, true));
          return;
        }
        fail(`${method} ${this.label}${area}/… failed: ${error.code ?? error.message}`);
      });
    });
  }

  /** Builds and sends one request; throws synchronously when node:http refuses it as given. */
  private send(
    client: typeof http | typeof https,
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Buffer | null,
  ): http.ClientRequest {
    const request = client.request(url, { method, headers, agent: this.agent });
    request.end(body ?? undefined);
    return request;
  }
}
