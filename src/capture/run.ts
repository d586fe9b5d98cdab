import type { CaptureBounds } from './bounds.js';
import { CaptureFailure, sourceFailed } from './failure.js';
import type { FetchEvent } from './fetch.js';

/**
 * What one build run needs to capture over HTTP: the refresh policy, the clock reading used to apply
 * --max-age (read once, and used only to decide whether to fetch, never in a key or an id), the
 * per-run source budget and the limit on fetches in flight.
 */
export interface RefreshPolicy {
  /** --refresh: refetch (conditionally) every HTTP snapshot in the closure. */
  force: boolean;
  /** --max-age: refetch those observed longer ago than this; null = never because of age. */
  maxAgeSeconds: number | null;
}

export const NO_REFRESH: RefreshPolicy = Object.freeze({ force: false, maxAgeSeconds: null });

export type CaptureEvent = FetchEvent & { documentId: string };

export interface CaptureRequest {
  refresh: RefreshPolicy;
  /**
   * The offline stages (extract, chunk, index, manual-ingest) never touch the network: an HTTP source
   * without a recorded snapshot fails with snapshot-missing instead of being fetched.
   */
  offline?: boolean;
  onEvent?: (event: CaptureEvent) => void;
}

/** Why a recorded HTTP snapshot is due for a (conditional) refetch. */
export interface RefreshDue {
  by: 'refresh' | 'max-age';
  /** Seconds since the recorded observation, or null when none is recorded. */
  ageSeconds: number | null;
  maxAgeSeconds: number | null;
}

export class CaptureRun {
  readonly now: number;
  private fetches = 0;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly bounds: CaptureBounds,
    readonly request: CaptureRequest = { refresh: NO_REFRESH },
    now: number = Date.now(),
  ) {
    this.now = now;
  }

  /** Whether a recorded snapshot must be refetched; `observedAt` is the recorded observation time. */
  refreshDue(observedAt: string | undefined): RefreshDue | null {
    const { force, maxAgeSeconds } = this.request.refresh;
    if (force) return { by: 'refresh', ageSeconds: null, maxAgeSeconds };
    if (maxAgeSeconds === null) return null;
    const observed = observedAt ? Date.parse(observedAt) : Number.NaN;
    if (Number.isNaN(observed)) return { by: 'max-age', ageSeconds: null, maxAgeSeconds };
    const ageMs = this.now - observed;
    return ageMs > maxAgeSeconds * 1000 ? { by: 'max-age', ageSeconds: Math.floor(ageMs / 1000), maxAgeSeconds } : null;
  }

  /**
   * Runs one fetch within the per-run source budget and the concurrency limit. The budget is taken in
   * call order (the graph's order), so which sources wait for the next run is deterministic.
   */
  async withFetchSlot<T>(url: string, fetch: () => Promise<T>): Promise<T> {
    if (this.fetches >= this.bounds.maxSources) {
      throw sourceFailed(url, new CaptureFailure('max-sources-per-run', `this run already fetched ${this.bounds.maxSources} sources`), 0);
    }
    this.fetches += 1;
    while (this.active >= Math.max(1, this.bounds.concurrency)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await fetch();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  emit(documentId: string, event: FetchEvent): void {
    this.request.onEvent?.({ ...event, documentId });
  }
}
