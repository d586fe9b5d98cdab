/** MiniSearch settings shared by the index builder and the cold-query script (defaults, plus stored fields to answer with text and citations). */
export const MINISEARCH_OPTIONS = {
  idField: 'chunkId',
  fields: ['text'],
  storeFields: ['text', 'citation', 'normativity', 'family', 'authority', 'documentType'],
};
export const MINISEARCH_INDEX_ONLY_OPTIONS = { idField: 'chunkId', fields: ['text'] };
