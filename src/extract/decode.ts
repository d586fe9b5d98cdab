import { type DeclarationSyntax, declaredCharset } from './encoding-sniffing.js';

/** Bytes to text: BOM first, then the declared charset, then (HTML/XML) an in-document declaration, else UTF-8. */
export interface Decoded {
  text: string;
  encoding: string;
  /** Set when a declared label was unknown and UTF-8 was used instead. */
  unknownLabel?: string;
  /**
   * Set when the bytes are not valid in the encoding used: each invalid sequence became U+FFFD, so the
   * text is not what the source says there (random bytes, a file saved half-way, a wrong charset).
   * The count is of U+FFFD in the decoded text.
   */
  replaced?: number;
  /**
   * Set when the text holds NUL characters (U+0000), which no text format uses: the count. Valid
   * UTF-8, so `replaced` says nothing, yet the text is not what the source means: UTF-16 read without
   * its byte order mark (a NUL beside every ASCII character), or binary data.
   */
  nul?: number;
}

function sniffBom(bytes: Uint8Array): string | null {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

/**
 * Decodes `bytes`: by their byte order mark, else the `declared` charset (Content-Type header or map),
 * else, for markup, the charset the document declares in itself (`syntax`: the HTML prescan or the
 * XML declaration, encoding-sniffing.ts), else UTF-8.
 */
export function decodeBytes(bytes: Uint8Array, declared: string | null, syntax: DeclarationSyntax | null): Decoded {
  return withNul(decodeText(bytes, declared, syntax));
}

function withNul(decoded: Decoded): Decoded {
  const first = decoded.text.indexOf('\u0000');
  if (first === -1) return decoded;
  let nul = 0;
  for (let i = first; i !== -1; i = decoded.text.indexOf('\u0000', i + 1)) nul += 1;
  return { ...decoded, nul };
}

function decodeText(bytes: Uint8Array, declared: string | null, syntax: DeclarationSyntax | null): Decoded {
  const bom = sniffBom(bytes);
  const label = bom ?? declared ?? (syntax !== null ? declaredCharset(bytes, syntax) : null) ?? 'utf-8';
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label, { fatal: true, ignoreBOM: false });
  } catch {
    return withReplaced({ text: new TextDecoder('utf-8').decode(bytes), encoding: 'utf-8', unknownLabel: label }, bytes, 'utf-8');
  }
  try {
    // Valid bytes, the common case, decode once; only invalid ones are decoded again, replacing.
    return { text: decoder.decode(bytes), encoding: decoder.encoding };
  } catch {
    const lenient = new TextDecoder(label, { fatal: false, ignoreBOM: false });
    return withReplaced({ text: lenient.decode(bytes), encoding: lenient.encoding }, bytes, lenient.encoding);
  }
}

function withReplaced(decoded: Decoded, bytes: Uint8Array, encoding: string): Decoded {
  try {
    new TextDecoder(encoding, { fatal: true, ignoreBOM: false }).decode(bytes);
    return decoded;
  } catch {
    let replaced = 0;
    for (let i = decoded.text.indexOf('\uFFFD'); i !== -1; i = decoded.text.indexOf('\uFFFD', i + 1)) replaced += 1;
    return { ...decoded, replaced };
  }
}
