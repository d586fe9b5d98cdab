import * as fs from 'node:fs';
import { EpistemeError } from '../failure.js';

/**
 * Extra request headers for the remote cache (typically a token). They come only from the environment
 * or a file, never from the command line (where `ps` and shell history would show them), and every
 * message the cache produces passes through `redact`, so their values never reach output or errors.
 */
export const HEADERS_ENV = 'EPISTEME_REMOTE_CACHE_HEADERS';
export const HEADERS_FILE_ENV = 'EPISTEME_REMOTE_CACHE_HEADERS_FILE';
const MAX_HEADERS_FILE_BYTES = 64 * 1024;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * A character a field value may not hold (RFC 9110 §5.5: field-content is VCHAR, SP, HTAB and obs-text
 * 0x80-0xFF): a control character, or one beyond Latin-1, which node:http refuses and a raw request
 * line could only send mangled.
 */
const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export class Secrets {
  private readonly values: string[] = [];

  add(value: string): void {
    // Very short values would redact ordinary words; a token is never that short.
    if (value.length >= 4 && !this.values.includes(value)) this.values.push(value);
    this.values.sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const value of this.values) result = result.split(value).join('[redacted]');
    return result;
  }
}

/** Headers from EPISTEME_REMOTE_CACHE_HEADERS and the file named by EPISTEME_REMOTE_CACHE_HEADERS_FILE. */
export function loadHeaders(env: NodeJS.ProcessEnv, secrets: Secrets): Record<string, string> {
  const headers: Record<string, string> = {};
  const file = env[HEADERS_FILE_ENV];
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      const stat = fs.statSync(file);
      if (!stat.isFile()) throw new Error('not a regular file');
      if (stat.size > MAX_HEADERS_FILE_BYTES) throw new Error(`larger than ${MAX_HEADERS_FILE_BYTES} bytes`);
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new EpistemeError(
        'config-invalid',
        `The remote cache headers file named by ${HEADERS_FILE_ENV} cannot be read: ${(error as Error).message}.`,
        {
          hint: `Point ${HEADERS_FILE_ENV} at a readable file of \`Name: value\` lines.`,
        },
      );
    }
    parseHeaderLines(text, `the file named by ${HEADERS_FILE_ENV}`, headers, secrets);
  }
  const inline = env[HEADERS_ENV];
  if (inline !== undefined && inline !== '') parseHeaderLines(inline, HEADERS_ENV, headers, secrets);
  return headers;
}

function parseHeaderLines(text: string, origin: string, headers: Record<string, string>, secrets: Secrets): void {
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : '';
    // The line itself is never quoted back: it may hold the token.
    if (!HEADER_NAME.test(name) || value === '') {
      throw new EpistemeError('config-invalid', `Line ${index + 1} of ${origin} is not a \`Name: value\` header.`, {
        hint: 'Write one header per line, e.g. `Authorization: Bearer <token>`; lines starting with # are ignored.',
      });
    }
    const bad = NOT_FIELD_VALUE.exec(value);
    if (bad !== null) {
      const what = bad[0].charCodeAt(0) > 0xff ? 'a character beyond Latin-1' : 'a control character';
      throw new EpistemeError(
        'config-invalid',
        `Line ${index + 1} of ${origin}: the value of header ${name} holds ${what} (character ${bad.index + 1} of the value), ` +
          'which an HTTP header cannot carry.',
        {
          hint:
            'A header value may hold printable ASCII, spaces and tabs (and Latin-1 letters, sent as one byte each): ' +
            'retype it without that character (e.g. a pasted smart quote or a stray escape).',
          details: { header: name, line: index + 1 },
        },
      );
    }
    secrets.add(value);
    // "Bearer <token>": the token alone is a secret too, wherever it appears.
    for (const word of value.split(/\s+/)) if (word.length >= 8) secrets.add(word);
    headers[name.toLowerCase()] = value;
  });
}
