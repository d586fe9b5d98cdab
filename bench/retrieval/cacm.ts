import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSmart, type CranfieldCollection } from './cranfield.js';

/**
 * The CACM collection (../shared/corpus/relevance/cacm), read where it lies, in the same shape as
 * Cranfield. Documents are title + abstract + authors (`.T`, `.W`, `.A`; some questions ask for
 * authors); `.X` is citation data, not text. Queries are the `.W` text only (`.N` names who asked).
 * Only the 52 judged queries are kept (the README: evaluate over those); judgements are binary
 * (gain 1). The stray `.I 0` record at the end of query.text has no text and is dropped.
 */
export function cacmDirectory(repoRoot: string): string {
  return path.resolve(repoRoot, '../shared/corpus/relevance/cacm');
}

export function loadCacm(directory: string): CranfieldCollection | undefined {
  if (!existsSync(path.join(directory, 'cacm.all'))) return undefined;
  const field = (record: { fields: Map<string, string[]> }, key: string): string => (record.fields.get(key) ?? []).join('\n').trim();
  const docs = parseSmart(readFileSync(path.join(directory, 'cacm.all'), 'utf8'))
    .filter((record) => record.id !== '')
    .map((record) => ({
      id: String(Number(record.id)),
      title: field(record, 'T'),
      text: [field(record, 'W'), field(record, 'A')].filter((part) => part !== '').join('\n\n'),
    }));
  const judged = new Map<number, Map<string, number>>();
  for (const line of readFileSync(path.join(directory, 'qrels.text'), 'utf8').split('\n')) {
    const [query, doc] = line.trim().split(/\s+/);
    if (query === undefined || doc === undefined || query === '') continue;
    const qrels = judged.get(Number(query)) ?? new Map<string, number>();
    judged.set(Number(query), qrels);
    qrels.set(String(Number(doc)), 1);
  }
  const queries: string[] = [];
  const qrels: Map<string, number>[] = [];
  for (const record of parseSmart(readFileSync(path.join(directory, 'query.text'), 'utf8'))) {
    const text = field(record, 'W').replace(/\s+/g, ' ');
    const judgements = judged.get(Number(record.id));
    if (text === '' || judgements === undefined) continue;
    queries.push(text);
    qrels.push(judgements);
  }
  return { docs, queries, qrels };
}
