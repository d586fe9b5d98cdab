/**
 * Relevance on the seven test collections of ../shared/corpus/relevance (Cranfield, CACM, MED,
 * LISA, ADI, TIME, CF) and on the spec questions (questions about the dev corpus's specs with
 * judged sections), Episteme measured the way a user runs it, next to four peers with their
 * defaults, all in one run over the same text (issue 30).
 *
 * Episteme: each document is written as a plain-text file (title on the first line, a blank line,
 * the text; a collection without titles: the text alone), a manual-ingest map names them, the
 * built CLI builds the workspace (`node bin/episteme.cjs pipeline --map map.json`), and every
 * question is ranked by the code `episteme query` runs over the search index opened as the CLI opens
 * it (rankChunks, which is runQuery without the snippets the metrics do not need; the spec questions
 * go through runQuery itself, snippets and citations included). A document ranks at its best chunk.
 * Peers: lunr 2, MiniSearch 7, SQLite FTS5 (porter unicode61, bm25()) and wink-bm25-text-search
 * (its README's pipeline: wink-nlp words, stop words removed, stems), over the same title + text.
 *
 * Reports per collection nDCG@10 (binary, and graded where the judgements are: Cranfield, CF),
 * MAP (depth 1000), P@10 and R@100; for the spec questions nDCG@10 (graded and binary, renderings of
 * one RFC counted once), the share with a grade-2 section at rank 1 and in the top 3, and for
 * Episteme the share whose rank-1 snippet shows the answer (spec-questions.ts says how that is
 * decided). Ends with the summary the issue's goals read: binary nDCG@10 per set and engine, and the
 * mean over the eight sets.
 *
 *   npm run build && nice node dist/bench/relevance.js            # everything (~5 minutes on 2 cores)
 *   node dist/bench/relevance.js --only=ADI,CACM,spec            # some sets
 *   node dist/bench/relevance.js --quick                          # the CI smoke run: ADI and a slice of Cranfield
 *   node dist/bench/relevance.js --prf                            # adds Episteme with --expand
 *   node dist/bench/relevance.js --keep-workspaces=/tmp/ws        # reuse built workspaces (query-time changes only)
 *   node dist/bench/relevance.js --no-peers                       # Episteme alone (while iterating)
 *   node dist/bench/relevance.js --only=spec --misses             # the spec questions Episteme misses at rank 1, with their first hits
 *   node dist/bench/relevance.js --only=spec --spec-questions=DIR # other questions about the dev corpus, in the same format
 *   node dist/bench/relevance.js --only=spec --spec-questions=DIR --spec-corpus=CORPUS
 *                                                                 # questions about another corpus (CORPUS/manual-ingest.json)
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type MiniSearchClass from 'minisearch';
import type lunrFunction from 'lunr';
import type DatabaseClass from 'better-sqlite3';
import type { Citation } from '../src/document/types.js';
import { chunkRow, readRows, type LoadedSearchIndex } from '../src/index/index-reader.js';
import { stemPrefix, tokenizeWithOffsets } from '../src/index/tokenizer.js';
import { rankChunks, runQuery, type QueryHit } from '../src/query/query.js';
import { parseQueryTerms } from '../src/query/query-terms.js';
import { citedFragment } from '../src/query/citation-choice.js';
import { expandQuery, FEEDBACK_CHUNKS } from '../src/query/feedback.js';
import { optionalPackage } from './optional.js';
import { loadCollections, relevanceDirectory, type Collection } from './retrieval/collections.js';
import { averagePrecision, ndcgAt, precisionAt, recallAt } from './retrieval/cranfield.js';
import { devCorpusDirectory, devCorpusEntries } from './retrieval/dev-corpus.js';
import {
  loadSpecQuestions,
  ndcgOfGains,
  readSections,
  scoreSpecQuestion,
  specQuestionsDirectory,
  type SpecQuestionScore,
} from './retrieval/spec-questions.js';
import { buildWorkspace, plainTextFile, type BuiltWorkspace } from './retrieval/workspace.js';

const DEPTH = 1000;
/** --keep-workspaces=DIR: build each workspace once into DIR and reuse it (query-time changes only; workspace.ts). */
const keepWorkspaces = process.argv.find((arg) => arg.startsWith('--keep-workspaces='))?.slice('--keep-workspaces='.length);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** --spec-questions=DIR: questions about the dev corpus in spec-questions' format (a held-out set) instead of the shared ones. */
const specQuestionsArgument = process.argv.find((arg) => arg.startsWith('--spec-questions='))?.slice('--spec-questions='.length);
const specDirectory = specQuestionsArgument === undefined ? specQuestionsDirectory(repoRoot) : path.resolve(specQuestionsArgument);
/**
 * --spec-corpus=DIR: the corpus those questions are about, a folder holding a manual-ingest.json whose
 * localPaths are relative to it (default: the dev corpus). For questions about documents the dev
 * corpus does not have; the files are read where they lie.
 */
