import { EpistemeError } from '../failure.js';

/**
 * Why a fetch failed: a closed set of stable kebab-case codes, reported as `details.reason` of a
 * `source-failed` error. `retryable` says whether another attempt may succeed.
 */
export const CAPTURE_FAILURE_REASONS = {
  timeout: { retryable: true, summary: 'The response did not complete within --request-timeout-ms.' },
  'connect-timeout': { retryable: true, summary: 'DNS lookup, connect or TLS handshake took longer than --connect-timeout-ms.' },
  'connection-reset': { retryable: true, summary: 'The connection was reset or closed before the response completed.' },
  'connection-refused': { retryable: true, summary: 'Nothing accepted the connection.' },
  'body-truncated': { retryable: true, summary: 'The body ended before the length its Content-Length declared.' },
  'network-error': { retryable: true, summary: 'Another network failure.' },
  'protocol-error': {
    retryable: false,
    summary: 'The response is not valid HTTP/1.1 (a head past 16 KiB, a duplicate Content-Length, a control character).',
  },
  'dns-failed': { retryable: false, summary: 'The host name does not resolve.' },
  'tls-failed': { retryable: false, summary: 'The TLS handshake or certificate check failed.' },
  'http-status': { retryable: false, summary: 'The server answered with a status other than 200 or 304 (5xx and 429 are retried first).' },
  'retry-after-too-long': { retryable: false, summary: 'The server asked to wait longer than --max-retry-after-ms.' },
  'too-large': { retryable: false, summary: 'The body is larger than --max-response-bytes (decompressed bytes count).' },
  'decompression-failed': { retryable: false, summary: 'The Content-Encoding is unsupported or the compressed body is corrupt.' },
  'redirect-limit': { retryable: false, summary: 'More redirects than --max-redirects.' },
  'redirect-scheme': { retryable: false, summary: 'A redirect pointed to a scheme other than http: or https:.' },
  'redirect-invalid': { retryable: false, summary: 'A redirect had a missing or malformed Location.' },
  'redirect-credentials': {
    retryable: false,
    summary: 'A redirect pointed to a URL with a user name or password; credentials are never sent or recorded.',
  },
  'unexpected-not-modified': { retryable: false, summary: 'The server answered 304 to a request that was not conditional.' },
  'max-sources-per-run': { retryable: false, summary: 'This run already fetched --max-sources sources; the next run fetches this one.' },
  'store-failed': { retryable: false, summary: 'The body could not be written to the snapshot store.' },
} as const;

export type CaptureFailureReason = keyof typeof CAPTURE_FAILURE_REASONS;

/** A failure of one attempt, before the retry policy has decided what to do with it. */
export class CaptureFailure extends Error {
  constructor(
    readonly reason: CaptureFailureReason,
    message: string,
    readonly extra: { status?: number; retryAfterMs?: number; cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'CaptureFailure';
  }

  get retryable(): boolean {
    return this.extra.retryable ?? CAPTURE_FAILURE_REASONS[this.reason].retryable;
  }
}

/** The per-source error the engine records: it keeps the previous snapshot and records nothing. */
export function sourceFailed(url: string, failure: CaptureFailure, attempts: number): EpistemeError {
  const details: Record<string, unknown> = { reason: failure.reason, url, attempts };
  if (failure.extra.status !== undefined) details.status = failure.extra.status;
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  return new EpistemeError('source-failed', `GET ${url} failed: ${failure.reason}: ${failure.message}${tries}`, {
    hint: hintFor(failure.reason, failure.extra.status),
    details,
    cause: failure.extra.cause ?? failure,
  });
}

function hintFor(reason: CaptureFailureReason, status: number | undefined): string {
  switch (reason) {
    case 'http-status':
      if (status !== undefined && status >= 400 && status < 500) return clientErrorHint(status);
      if (status !== undefined && status < 400) return notFullResponseHint(status);
      return 'The previous snapshot, if any, is kept; nothing was recorded. The server failed: run again later.';
    case 'timeout':
    case 'connect-timeout':
      return (
        'The previous snapshot is kept. ' +
        'Raise --request-timeout-ms / --connect-timeout-ms (or limits.capture) if the server is just slow.'
      );
    case 'too-large':
      return 'The previous snapshot is kept. Raise --max-response-bytes (or limits.capture.maxResponseBytes) if the source is trusted.';
    case 'redirect-credentials':
      return (
        'The previous snapshot, if any, is kept; nothing was recorded. The server redirects to a URL with credentials, ' +
        'which Episteme never sends: point the manifest at a URL that needs none, or add a saved copy to the manual-ingest map.'
      );
    case 'redirect-limit':
      return 'The previous snapshot is kept. Point the manifest at the final URL, or raise --max-redirects.';
    case 'retry-after-too-long':
      return 'The server asked to come back later; run again later, or raise --max-retry-after-ms.';
    case 'protocol-error':
      return (
        'The previous snapshot, if any, is kept; nothing was recorded. The server does not answer in valid HTTP, so running ' +
        'again gives the same answer: check the url in the manifest, or add a saved copy to the manual-ingest map.'
      );
    case 'max-sources-per-run':
      return 'Run again to fetch the remaining sources, or raise --max-sources (limits.capture.maxSources).';
    default:
      return 'The previous snapshot, if any, is kept; nothing was recorded. Run again once the source is reachable.';
  }
}

/**
 * A 2xx other than 200 (204, 206, ...) or a 3xx that is not followed (300, 305, 306; a 301-308 without
 * Location is redirect-invalid): the server did not fail, so running again later gives the same answer.
 */
function notFullResponseHint(status: number): string {
  return (
    `The previous snapshot, if any, is kept; nothing was recorded. The server answered ${status}, not a full response: ` +
    'check that the url in the manifest serves the document with status 200.'
  );
}

/** A 4xx answer is the request's fault, not the network's: say what to change. */
function clientErrorHint(status: number): string {
  const kept = 'The previous snapshot, if any, is kept; nothing was recorded.';
  if (status === 404 || status === 410)
    return (
      `${kept} The server has no document at this URL (${status}): ` +
      'fix the url in the manifest (it may have moved), or remove the entry.'
    );
  if (status === 401 || status === 403)
    return `${kept} The server refuses access (${status}): capture a copy you may read and add it to the manual-ingest map instead.`;
  if (status === 429) return `${kept} The server is rate-limiting (429): run again later.`;
  return `${kept} The server rejected the request (${status}): check the url in the manifest.`;
}
