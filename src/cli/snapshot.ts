import { Command, Option } from 'clipanion';
import { CaptureCommand, targetsOfRules } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import { integerBetween } from './option-validators.js';
import type { Output } from './output.js';
import { CAPTURE_BOUND_RANGES, DEFAULT_CAPTURE_BOUNDS as D, resolveCaptureBounds, type CaptureBounds } from '../capture/bounds.js';
import { CAPTURE_FAILURE_REASONS } from '../capture/failure.js';
import type { RefreshPolicy } from '../capture/run.js';

const reasons = Object.keys(CAPTURE_FAILURE_REASONS).join(', ');
/** "from MIN to MAX", for --help; the same range the validator and the config schema enforce. */
const range = (bound: keyof CaptureBounds) => `from ${CAPTURE_BOUND_RANGES[bound].min} to ${CAPTURE_BOUND_RANGES[bound].max}`;
const within = (bound: keyof CaptureBounds) => integerBetween(CAPTURE_BOUND_RANGES[bound].min, CAPTURE_BOUND_RANGES[bound].max);

export class SnapshotCommand extends CaptureCommand {
  static override paths = [['snapshot']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: "Conditionally fetch the manifest's HTTP(S) sources and record bounded, content-addressed snapshots.",
    details:
      `
      The manifest (\`--manifest FILE\`, \`--manifest -\` for stdin, or the config's "manifest") is a JSON array of \`{"url", "family"?, ` +
      `"authority"?, "extractor"?}\`, validated strictly (schema/manifest.schema.json): unknown fields, invalid values, ` +
      `non-http(s) URLs and duplicate URLs (compared after canonicalisation: scheme and host case, default port, ` +
      `empty path) are errors naming the entry and field (exit 2).

      Each source is fetched with a GET that sends If-None-Match / If-Modified-Since when a snapshot is recorded. A 304, ` +
      `or the same bytes with the same content type and charset, keeps the recorded snapshot: nothing new is written and nothing ` +
      `downstream reruns. Changed content creates a new snapshot. The snapshot id is derived from the URL, the SHA-256 of the body, ` +
      `the content type and the charset, never from the clock. Writes \`snapshots/bodies/<sha256>\`, ` +
      `\`snapshots/records/<snapshotId>.json\` (representation, charset choice and the first observation: requested and final URL, ` +
      `status, content type, declared and received length, ETag, Last-Modified, time), appends each observation to ` +
      `\`snapshots/observations/<documentId>.json\`, and commits \`snapshots/index.json\` last. A failed or killed fetch leaves the ` +
      `previous snapshot and commit as they were.

      By default \`snapshot\` refetches every HTTP source (conditionally). \`--max-age SECONDS\` refetches only those observed longer ` +
      `ago; \`--no-refresh\` fetches only missing ones. (\`build\` and \`pipeline\` reuse recorded snapshots unless given \`--refresh\` ` +
      `or \`--max-age\`.)

      Bounds (flags override \`limits.capture\` in the workspace config; none is part of a snapshot's key): ` +
      `--connect-timeout-ms (default ${D.connectTimeoutMs}), --request-timeout-ms (default ${D.requestTimeoutMs}), ` +
      `--max-response-bytes (default ${D.maxResponseBytes}), --retries (default ${D.retries}), --retry-delay-ms (default ` +
      `${D.retryDelayMs}), --max-retry-after-ms (default ${D.maxRetryAfterMs}), --max-redirects (default ${D.maxRedirects}), ` +
      `--max-sources (default ${D.maxSources}), --fetch-concurrency (default ${D.concurrency}).

      A source that fails is reported with code source-failed and \`details.reason\` one of: ${reasons}. ` +
      `Other sources of the run are unaffected. \`--progress always\` prints each source's status and bytes on stderr.

      Exit codes: 0 every source recorded; 1 a source failed; 2 usage, config or manifest error.
    `,
    examples: [
      ['Capture a manifest into ./snapshots', 'episteme snapshot --manifest ./manifest.json'],
      ['Read the manifest from stdin', 'cat manifest.json | episteme snapshot --manifest -'],
      ['Refetch only snapshots older than a day', 'episteme snapshot --max-age 86400'],
      [
        'Tight bounds for an untrusted manifest',
        'episteme snapshot --manifest m.json --max-response-bytes 5000000 --request-timeout-ms 20000 --max-sources 50',
      ],
    ],
  });
  readonly commandName = 'snapshot';
  snapshots = Option.String('--snapshots', {
    description: "Snapshot folder, relative to the workspace root (default: snapshots, or the config's outputs.snapshots).",
  });
  connectTimeoutMs = Option.String('--connect-timeout-ms', {
    description: `DNS lookup, TCP connect and TLS handshake, each, in ms (default ${D.connectTimeoutMs}; ${range('connectTimeoutMs')}).`,
    validator: within('connectTimeoutMs'),
  });
  requestTimeoutMs = Option.String('--request-timeout-ms', {
    description:
      `One request including its whole body, per redirect hop and attempt, in ms ` +
      `(default ${D.requestTimeoutMs}; ${range('requestTimeoutMs')}).`,
    validator: within('requestTimeoutMs'),
  });
  maxResponseBytes = Option.String('--max-response-bytes', {
    description:
      `Bytes per response body, counted after decompression; the download is aborted past it ` +
      `(default ${D.maxResponseBytes}; ${range('maxResponseBytes')}).`,
    validator: within('maxResponseBytes'),
  });
  retries = Option.String('--retries', {
    description: `Further attempts after a network error, timeout, 5xx or 429 (default ${D.retries}; ${range('retries')}).`,
    validator: within('retries'),
  });
  retryDelayMs = Option.String('--retry-delay-ms', {
    description:
      `Backoff before retry n: this times 2^(n-1) ms, unless the server sent Retry-After ` +
      `(default ${D.retryDelayMs}; ${range('retryDelayMs')}).`,
    validator: within('retryDelayMs'),
  });
  maxRetryAfterMs = Option.String('--max-retry-after-ms', {
    description:
      `Longest Retry-After honoured, in ms; a longer one fails the source ` +
      `(default ${D.maxRetryAfterMs}; ${range('maxRetryAfterMs')}).`,
    validator: within('maxRetryAfterMs'),
  });
  maxRedirects = Option.String('--max-redirects', {
    description: `Redirects followed per request, only to http: or https: (default ${D.maxRedirects}; ${range('maxRedirects')}).`,
    validator: within('maxRedirects'),
  });
  maxSources = Option.String('--max-sources', {
    description:
      `HTTP sources fetched per run; the rest fail with max-sources-per-run and are fetched by the next run ` +
      `(default ${D.maxSources}; ${range('maxSources')}).`,
    validator: within('maxSources'),
  });
  fetchConcurrency = Option.String('--fetch-concurrency', {
    description: `HTTP fetches in flight at once (default ${D.concurrency}; ${range('concurrency')}).`,
    validator: within('concurrency'),
  });

  /** `snapshot` exists to fetch: it refreshes unless told otherwise (--no-refresh, or --max-age). */
  protected override refreshPolicy(): RefreshPolicy {
    return { force: this.refresh ?? this.maxAge === undefined, maxAgeSeconds: this.maxAge ?? null };
  }

  protected override outputFlags(): { snapshots?: string | undefined } {
    return { snapshots: this.snapshots };
  }

  async run(output: Output): Promise<CommandResult> {
    const ws = await this.workspace({ snapshots: this.snapshots });
    ws.limits.capture = resolveCaptureBounds(ws.limits.capture, {
      connectTimeoutMs: this.connectTimeoutMs,
      requestTimeoutMs: this.requestTimeoutMs,
      maxResponseBytes: this.maxResponseBytes,
      retries: this.retries,
      retryDelayMs: this.retryDelayMs,
      maxRetryAfterMs: this.maxRetryAfterMs,
      maxRedirects: this.maxRedirects,
      maxSources: this.maxSources,
      concurrency: this.fetchConcurrency,
    });
    return (await this.runTargets(output, ws, targetsOfRules(ws, ['snapshot', 'snapshot-index']))).result;
  }
}