const specCorpusArgument = process.argv.find((arg) => arg.startsWith('--spec-corpus='))?.slice('--spec-corpus='.length);
const require = createRequire(import.meta.url);

/** What every engine indexes: a unit (document, or for the spec questions a chunk) with its title and text. */
interface Unit {
  id: string;
  title: string;
  text: string;
}
type Search = (query: string) => string[];
type Engine = (units: readonly Unit[]) => Search;

const unitText = (unit: Unit): string => (unit.title === '' ? unit.text : `${unit.title}\n\n${unit.text}`);
/** A question as typed into `--term` or a search box: double quotes would make Episteme's words required phrases. */
const plain = (query: string): string => query.replaceAll('"', ' ');

const MiniSearch = optionalPackage<typeof MiniSearchClass>('minisearch', 'the MiniSearch baseline');
const lunr = optionalPackage<typeof lunrFunction>('lunr', 'the lunr baseline');
const Database = optionalPackage<typeof DatabaseClass>('better-sqlite3', 'the SQLite FTS5 baseline');
const winkBm25 = optionalPackage<() => WinkEngine>('wink-bm25-text-search', 'the wink-bm25-text-search baseline');

interface WinkEngine {
  defineConfig(config: { fldWeights: Record<string, number> }): void;
  definePrepTasks(tasks: ((text: string) => string[])[]): void;
  addDoc(doc: Record<string, string>, id: string): void;
  consolidate(): void;
  search(text: string, limit?: number): [string, number][];
}

const miniSearch: Engine = (units) => {
  const index = new MiniSearch!<{ id: string; text: string }>({ fields: ['text'] });
  index.addAll(units.map((unit) => ({ id: unit.id, text: unitText(unit) })));
  return (query) =>
    index
      .search(plain(query))
      .slice(0, DEPTH)
      .map((result) => String(result.id));
};

const lunrEngine: Engine = (units) => {
  const index = lunr!(function () {
    this.ref('id');
    this.field('text');
    for (const unit of units) this.add({ id: unit.id, text: unitText(unit) });
  });
  // Query through the builder: lunr's query-string syntax would treat ':' '-' '+' '~' as operators.
  return (query) => {
    try {
      return index
        .query((q) => {
          q.term(lunr!.tokenizer(plain(query)), {});
        })
        .slice(0, DEPTH)
        .map((result) => result.ref);
    } catch (error) {
      // lunr 2 fails inside its own index on some terms (its inverted index is a plain object): as a
      // user of lunr would, this query gets no results.
      console.log(`  (lunr failed on ${JSON.stringify(query.slice(0, 80))}: ${error instanceof Error ? error.message : String(error)})`);
      return [];
    }
  };
};

const fts5: Engine = (units) => {
  const db = new Database!(':memory:');
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = 'porter unicode61')");
  const insert = db.prepare('INSERT INTO docs(rowid, text) VALUES (?, ?)');
  db.transaction(() => {
    units.forEach((unit, i) => {
      insert.run(i + 1, unitText(unit));
    });
  })();
  const search = db.prepare('SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?');
  return (query) => {
    const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (words.length === 0) return [];
    const match = words.map((word) => `"${word}"`).join(' OR ');
    return (search.all(match, DEPTH) as { rowid: number }[]).map((row) => units[row.rowid - 1]!.id);
  };
};

