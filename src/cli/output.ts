import type { Writable } from 'node:stream';
import { FAILURE_CODES, type FailureCode, type Warning } from '../failure.js';
import { terminalSafe } from './terminal-text.js';

/**
 * The one place that writes to stdout and stderr. Human mode: concise text on stdout (every line
 * escaped by terminal-text.ts), diagnostics and
 * progress on stderr. JSON mode: exactly one envelope on stdout; progress, when forced, is JSON Lines on
 * stderr.
 */
export const ENVELOPE_SCHEMA_VERSION = 1;

let mainEntered = 0n;
/**
 * Marks when main() started (after Node's startup and the CLI's imports), for --trace. On the
 * hrtime clock: the first `performance.now()` loads perf_hooks (~1 ms), which a query does not need.
 */
export function markMainEntered(): void {
  mainEntered = process.hrtime.bigint();
}
/** When main() started, on the performance.now() clock. */
export function mainEnteredAt(): number {
  return performance.now() - Number(process.hrtime.bigint() - mainEntered) / 1e6;
}

/**
 * One JSON Lines record: JSON.stringify's text and a newline, with the line terminators JSON leaves raw
 * (U+0085, U+2028, U+2029) escaped. Captured text holds them, and a consumer that splits lines on every
 * Unicode line break (Python's str.splitlines, many editors) would cut one envelope in two; escaped,
 * the line parses to the same value.
 */
export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value);
  return (/[\u0085\u2028\u2029]/.test(text) ? text.replace(/[\u0085\u2028\u2029]/g, escapeLineBreak) : text) + '\n';
}

function escapeLineBreak(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

export type ProgressMode = 'auto' | 'always' | 'never';

export interface Envelope {
  schemaVersion: typeof ENVELOPE_SCHEMA_VERSION;
  command: string;
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { code: FailureCode; message: string; hint?: string; details?: Record<string, unknown>; debug?: string };
  warnings: Warning[];
}

export class Output {
  readonly warnings: Warning[] = [];
  private progressEnabled: boolean | undefined;

  /**
   * `stderr` is a function: process.stderr is created on first use (a pipe's stream costs a cold
   * process a few milliseconds), and a `--json` query never writes to it.
   */
  constructor(
    readonly command: string,
    readonly json: boolean,
    private readonly progressMode: ProgressMode,
    private readonly stdout: { write(text: string): unknown },
    private readonly stderrStream: () => Writable & { isTTY?: boolean },
  ) {}

  private get stderr(): Writable & { isTTY?: boolean } {
    return this.stderrStream();
  }

  warn(warning: Warning): void {
    this.warnings.push(warning);
    this.status(null);
    if (!this.json)
      this.stderr.write(
        `warning [${warning.code}]${warning.target ? ` ${terminalSafe(warning.target)}` : ''}: ${terminalSafe(warning.message)}\n`,
      );
  }

  progress(event: Record<string, unknown> & { message: string }): void {
    if (!this.progressOn()) return;
    if (this.json) {
      const { message, ...fields } = event;
      this.stderr.write(jsonLine({ type: 'progress', command: this.command, message, ...fields }));
    } else {
      // A line of its own above the live status line, which is then drawn again.
      const status = this.statusShown;
      this.status(null);
      this.stderr.write(`${terminalSafe(event.message)}\n`);
      if (status !== null) this.status(status);
    }
  }

  private progressOn(): boolean {
    this.progressEnabled ??= this.progressMode === 'always' || (this.progressMode === 'auto' && this.stderr.isTTY === true);
    return this.progressEnabled;
  }

  private statusShown: string | null = null;

  /** Human progress on a terminal: one status line rewritten in place (see build-progress.ts). */
  get liveTerminal(): boolean {
    return !this.json && this.progressOn() && this.stderr.isTTY === true;
  }

  /**
   * Draws the status line in place (carriage return, then erase to the end of the line), cut to the
   * terminal's width so it never wraps; null erases it. The text goes through terminalSafe like every
   * human line; only the two cursor controls are written raw.
   */
  status(text: string | null): void {
    // Nothing shown, nothing to erase: errors and warnings need not ask whether stderr is a terminal.
    if (text === null && this.statusShown === null) return;
    if (!this.liveTerminal) return;
    if (text === null) {
      if (this.statusShown !== null) this.stderr.write('\r\x1b[K');
      this.statusShown = null;
      return;
    }
    const columns = (this.stderr as { columns?: number }).columns ?? 80;
    const safe = terminalSafe(text);
    const shown = [...safe].length >= columns ? [...safe].slice(0, Math.max(1, columns - 2)).join('') + '…' : safe;
    this.stderr.write(`\r${shown}\x1b[K`);
    this.statusShown = text;
  }

  /** Success: the envelope in JSON mode, the given lines otherwise. */
  success(data: Record<string, unknown>, humanLines: string[]): void {
    this.status(null);
    if (this.json) this.writeEnvelope({ ok: true, data });
    else if (humanLines.length > 0) this.stdout.write(humanText(humanLines));
  }

  /** Failure: returns the exit code for the failure's code. */
  failure(
    error: {
      code: FailureCode;
      message: string;
      hint?: string | undefined;
      details?: Record<string, unknown> | undefined;
      debug?: string | undefined;
    },
    data?: Record<string, unknown>,
    humanLines: string[] = [],
  ): number {
    this.status(null);
    if (this.json) {
      const envelopeError: NonNullable<Envelope['error']> = { code: error.code, message: error.message };
      if (error.hint) envelopeError.hint = error.hint;
      if (error.details) envelopeError.details = error.details;
      if (error.debug) envelopeError.debug = error.debug;
      this.writeEnvelope(data ? { ok: false, error: envelopeError, data } : { ok: false, error: envelopeError });
    } else {
      if (humanLines.length > 0) this.stdout.write(humanText(humanLines));
      this.stderr.write(`error [${error.code}]: ${terminalSafe(error.message)}\n`);
      if (error.hint) this.stderr.write(`hint: ${terminalSafe(error.hint)}\n`);
      if (error.debug) this.stderr.write(`${terminalSafe(error.debug, { multiline: true })}\n`);
    }
    return FAILURE_CODES[error.code].exit;
  }

  private writeEnvelope(result: Pick<Envelope, 'ok' | 'data' | 'error'>): void {
    const envelope: Envelope = { schemaVersion: ENVELOPE_SCHEMA_VERSION, command: this.command, ...result, warnings: this.warnings };
    this.stdout.write(jsonLine(envelope));
  }
}

/**
 * Human lines as written: each line passes through terminalSafe, so text quoted from sources (URLs,
 * titles, headings, snippets, messages) never reaches the terminal as control, bidi or invisible
 * characters, and a newline inside a line can never forge a line of its own.
 */
function humanText(lines: string[]): string {
  return lines.map((line) => terminalSafe(line)).join('\n') + '\n';
}
