/**
 * Front matter: the metadata written above a Markdown document's text, never its text.
 *
 * - YAML between `---` lines (Jekyll, kramdown-rfc), which `...` may close too. kramdown-rfc's first part
 *   marker (`--- abstract`, `--- middle`, `--- note_...`) also closes it: real drafts write no bare `---`
 *   after their header, the marker ends it and opens the part.
 * - TOML between `+++` lines (Hugo) or `%%%` lines (mmark, whose Internet-Drafts name their series in a
 *   `[seriesInfo]` table).
 *
 * Only when the first line is such a fence and the next line reads as a key (or, in TOML, a table or a
 * comment): a document that opens with a thematic break (`---`) and has another later is not metadata.
 */
export interface FrontMatter {
  /** `---` (YAML), `+++` (Hugo's TOML) or `%%%` (mmark's TOML). */
  fence: '---' | '+++' | '%%%';
  /** Lines [0, end) are the front matter, its fences included; a part marker that closes it is not. */
  end: number;
  /**
   * Its scalar fields: top-level keys, and in TOML the keys of a `[table]` as `table.key` (not those of an
   * array of tables, `[[author]]`). Values without their quotes; the first of a repeated key.
   */
  fields: ReadonlyMap<string, string>;
}

/** A front matter this long is no front matter: the document's text begins at its first line. */
export const MAX_FRONT_MATTER_LINES = 5000;

/** kramdown-rfc's part markers after the front matter. */
export const KRAMDOWN_RFC_PART = /^---\s+(abstract|middle|back|note_(\S+))\s*$/;

const YAML_KEY = /^([A-Za-z_][\w-]*):(?:\s+(.*?))?\s*$/;
const TOML_KEY = /^([A-Za-z_][\w-]*)\s*=\s*(.*?)\s*$/;
const TOML_TABLE = /^\[\s*([A-Za-z_][\w.-]*)\s*\]\s*(?:#.*)?$/;

export function frontMatter(lines: readonly string[]): FrontMatter | null {
  const fence = /^(---|\+\+\+|%%%)\s*$/.exec(lines[0] ?? '')?.[1] as FrontMatter['fence'] | undefined;
  if (fence === undefined) return null;
  const second = lines[1] ?? '';
  const toml = fence !== '---';
  if (toml ? !/^\s*(?:[A-Za-z_][\w-]*\s*=|\[|#)/.test(second) : !YAML_KEY.test(second)) return null;
  const last = Math.min(lines.length, MAX_FRONT_MATTER_LINES);
  for (let i = 1; i < last; i++) {
    const line = lines[i]!;
    const closes = toml ? line.trimEnd() === fence : /^(?:---|\.\.\.)\s*$/.test(line);
    const part = !toml && KRAMDOWN_RFC_PART.test(line);
    if (closes || part) return { fence, end: part ? i : i + 1, fields: (toml ? tomlFields : yamlFields)(lines.slice(1, i)) };
  }
  return null;
}

function yamlFields(lines: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of lines) {
    const m = YAML_KEY.exec(line);
    if (m !== null && m[2] !== undefined && !fields.has(m[1]!)) fields.set(m[1]!, unquoted(m[2]));
  }
  return fields;
}

function tomlFields(lines: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  // The table the keys below belong to: '' at the top, null in an array of tables.
  let table: string | null = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('[[')) table = null;
    else if (TOML_TABLE.test(line)) table = `${TOML_TABLE.exec(line)![1]!}.`;
    else if (table !== null) {
      const m = TOML_KEY.exec(line);
      const key = m === null ? '' : table + m[1]!;
      if (m !== null && !fields.has(key)) fields.set(key, tomlValue(m[2]!));
    }
  }
  return fields;
}

/** A TOML value: a quoted string's content, else the text before a comment. */
function tomlValue(value: string): string {
  const quoted = /^(["'])(.*?)\1/.exec(value);
  return quoted === null ? value.replace(/\s*#.*$/, '').trim() : quoted[2]!;
}

/** A scalar without its quotes: `"The Title"` and `'The Title'` are `The Title`. */
function unquoted(value: string): string {
  const m = /^(["'])(.*)\1$/.exec(value.trim());
  return (m === null ? value : m[2]!).trim();
}