/** wink-bm25-text-search as its README sets it up: one field, wink-nlp's words without stop words, stemmed, negations marked. */
const wink: Engine = (units) => {
  const winkNLP = require('wink-nlp') as (model: unknown) => WinkNlp;
  const nlp = winkNLP(require('wink-eng-lite-web-model'));
  const its = nlp.its;
  const prepare = (text: string): string[] => {
    const tokens: string[] = [];
    nlp
      .readDoc(text)
      .tokens()
      .filter((t) => t.out(its.type) === 'word' && !t.out(its.stopWordFlag))
      .each((t) => tokens.push(t.out(its.negationFlag) ? `!${String(t.out(its.stem))}` : String(t.out(its.stem))));
    return tokens;
  };
  const engine = winkBm25!();
  engine.defineConfig({ fldWeights: { text: 1 } });
  engine.definePrepTasks([prepare]);
  for (const unit of units) engine.addDoc({ text: unitText(unit) }, unit.id);
  engine.consolidate();
  return (query) => engine.search(plain(query), DEPTH).map(([id]) => String(id));
};
interface WinkToken {
  out(what: unknown): unknown;
}
interface WinkNlp {
  its: { type: unknown; stopWordFlag: unknown; negationFlag: unknown; stem: unknown };
  readDoc(text: string): {
    tokens(): { filter(keep: (t: WinkToken) => boolean): { each(f: (t: WinkToken) => void): void } };
  };
}

const PEERS: [string, Engine][] = process.argv.includes('--no-peers')
  ? []
  : [
      ...(lunr ? [['lunr 2', lunrEngine] as [string, Engine]] : []),
      ...(MiniSearch ? [['minisearch 7', miniSearch] as [string, Engine]] : []),
      ...(Database ? [['sqlite fts5 porter', fts5] as [string, Engine]] : []),
      ...(winkBm25 ? [['wink-bm25-text-search', wink] as [string, Engine]] : []),
    ];

/** Episteme over a built workspace: documents in rank order of their best chunk (collapsed same-passage chunks follow their hit). */
function epistemeSearch(index: LoadedSearchIndex, idOf: (sourceUrl: string) => string, expand: boolean): Search {
  return (query) => {
    let parsed = parseQueryTerms([plain(query)]);
    if (expand) parsed = expandQuery(index, parsed, rankChunks(index, parsed, () => true, FEEDBACK_CHUNKS, true).top);
    const ranking = rankChunks(index, parsed, () => true, DEPTH, true);
    const seen = new Set<string>();
    for (const entry of ranking.top)
      for (const ordinal of [entry.ordinal, ...entry.samePassage]) seen.add(idOf(index.documents[index.chunkDocument[ordinal]!]![1]));
    return [...seen].slice(0, DEPTH);
  };
}

interface Row {
  engine: string;
  ndcg10: number;
  ndcg10Binary: number;
  map: number;
  p10: number;
  r100: number;
  buildMs: number;
  queryMs: number;
}

function evaluate(engine: string, build: () => Search, collection: Collection): Row {
  let started = performance.now();
  const search = build();
  const buildMs = performance.now() - started;
  started = performance.now();
  const sums = { ndcg10: 0, ndcg10Binary: 0, map: 0, p10: 0, r100: 0 };
  collection.queries.forEach((query, i) => {
    const ranking = search(query);
    const judged = collection.qrels[i]!;
    sums.ndcg10 += ndcgAt(ranking, judged, 10);
    sums.ndcg10Binary += ndcgAt(ranking, judged, 10, true);
    sums.map += averagePrecision(ranking, judged);
    sums.p10 += precisionAt(ranking, judged, 10);
    sums.r100 += recallAt(ranking, judged, 100);
  });
  const n = collection.queries.length;
  return {
    engine,
    ndcg10: sums.ndcg10 / n,
    ndcg10Binary: sums.ndcg10Binary / n,
    map: sums.map / n,
    p10: sums.p10 / n,
    r100: sums.r100 / n,
    buildMs,
    queryMs: performance.now() - started,
  };
}

const f4 = (x: number): string => x.toFixed(4);

function printRows(rows: Row[], graded: boolean): void {
  console.log(`engine                      ${graded ? 'nDCG@10  ' : ''}nDCG@10(bin)  MAP     P@10    R@100   build ms  queries ms`);
  for (const row of rows) {
    const cells = [
      row.engine.padEnd(28),
      graded ? f4(row.ndcg10).padEnd(9) : '',
      f4(row.ndcg10Binary).padEnd(14),
      f4(row.map).padEnd(8),
      f4(row.p10).padEnd(8),
      f4(row.r100).padEnd(8),
      row.buildMs.toFixed(0).padStart(8),
      '  ',
      row.queryMs.toFixed(0).padStart(10),
    ];
    console.log(cells.join(''));
  }
}

