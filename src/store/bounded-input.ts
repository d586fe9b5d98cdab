import { EpistemeError } from '../failure.js';
import { readBoundedFile } from './bounded-read.js';

export const DEFAULT_MAX_INPUT_BYTES = 8 * 1024 * 1024; // manifests, maps, configs
export const DEFAULT_MAX_INDEX_INPUT_BYTES = 512 * 1024 * 1024; // search indexes read by query

/**
 * Reads a file, or stdin when `source` is "-", refusing anything larger than `maxBytes`
 * without buffering past the bound. A file must be a regular file; its size is checked on the
 * opened descriptor before the first read (see store/bounded-read.ts).
 */
export async function readBoundedInput(source: string, maxBytes: number, label: string): Promise<Buffer> {
  if (source === '-') return readBoundedStream(process.stdin, maxBytes, `${label} on stdin`);
  return readBoundedFile(source, { label, maxBytes });
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
/** Where each input's shape is described, for the hint of a file that is not JSON at all. */
const JSON_SHAPE = {
  'config-invalid': 'its fields are in docs/workspace.md, "Workspace".',
  'map-invalid': 'its entries are in docs/workspace.md, "Manual-ingest map".',
  'manifest-invalid': 'its entries are in docs/workspace.md, "Manifest (HTTP capture)".',
} as const;

export function parseJsonInput(bytes: Buffer, code: 'config-invalid' | 'map-invalid' | 'manifest-invalid', label: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw new EpistemeError(code, `${label} is not valid JSON: ${(cause as Error).message}`, {
      hint: `Fix the JSON at the place the message gives (a missing comma or quote, a trailing comma); ${JSON_SHAPE[code]}`,
      cause,
      details: { file: label },
    });
  }
}
