/**
 * Every version number that changes output bytes for the same input, in one place. Each goes into the
 * keys of the targets it shapes; bump it when the code changes what it produces. Kept free of imports
 * so the no-op fast path can check them without loading any stage.
 */
/** 2: HTML table insertion modes and cell spans, algorithm steps with paths, tc39 family (issue 11). */
export const EXTRACT_RULE_VERSION = 2;
/** 2: chunks of one algorithm block cite the steps they cover (issue 11). */
export const CHUNK_RULE_VERSION = 2;
/** Search-index file layout (5: sealed head with plain number lists, CRC-32-checked posting blocks and compressed row blocks; 6: heading-path term frequencies in postings, duplicate-passage groups in the head; 7: an algorithm chunk's row ends with the steps it covers). */
export const SEARCH_INDEX_FORMAT_VERSION = 7;
/** Per-document index part layout (cached under .episteme/cache/index-parts). 5: 16 KiB compressed row blocks, number lists. 6: sealed with a SHA-256 line; the index records its chunk index's CRC-32. 7: heading term frequencies, passage keys. 8: rows may end with an algorithm chunk's steps. */
export const INDEX_PART_VERSION = 8;
/** Tokenizer and stemming: index bytes and query matching depend on it. */
export const TOKENIZER_VERSION = 1;

/** The search-index rule's version combines everything its bytes depend on. */
export const SEARCH_INDEX_RULE_VERSION = SEARCH_INDEX_FORMAT_VERSION * 1_000_000 + INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION;

export const RULE_VERSIONS: Record<string, number> = {
  extract: EXTRACT_RULE_VERSION,
  chunk: CHUNK_RULE_VERSION,
  'search-index': SEARCH_INDEX_RULE_VERSION,
};

/** Artifact format versions of the stage outputs (a reader refuses other versions). */
export const STAGE_INDEX_FORMAT_VERSION = 1;
export const DOCUMENT_FORMAT_VERSION = 1;
export const CHUNKS_FORMAT_VERSION = 1;
