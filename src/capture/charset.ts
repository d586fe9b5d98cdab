import type { SnapshotMeta } from '../document/types.js';
import { declarationSyntax, declaredCharset } from '../extract/encoding-sniffing.js';

/**
 * What a response says about its own encoding, and which declaration decoding will follow. The order is
 * the one extraction decodes by (src/extract/decode.ts) and HTML's: a byte order mark, then the
 * Content-Type charset, then an in-document declaration (<meta> in HTML, <?xml encoding?> in XML), else
 * the default. All are recorded, so a disagreement between header and document stays visible.
 */
export type CharsetSource = NonNullable<SnapshotMeta['charsetSource']>;

export interface CharsetDecision {
  /** The charset extraction will decode with, or null for the default (UTF-8 for text). */
  charset: string | null;
  source: CharsetSource;
  headerCharset: string | null;
  /** Charset named inside the document (HTML <meta> or XML declaration), or null. */
  documentCharset: string | null;
}

export interface ParsedContentType {
  /** Lower-case media type ("text/html"), or application/octet-stream when absent or malformed. */
  mediaType: string;
  charset: string | null;
}

const TOKEN = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;
const LABEL = /^[A-Za-z0-9._:-]{1,40}$/;

export function parseContentType(header: string | undefined | null): ParsedContentType {
  if (!header) return { mediaType: 'application/octet-stream', charset: null };
  const [type = '', ...params] = header.split(';');
  const mediaType = type.trim().toLowerCase();
  let charset: string | null = null;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (LABEL.test(value)) charset = value;
    break;
  }
  return { mediaType: TOKEN.test(mediaType) ? mediaType : 'application/octet-stream', charset };
}

function bomCharset(head: Uint8Array): string | null {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  return null;
}

/**
 * The charset the document declares in its first bytes, lower-cased: HTML by the WHATWG prescan
 * (<meta> outside comments), XML and XHTML by the XML declaration only; read by the same code
 * extraction decodes with (src/extract/encoding-sniffing.ts).
 */
export function documentDeclaredCharset(head: Uint8Array, mediaType: string): string | null {
  const syntax = declarationSyntax(mediaType);
  const found = syntax === null ? null : declaredCharset(head, syntax);
  return found !== null && LABEL.test(found) ? found : null;
}

/** Decides the charset from the first bytes of the body and the Content-Type charset. */
export function decideCharset(head: Uint8Array, mediaType: string, headerCharset: string | null): CharsetDecision {
  const documentCharset = documentDeclaredCharset(head, mediaType);
  const bom = bomCharset(head);
  if (bom !== null) return { charset: bom, source: 'bom', headerCharset, documentCharset };
  if (headerCharset !== null) return { charset: headerCharset, source: 'header', headerCharset, documentCharset };
  if (documentCharset !== null) return { charset: documentCharset, source: 'meta', headerCharset, documentCharset };
  return { charset: null, source: 'default', headerCharset, documentCharset };
}
