import { EpistemeError } from '../failure.js';
import { INDEX_PART_VERSION, SEARCH_INDEX_RULE_VERSION, TOKENIZER_VERSION } from '../rule-versions.js';
import type { ExtractOptions } from '../extract/config.js';
import type { ChunkOptions } from '../chunk/chunker.js';
import type { IndexOptions } from '../index/search-index.js';

/**
 * The stage modules, loaded on first use, with their option defaults applied. Unknown option names are
 * configuration errors rather than silently ignored settings.
 */
async function load() {
  const [extract, chunk, index] = await Promise.all([
    import('../extract/config.js'),
    import('../chunk/chunker.js'),
    import('../index/search-index.js'),
  ]);
  // Cached index parts depend on the part layout and the tokenizer.
  const indexPartFormat = `${INDEX_PART_VERSION}.${TOKENIZER_VERSION}`;
  const config = {
    extractRuleVersion: extract.EXTRACT_RULE_VERSION,
    extractionConfig: extract.extractionConfig,
    extractOptions: (given: Record<string, unknown>): ExtractOptions =>
      checked('extract', withDefaults('extract', extract.DEFAULT_EXTRACT_OPTIONS, given), extract.validateExtractOptions),
    extractTimeoutMs: extract.extractTimeoutMs,
    chunkRuleVersion: chunk.CHUNK_RULE_VERSION,
    chunkOptions: (given: Record<string, unknown>): ChunkOptions =>
      checked('chunk', withDefaults('chunk', chunk.DEFAULT_CHUNK_OPTIONS, given), chunk.validateChunkOptions),
    searchIndexFormatVersion: index.SEARCH_INDEX_FORMAT_VERSION,
    searchIndexRuleVersion: SEARCH_INDEX_RULE_VERSION,
    indexPartFormat,
    indexOptions: (given: Record<string, unknown>): IndexOptions =>
      checked('index', withDefaults('index', index.DEFAULT_INDEX_OPTIONS, given), index.validateIndexOptions),
    buildDocumentPart: index.buildDocumentPart,
    mergeSearchIndex: index.mergeSearchIndex,
    planSearchSegments: index.planSearchSegments,
    buildSegment: index.buildSegment,
    segmentManifest: index.segmentManifest,
  };
  return config;
}

export type StageModules = Awaited<ReturnType<typeof load>>;

let loaded: ReturnType<typeof load> | undefined;

export function loadStageModules(): ReturnType<typeof load> {
  loaded ??= load();
  return loaded;
}

/** Runs a stage's own check of its options and reports a failure as the config error it is. */
function checked<T>(stage: string, options: T, validate: (options: T) => void): T {
  try {
    validate(options);
  } catch (error) {
    throw new EpistemeError('config-invalid', `options.${stage}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'See docs/workspace.md, "Workspace", and docs/extraction.md, "Bounds", for the options and their bounds.',
      details: { field: `options.${stage}` },
    });
  }
  return options;
}

function withDefaults<T extends object>(stage: string, defaults: T, given: Record<string, unknown>): T {
  for (const [name, value] of Object.entries(given)) {
    const fallback = (defaults as Record<string, unknown>)[name];
    if (fallback === undefined) {
      throw new EpistemeError('config-invalid', `Unknown option options.${stage}.${name}.`, {
        hint: `Known options for ${stage}: ${Object.keys(defaults).join(', ') || '(none)'}.`,
        details: { field: `options.${stage}.${name}` },
      });
    }
    if (typeof value !== typeof fallback) {
      throw new EpistemeError('config-invalid', `Option options.${stage}.${name} must be a ${typeof fallback}.`, {
        details: { field: `options.${stage}.${name}` },
      });
    }
  }
  return { ...defaults, ...given } as T;
}
