import type { RuleId } from '../graph.js';
import { chunkRule } from './chunk.js';
import { extractRule } from './extract.js';
import { searchIndexRule, searchIndexSegmentRule } from './search-index.js';
import { snapshotRule } from './snapshot.js';
import { stageIndexRules } from './stage-index.js';
import type { Rule } from './types.js';

/**
 * Every rule of the graph, by id. Adding a stage: write its descriptor (rules/<stage>.ts: rule,
 * options, run, the data files it owns, its cache adapter), register it here, and add its targets in
 * graph.ts.
 */
const snapshotIndex = stageIndexRules('snapshot-index', (ws) => ws.outputs.snapshots);
const documentIndex = stageIndexRules('document-index', (ws) => ws.outputs.specs);
const chunkIndex = stageIndexRules('chunk-index', (ws) => ws.outputs.chunks);

export const RULES: Record<RuleId, Rule> = {
  snapshot: snapshotRule,
  extract: extractRule,
  chunk: chunkRule,
  'snapshot-index-segment': snapshotIndex.segment,
  'snapshot-index': snapshotIndex.index,
  'document-index-segment': documentIndex.segment,
  'document-index': documentIndex.index,
  'chunk-index-segment': chunkIndex.segment,
  'chunk-index': chunkIndex.index,
  'search-index-segment': searchIndexSegmentRule,
  'search-index': searchIndexRule,
};
