import type { AjvError } from '../generated/validators.js';
import { nearest } from '../nearest.js';

/**
 * Turns ajv errors into short sentences that name the entry and field, e.g.
 * `entry 3: unknown field "x"` or `entry 0, field sourceUrl: must match pattern ...`.
 */
export function describeSchemaErrors(
  errors: AjvError[] | null | undefined,
  arrayItemName = 'entry',
  /** The validator's bounded number fields (schemaRanges.validateX): errors about them state the range. */
  ranges: Record<string, { type: 'integer' | 'number'; min: number | null; max: number | null }> = {},
  /** The validator's closed objects (schemaFields.validateX): an unknown field gets the nearest known one. */
  fields: Record<string, string[]> = {},
): string[] {
  const lines: string[] = [];
  for (const error of errors ?? []) {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const where = describePath(segments, arrayItemName);
    let what = error.message ?? error.keyword;
    if (error.keyword === 'additionalProperties') {
      const field = String(error.params.additionalProperty);
      const known = error.schemaPath === undefined ? undefined : fields[error.schemaPath.replace(/\/additionalProperties$/, '')];
      const near = known === undefined ? [] : nearest(field, known);
      what =
        `unknown field "${field}"` +
        (near.length > 0 ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : '') +
        (known !== undefined && near.length === 0 ? ` (known fields: ${known.join(', ')})` : '');
    } else if (error.keyword === 'required') what = `missing required field "${String(error.params.missingProperty)}"`;
    else if (error.keyword === 'enum') what = `must be one of ${JSON.stringify(error.params.allowedValues)}`;
    else if (error.keyword === 'pattern') what = describePattern(String(error.params.pattern));
    const range = error.schemaPath === undefined ? undefined : ranges[error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/'))];
    if (range) what += ` (allowed: ${describeRange(range)})`;
    lines.push(where ? `${where}: ${what}` : what);
  }
  return [...new Set(lines)];
}

/** Patterns of the user-facing schemas in words: a user is never shown a regular expression. */
const PATTERN_WORDS: Record<string, string> = {
  '^[Hh][Tt][Tt][Pp][Ss]?://': 'must be an http:// or https:// URL',
  '^[a-z0-9][a-z0-9-]*$': 'must be lowercase letters, digits and hyphens, starting with a letter or digit',
  '^[a-z][a-z0-9-]*$': 'must be lowercase letters, digits and hyphens, starting with a letter',
  '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$': 'must be a media type such as "text/html"',
  '^[A-Za-z0-9._:-]+$': 'must be a charset name such as "utf-8"',
  '^https?://[^/?#]+/': 'must be an http:// or https:// URL prefix with a path, such as "https://example.org/docs/"',
  '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$': 'must be a lower-case host name such as "example.org"',
  '^[A-Za-z0-9]([A-Za-z0-9._+ -]{0,62}[A-Za-z0-9._+-])?$':
    'must be a tool name such as "Bikeshed": letters, digits, spaces inside and . _ + -, starting with a letter or digit, at most 64',
  '^(?!/)(?![A-Za-z]:)[^\\u0000\\\\]*$': 'must be a relative path with "/" between folders (not absolute, no NUL, no backslash)',
};

function describePattern(pattern: string): string {
  return PATTERN_WORDS[pattern] ?? 'is not in the form this field allows (see its description in the schema)';
}

/** A field in words: `entry 3, field sourceUrl` (in a list of entries), `field outputs.specs`. */
export function describePath(segments: string[], arrayItemName: string): string {
  if (segments.length === 0) return '';
  const [first, ...rest] = segments;
  if (first !== undefined && /^\d+$/.test(first)) {
    return rest.length ? `${arrayItemName} ${first}, field ${rest.join('.')}` : `${arrayItemName} ${first}`;
  }
  return `field ${segments.join('.')}`;
}

function describeRange(range: { type: 'integer' | 'number'; min: number | null; max: number | null }): string {
  const kind = range.type === 'integer' ? 'an integer' : 'a number';
  if (range.min !== null && range.max !== null) return `${kind} from ${range.min} to ${range.max}`;
  return range.min !== null ? `${kind} of at least ${range.min}` : `${kind} of at most ${range.max}`;
}
