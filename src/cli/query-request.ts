import { EpistemeError } from '../failure.js';
import type { LoadedSearchIndex } from '../index/index-reader.js';
import { runQuery, type QueryRequest } from '../query/query.js';
import { parseQueryTerms } from '../query/query-terms.js';

/**
 * A query's options as one JSON object: a line of `query --batch` and the arguments of the MCP
 * `search` tool (schema/query-request.schema.json; a test keeps the two equal). Names are the
 * `query` flags in camelCase, with the same defaults and ranges, so a request means what the
 * command line with those flags means.
 */
export interface QueryOptions {
  terms: string[];
  limit: number;
  offset: number;
  maxChars: number;
  maxSnippetChars: number;
  family?: string[] | undefined;
  authority?: string[] | undefined;
  documentType?: string[] | undefined;
  normativity?: string[] | undefined;
  collapse: boolean;
  explain: boolean;
  expand: boolean;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 1000;
export const DEFAULT_MAX_CHARS = 8000;
export const DEFAULT_MAX_SNIPPET_CHARS = 400;
export const OFFSET_RANGE = { min: 0, max: 2 ** 31 - 1 };
export const LIMIT_RANGE = { min: 1, max: MAX_LIMIT };
export const MAX_CHARS_RANGE = { min: 1, max: 10_000_000 };
export const MAX_SNIPPET_CHARS_RANGE = { min: 1, max: 1_000_000 };
/** Bounds of a request object itself (terms and filter values), so one request cannot hold the server. */
export const MAX_TERMS = 64;
export const MAX_TERM_CHARS = 4096;
export const MAX_FILTER_VALUES = 64;
export const AUTHORITIES = ['normative', 'informative'] as const;
export const NORMATIVITIES = ['normative', 'informative', 'example'] as const;

/** The answer's data: what `query --json` prints in `data`. */
export function answerQuery(index: LoadedSearchIndex, options: QueryOptions): Record<string, unknown> {
  const request: QueryRequest = {
    terms: options.terms,
    limit: options.limit,
    offset: options.offset,
    maxTotalChars: options.maxChars,
    maxSnippetChars: options.maxSnippetChars,
    collapse: options.collapse,
    explain: options.explain,
    expand: options.expand,
    ...(options.family ? { family: options.family } : {}),
    ...(options.authority ? { authority: options.authority } : {}),
    ...(options.documentType ? { documentType: options.documentType } : {}),
    ...(options.normativity ? { normativity: options.normativity } : {}),
  };
  const response = runQuery(index, request);
  return { ...response, contentTrust: 'untrusted-source' };
}

/**
 * A query must hold a term the index could hold: it indexes words, numbers and operators of two to
 * four symbols (symbol-terms.ts), not single punctuation marks, so `?` or a blank term would match
 * nothing and say nothing about why. `usage-error` naming the terms.
 */
export function checkQueryHasWords(terms: readonly string[], where = 'The query'): void {
  if (parseQueryTerms(terms).scoringTerms.length > 0) return;
  const shown = terms.map((term) => JSON.stringify(term.length > 40 ? `${term.slice(0, 40)}…` : term)).join(', ');
  throw new EpistemeError(
    'usage-error',
    `${where} has no word to search for (${shown.slice(0, 200)}): the index holds words, numbers and operators of two to ` +
      'four symbols (`->>`, `$@`), not single punctuation marks or longer runs.',
    {
      hint: 'Add the words around it or name it in words: `episteme query "json extract operator"`.',
      details: { field: 'terms' },
    },
  );
}

const DEFAULTS: Omit<QueryOptions, 'terms'> = {
  limit: DEFAULT_LIMIT,
  offset: 0,
  maxChars: DEFAULT_MAX_CHARS,
  maxSnippetChars: DEFAULT_MAX_SNIPPET_CHARS,
  collapse: true,
  explain: false,
  expand: false,
};

type Problem = { field: string; message: string };

/**
 * Checks a request object (parsed JSON) and fills in the defaults; a bad one is `usage-error` naming
 * the field, what it must be and the range, as a bad flag is.
 */
export function parseQueryRequest(value: unknown, where = 'The request', defaults: Omit<QueryOptions, 'terms'> = DEFAULTS): QueryOptions {
  const fail = ({ field, message }: Problem): never => {
    throw new EpistemeError('usage-error', `${where}: ${field} ${message}`, {
      hint: 'A request is a JSON object: {"terms": ["..."], "limit": 10, ...} (schema/query-request.schema.json).',
      details: { field },
    });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail({ field: 'the request', message: 'must be a JSON object with "terms".' });
  const request = value as Record<string, unknown>;
  for (const key of Object.keys(request)) {
    if (!KNOWN.has(key))
      fail({ field: JSON.stringify(key).slice(0, 80), message: `is not a request field (known: ${[...KNOWN].join(', ')}).` });
  }
  const strings = (
    field: string,
    max: number,
    maxChars: number,
    allowed?: readonly string[],
    fallback?: string[],
  ): string[] | undefined => {
    const v = request[field];
    if (v === undefined) return fallback;
    if (!Array.isArray(v) || v.length === 0 || v.length > max) return fail({ field, message: `must be an array of 1 to ${max} strings.` });
    for (const item of v) {
      if (typeof item !== 'string' || item.length === 0 || item.length > maxChars)
        fail({ field, message: `must hold strings of 1 to ${maxChars} characters.` });
      if (allowed && !allowed.includes(item as string))
        fail({ field, message: `values must be one of ${allowed.join(', ')} (got ${JSON.stringify(item).slice(0, 80)}).` });
    }
    return v as string[];
  };
  const integer = (field: string, fallback: number, range: { min: number; max: number }): number => {
    const v = request[field];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < range.min || v > range.max)
      fail({ field, message: `must be an integer from ${range.min} to ${range.max} (got ${JSON.stringify(v)?.slice(0, 80)}).` });
    return v as number;
  };
  const boolean = (field: string, fallback: boolean): boolean => {
    const v = request[field];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') fail({ field, message: `must be true or false (got ${JSON.stringify(v)?.slice(0, 80)}).` });
    return v as boolean;
  };
  const terms = strings('terms', MAX_TERMS, MAX_TERM_CHARS);
  if (terms === undefined) return fail({ field: 'terms', message: 'is required: an array of query terms or "quoted phrases".' });
  const options: QueryOptions = {
    terms,
    limit: integer('limit', defaults.limit, LIMIT_RANGE),
    offset: integer('offset', defaults.offset, OFFSET_RANGE),
    maxChars: integer('maxChars', defaults.maxChars, MAX_CHARS_RANGE),
    maxSnippetChars: integer('maxSnippetChars', defaults.maxSnippetChars, MAX_SNIPPET_CHARS_RANGE),
    family: strings('family', MAX_FILTER_VALUES, MAX_TERM_CHARS, undefined, defaults.family),
    authority: strings('authority', MAX_FILTER_VALUES, MAX_TERM_CHARS, AUTHORITIES, defaults.authority),
    documentType: strings('documentType', MAX_FILTER_VALUES, MAX_TERM_CHARS, undefined, defaults.documentType),
    normativity: strings('normativity', MAX_FILTER_VALUES, MAX_TERM_CHARS, NORMATIVITIES, defaults.normativity),
    collapse: boolean('collapse', defaults.collapse),
    explain: boolean('explain', defaults.explain),
    expand: boolean('expand', defaults.expand),
  };
  // After the fields' own checks, as the command line checks its flags first.
  checkQueryHasWords(terms, where);
  return options;
}

/** The fields of a request (schema/query-request.schema.json "properties"). */
export const QUERY_REQUEST_FIELDS = [
  'terms',
  'limit',
  'offset',
  'maxChars',
  'maxSnippetChars',
  'family',
  'authority',
  'documentType',
  'normativity',
  'collapse',
  'explain',
  'expand',
] as const;
const KNOWN: ReadonlySet<string> = new Set(QUERY_REQUEST_FIELDS);