function runCollection(collection: Collection, withPrf: boolean): Row[] {
  const judgements = collection.qrels.reduce((n, q) => n + q.size, 0);
  console.log(
    `\n${collection.name}: ${collection.docs.length} documents, ${collection.queries.length} judged queries, ${judgements} judgements` +
      `${collection.graded ? ' (graded)' : ''}; MAP depth ${DEPTH}`,
  );
  const slug = collection.name.split(' ')[0]!.toLowerCase();
  const base = `https://relevance.example/${slug}/`;
  let workspace: BuiltWorkspace | undefined;
  const buildEpisteme = (): Search => {
    workspace = buildWorkspace(
      repoRoot,
      slug,
      collection.docs.map((doc) => ({
        sourceUrl: `${base}${doc.id}`,
        localPath: `docs/${doc.id}.txt`,
        contentType: 'text/plain',
        text: plainTextFile(doc.title, doc.text),
      })),
      keepWorkspaces,
    );
    return epistemeSearch(workspace.index, (url) => url.slice(base.length), false);
  };
  const rows = [evaluate('episteme (CLI build)', buildEpisteme, collection)];
  if (withPrf && workspace !== undefined) {
    const index = workspace.index;
    rows.push(evaluate('episteme --expand', () => epistemeSearch(index, (url) => url.slice(base.length), true), collection));
  }
  workspace?.dispose();
  for (const [name, engine] of PEERS) rows.push(evaluate(name, () => engine(collection.docs), collection));
  printRows(rows, collection.graded);
  return rows;
}

/** --misses: each spec question whose rank-1 hit is not a grade-2 section, with its first hits (where ranking work should look). */
const showMisses = process.argv.includes('--misses');
/** --per-question: each spec question's nDCG@10 per engine, where Episteme is below the best peer (where a peer wins). */
const perQuestion = process.argv.includes('--per-question');
const perQuestionRows: { engine: string; id: string; ndcg: number }[] = [];

function printMiss(id: string, text: string, hits: readonly QueryHit[], gains: readonly number[]): void {
  const firstAnswer = gains.indexOf(2);
  console.log(`miss ${id} (grade 2 at ${firstAnswer < 0 ? 'none of the first 10' : `rank ${firstAnswer + 1}`}): ${text}`);
  hits.slice(0, Math.max(3, firstAnswer + 1)).forEach((hit, i) => {
    const citation = hit.citation;
    const fragment = citation.fragment === null ? ' (no fragment)' : `#${citation.fragment}`;
    const heading = citation.headingPath.at(-1) ?? '';
    console.log(`  ${hit.rank}. grade ${gains[i] ?? 0}  ${hit.score}  ${citation.sourceUrl}${fragment}  ${heading}`);
  });
}

interface SpecRow {
  engine: string;
  ndcg10: number;
  ndcg10Binary: number;
  rank1: number;
  rank1Judged: number;
  top3: number;
  answerVisible?: number;
}

