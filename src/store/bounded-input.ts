import { EpistemeError } from '../failure.js';
import { readBoundedFile } from './bounded-read.js';
import { firstDuplicateKey, lineOf } from './duplicate-keys.js';
import { describePath } from './schema-errors.js';

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

/** Where each input's shape is described, for the hint of a file that is not JSON at all. */
const JSON_SHAPE = {
  'config-invalid': 'its fields are in docs/workspace.md, "Workspace".',
  'map-invalid': 'its entries are in docs/workspace.md, "Manual-ingest map".',
  'manifest-invalid': 'its entries are in docs/workspace.md, "Manifest (HTTP capture)".',
} as const;

/**
 * The text of a JSON file a user wrote: UTF-8, without the byte order mark some editors put first
 * (Windows Notepad, PowerShell's `Out-File -Encoding utf8`), which JSON.parse refuses as an unexpected
 * token. Node's own loader strips it from a required .json file the same way.
 */
export function userJsonText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Why bytes cannot be JSON text before any parse, in words: UTF-16 or binary, or null. */
function notUtf8Json(bytes: Uint8Array): string | null {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return 'is UTF-16 text (it starts with a UTF-16 byte order mark); JSON files are read as UTF-8';
  // JSON text never holds a NUL byte; UTF-16 without a byte order mark has one in every ASCII character.
  if (bytes.includes(0)) return 'holds NUL bytes (UTF-16 text without a byte order mark, or not text at all); JSON files are read as UTF-8';
  return null;
}

/**
 * Parses a config, map or manifest, turning a syntax error or a key given twice in one object into a
 * structured error of the given code.
 */
export function parseJsonInput(bytes: Buffer, code: 'config-invalid' | 'map-invalid' | 'manifest-invalid', label: string): unknown {
  const encoding = notUtf8Json(bytes);
  if (encoding !== null)
    throw new EpistemeError(code, `${label} ${encoding}.`, {
      hint: `Save it as UTF-8 (your editor's "Save with encoding", or iconv -f UTF-16 -t UTF-8); ${JSON_SHAPE[code]}`,
      details: { file: label },
    });
  const text = userJsonText(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new EpistemeError(code, `${label} is not valid JSON: ${(cause as Error).message}`, {
      hint: `Fix the JSON at the place the message gives (a missing comma or quote, a trailing comma); ${JSON_SHAPE[code]}`,
      cause,
      details: { file: label },
    });
  }
  const duplicate = duplicateKeyProblem(text, 'entry');
  if (duplicate !== null) {
    throw new EpistemeError(code, `${label} is invalid: ${duplicate.problem}`, {
      hint: `Keep one "${duplicate.key}" in that object (JSON would silently use the last); ${JSON_SHAPE[code]}`,
      details: { file: label, problems: [duplicate.problem] },
    });
  }
  return parsed;
}

/**
 * A key given twice in one object of `text` (already parsed), in words naming where, or null:
 * `entry 0, field sourceUrl: given twice in one object (line 3)`.
 */
export function duplicateKeyProblem(text: string, arrayItemName: string): { key: string; problem: string } | null {
  const duplicate = firstDuplicateKey(text);
  if (duplicate === null) return null;
  const where = describePath([...duplicate.path, duplicate.key].map(String), arrayItemName);
  return { key: duplicate.key, problem: `${where}: given twice in one object (line ${lineOf(text, duplicate.offset)})` };
}
