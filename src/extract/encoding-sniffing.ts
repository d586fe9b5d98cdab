/**
 * The charset a document declares in its own first bytes: for HTML the WHATWG prescan
 * (https://html.spec.whatwg.org/#prescan-a-byte-stream-to-determine-its-encoding), for XML and XHTML
 * the XML declaration. One implementation for capture (src/capture/charset.ts records it) and
 * extraction (decode.ts decodes by it), so the two never disagree.
 *
 * Implemented here rather than taken from `html-encoding-sniffer`: its current major requires Node 22
 * (Episteme supports 20.19), it returns a default encoding where none was declared (capture records
 * whether one was), and it has no XML rule.
 *
 * The prescan, step by step: a `<meta>` inside a comment declares nothing (`<!-- ... -->` is skipped);
 * other tags are read attribute by attribute, so a `<meta` inside an attribute value is none either;
 * a `<meta>` counts with `charset=`, or with `http-equiv="content-type"` and a `content` naming a
 * charset; a label that names no encoding is skipped; UTF-16 means UTF-8 (a `<meta>` readable as ASCII
 * was not written in UTF-16) and x-user-defined windows-1252; without a `<meta>`, an XML declaration
 * at the first byte decides. In XML a `<meta>` is only an element: the byte order mark (decode.ts)
 * and the XML declaration decide, else UTF-8.
 */

/** How a document's own declaration is read: the HTML prescan, or the XML declaration. */
export type DeclarationSyntax = 'html' | 'xml';

/** Bytes the prescan reads, as the HTML standard advises (an author must declare within them). */
export const PRESCAN_BYTES = 1024;

/** The syntax whose declaration a media type's documents use, or null for a type that declares none in-band. */
export function declarationSyntax(mediaType: string): DeclarationSyntax | null {
  if (mediaType === 'text/html') return 'html';
  if (mediaType === 'application/xml' || mediaType === 'text/xml' || mediaType.endsWith('+xml')) return 'xml';
  return null;
}

/**
 * The charset label the document declares in its first PRESCAN_BYTES bytes, lower-cased and trimmed,
 * or null when it declares none. HTML: the prescan's answer (UTF-16 labels as "utf-8",
 * x-user-defined as "windows-1252"); XML: the XML declaration's `encoding` (UTF-16 labels as "utf-8"
 * on ASCII-compatible bytes, "utf-16le"/"utf-16be" for a declaration itself in UTF-16), a label no
 * decoder knows included, so extraction says it is unknown.
 */
export function declaredCharset(bytes: Uint8Array, syntax: DeclarationSyntax): string | null {
  const head = bytes.subarray(0, PRESCAN_BYTES);
  const utf16 = utf16XmlDeclaration(head);
  if (utf16 !== null) return utf16;
  if (syntax === 'xml') return xmlEncoding(head, false);
  return new Prescan(head).run() ?? xmlEncoding(head, true);
}

/** Step 3 of the prescan, and XML's autodetection: `<?x` in UTF-16 without a byte order mark. */
function utf16XmlDeclaration(b: Uint8Array): string | null {
  if (b.length >= 6 && b[0] === 0x3c && b[1] === 0 && b[2] === 0x3f && b[3] === 0 && b[4] === 0x78 && b[5] === 0) return 'utf-16le';
  if (b.length >= 6 && b[0] === 0 && b[1] === 0x3c && b[2] === 0 && b[3] === 0x3f && b[4] === 0 && b[5] === 0x78) return 'utf-16be';
  return null;
}

/** The WHATWG encoding a label names ("get an encoding"), or null; TextDecoder knows the standard's labels. */
export function encodingOfLabel(label: string): string | null {
  const trimmed = label.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase();
  // Not decodable by TextDecoder, yet an encoding of the standard; the prescan maps it to windows-1252.
  if (trimmed === 'x-user-defined') return 'x-user-defined';
  try {
    return new TextDecoder(trimmed).encoding;
  } catch {
    return null;
  }
}

const isUtf16 = (encoding: string): boolean => encoding === 'utf-16le' || encoding === 'utf-16be';