/** The spec questions over a workspace built from the dev corpus's manual-ingest map (files read in place). */
function runSpecQuestions(): SpecRow[] | undefined {
  const questions = loadSpecQuestions(specDirectory);
  const devDirectory = specCorpusArgument === undefined ? devCorpusDirectory(repoRoot) : path.resolve(specCorpusArgument);
  const entries = devCorpusEntries(devDirectory);
  if (questions === undefined || entries === undefined) {
    console.log(`SKIP: spec questions: ${specDirectory} or ${devDirectory} not found (../shared is absent).`);
    return undefined;
  }
  const judgedCount = [...questions.judgements.values()].reduce((n, list) => n + list.length, 0);
  console.log(
    `\nspec questions (${specDirectory}): ${questions.questions.length} questions over ${devDirectory} (${entries.length} sources), ` +
      `${judgedCount} judged sections (renderings of one RFC counted once)`,
  );
  const started = performance.now();
  const workspace = buildWorkspace(
    repoRoot,
    'spec-questions',
    entries.map((entry) => ({ ...entry, localPath: path.join(devDirectory, entry.localPath) })),
    keepWorkspaces,
  );
  const buildMs = performance.now() - started;
  const index = workspace.index;
  const sections = readSections(workspace.root);
  // Every chunk with its citation (the peers index chunks: heading path + text, cited as the chunk cites).
  const ordinals = Array.from({ length: index.chunkCount }, (_, i) => i);
  readRows(index, ordinals);
  const citations: Citation[] = [];
  const units: Unit[] = ordinals.map((ordinal) => {
    const [, sectionId, headingPath, blockIds, fragment, , pages, , , text] = chunkRow(index, ordinal);
    const doc = index.documents[index.chunkDocument[ordinal]!]!;
    // A peer gives no match offset: its hit cites the chunk's own fragment, or a PDF chunk's first page.
    citations.push({
      sourceUrl: doc[1],
      fragment: citedFragment(null, fragment, 0, pages),
      snapshotId: doc[2],
      documentId: doc[0],
      sectionId,
      headingPath,
      blockIds,
    });
    return { id: String(ordinal), title: headingPath.join(' / '), text: text };
  });
  const termsOf = (text: string, terms: ReadonlySet<string>): number =>
    new Set(
      tokenizeWithOffsets(text, [...terms].map(stemPrefix))
        .map((span) => span.term)
        .filter((term) => terms.has(term)),
    ).size;
  const score = (engine: string, hitsOf: (question: string) => QueryHit[], snippets: boolean): SpecRow => {
    const scores: SpecQuestionScore[] = [];
    for (const question of questions.questions) {
      const terms = new Set(parseQueryTerms([plain(question.text)]).scoringTerms);
      const hits = hitsOf(question.text);
      const scored = scoreSpecQuestion(
        hits,
        questions.judgements.get(question.id) ?? [],
        sections,
        (hit) => termsOf(chunkRow(index, ordinalOf.get(hit.chunkId)!)[9], terms),
        (hit) => termsOf(hit.snippet.text, terms),
      );
      scores.push(scored);
      if (perQuestion) perQuestionRows.push({ engine, id: question.id, ndcg: ndcgOfGains(scored.gains, scored.ideal, false) });
      if (showMisses && snippets && !scored.rank1) printMiss(question.id, question.text, hits, scored.gains);
    }
    const n = scores.length;
    const share = (key: 'rank1' | 'rank1Judged' | 'top3' | 'answerVisible'): number => scores.filter((s) => s[key]).length / n;
    return {
      engine,
      ndcg10: scores.reduce((sum, s) => sum + ndcgOfGains(s.gains, s.ideal, false), 0) / n,
      ndcg10Binary: scores.reduce((sum, s) => sum + ndcgOfGains(s.gains, s.ideal, true), 0) / n,
      rank1: share('rank1'),
      rank1Judged: share('rank1Judged'),
      top3: share('top3'),
      ...(snippets ? { answerVisible: share('answerVisible') } : {}),
    };
  };
  const ordinalOf = new Map(ordinals.map((ordinal) => [chunkRow(index, ordinal)[0], ordinal]));
  const rows: SpecRow[] = [
    score(
      'episteme (CLI build)',
      (question) => runQuery(index, { terms: [plain(question)], limit: 10, offset: 0, maxSnippetChars: 400, maxTotalChars: 8000 }).hits,
      true,
    ),
  ];
  console.log(`(workspace built by the CLI in ${(buildMs / 1000).toFixed(1)} s: ${index.chunkCount} chunks)`);
  for (const [name, engine] of PEERS) {
    const search = engine(units);
    // A peer's hit: the chunk it ranks, cited as Episteme cites that chunk (no snippet: rank only).
    const asHit = (id: string): QueryHit =>
      ({ chunkId: chunkRow(index, Number(id))[0], citation: citations[Number(id)]!, snippet: { text: '' } }) as unknown as QueryHit;
    rows.push(score(name, (question) => search(question).slice(0, 10).map(asHit), false));
  }
  workspace.dispose();
  console.log('engine                      nDCG@10  nDCG@10(bin)  rank-1 §  rank-1 any  top-3 §  answer in rank-1 snippet');
  for (const row of rows) {
    console.log(
      [
        row.engine.padEnd(28),
        f4(row.ndcg10).padEnd(9),
        f4(row.ndcg10Binary).padEnd(14),
        `${(row.rank1 * 100).toFixed(0)}%`.padEnd(10),
        `${(row.rank1Judged * 100).toFixed(0)}%`.padEnd(12),
        `${(row.top3 * 100).toFixed(0)}%`.padEnd(9),
        row.answerVisible === undefined ? '-' : `${(row.answerVisible * 100).toFixed(0)}%`,
      ].join(''),
    );
  }
  if (perQuestion) printPerQuestion(rows.map((row) => row.engine));
  return rows;
}

/**
 * --per-question: the questions where a peer's nDCG@10 is above Episteme's, with every engine's; with
 * --no-peers, every question's (to compare two builds question by question).
 */
