/**
 * The closed set of failure reasons. Every expected failure carries one of these stable kebab-case
 * codes; the CLI maps it to an exit code and renders it as human text or the `--json` envelope.
 * Anything else that escapes is a bug and is reported as `internal-error`.
 */
export const FAILURE_CODES = {
  // exit 2: usage, configuration or input
  'usage-error': { exit: 2, summary: 'Unknown command, bad flag or bad flag value.' },
  'config-not-found': { exit: 2, summary: 'No workspace config file where one was expected (not a workspace).' },
  'config-invalid': { exit: 2, summary: 'The workspace config file is not valid JSON or breaks its schema.' },
  'map-invalid': { exit: 2, summary: 'The manual-ingest map is not valid JSON or breaks its schema.' },
  'manifest-invalid': { exit: 2, summary: 'The manifest is not valid JSON or breaks its schema.' },
  'input-not-found': { exit: 2, summary: 'A named input file or directory does not exist.' },
  'input-too-large': { exit: 2, summary: 'An input is larger than its byte bound (--max-input-bytes or --max-file-bytes).' },
  'input-not-regular': {
    exit: 2,
    summary: 'A named input is not a regular file: a directory, FIFO, device, socket, symlink loop or dangling symlink.',
  },
  'input-unreadable': { exit: 2, summary: 'A named input exists but cannot be opened or read (e.g. permission denied, I/O error).' },
  'unknown-target': { exit: 2, summary: 'A build target names no output of the workspace graph.' },
  'artifact-invalid': { exit: 2, summary: 'An artifact is unreadable, truncated, tampered with (hash mismatch) or of another format.' },
  'stale-index': { exit: 2, summary: 'The search index was built from a different chunk index than the current one.' },
  'snapshot-missing': {
    exit: 2,
    summary:
      'An offline stage (extract, chunk, index, manual-ingest) needs an HTTP snapshot that was never captured; run snapshot or build.',
  },
  'citation-not-found': {
    exit: 2,
    summary: 'A citation (`show`, the MCP `read` tool) names no chunk, section or source id the search index holds.',
  },
  'server-read-only': { exit: 2, summary: 'The MCP server was started --read-only: its `build` tool writes nothing.' },
  // exit 1: a target, source or the run itself failed
  'target-failed': { exit: 1, summary: 'One or more targets failed; see data.targets for each reason.' },
  'source-failed': { exit: 1, summary: 'A source could not be read or extracted.' },
  'extract-timeout': {
    exit: 1,
    summary: "A document's extraction ran past its time bound (options.extract.timeoutMs, pdfTimeoutMs) and was stopped.",
  },
  'extract-memory-limit': {
    exit: 1,
    summary: "A document's extraction ran out of its worker's memory bound (options.extract.maxHeapMb) and was stopped.",
  },
  'extract-bound-exceeded': {
    exit: 1,
    summary: 'A document exceeds an input bound of extraction (XML entity expansion, PDF decompressed bytes or text items).',
  },
  'index-bound-exceeded': {
    exit: 1,
    summary: "A document holds more distinct index terms than one document's share of the search index may (random data, encoded blobs).",
  },
  'document-diagnostics': {
    exit: 1,
    summary: 'Built documents carry extraction diagnostics at or above the --fail-on severity (error by default).',
  },
  'workspace-locked': { exit: 1, summary: 'Another process holds the workspace writer lock.' },
  'write-failed': {
    exit: 1,
    summary: 'Writing a file failed (disk full, quota, read-only file system, permission); details name the path and errno.',
  },
  'remote-cache-mismatch': {
    exit: 1,
    summary: 'A remote cache hit recomputed by --remote-cache-verify differs from the local result: the cache holds a wrong entry.',
  },
  'server-busy': { exit: 1, summary: 'The MCP server has too many requests waiting; retry once it has answered them.' },
  'internal-error': { exit: 1, summary: 'A bug in Episteme; rerun with --debug and report it.' },
} as const;

export type FailureCode = keyof typeof FAILURE_CODES;

export interface FailureInfo {
  code: FailureCode;
  message: string;
  hint?: string;
}

/** An expected failure: thrown by stages and commands, caught once by the CLI. */
export class EpistemeError extends Error {
  readonly code: FailureCode;
  readonly hint: string | undefined;
  /** Structured context (entry index, field, path) included in --json output. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: FailureCode, message: string, options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EpistemeError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }
}

export function exitCodeFor(code: FailureCode): number {
  return FAILURE_CODES[code].exit;
}

/** Non-fatal conditions reported beside a result. Codes are stable kebab-case strings. */
export interface Warning {
  code: string;
  message: string;
  target?: string;
}

export function describeCause(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
