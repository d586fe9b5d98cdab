/** Canonical JSON (sorted keys by code unit, checks) against JSON.stringify of the same chunk records. */
import { canonicalJson } from '../../src/store/canonical-json.js';
import { microCorpus } from './corpus.js';
import { keep, runSuite } from './suite.js';

const value = JSON.parse(JSON.stringify(microCorpus().chunks.slice(0, 300))) as unknown;
const bytes = JSON.stringify(value).length;
await runSuite(
  'canonical JSON',
  `300 chunk records, ${bytes} chars per call`,
  { name: 'JSON.stringify (baseline)', fn: () => keep(JSON.stringify(value)) },
  [{ name: 'canonicalJson', fn: () => keep(canonicalJson(value)) }],
);