function printPerQuestion(engines: string[]): void {
  const byQuestion = new Map<string, Map<string, number>>();
  for (const row of perQuestionRows) {
    const scores = byQuestion.get(row.id) ?? new Map<string, number>();
    scores.set(row.engine, row.ndcg);
    byQuestion.set(row.id, scores);
  }
  const all = engines.length === 1;
  console.log(`per question${all ? '' : ', where a peer is above Episteme'} (nDCG@10: ${engines.map((e) => e.split(' ')[0]).join(', ')})`);
  for (const [id, scores] of byQuestion) {
    const own = scores.get(engines[0]!) ?? 0;
    if (!all && engines.slice(1).every((engine) => (scores.get(engine) ?? 0) <= own)) continue;
    console.log(`  ${id.padEnd(8)} ${engines.map((engine) => f4(scores.get(engine) ?? 0)).join('  ')}`);
  }
  perQuestionRows.length = 0;
}

function main(): void {
  const withPrf = process.argv.includes('--prf');
  // --quick (the CI smoke run): ADI whole and Cranfield's first 400 documents and 25 queries; the numbers are not the goal's.
  const quick = process.argv.includes('--quick');
  const only = process.argv
    .find((arg) => arg.startsWith('--only='))
    ?.slice('--only='.length)
    .toLowerCase()
    .split(',');
  const directory = relevanceDirectory(repoRoot);
  const summary: [string, number[], string[]][] = [];
  for (const [name, loaded] of loadCollections(directory)) {
    if (quick && name !== 'ADI' && name !== 'Cranfield') continue;
    if (only !== undefined && !only.includes(name.toLowerCase())) continue;
    if (loaded === undefined) {
      console.log(`SKIP: ${name}: collection not found under ${directory} (../shared is absent).`);
      continue;
    }
    const collection =
      quick && name === 'Cranfield'
        ? {
            ...loaded,
            name: 'Cranfield (quick: 400 documents, 25 queries)',
            docs: loaded.docs.slice(0, 400),
            queries: loaded.queries.slice(0, 25),
            qrels: loaded.qrels.slice(0, 25),
          }
        : loaded;
    const rows = runCollection(collection, withPrf);
    summary.push([collection.name, rows.map((row) => row.ndcg10Binary), rows.map((row) => row.engine)]);
  }
  if (!quick && (only === undefined || only.includes('spec'))) {
    const rows = runSpecQuestions();
    if (rows !== undefined) summary.push(['spec questions', rows.map((row) => row.ndcg10), rows.map((row) => row.engine)]);
  }
  if (summary.length === 0) return;
  // The goal's table: binary nDCG@10 (spec questions: graded, renderings counted once), Episteme against the best peer.
  const engines = summary[0]![2];
  console.log(`\nSummary: nDCG@10 (binary; spec questions graded)`);
  // Without peers (--no-peers) there is nothing to compare with: the values alone.
  if (!engines.some((engine) => !engine.startsWith('episteme'))) {
    for (const [name, values] of summary) console.log(`${name.padEnd(48)}${values.map((value) => f4(value).padEnd(12)).join('')}`);
    const mean = summary.reduce((sum, [, values]) => sum + values[0]! / summary.length, 0);
    console.log(`${'mean'.padEnd(48)}${f4(mean)}`);
    return;
  }
  console.log(`${'set'.padEnd(48)}${engines.map((engine) => engine.slice(0, 11).padEnd(12)).join('')}best peer   Episteme - best`);
  const means = engines.map(() => 0);
  let atOrAbove = 0;
  for (const [name, values, names] of summary) {
    const peers = values.map((value, i) => [value, names[i]!] as const).filter(([, engine]) => !engine.startsWith('episteme'));
    const best = peers.reduce((a, b) => (b[0] > a[0] ? b : a), [-1, ''] as readonly [number, string]);
    const margin = values[0]! - best[0];
    if (margin >= 0) atOrAbove++;
    values.forEach((value, i) => {
      means[i] = means[i]! + value / summary.length;
    });
    console.log(
      `${name.padEnd(48)}${values.map((value) => f4(value).padEnd(12)).join('')}${best[1].slice(0, 11).padEnd(12)}` +
        `${margin >= 0 ? '+' : ''}${f4(margin)}`,
    );
  }
  const bestMean = Math.max(...means.filter((_, i) => !engines[i]!.startsWith('episteme')));
  console.log(
    `${'mean'.padEnd(48)}${means.map((value) => f4(value).padEnd(12)).join('')}${''.padEnd(12)}` +
      `${means[0]! - bestMean >= 0 ? '+' : ''}${f4(means[0]! - bestMean)}`,
  );
  console.log(`Episteme at or above the best peer on ${atOrAbove} of ${summary.length} sets; mean nDCG@10 ${f4(means[0]!)}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
