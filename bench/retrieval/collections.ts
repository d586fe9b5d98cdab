import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadCacm } from './cacm.js';
import { loadCranfield, parseSmart, type CranfieldCollection } from './cranfield.js';

/**
 * The seven test collections of ../shared/corpus/relevance, read where they lie, each in one shape:
 * documents (id, title, text; title '' where the collection has none), queries in file order and
 * per query the judged documents with their gain. The pitfalls of each (its README) are handled here:
 * CRLF line ends (MED, ADI, LISA), LISA's corrupted LISA.REL (LISARJ.NUM is read) and its doubled
 * documents 1998-2001 (kept once), TIME's judgements keyed by position (derived/ keys them by *TEXT
 * number), CF's four judges per judgement (gain = the sum of their 0/1/2 grades).
 */
export interface Collection extends CranfieldCollection {
  name: string;
  /** Gains above 1 mean something (graded nDCG is reported). */
  graded: boolean;
}

export function relevanceDirectory(repoRoot: string): string {
  return path.resolve(repoRoot, '../shared/corpus/relevance');
}

const read = (file: string): string => readFileSync(file, 'utf8').replace(/\r\n?/g, '\n');
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** Lines with their trailing blanks removed (the collections pad lines to 80 columns). */
const lines = (parts: readonly string[]): string =>
  parts
    .join('\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();

function qrelsFromPairs(queryCount: number, pairs: Iterable<[query: number, doc: string, gain: number]>): Map<string, number>[] {
  const qrels = Array.from({ length: queryCount }, () => new Map<string, number>());
  for (const [query, doc, gain] of pairs) {
    const target = qrels[query - 1];
    if (target !== undefined && gain > 0) target.set(doc, Math.max(gain, target.get(doc) ?? 0));
  }
  return qrels;
}

/** Queries without a judgement are dropped (with their qrels slot). */
function judgedOnly(collection: Collection): Collection {
  const keep = collection.qrels.map((judged) => judged.size > 0);
  return {
    ...collection,
    queries: collection.queries.filter((_, i) => keep[i]),
    qrels: collection.qrels.filter((_, i) => keep[i]),
  };
}

function loadMed(directory: string): Collection | undefined {
  if (!existsSync(path.join(directory, 'MED.ALL'))) return undefined;
  const docs = parseSmart(read(path.join(directory, 'MED.ALL'))).map((record) => ({
    id: record.id,
    title: '',
    text: lines(record.fields.get('W') ?? []),
  }));
  const queries = parseSmart(read(path.join(directory, 'MED.QRY'))).map((record) => oneLine((record.fields.get('W') ?? []).join(' ')));
  const pairs = read(path.join(directory, 'MED.REL'))
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length >= 4)
    .map(([query, , doc, gain]) => [Number(query), doc!, Number(gain)] as [number, string, number]);
  return judgedOnly({ name: 'MED', graded: false, docs, queries, qrels: qrelsFromPairs(queries.length, pairs) });
}

function loadAdi(directory: string): Collection | undefined {
  if (!existsSync(path.join(directory, 'ADI.ALL'))) return undefined;
  const docs = parseSmart(read(path.join(directory, 'ADI.ALL'))).map((record) => ({
    id: record.id,
    title: oneLine((record.fields.get('T') ?? []).join(' ')),
    text: lines(record.fields.get('W') ?? []),
  }));
  const queries = parseSmart(read(path.join(directory, 'ADI.QRY'))).map((record) => oneLine((record.fields.get('W') ?? []).join(' ')));
  const pairs = read(path.join(directory, 'ADI.REL'))
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length >= 2 && cells[0] !== '')
    .map(([query, doc]) => [Number(query), String(Number(doc)), 1] as [number, string, number]);
  return judgedOnly({ name: 'ADI', graded: false, docs, queries, qrels: qrelsFromPairs(queries.length, pairs) });
}

function loadLisa(directory: string): Collection | undefined {
  if (!existsSync(path.join(directory, 'LISARJ.NUM'))) return undefined;
  const files = readdirSync(directory)
    .filter((name) => /^LISA\d\.\d{3}$/.test(name))
    .sort();
  const docs: Collection['docs'] = [];
  const seen = new Set<string>();
  for (const file of files) {
    for (const record of read(path.join(directory, file)).split(/^\*{10,}\s*$/m)) {
      const match = /^\s*Document\s+(\d+)\s*\n([\s\S]*)$/.exec(record);
      if (match === null) continue;
      const id = String(Number(match[1]));
      if (seen.has(id)) continue; // 1998-2001 appear twice in LISA1.501
      seen.add(id);
      // Title lines up to the first blank line, then the abstract.
      const body = match[2]!.replace(/^\n+/, '');
      const blank = body.search(/\n\s*\n/);
      const title = blank < 0 ? body : body.slice(0, blank);
      const text = blank < 0 ? '' : body.slice(blank);
      docs.push({ id, title: oneLine(title), text: lines([text]) });
    }
  }
  const queries: string[] = [];
  for (const block of read(path.join(directory, 'LISA.QUE')).split('#')) {
    const match = /^\s*(\d+)\s*\n([\s\S]*)$/.exec(block);
    if (match === null) continue;
    queries[Number(match[1]) - 1] = oneLine(match[2]!);
  }
  const numbers = read(path.join(directory, 'LISARJ.NUM')).trim().split(/\s+/).map(Number);
  const pairs: [number, string, number][] = [];
  for (let i = 0; i < numbers.length; ) {
    const query = numbers[i]!;
    const count = numbers[i + 1]!;
    for (let j = 0; j < count; j++) pairs.push([query, String(numbers[i + 2 + j]!), 1]);
    i += 2 + count;
  }
  return judgedOnly({
    name: 'LISA',
    graded: false,
    docs,
    queries: [...queries].map((q) => q ?? ''),
    qrels: qrelsFromPairs(queries.length, pairs),
  });
}

