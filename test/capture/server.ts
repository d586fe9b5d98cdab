import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the test server saw it. */
export interface SeenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
}

/** Handles the n-th request (1-based) to its path. */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

/**
 * An HTTP server on 127.0.0.1 (an ephemeral port) whose routes the test programs; unknown paths are 404.
 * It counts requests per path and keeps their headers, so tests can check what was (not) fetched.
 */
export class TestServer {
  readonly requests: SeenRequest[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly counts = new Map<string, number>();
  private server!: http.Server;
  private port = 0;

  static async start(routes: Record<string, Route> = {}): Promise<TestServer> {
    const instance = new TestServer();
    for (const [path, route] of Object.entries(routes)) instance.route(path, route);
    instance.server = http.createServer((req, res) => instance.handle(req, res));
    await new Promise<void>((resolve) => instance.server.listen(0, '127.0.0.1', resolve));
    instance.port = (instance.server.address() as AddressInfo).port;
    return instance;
  }

  route(path: string, route: Route): void {
    this.routes.set(path, route);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  hits(path: string): number {
    return this.counts.get(path) ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    const n = (this.counts.get(path) ?? 0) + 1;
    this.counts.set(path, n);
    this.requests.push({ path, headers: req.headers });
    const route = this.routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    route(req, res, n);
  }
}

/** Serves fixed bytes with an ETag and/or Last-Modified, answering 304 to a matching conditional request. */
export function staticRoute(
  body: () => string | Buffer,
  options: { contentType?: string; etag?: () => string | null; lastModified?: () => string | null; headers?: Record<string, string> } = {},
): Route {
  return (req, res) => {
    const etag = options.etag?.() ?? null;
    const lastModified = options.lastModified?.() ?? null;
    const validators: Record<string, string> = {};
    if (etag) validators.etag = etag;
    if (lastModified) validators['last-modified'] = lastModified;
    if ((etag && req.headers['if-none-match'] === etag) || (!etag && lastModified && req.headers['if-modified-since'] === lastModified)) {
      res.writeHead(304, validators);
      res.end();
      return;
    }
    const bytes = Buffer.from(body());
    res.writeHead(200, {
      'content-type': options.contentType ?? 'text/html; charset=utf-8',
      'content-length': String(bytes.byteLength),
      ...validators,
      ...options.headers,
    });
    res.end(bytes);
  };
}

export function page(title: string, text: string): string {
  return (
    `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p>` +
    `<h2 id="more">More</h2><p>Second paragraph of ${title}.</p></body></html>\n`
  );
}
