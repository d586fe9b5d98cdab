import type { Block, EvidenceDocument } from '../document/types.js';

/** Block kinds a summary is written in: a table of members, a contents list. */
const SUMMARY_KINDS = new Set(['table', 'list', 'definition-list']);
/** Links to other sections a block needs before it is read as a summary of them. */
const MIN_SUMMARY_LINKS = 3;
/** The share of a section's text that its summaries must make up for the section to be one. */
const SUMMARY_SHARE = 0.8;

/**
 * The sections of a document that summarise its other sections: all but a little of their text is
 * tables and lists whose links go to other sections of the same document, about one a line (Doxygen's
 * and qdoc's member tables, Javadoc's method summary, a page's own contents list). A question about a
 * member matches its one-line summary as well as its entry, and the summary, dense with member names,
 * ranked above the entry that answers. Like a table of contents, they are the document's apparatus:
 * a query weighs their matches less (chunker.ts, query/ranking.ts APPARATUS_WEIGHT).
 */
/** The key summarySections gives the blocks before the document's first section. */
export const PREAMBLE = '';

export function summarySections(doc: EvidenceDocument): Set<string> {
  const page = withoutFragment(doc.sourceUrl);
  // The section each id opens (its fragment and alternate ids).
  const sectionOf = new Map<string, string>();
  for (const section of doc.sections) {
    if (section.fragment !== null) sectionOf.set(section.fragment, section.id);
    for (const id of section.alternateIds ?? []) sectionOf.set(id, section.id);
  }
  const total = new Map<string, number>();
  const summarised = new Map<string, number>();
  for (const block of doc.blocks) {
    // The text before the first heading is weighed as a section of its own (PREAMBLE): a page's
    // navigation written there, outside any <nav> (Scribble's contents tables), is its apparatus too.
    const id = block.sectionId ?? PREAMBLE;
    total.set(id, (total.get(id) ?? 0) + block.text.length);
    if (isSummary(block, page, sectionOf)) summarised.set(id, (summarised.get(id) ?? 0) + block.text.length);
  }
  const ids = new Set<string>();
  for (const [id, length] of summarised) if (length >= SUMMARY_SHARE * total.get(id)!) ids.add(id);
  return ids;
}

/**
 * Whether a block is a table or list whose lines are named by links to other sections of the page: a
 * line (a row, an item) that starts with such a link's text, or has a cell that does (`QString & |
 * append(const QString &str)`, `#length: Returns the count`), for half its lines and three at least. A
 * list of steps that refers to other sections as it goes ("as described in Shell Functions") is text.
 */
function isSummary(block: Block, page: string, sectionOf: ReadonlyMap<string, string>): boolean {
  if (!SUMMARY_KINDS.has(block.kind)) return false;
  const links = block['links'];
  if (isLinkList(block, links)) return true;
  if (!Array.isArray(links) || links.length < MIN_SUMMARY_LINKS) return false;
  const names: string[] = [];
  for (const link of links as { href?: unknown; text?: unknown }[]) {
    if (typeof link.href !== 'string' || typeof link.text !== 'string' || link.text.trim() === '') continue;
    const hash = link.href.indexOf('#');
    if (hash < 0 || link.href.slice(0, hash) !== page) continue;
    const target = sectionOf.get(decodedFragment(link.href.slice(hash + 1)));
    if (target !== undefined && target !== block.sectionId) names.push(link.text.trim());
  }
  if (names.length < MIN_SUMMARY_LINKS) return false;
  const lines = block.text.split('\n');
  let named = 0;
  for (const line of lines) {
    const cells = line.replace(LIST_MARK, '').split(' | ');
    if (cells.some((cell) => startsWithAny(cell.trimStart(), names))) named++;
  }
  return named >= MIN_SUMMARY_LINKS && named * 2 >= lines.length;
}

/**
 * Whether a block is a list of links and nothing else: every item (two at least) is the text of one of
 * its links, to anywhere ("See also: npm shrinkwrap, package.json, npm install"; a page's related
 * pages), or a table whose rows are each a link beside numbers or marks (a contents sidebar). It names
 * other documents, as a contents list names sections; an item that says what its link is about
 * ("[bodyLimit](#bodylimit): the largest body") is text.
 */
function isLinkList(block: Block, links: unknown): boolean {
  if ((block.kind !== 'list' && block.kind !== 'table') || !Array.isArray(links) || links.length < MIN_LINK_LIST_ITEMS) return false;
  const texts = new Set<string>();
  for (const link of links as { text?: unknown }[]) if (typeof link.text === 'string') texts.add(normalized(link.text));
  const lines = block.text.split('\n');
  if (lines.length < MIN_LINK_LIST_ITEMS) return false;
  if (block.kind === 'list') return lines.every((line) => texts.has(normalized(line.replace(LIST_MARK, ''))));
  // A table of links: each row a link, beside cells that are only a number or a mark ("1.3 | The
  // Reader", "► | Language Model"), as a contents sidebar lays them out.
  return lines.every((line) => {
    const cells = line.split(' | ').map((cell) => normalized(cell).replace(SECTION_NUMBER, ''));
    return cells.some((cell) => texts.has(cell)) && cells.every((cell) => texts.has(cell) || /^[\d.]*$|^[^\p{L}\p{N}]*$/u.test(cell));
  });
}

/** A section number before a link's text in one cell ("1.3.1 Delimiters and Dispatch"). */
const SECTION_NUMBER = /^\d+(?:\.\d+)*\.?\s+/;

/** The mark a list block's text gives each item (`- `, `• `, `1. `). */
const LIST_MARK = /^\s*(?:[-*\u2022]|\d+[.)])\s+/;

/** A list needs this many items, each a link, to be a list of links. */
const MIN_LINK_LIST_ITEMS = 2;

function startsWithAny(text: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => text.startsWith(prefix));
}

/** Runs of whitespace as one space, none at either end. */
function normalized(text: string): string {
  // Most texts are already so: testing allocates nothing, replacing would copy them.
  return IRREGULAR_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

/** Whitespace that normalized() changes: at either end, in a run, or other than a space. */
const IRREGULAR_SPACE = /^\s|\s$|\s\s|[^\S ]/;

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

/** A fragment as the id it names (percent-decoded where it is well formed). */
function decodedFragment(fragment: string): string {
  if (!fragment.includes('%')) return fragment;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
