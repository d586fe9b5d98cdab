import { EpistemeError, FAILURE_CODES, type FailureCode } from '../failure.js';

/**
 * A task's failure as it crosses from a stage worker to the pool (a structured-clone message): an
 * EpistemeError keeps its code, hint and details, any other error its name, message and stack.
 */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; hint?: unknown; details?: unknown };
    const out: SerializedError = { name: e.name, message: e.message };
    if (e.stack !== undefined) out.stack = e.stack;
    if (typeof e.code === 'string') out.code = e.code;
    if (typeof e.hint === 'string') out.hint = e.hint;
    if (e.details && typeof e.details === 'object') out.details = e.details as Record<string, unknown>;
    return out;
  }
  return { name: 'Error', message: String(error) };
}

export function deserializeError(s: SerializedError): Error {
  if (s.name === 'EpistemeError' && s.code && s.code in FAILURE_CODES) {
    const opts: { hint?: string; details?: Record<string, unknown> } = {};
    if (s.hint !== undefined) opts.hint = s.hint;
    if (s.details !== undefined) opts.details = s.details;
    return new EpistemeError(s.code as FailureCode, s.message, opts);
  }
  const error = new Error(s.message);
  error.name = s.name;
  if (s.stack !== undefined) error.stack = s.stack;
  return error;
}
