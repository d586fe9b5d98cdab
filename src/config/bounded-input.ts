import { EpistemeError } from '../failure.js';
import { fs } from '../node-builtins.js';

export const DEFAULT_MAX_INPUT_BYTES = 8 * 1024 * 1024; // manifests, maps, configs
export const DEFAULT_MAX_INDEX_INPUT_BYTES = 512 * 1024 * 1024; // search indexes read by query

/**
 * Reads a file, or stdin when `source` is "-", refusing anything larger than `maxBytes`
 * without buffering past the bound.
 */
export async function readBoundedInput(source: string, maxBytes: number, label: string): Promise<Buffer> {
  if (source === '-') return readBoundedStream(process.stdin, maxBytes, `${label} on stdin`);
  checkBoundedFile(source, maxBytes, label);
  return fs.readFileSync(source);
}

/** The checks of readBoundedInput for a file that the caller reads itself (e.g. piece by piece). */
export function checkBoundedFile(source: string, maxBytes: number, label: string): void {
  let stat: import('node:fs').Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    throw new EpistemeError('input-not-found', `${label} not found: ${source}`, { details: { path: source } });
  }
  if (!stat.isFile()) throw new EpistemeError('input-not-found', `${label} is not a file: ${source}`, { details: { path: source } });
  if (stat.size > maxBytes) throw tooLarge(`${label} ${source}`, maxBytes);
}

async function readBoundedStream(stream: NodeJS.ReadableStream, maxBytes: number, label: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buffer.byteLength;
    if (total > maxBytes) {
      if ('destroy' in stream && typeof stream.destroy === 'function') stream.destroy();
      throw tooLarge(label, maxBytes);
    }
    parts.push(buffer);
  }
  return Buffer.concat(parts);
}

function tooLarge(label: string, maxBytes: number): EpistemeError {
  return new EpistemeError('input-too-large', `${label} is larger than ${maxBytes} bytes.`, {
    hint: 'Raise the bound with --max-input-bytes=BYTES if the input is trusted.',
    details: { maxBytes },
  });
}

/** Parses JSON, turning a syntax error into a structured error of the given code. */
export function parseJsonInput(bytes: Buffer, code: 'config-invalid' | 'map-invalid' | 'manifest-invalid', label: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw new EpistemeError(code, `${label} is not valid JSON: ${(cause as Error).message}`, { cause, details: { file: label } });
  }
}
