import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Citation, Section } from '../../src/document/types.js';
import type { QueryHit } from '../../src/query/query.js';

/**
 * The spec questions (../shared/corpus/relevance/spec-questions): 60 questions about the dev
 * corpus's specs with judged sections. Scoring as its README says: a hit is relevant when its
 * citation's source URL is the judged URL and its section, its fragment, or a section containing it
 * is the judged section; a section judged in two renderings of one RFC is ONE judgement (the first
 * hit on either rendering is credited once, and it counts once in the ideal ranking). A collapsed
 * hit stands for the chunks listed under samePassage too. A qrels target without `#` judges a whole
 * document (a PDF without sections): any hit citing that source URL matches it.
 */
export interface SpecQuestion {
  id: string;
  type: string;
  text: string;
}

/** One judged section: its (URL, fragment) in each rendering that has one, and its grade. */
interface Judgement {
  places: Set<string>;
  grade: number;
}

export interface SpecQuestions {
  questions: SpecQuestion[];
  judgements: Map<string, Judgement[]>;
}

export function specQuestionsDirectory(repoRoot: string): string {
  return path.resolve(repoRoot, '../shared/corpus/relevance/spec-questions');
}

/** Secondary rendering -> primary rendering (NOTES.md lists the secondary ones). */
const SECONDARY: Record<string, string> = {
  'https://httpwg.org/specs/rfc9110.xml': 'https://httpwg.org/specs/rfc9110.html',
  'https://httpwg.org/specs/rfc6265.xml': 'https://httpwg.org/specs/rfc6265.html',
  'https://www.rfc-editor.org/rfc/rfc9001.xml': 'https://www.rfc-editor.org/rfc/rfc9001.html',
  'https://www.rfc-editor.org/rfc/rfc6787.xml': 'https://www.rfc-editor.org/rfc/rfc6787.txt',
  'https://www.rfc-editor.org/rfc/rfc6635.xml': 'https://www.rfc-editor.org/rfc/rfc6635.txt',
  'https://datatracker.ietf.org/doc/html/draft-west-webappsec-csp-reg-04':
    'https://www.ietf.org/archive/id/draft-west-webappsec-csp-reg-04.txt',
};

