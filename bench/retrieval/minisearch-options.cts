/**
 * MiniSearch settings shared by the index builder and the cold-query script (defaults, plus stored
 * fields to answer with text and citations). CommonJS, like the cold-query scripts of the baselines:
 * each baseline runs in its leanest form (no ES module loader), as `episteme query` does.
 */
export const MINISEARCH_OPTIONS = {
  idField: 'chunkId',
  fields: ['text'],
  storeFields: ['text', 'citation', 'normativity', 'family', 'authority', 'documentType'],
};
export const MINISEARCH_INDEX_ONLY_OPTIONS = { idField: 'chunkId', fields: ['text'] };
