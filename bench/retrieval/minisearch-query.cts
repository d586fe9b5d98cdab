/**
 * One cold MiniSearch query (CommonJS): `node minisearch-query.cjs INDEX.json TERM`.
 * Loads the JSON index (stored fields included) and prints the top 10.
 */
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';
import { MINISEARCH_OPTIONS } from './minisearch-options.cjs';

const [file, term] = process.argv.slice(2);
const index = MiniSearch.loadJSON(readFileSync(file!, 'utf8'), MINISEARCH_OPTIONS);
const hits = index.search(term!).slice(0, 10);
process.stdout.write(JSON.stringify(hits) + '\n');