function loadTime(directory: string): Collection | undefined {
  const qrelsFile = path.join(directory, 'derived/TIME.qrels_by_TEXT_number');
  if (!existsSync(path.join(directory, 'TIME.ALL')) || !existsSync(qrelsFile)) return undefined;
  const docs: Collection['docs'] = [];
  for (const record of read(path.join(directory, 'TIME.ALL'))
    .split(/^\*TEXT\s+/m)
    .slice(1)) {
    const [head, ...rest] = record.split('\n');
    const id = String(Number(head!.trim().split(/\s+/)[0]));
    // Lines are separated by blank lines in the distribution: one line each, the article one paragraph.
    const text = rest
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('*STOP'))
      .join('\n');
    docs.push({ id, title: '', text });
  }
  const queries: string[] = [];
  for (const block of read(path.join(directory, 'TIME.QUE'))
    .split(/^\*FIND\s+/m)
    .slice(1)) {
    const [head, ...rest] = block.split('\n');
    queries[Number(head!.trim()) - 1] = oneLine(rest.join(' ').replace(/\*STOP/g, ''));
  }
  const pairs = read(qrelsFile)
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length >= 4)
    .map(([query, , doc, gain]) => [Number(query), String(Number(doc)), Number(gain)] as [number, string, number]);
  return judgedOnly({
    name: 'TIME',
    graded: false,
    docs,
    queries: [...queries].map((q) => q ?? ''),
    qrels: qrelsFromPairs(queries.length, pairs),
  });
}

/** CF's tagged records: a two-letter tag at column 0 starts a field, indented lines continue it. */
function taggedRecords(text: string, first: string): Map<string, string[]>[] {
  const records: Map<string, string[]>[] = [];
  let current: Map<string, string[]> | undefined;
  let tag: string | undefined;
  for (const line of text.split('\n')) {
    const match = /^([A-Z]{2}) (.*)$/.exec(line);
    if (match !== null) {
      tag = match[1]!;
      if (tag === first) {
        current = new Map();
        records.push(current);
      }
      current?.set(tag, [...(current.get(tag) ?? []), match[2]!]);
    } else if (current !== undefined && tag !== undefined && /^\s/.test(line)) current.get(tag)!.push(line.trim());
  }
  return records;
}

function loadCf(directory: string): Collection | undefined {
  if (!existsSync(path.join(directory, 'cfquery'))) return undefined;
  const docs: Collection['docs'] = [];
  for (const file of ['cf74', 'cf75', 'cf76', 'cf77', 'cf78', 'cf79']) {
    for (const record of taggedRecords(read(path.join(directory, file)), 'PN')) {
      const id = record.get('RN')?.[0]?.trim();
      if (id === undefined) continue;
      docs.push({
        id: String(Number(id)),
        title: oneLine((record.get('TI') ?? []).join(' ')),
        text: lines(record.get('AB') ?? record.get('EX') ?? []),
      });
    }
  }
  const queries: string[] = [];
  const pairs: [number, string, number][] = [];
  for (const record of taggedRecords(read(path.join(directory, 'cfquery')), 'QN')) {
    queries.push(oneLine((record.get('QU') ?? []).join(' ')));
    const cells = (record.get('RD') ?? []).join(' ').trim().split(/\s+/);
    for (let i = 0; i + 1 < cells.length; i += 2) {
      const gain = [...cells[i + 1]!].reduce((sum, digit) => sum + Number(digit), 0);
      pairs.push([queries.length, String(Number(cells[i])), gain]);
    }
  }
  return judgedOnly({ name: 'CF', graded: true, docs, queries, qrels: qrelsFromPairs(queries.length, pairs) });
}

/** The seven collections in the README's order (undefined where absent). */
export function loadCollections(directory: string): [string, Collection | undefined][] {
  const named = (name: string, graded: boolean, collection: CranfieldCollection | undefined): Collection | undefined =>
    collection && { name, graded, ...collection };
  return [
    ['Cranfield', named('Cranfield', true, loadCranfield(path.join(directory, 'cranfield')))],
    ['CACM', named('CACM', false, loadCacm(path.join(directory, 'cacm')))],
    ['MED', loadMed(path.join(directory, 'med'))],
    ['LISA', loadLisa(path.join(directory, 'lisa'))],
    ['ADI', loadAdi(path.join(directory, 'adi'))],
    ['TIME', loadTime(path.join(directory, 'time'))],
    ['CF', loadCf(path.join(directory, 'cf'))],
  ];
}