/** A label as the caller records it: lower-cased and trimmed. */
const cleanLabel = (label: string): string => label.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase();

const isSpace = (c: number): boolean => c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
const isAlpha = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const lower = (c: number): number => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/** Thrown when the bytes run out mid-construct: the prescan then ends without a `<meta>`. */
const OUT_OF_BYTES = Symbol('out of bytes');

interface Attribute {
  name: string;
  value: string;
}

/** The prescan's loop (its step 4) over `b`, with `pos` its position pointer. */
class Prescan {
  private pos = 0;

  constructor(private readonly b: Uint8Array) {}

  /** The label of the first `<meta>` that names an encoding, or null when the bytes run out first. */
  run(): string | null {
    try {
      while (this.pos < this.b.length) {
        const label = this.step();
        if (label !== null) return label;
        this.pos += 1; // "next byte"
      }
    } catch (error) {
      if (error !== OUT_OF_BYTES) throw error;
    }
    return null;
  }

  private at(i: number): number {
    if (i >= this.b.length) throw OUT_OF_BYTES;
    return this.b[i]!;
  }

  private startsWith(ascii: string, caseless: boolean): boolean {
    const { b, pos } = this;
    if (pos + ascii.length > b.length) return false;
    for (let k = 0; k < ascii.length; k++) if ((caseless ? lower(b[pos + k]!) : b[pos + k]) !== ascii.charCodeAt(k)) return false;
    return true;
  }

  /** One construct at `pos`, leaving `pos` on its last byte; a `<meta>`'s label when it names one. */
  private step(): string | null {
    if (this.startsWith('<!--', false)) {
      // To the first ">" after the "<" preceded by "--", which may be the opener's own ("<!-->").
      let end = this.pos + 2;
      while (!(this.at(end) === 0x3e && this.b[end - 1] === 0x2d && this.b[end - 2] === 0x2d)) end++;
      this.pos = end;
      return null;
    }
    if (this.startsWith('<meta', true) && (isSpace(this.at(this.pos + 5)) || this.at(this.pos + 5) === 0x2f)) {
      this.pos += 6;
      return this.meta();
    }
    const next = this.b[this.pos + 1] ?? -1;
    if (this.at(this.pos) === 0x3c && (isAlpha(next) || (next === 0x2f && isAlpha(this.b[this.pos + 2] ?? -1)))) {
      // Another tag: past its name, then past its attributes (a "<meta" inside a value is no tag).
      while (!isSpace(this.at(this.pos)) && this.at(this.pos) !== 0x3e) this.pos++;
      while (this.attribute() !== null);
      return null;
    }
    if (this.startsWith('<!', false) || this.startsWith('</', false) || this.startsWith('<?', false)) {
      this.pos += 2;
      while (this.at(this.pos) !== 0x3e) this.pos++;
    }
    return null;
  }

  /** A `<meta>`'s attributes: the label it declares, or null (then the scan goes on). */
  private meta(): string | null {
    const seen = new Set<string>();
    let gotPragma = false;
    let needPragma: boolean | null = null;
    /** undefined: none yet; null: a `charset` naming no encoding (the standard's failure). */
    let charset: string | null | undefined;
    for (let attribute = this.attribute(); attribute !== null; attribute = this.attribute()) {
      if (seen.has(attribute.name)) continue;
      seen.add(attribute.name);
      if (attribute.name === 'http-equiv') {
        if (attribute.value === 'content-type') gotPragma = true;
      } else if (attribute.name === 'content') {
        const label = charsetFromContent(attribute.value);
        if (label !== null && charset === undefined) {
          charset = label;
          needPragma = true;
        }
      } else if (attribute.name === 'charset') {
        charset = encodingOfLabel(attribute.value) === null ? null : attribute.value;
        needPragma = false;
      }
    }
    if (needPragma === null || (needPragma && !gotPragma) || charset === null || charset === undefined) return null;
    const encoding = encodingOfLabel(charset);
    if (encoding !== null && isUtf16(encoding)) return 'utf-8';
    if (encoding === 'x-user-defined') return 'windows-1252';
    return cleanLabel(charset);
  }

