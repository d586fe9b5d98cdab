/**
 * Text from captured sources (snippets, titles, headings, URLs, file names, error messages that quote
 * them) is attacker-controlled. Written raw to a terminal it could move the cursor, recolour or hide
 * lines (ANSI escapes), reorder what is shown (bidi overrides and isolates), or hide characters
 * (zero-width and other format characters), so a reader sees something other than what is there.
 *
 * Human output therefore shows every such code point escaped, as `\u202E` (or `\u{E0001}` past the
 * BMP): control characters (C0, DEL, C1; Unicode category Cc), format characters (Cf: bidi controls,
 * zero-width space/joiners, word joiner, BOM, soft hyphen, tags), line and paragraph separators (Zl,
 * Zp) and lone surrogates (Cs). `--json` output is not escaped here: JSON carries the exact text.
 */

// One pass, linear in the input. Zl/Zp (U+2028, U+2029) end lines in some terminals and editors.
// Built on first use: creating a Unicode class costs a cold process, and `--json` never needs them.
let unsafe: { all: RegExp; exceptNewline: RegExp } | undefined;
function unsafePatterns(): { all: RegExp; exceptNewline: RegExp } {
  unsafe ??= {
    all: /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu,
    exceptNewline: /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu,
  };
  return unsafe;
}

/** The escape shown for one unsafe code point. */
export function escapeCodePoint(codePoint: number): string {
  if (codePoint > 0xffff) return `\\u{${codePoint.toString(16).toUpperCase()}}`;
  return `\\u${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Hostile text repeats a few characters many times: remember their escapes. */
const escapes = new Map<string, string>();
function replace(match: string): string {
  let shown = escapes.get(match);
  if (shown === undefined) {
    shown = escapeCodePoint(match.codePointAt(0)!);
    if (escapes.size < 4096) escapes.set(match, shown);
  }
  return shown;
}

/**
 * `text` safe to write to a terminal: every control, format, separator or lone-surrogate code point
 * escaped. With `multiline`, "\n" is kept (it is the structure of a block of lines); without it, a
 * newline is escaped too, so source text can never start a line that looks like the tool's own.
 */
export function terminalSafe(text: string, options: { multiline?: boolean } = {}): string {
  const pattern = options.multiline ? unsafePatterns().exceptNewline : unsafePatterns().all;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, replace) : text;
}

/** Whether `text` holds a code point that terminalSafe would escape (newlines included). */
export function hasUnsafeCodePoint(text: string): boolean {
  const pattern = unsafePatterns().all;
  pattern.lastIndex = 0;
  return pattern.test(text);
}
