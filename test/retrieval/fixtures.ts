import type { Block, EvidenceDocument, Section } from '../../src/document/types.js';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import {
  buildDocumentPart,
  DEFAULT_INDEX_OPTIONS,
  loadSearchIndex,
  mergeSearchIndex,
  type LoadedSearchIndex,
} from '../../src/index/search-index.js';

/** Hand-written evidence documents for retrieval tests (not extracted from the dev corpus). */
export function makeDocument(input: {
  documentId: string;
  sourceUrl?: string;
  family?: string;
  authority?: 'normative' | 'informative';
  documentType?: string;
  sections: Section[];
  blocks: (Partial<Block> & { id: string; text: string })[];
}): EvidenceDocument {
  return {
    documentId: input.documentId,
    sourceUrl: input.sourceUrl ?? `https://example.org/${input.documentId}/`,
    fragment: null,
    title: input.documentId,
    family: input.family ?? 'generic',
    authority: input.authority ?? 'normative',
    documentType: input.documentType ?? 'html',
    contentTrust: 'untrusted-source',
    provenance: {
      producer: { name: 'episteme', version: '0.1.0' },
      extractor: { id: 'html', version: 1 },
      sourceSha256: '0'.repeat(64),
      extractionConfigSha256: '1'.repeat(64),
      snapshotId: `snap-${input.documentId}`,
      captureMethod: 'manual-ingest',
      contentType: 'text/html',
    },
    sections: input.sections,
    blocks: input.blocks.map((block) => ({
      kind: 'paragraph',
      sectionId: input.sections[0]?.id ?? null,
      fragment: null,
      normativity: 'normative',
      ...block,
    })),
    diagnostics: [],
    limits: [],
  };
}

const LONG_ALGORITHM =
  'To fetch a resource, the user agent runs the fetch algorithm. ' +
  Array.from(
    { length: 40 },
    (_, i) =>
      `Step ${i + 1}: if the request's mode is "navigate" and the response is a redirect, ` +
      `follow the redirect chain and update the URL list.`,
  ).join(' ');

export const HTTP_DOC = makeDocument({
  documentId: 'rfc9110',
  sourceUrl: 'https://httpwg.org/specs/rfc9110.html',
  family: 'rfc',
  sections: [
    {
      id: 'conditional.requests',
      fragment: 'conditional.requests',
      heading: '13. Conditional Requests',
      level: 1,
      number: '13',
      parentId: null,
    },
    {
      id: 'field.if-match',
      fragment: 'field.if-match',
      heading: '13.1.1. If-Match',
      level: 3,
      number: '13.1.1',
      parentId: 'conditional.requests',
    },
    { id: 'caching', fragment: 'caching', heading: '14. Caching', level: 1, number: '14', parentId: null },
  ],
  blocks: [
    {
      id: 'b1',
      sectionId: 'conditional.requests',
      fragment: 'conditional.requests',
      text:
        'A conditional request is an HTTP request with one or more request header fields ' +
        'that indicate a precondition to be tested before applying the request method to the target resource.',
    },
    {
      id: 'b2',
      sectionId: 'conditional.requests',
      fragment: 'conditional.requests',
      text: 'Conditional GET requests are the most efficient mechanism for HTTP cache updates.',
      normativity: 'informative',
    },
    {
      id: 'b3',
      sectionId: 'field.if-match',
      fragment: 'field.if-match',
      text:
        'The "If-Match" header field makes the request method conditional on the recipient origin server ' +
        'either having at least one current representation of the target resource.',
    },
    {
      id: 'b4',
      sectionId: 'field.if-match',
      fragment: 'field.if-match',
      text: 'An origin server MUST use the strong comparison function when comparing entity tags for If-Match.',
    },
    {
      id: 'b5',
      sectionId: 'caching',
      fragment: 'caching',
      text: 'Caching is described in a separate document. Stored responses can be reused.',
      normativity: 'informative',
    },
    { id: 'b6', sectionId: 'caching', fragment: 'caching', text: '   ' },
  ],
});

export const FETCH_DOC = makeDocument({
  documentId: 'fetch',
  sourceUrl: 'https://fetch.spec.whatwg.org/',
  family: 'whatwg',
  sections: [
    { id: 'fetching', fragment: 'fetching', heading: '4. Fetching', level: 1, number: '4', parentId: null },
    { id: 'example', fragment: null, heading: 'Example', level: 2, number: null, parentId: 'fetching' },
  ],
  blocks: [
    { id: 'algo', sectionId: 'fetching', fragment: 'fetching', text: LONG_ALGORITHM, kind: 'algorithm' },
    {
      id: 'ex1',
      sectionId: 'example',
      fragment: 'fetching',
      text: 'For example, fetch("/api") returns a promise. Café résumé naïve Straße ΟΔΟΣ 東京都に住んでいます.',
      normativity: 'example',
    },
  ],
});

export const PDF_DOC = makeDocument({
  documentId: 'federal-register',
  sourceUrl: 'https://example.org/federal-register.pdf',
  family: 'generic',
  authority: 'informative',
  documentType: 'pdf',
  sections: [],
  blocks: [
    {
      id: 'p1-1',
      sectionId: null,
      page: 1,
      span: { page: 1, start: 0, end: 60 },
      text: 'Background checks are required for firearm transfers by licensed dealers.',
    },
    {
      id: 'p2-1',
      sectionId: null,
      page: 2,
      span: { page: 2, start: 0, end: 40 },
      text: 'The rule takes effect on the date of publication in the Federal Register.',
    },
  ],
});

export const ALL_DOCS = [HTTP_DOC, FETCH_DOC, PDF_DOC];

/** Deterministic shuffle (xorshift) so tests stay reproducible. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The search index of `docs` as a build makes it: each document chunked, its part made, the parts merged. */
export function indexOfParts(docs: EvidenceDocument[], options = DEFAULT_CHUNK_OPTIONS): LoadedSearchIndex {
  const parts = docs.map((doc) => buildDocumentPart(doc.documentId, chunkDocument(doc, options)));
  return loadSearchIndex(mergeSearchIndex(parts, { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS), 'fixtures');
}