  /** "Get an attribute": its name and value, lower-cased; null at the tag's ">" (`pos` left on it). */
  private attribute(): Attribute | null {
    while (isSpace(this.at(this.pos)) || this.at(this.pos) === 0x2f) this.pos++;
    if (this.at(this.pos) === 0x3e) return null;
    let name = '';
    for (;;) {
      const c = this.at(this.pos);
      if (c === 0x3d && name !== '') {
        this.pos++;
        break;
      }
      if (isSpace(c)) {
        while (isSpace(this.at(this.pos))) this.pos++;
        if (this.at(this.pos) !== 0x3d) return { name, value: '' };
        this.pos++;
        break;
      }
      if (c === 0x2f || c === 0x3e) return { name, value: '' };
      name += String.fromCharCode(lower(c));
      this.pos++;
    }
    while (isSpace(this.at(this.pos))) this.pos++;
    const quote = this.at(this.pos);
    let value = '';
    if (quote === 0x22 || quote === 0x27) {
      this.pos++;
      while (this.at(this.pos) !== quote) value += String.fromCharCode(lower(this.b[this.pos++]!));
      this.pos++;
      return { name, value };
    }
    if (quote === 0x3e) return { name, value: '' };
    while (!isSpace(this.at(this.pos)) && this.at(this.pos) !== 0x3e) value += String.fromCharCode(lower(this.b[this.pos++]!));
    return { name, value };
  }
}

/** "Extracting a character encoding from a meta element": the label a `content` value names, or null. */
export function charsetFromContent(s: string): string | null {
  let pos = 0;
  for (;;) {
    const found = s.toLowerCase().indexOf('charset', pos);
    if (found === -1) return null;
    let p = found + 7;
    while (p < s.length && isSpace(s.charCodeAt(p))) p++;
    if (s[p] !== '=') {
      pos = p;
      continue;
    }
    p++;
    while (p < s.length && isSpace(s.charCodeAt(p))) p++;
    if (p >= s.length) return null;
    const first = s[p];
    if (first === '"' || first === "'") {
      const close = s.indexOf(first, p + 1);
      if (close === -1) return null;
      return encodingOfLabel(s.slice(p + 1, close)) === null ? null : s.slice(p + 1, close);
    }
    let end = p;
    while (end < s.length && !isSpace(s.charCodeAt(end)) && s[end] !== ';') end++;
    return encodingOfLabel(s.slice(p, end)) === null ? null : s.slice(p, end);
  }
}

/**
 * "Get an XML encoding": the `encoding` of an XML declaration at the first byte, or null. In HTML
 * (`knownOnly`) a label that names no encoding is none; in XML it is returned, so extraction reports
 * it. A UTF-16 label is "utf-8": the declaration was read as ASCII, so the bytes are not UTF-16.
 */
function xmlEncoding(b: Uint8Array, knownOnly: boolean): string | null {
  if (!(b[0] === 0x3c && b[1] === 0x3f && b[2] === 0x78 && b[3] === 0x6d && b[4] === 0x6c)) return null;
  const end = b.indexOf(0x3e);
  if (end === -1) return null;
  const declaration = String.fromCharCode(...b.subarray(0, end));
  let p = declaration.indexOf('encoding');
  if (p === -1) return null;
  p += 8;
  while (p < end && declaration.charCodeAt(p) <= 0x20) p++;
  if (declaration[p] !== '=') return null;
  p++;
  while (p < end && declaration.charCodeAt(p) <= 0x20) p++;
  const quote = declaration[p];
  if (quote !== '"' && quote !== "'") return null;
  const close = declaration.indexOf(quote, p + 1);
  if (close === -1) return null;
  const label = declaration.slice(p + 1, close);
  if (label === '' || [...label].some((c) => c.charCodeAt(0) <= 0x20)) return null;
  const encoding = encodingOfLabel(label);
  if (encoding === null) return knownOnly ? null : cleanLabel(label);
  return isUtf16(encoding) ? 'utf-8' : cleanLabel(label);
}
