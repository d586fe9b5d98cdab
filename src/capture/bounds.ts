/**
 * Every bound HTTP capture works within. Each has a documented default, can be set in the workspace
 * config (`limits.capture`, schema/workspace-config.schema.json) and overridden by a flag of
 * `episteme snapshot`. None of them is part of a snapshot's key: changing a timeout never refetches.
 */
export interface CaptureBounds {
  /** DNS lookup, TCP connect and TLS handshake, each (ms). */
  connectTimeoutMs: number;
  /** One request from start to the last body byte, per redirect hop and attempt (ms). */
  requestTimeoutMs: number;
  /** Bytes per response body after decompression; the stream is aborted past it. */
  maxResponseBytes: number;
  /** Further attempts after a network error, timeout, 5xx or 429 (0 = no retry). */
  retries: number;
  /** Backoff before retry n is retryDelayMs * 2^(n-1), unless the server sent Retry-After (ms). */
  retryDelayMs: number;
  /** Longest Retry-After honoured; a longer one fails the source at once (ms). */
  maxRetryAfterMs: number;
  /** Redirects followed per request; each must go to http: or https:. */
  maxRedirects: number;
  /** HTTP sources fetched per run; the rest fail with max-sources-per-run and are fetched by the next run. */
  maxSources: number;
  /** HTTP fetches in flight at once. */
  concurrency: number;
}

export const DEFAULT_CAPTURE_BOUNDS: Readonly<CaptureBounds> = Object.freeze({
  connectTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxResponseBytes: 64 * 1024 * 1024,
  retries: 2,
  retryDelayMs: 500,
  maxRetryAfterMs: 30_000,
  maxRedirects: 5,
  maxSources: 500,
  concurrency: 4,
});

/** Largest timer Node honours: setTimeout turns anything above 2^31-1 ms into 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** Largest file Node reads into one Buffer (fs.readFileSync's limit): bodies are read back whole. */
export const MAX_READ_BYTES = 2 ** 31 - 1;

/**
 * The allowed range of each bound, shared by the `episteme snapshot` flags (their validators and
 * --help) and schema/workspace-config.schema.json (`limits.capture`; a test keeps the two equal). Upper
 * ends are what the runtime can honour (timers, Buffers) or what no sane run needs.
 */
export const CAPTURE_BOUND_RANGES: Readonly<Record<keyof CaptureBounds, { min: number; max: number }>> = Object.freeze({
  connectTimeoutMs: { min: 1, max: 600_000 },
  requestTimeoutMs: { min: 1, max: 3_600_000 },
  maxResponseBytes: { min: 1, max: MAX_READ_BYTES },
  retries: { min: 0, max: 10 },
  retryDelayMs: { min: 0, max: 600_000 },
  maxRetryAfterMs: { min: 0, max: 3_600_000 },
  maxRedirects: { min: 0, max: 50 },
  maxSources: { min: 1, max: 1_000_000 },
  concurrency: { min: 1, max: 64 },
});

/** Defaults, then the config's values, then the flags' (undefined = not given). */
export function resolveCaptureBounds(...layers: (Partial<Record<keyof CaptureBounds, number | undefined>> | undefined)[]): CaptureBounds {
  const bounds: CaptureBounds = { ...DEFAULT_CAPTURE_BOUNDS };
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      if (value !== undefined) bounds[name as keyof CaptureBounds] = value;
    }
  }
  return bounds;
}
