import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The Cranfield 1400 collection (../shared/corpus/relevance/cranfield), read where it lies.
 * Pitfalls handled (see its README): qrels number queries by position in cran.qry, not by .I id;
 * relevance codes run 1 = complete answer .. 4 = minimum interest, so graded gain = 5 - code.
 */
export interface CranfieldDoc {
  id: string;
  title: string;
  text: string;
}

export interface CranfieldCollection {
  docs: CranfieldDoc[];
  /** Queries in file order; query i (0-based) is qrels query i + 1. */
  queries: string[];
  /** Per query (same order): document id -> graded gain (1..4). */
  qrels: Map<string, number>[];
}

export function cranfieldDirectory(repoRoot: string): string {
  return path.resolve(repoRoot, '../shared/corpus/relevance/cranfield');
}

export function loadCranfield(directory: string): CranfieldCollection | undefined {
  if (!existsSync(path.join(directory, 'cran.all.1400'))) return undefined;
  const docs = parseSmart(readFileSync(path.join(directory, 'cran.all.1400'), 'utf8'))
    .filter((record) => record.id !== '')
    .map((record) => ({
      id: record.id,
      title: (record.fields.get('T') ?? []).join(' ').trim(),
      text: (record.fields.get('W') ?? []).join('\n').trim(),
    }));
  const queries = parseSmart(readFileSync(path.join(directory, 'cran.qry'), 'utf8').replace(/\r\n/g, '\n'))
    .filter((record) => record.id !== '' && (record.fields.get('W') ?? []).join('').trim() !== '')
    .map((record) => (record.fields.get('W') ?? []).join(' ').replace(/\s+/g, ' ').trim());
  const qrels = queries.map(() => new Map<string, number>());
  for (const line of readFileSync(path.join(directory, 'cranqrel'), 'utf8').split('\n')) {
    const [query, doc, code] = line.trim().split(/\s+/);
    if (query === undefined || doc === undefined || code === undefined) continue;
    const gain = 5 - Number(code);
    const target = qrels[Number(query) - 1];
    if (target !== undefined && gain > 0 && gain <= 4) target.set(doc, Math.max(gain, target.get(doc) ?? 0));
  }
  return { docs, queries, qrels };
}

export interface SmartRecord {
  id: string;
  fields: Map<string, string[]>;
}

/** SMART format: `.I id`, then `.X` field markers each followed by text lines. Repeated fields append. */
export function parseSmart(text: string): SmartRecord[] {
  const records: SmartRecord[] = [];
  let current: SmartRecord | undefined;
  let field: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\.([A-Z])(?:\s+(.*))?$/.exec(line);
    if (marker !== null) {
      if (marker[1] === 'I') {
        current = { id: (marker[2] ?? '').trim(), fields: new Map() };
        records.push(current);
        field = undefined;
      } else {
        field = marker[1];
        if (current !== undefined && field !== undefined) {
          const list = current.fields.get(field) ?? [];
          current.fields.set(field, list);
          if (marker[2]) list.push(marker[2]);
        }
      }
      continue;
    }
    if (current !== undefined && field !== undefined) current.fields.get(field)!.push(line);
  }
  return records;
}

/** nDCG@k with linear graded gains (trec_eval style). */
export function ndcgAt(ranking: readonly string[], judged: Map<string, number>, k: number, binary = false): number {
  const gain = (doc: string): number => {
    const g = judged.get(doc) ?? 0;
    return binary ? (g > 0 ? 1 : 0) : g;
  };
  let dcg = 0;
  ranking.slice(0, k).forEach((doc, i) => {
    dcg += gain(doc) / Math.log2(i + 2);
  });
  const ideal = [...judged.keys()]
    .map(gain)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => {
    idcg += g / Math.log2(i + 2);
  });
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Average precision over the given ranking (every judged document counts as relevant). */
export function averagePrecision(ranking: readonly string[], judged: Map<string, number>): number {
  if (judged.size === 0) return 0;
  let found = 0;
  let sum = 0;
  ranking.forEach((doc, i) => {
    if (judged.has(doc)) {
      found++;
      sum += found / (i + 1);
    }
  });
  return sum / judged.size;
}

/** Share of the top k that is judged relevant. */
export function precisionAt(ranking: readonly string[], judged: Map<string, number>, k: number): number {
  return ranking.slice(0, k).filter((doc) => judged.has(doc)).length / k;
}

/** Share of the judged documents found in the top k. */
export function recallAt(ranking: readonly string[], judged: Map<string, number>, k: number): number {
  if (judged.size === 0) return 0;
  return ranking.slice(0, k).filter((doc) => judged.has(doc)).length / judged.size;
}