export function loadSpecQuestions(directory: string): SpecQuestions | undefined {
  if (!existsSync(path.join(directory, 'qrels.tsv'))) return undefined;
  const questions = readFileSync(path.join(directory, 'queries.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SpecQuestion);
  const judgements = new Map<string, Judgement[]>();
  let previous: { query: string; url: string; judgement: Judgement } | undefined;
  for (const line of readFileSync(path.join(directory, 'qrels.tsv'), 'utf8').split('\n')) {
    const [query, , target, grade] = line.trim().split(/\s+/);
    if (query === undefined || target === undefined || grade === undefined) continue;
    const url = target.includes('#') ? target.slice(0, target.indexOf('#')) : target;
    const list = judgements.get(query) ?? [];
    judgements.set(query, list);
    // A secondary rendering's line written right after its primary's (same query, same grade) is the same judgement.
    const primary = SECONDARY[url];
    if (
      primary !== undefined &&
      previous !== undefined &&
      previous.query === query &&
      previous.url === primary &&
      previous.judgement.grade === Number(grade)
    ) {
      for (const form of targetForms(target)) previous.judgement.places.add(form);
      previous = undefined;
      continue;
    }
    const judgement = { places: new Set(targetForms(target)), grade: Number(grade) };
    list.push(judgement);
    previous = { query, url, judgement };
  }
  return { questions, judgements };
}

/**
 * A judged `url#fragment` as written and with its fragment percent-decoded: a fragment names an id by
 * its decoded form too (HTML's "find a potential indicated element"), and a judge writes groff's
 * `<a name="KEY BINDINGS">` as `#KEY%20BINDINGS`, where a citation records the id itself.
 */
function targetForms(target: string): string[] {
  const at = target.indexOf('#');
  if (at < 0 || !target.includes('%', at)) return [target];
  try {
    return [target, `${target.slice(0, at)}#${decodeURIComponent(target.slice(at + 1))}`];
  } catch {
    return [target]; // not a well-formed percent-encoding: only the id as written
  }
}

/** Each document's sections by id (read from the workspace's evidence documents), for "a section containing it". */
export function readSections(workspaceRoot: string): Map<string, Map<string, Section>> {
  const byDocument = new Map<string, Map<string, Section>>();
  const specs = path.join(workspaceRoot, 'specs');
  for (const name of readdirSync(specs)) {
    if (!name.endsWith('.json') || name.startsWith('index')) continue;
    // An artifact envelope whose payload is the evidence document.
    const doc = (JSON.parse(readFileSync(path.join(specs, name), 'utf8')) as { payload?: { documentId?: string; sections?: Section[] } })
      .payload;
    if (doc?.documentId === undefined || doc.sections === undefined) continue;
    byDocument.set(doc.documentId, new Map(doc.sections.map((section) => [section.id, section])));
  }
  return byDocument;
}

/**
 * Every `url#id` the citation can be read as: its fragment, and its section's and each enclosing section's ids
 * (with the ids another rendering gives it: an RFC XML section without an anchor is `#section-5.7` in every
 * rendering of the XML); and the bare URL, which a whole-document judgement names.
 */
export function citationPlaces(citation: Citation, sections: Map<string, Map<string, Section>>): Set<string> {
  const places = new Set<string>([citation.sourceUrl]);
  if (citation.fragment !== null) places.add(`${citation.sourceUrl}#${citation.fragment}`);
  const ofDocument = sections.get(citation.documentId);
  let section = citation.sectionId === null ? undefined : ofDocument?.get(citation.sectionId);
  for (let depth = 0; section !== undefined && depth < 64; depth++) {
    for (const id of [section.id, section.fragment, ...(section.alternateIds ?? []), ...(section.derivedIds ?? [])])
      if (id !== null) places.add(`${citation.sourceUrl}#${id}`);
    section = section.parentId === null ? undefined : ofDocument?.get(section.parentId);
  }
  return places;
}

export interface SpecQuestionScore {
  /** Gains of the ranking (each judgement credited once), and the ideal gains. */
  gains: number[];
  ideal: number[];
  /** The rank-1 hit is a grade-2 section. */
  rank1: boolean;
  /** The rank-1 hit is a judged section (grade 1 or 2). */
  rank1Judged: boolean;
  /** A grade-2 section within the first three hits. */
  top3: boolean;
  /** The rank-1 hit is a grade-2 section and its snippet shows the question's words (answerVisible). */
  answerVisible: boolean;
}

/**
 * The rank-1 snippet "shows the answer" (a mechanical stand-in for reading it): the hit is a judged
 * grade-2 section and the snippet highlights at least half of the distinct question words that its
 * chunk's text holds (at least one), i.e. the window is where the question's words are, not a stray
 * mention of one of them.
 */
export function scoreSpecQuestion(
  hits: readonly QueryHit[],
  judged: readonly Judgement[],
  sections: Map<string, Map<string, Section>>,
  chunkTermsInText: (hit: QueryHit) => number,
  snippetTerms: (hit: QueryHit) => number,
): SpecQuestionScore {
  const credited = new Set<Judgement>();
  const gains = hits.slice(0, 10).map((hit) => {
    const places = new Set<string>();
    for (const citation of [hit.citation, ...(hit.samePassage ?? []).map((same) => same.citation)])
      for (const place of citationPlaces(citation, sections)) places.add(place);
    let best: Judgement | undefined;
    for (const judgement of judged) {
      if (credited.has(judgement) || ![...judgement.places].some((place) => places.has(place))) continue;
      if (best === undefined || judgement.grade > best.grade) best = judgement;
    }
    if (best === undefined) return 0;
    credited.add(best);
    return best.grade;
  });
  const ideal = judged.map((judgement) => judgement.grade).sort((a, b) => b - a);
  const rank1 = gains[0] === 2;
  const top3 = gains.slice(0, 3).includes(2);
  const first = hits[0];
  const inText = first === undefined ? 0 : chunkTermsInText(first);
  const answerVisible = rank1 && first !== undefined && inText > 0 && snippetTerms(first) * 2 >= inText;
  return { gains, ideal, rank1, rank1Judged: (gains[0] ?? 0) > 0, top3, answerVisible };
}

/** nDCG@10 from gains (linear gain, log2 discount); binary counts every gain as 1. */
export function ndcgOfGains(gains: readonly number[], ideal: readonly number[], binary: boolean): number {
  const g = (x: number): number => (binary ? (x > 0 ? 1 : 0) : x);
  const dcg = gains.slice(0, 10).reduce((sum, x, i) => sum + g(x) / Math.log2(i + 2), 0);
  const idcg = ideal.slice(0, 10).reduce((sum, x, i) => sum + g(x) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}
