import GithubSlugger from 'github-slugger';
import type { Token } from 'markdown-it';
import { type ChildNode, isTag, isText } from 'domhandler';
import type { BlockAnchor, BlockKind, BlockDraft, DocumentBuilder, Link, ListItem } from '../document-builder.js';
import { anchorId } from '../html/anchors.js';
import { BLOCK_TAGS } from '../html/tags.js';
import { MAX_OUTLINE_DEPTH, boundedCopy, linkTextHead } from '../input-bounds.js';
import { LinkResolver } from '../link-resolver.js';
import { parseMarkup } from '../markup-parser.js';
import { normalizeSpace } from '../text-sink.js';
import { boundedTitle, splitLines, type SourceLine } from '../text/text-extractor.js';
import { DIALECT_MARKUP, type DialectEnv, dialectId, dialectMarkup, isShortcodeLine } from './dialect-markup.js';
import { FOOTNOTE_DEFINITION, FOOTNOTE_REFERENCE, type FootnoteEnv, footnotes } from './footnotes.js';
import { frontMatter, KRAMDOWN_RFC_PART } from './front-matter.js';
import { kramdownRfcNumbers } from './kramdown-rfc-numbers.js';
import { appendAll } from '../../array-extremes.js';

/**
 * Markdown (CommonMark with GitHub's tables and strikethrough, as markdown-it's default preset reads
 * it): explainers, proposals, READMEs and Internet-Drafts written in kramdown-rfc. Headings open
 * sections cited at the ids a renderer gives them (an explicit `{#id}`, else GitHub's slug of the
 * heading text, which github-slugger computes as github.com does); lists, tables, fenced code, block
 * quotes and GitHub's alerts (`> [!NOTE]`) are blocks of their kind; spans are source lines and offsets.
 */
export interface MarkdownExtractResult {
  title: string;
  headingCount: number;
}

interface MarkdownParser {
  parse(source: string, env: DialectEnv & FootnoteEnv): Token[];
}

let parser: Promise<MarkdownParser> | undefined;

/**
 * markdown-it's bound on nested blocks (quotes in quotes, lists in lists): it keeps its recursion
 * bounded on hostile input, and what sits deeper is not read. Real documents nest a few levels.
 */
const MAX_NESTING = 100;

/** markdown-it, loaded on first use: a worker that extracts no Markdown never loads it. */
function markdownParser(): Promise<MarkdownParser> {
  // Raw HTML is read (as text, below) rather than shown as markup; typographer and linkify stay off,
  // so the text is the source's.
  parser ??= import('markdown-it').then(({ default: markdownIt }) =>
    markdownIt('default', { html: true, maxNesting: MAX_NESTING }).use(dialectMarkup).use(footnotes),
  );
  return parser;
}

/**
 * An explicit heading id at the end of a heading, as kramdown and pandoc write it (`## Title {#id
 * .class}`): where the attributes start (with the spaces before them) and the id. The answer of
 * /\s*\{#([^\s}]+)[^}]*\}\s*$/, found in one pass: that expression backtracks cubically on a
 * heading of `{#x{#x...` without a closing brace (6 KB took 30 s).
 */
export function headingAttributes(raw: string): { index: number; id: string } | null {
  let end = raw.length;
  while (end > 0 && isSpace(raw[end - 1]!)) end--;
  if (end === 0 || raw[end - 1] !== '}') return null;
  const close = end - 1;
  // The id and what follows it hold no `}`: the attributes open after the one before the last.
  const before = raw.lastIndexOf('}', close - 1);
  for (let open = raw.indexOf('{#', before + 1); open >= 0 && open < close; open = raw.indexOf('{#', open + 1)) {
    let idEnd = open + 2;
    while (idEnd < close && !isSpace(raw[idEnd]!)) idEnd++;
    // The leftmost `{#` with a non-empty id: a later one never starts a match that an earlier one missed.
    if (idEnd === open + 2) continue;
    let index = open;
    while (index > 0 && isSpace(raw[index - 1]!)) index--;
    return { index, id: raw.slice(open + 2, idEnd) };
  }
  return null;
}

/** What `\s` matches, one UTF-16 code unit at a time. */
const SPACE = /\s/;
const isSpace = (unit: string): boolean => SPACE.test(unit);
/** kramdown-rfc's citation: `{{RFC9110}}`, `{{Section 3 of RFC9110}}`, `{{?RFC9111}}` (informative), `{{!RFC2119}}`. */
const KRAMDOWN_CITATION = /\{\{([^{}\n]{1,200})\}\}/g;
/** mmark's citation: `[@RFC2119]`, `[@!RFC2119]` (normative), `[@?RFC9111]` (informative), `[@RFC1; @RFC2]`. */
const MMARK_CITATION = /\[@([^[\]\n]{1,200})\]/g;

/** mmark's cross-reference to a section of the document: `(#syntax)`, rendered "Section 2". */
const MMARK_XREF = /\(#([^\s()]{1,200})\)/g;

/** An mmark citation as the rendered document writes it: `[RFC2119]`, `[RFC1; RFC2]`. */
function mmarkCitation(_whole: string, inner: string): string {
  return `[${inner
    .split(';')
    .map((c) => c.trim().replace(/^@?[!?-]?/, ''))
    .join('; ')}]`;
}

/** A kramdown-rfc citation as the rendered draft writes it: `[RFC9110]`, `Section 3 of [RFC9110]`. */
function kramdownCitation(_whole: string, inner: string): string {
  const words = inner.trim().split(/\s+/);
  const target = words.pop()!.replace(/^[?!]/, '');
  return words.length === 0 ? `[${target}]` : `${words.join(' ')} [${target}]`;
}
/** A definition line under a term in a paragraph (kramdown, mmark): `: definition`. */
const DEFINITION_LINE = /\n {0,3}:[ \t]/;
/** GitHub's alerts: a block quote whose first line is one of these. */
const ALERT = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i;

export async function extractMarkdown(
  source: string,
  baseUrl: string,
  builder: DocumentBuilder,
  wantLinks: boolean,
): Promise<MarkdownExtractResult> {
  const lines = splitLines(source);
  const front = frontMatter(lines.map((l) => l.text));
  // Lines markdown-it must not read: the front matter and kramdown-rfc's part markers (blanked, so
  // its line numbers stay those of the source). A part marker opens its section where it stands.
  const blank = new Set<number>();
  const parts = new Map<number, { heading: string; fragment: string | null }>();
  let partMarkers = 0;
  let middle: number | null = null;
  let back: number | null = null;
  if (front !== null) for (let i = 0; i < front.end; i++) blank.add(i);
  if (front?.fence === '---') {
    for (let i = front.end; i < lines.length; i++) {
      const part = KRAMDOWN_RFC_PART.exec(lines[i]!.text);
      if (part === null) continue;
      blank.add(i);
      partMarkers++;
      if (part[1] === 'middle') middle ??= i;
      if (part[1] === 'back') back ??= i;
      if (part[1] === 'abstract') parts.set(i, { heading: 'Abstract', fragment: 'abstract' });
      else if (part[2] !== undefined) parts.set(i, { heading: part[2].replace(/_/g, ' '), fragment: null });
    }
  }
  const text = blank.size === 0 ? lines.map((l) => l.text).join('\n') : lines.map((l, i) => (blank.has(i) ? '' : l.text)).join('\n');
  const mmark = front?.fence === '%%%';
  const env: DialectEnv & FootnoteEnv = { mmark };
  const tokens = (await markdownParser()).parse(text, env);
  if (tokens.some((t) => t.level >= MAX_NESTING - 1))
    builder.warn('markdown-nesting-capped', `Blocks nested more than ${MAX_NESTING} levels deep (quotes or lists) were not read.`);
  // kramdown-rfc's citations only in a kramdown-rfc draft: Jekyll's front matter comes with Liquid's `{{ page.title }}`.
  const kramdownRfc = front !== null && (partMarkers > 0 || front.fields.has('docname') || front.fields.has('number'));
  const reader = new MarkdownReader(
    tokens,
    lines,
    baseUrl,
    builder,
    wantLinks,
    kramdownRfc ? 'kramdown-rfc' : mmark ? 'mmark' : null,
    env.footnoteNumbers ?? new Map(),
  );
  // The headings first (their ids, and a draft's section numbers), so that a cross-reference to a later
  // section reads as the rendered draft writes it.
  const headings = new Map<number, HeadingRead & { number: string | null }>();
  for (let h = 0; h < tokens.length; h++) {
    if (tokens[h]!.type !== 'heading_open') continue;
    const attribute = headingAttribute(tokens, h);
    headings.set(h, { ...reader.heading(h, attribute === null ? null : dialectId(attribute)), number: null });
    if (tokens[h]!.map !== null) h = closeOf(tokens, h);
  }
  if (kramdownRfc || mmark) {
    // mmark's parts are its matter markers; its special sections (`.# Abstract`) have no number.
    if (mmark) {
      const marker = (name: string): number | null => tokens.find((t) => t.type === DIALECT_MARKUP && t.content === name)?.map?.[0] ?? null;
      middle = marker('{mainmatter}');
      back = marker('{backmatter}');
    }
    const read = [...headings].filter(([h, heading]) => heading.text !== '' && tokens[h]!.level === 0);
    const numbers = kramdownRfcNumbers(
      read.map(([h]) => ({
        line: tokens[h]!.map?.[0] ?? 0,
        level: Number(tokens[h]!.tag.slice(1)),
        unnumbered: tokens[h]!.markup === '.#' || /numbered\s*=\s*["']?false/.test(headingAttribute(tokens, h) ?? ''),
      })),
      middle,
      back,
    );
    read.forEach(([, heading], n) => {
      heading.number = numbers[n] ?? null;
      if (heading.id !== null)
        reader.xrefs.set(
          heading.id,
          heading.number === null
            ? `"${boundedCopy(heading.text)}"`
            : /^[A-Z]/.test(heading.number)
              ? `Appendix ${heading.number}`
              : `Section ${heading.number}`,
        );
    });
  }
  const pendingParts = [...parts.keys()].sort((a, b) => a - b);
  let title = boundedTitle(front?.fields.get('title') ?? '');
  let headingCount = 0;
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i]!;
    while (pendingParts.length > 0 && token.map !== null && token.map[0] > pendingParts[0]!) {
      const at = pendingParts.shift()!;
      const part = parts.get(at)!;
      builder.openSection({ fragment: part.fragment, heading: part.heading, level: 1, number: null, span: reader.span([at, at + 1]) });
      headingCount++;
    }
    if (token.type === 'heading_open') {
      const close = closeOf(tokens, i);
      const heading = headings.get(i)!;
      appendAll(reader.pendingIds, heading.anchorIds);
      if (heading.text !== '') {
        if (title === '' && token.tag === 'h1') title = boundedTitle(heading.text);
        builder.openSection({
          fragment: heading.id,
          heading: heading.text,
          level: Number(token.tag.slice(1)),
          number: heading.number,
          span: reader.span(token.map),
        });
        headingCount++;
      }
      i = close + 1;
      continue;
    }
    i = reader.block(i);
  }
  if (title === '')
    title =
      builder.sections[0]?.heading ??
      boundedTitle(
        lines
          .slice(front?.end ?? 0)
          .find((l) => l.text.trim() !== '')
          ?.text.trim() ?? '',
      );
  return { title, headingCount };
}

/** What a heading reads: its text, its id, and the ids of raw HTML anchors in it. */
interface HeadingRead {
  text: string;
  id: string | null;
  anchorIds: string[];
}

/** The attribute line directly under (kramdown) or above (mmark) a heading, which may name it: `{: #intro}`. */
function headingAttribute(tokens: Token[], open: number): string | null {
  const heading = tokens[open]!;
  const below = tokens[closeOf(tokens, open) + 1];
  const above = tokens[open - 1];
  if (below?.type === DIALECT_MARKUP && below.map?.[0] === heading.map?.[1]) return below.content;
  if (above?.type === DIALECT_MARKUP && above.map?.[1] === heading.map?.[0]) return above.content;
  return null;
}

/** The index of the token that closes the one at `open` (itself for a token that opens nothing). */
function closeOf(tokens: Token[], open: number): number {
  const token = tokens[open]!;
  if (token.nesting !== 1) return open;
  for (let j = open + 1; j < tokens.length; j++) if (tokens[j]!.level === token.level && tokens[j]!.nesting === -1) return j;
  return tokens.length - 1;
}

class MarkdownReader {
  private readonly slugger = new GithubSlugger();
  private readonly links: LinkResolver;
  /** Ids of anchors with no text of their own read since the last block: they name the next one. */
  pendingIds: string[] = [];
  /** A kramdown-rfc or mmark draft's sections as a cross-reference (`{{id}}`, `(#id)`) reads: "Section 3", "Appendix A". */
  readonly xrefs = new Map<string, string>();

  constructor(
    private readonly tokens: Token[],
    private readonly lines: SourceLine[],
    baseUrl: string,
    private readonly builder: DocumentBuilder,
    private readonly wantLinks: boolean,
    /** kramdown-rfc writes a citation `{{RFC9110}}`, mmark `[@RFC9110]`: the text says `[RFC9110]`, as the rendered draft does. */
    private readonly citations: 'kramdown-rfc' | 'mmark' | null,
    /** Each footnote label's number, in the order of first reference (footnotes.ts). */
    private readonly footnoteNumbers: ReadonlyMap<string, number>,
  ) {
    this.links = new LinkResolver(baseUrl);
  }

  /**
   * A heading's text and the id a renderer gives it: its `{#id}` (or its attribute line's, `attributeId`),
   * else GitHub's slug (unique in the document). The ids of raw HTML anchors in it (`## <a id="x"></a>
   * Title`), as those standing with no text over it (`<a name="md001"></a>`), which GitHub keeps too,
   * name the section's first block: a citation `#md001` opens the section there.
   */
  heading(open: number, attributeId: string | null): HeadingRead {
    const anchors: BlockAnchor[] = [];
    const raw = this.inline(this.tokens[open + 1], null, anchors);
    const anchorIds = anchors.map((a) => a.id);
    const explicit = headingAttributes(raw);
    const text = explicit === null ? raw : raw.slice(0, explicit.index).trim();
    if (text === '') return { text, id: null, anchorIds };
    if (explicit !== null) return { text, id: explicit.id, anchorIds };
    if (attributeId !== null) return { text, id: attributeId, anchorIds };
    // The slugger counts the headings it slugs, as GitHub does: a repeated heading gets "-1", "-2".
    const slug = this.slugger.slug(text);
    return { text, id: slug === '' ? null : slug, anchorIds };
  }

  /** Reads the block at `open` (adding what it holds) and returns the index after it. */
  block(open: number): number {
    const token = this.tokens[open]!;
    const close = closeOf(this.tokens, open);
    switch (token.type) {
      case 'paragraph_open': {
        const links: Link[] = [];
        const anchors: BlockAnchor[] = [];
        const inline = this.tokens[open + 1];
        // kramdown's and mmark's definition list is a paragraph to markdown-it: term lines, then `: definition` lines.
        if (this.citations !== null && inline !== undefined && DEFINITION_LINE.test(inline.content)) {
          this.definitionList(inline, token.map);
          break;
        }
        const text = this.inline(inline, links, anchors);
        if (text !== '') this.add('paragraph', text, token.map, { links, anchors });
        else
          appendAll(
            this.pendingIds,
            anchors.map((a) => a.id),
          );
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const links: Link[] = [];
        const anchors: BlockAnchor[] = [];
        const items = this.listItems(open, close, links, anchors, 1);
        if (items.length > 0)
          this.add('list', listText(items, token.type === 'ordered_list_open', listStart(token), 0), token.map, {
            items,
            links,
            ordered: token.type === 'ordered_list_open',
            anchors: atStart(anchors),
          });
        break;
      }
      case 'fence':
      case 'code_block': {
        const code = token.content.replace(/\n$/, '');
        const language = token.info.trim().split(/\s+/)[0] ?? '';
        if (code.trim() !== '') this.add('code', code, token.map, language === '' ? {} : { language });
        break;
      }
      case 'table_open':
        this.table(open, close);
        break;
      case FOOTNOTE_DEFINITION: {
        // A footnote is an aside, as a note is: GitHub lists it under the text, numbered as referenced.
        const { label, id } = token.meta as { label: string; id: string };
        const links: Link[] = [];
        const anchors: BlockAnchor[] = [];
        const text = this.inline(this.tokens[open + 1], links, anchors);
        const number = this.footnoteNumbers.get(label);
        if (text !== '')
          this.add('note', number === undefined ? text : `[${number}] ${text}`, token.map, {
            links,
            anchors: [{ id, start: 0 }, ...atStart(anchors)],
            marker: { normativity: 'informative', reason: 'markdown-footnote' },
          });
        break;
      }
      case 'blockquote_open':
        this.blockquote(open, close);
        break;
      case 'html_block': {
        // An anchor with no text of its own (`<a name="md001"></a>` over a heading) names what follows.
        const anchors: BlockAnchor[] = [];
        const text = htmlText(withoutShortcodeLines(token.content), anchors);
        if (text !== '') this.add('paragraph', text, token.map, { anchors });
        else
          appendAll(
            this.pendingIds,
            anchors.map((a) => a.id),
          );
        break;
      }
      default:
        break;
    }
    return close + 1;
  }

  /**
   * The plain text of an inline token's children; link texts and resolved targets go to `links`, the
   * ids of its raw HTML elements (`<a name="x"></a>`, `<span id="y">`) to `anchors`, at their offsets.
   */
  inline(token: Token | undefined, links: Link[] | null, anchors: BlockAnchor[] | null): string {
    let out = '';
    const open: { href: string; start: number }[] = [];
    const ids: BlockAnchor[] = [];
    for (const c of token?.children ?? []) {
      switch (c.type) {
        case 'text':
          out += this.cited(c.content);
          break;
        case 'code_inline':
          out += c.content;
          break;
        case FOOTNOTE_REFERENCE:
          out += `[${this.footnoteNumbers.get((c.meta as { label: string }).label)}]`;
          break;
        case 'softbreak':
        case 'hardbreak':
          out += ' ';
          break;
        case 'image':
          out += imageAlt(c);
          break;
        case 'html_inline': {
          if (/^<br\b/i.test(c.content)) out += ' ';
          const id = anchors === null ? null : openTagId(c.content);
          if (id !== null) ids.push({ id, start: out.length });
          break;
        }
        case 'link_open':
          open.push({ href: String(c.attrGet('href') ?? ''), start: out.length });
          break;
        case 'link_close': {
          const link = open.pop();
          // A link with no text to a section (`[](#syntax)`, kramdown-rfc and mmark) reads as the rendering writes it.
          if (link !== undefined && out.length === link.start && link.href.startsWith('#')) out += this.xrefs.get(link.href.slice(1)) ?? '';
          if (link !== undefined && links !== null && this.wantLinks && link.href !== '')
            links.push({ href: this.links.resolve(link.href), text: linkText(out.slice(link.start)) });
          break;
        }
        default:
          break;
      }
    }
    if (anchors !== null && ids.length > 0) appendAll(anchors, normalizedAnchors(out, ids));
    return normalizeSpace(out);
  }

  /** Text with its citations as the rendered document writes them (code spans keep theirs as written). */
  private cited(text: string): string {
    if (this.citations === 'kramdown-rfc')
      return text.replace(KRAMDOWN_CITATION, (whole, inner: string) => this.xrefs.get(inner.trim()) ?? kramdownCitation(whole, inner));
    if (this.citations === 'mmark')
      return text.replace(MMARK_CITATION, mmarkCitation).replace(MMARK_XREF, (whole, id: string) => this.xrefs.get(id) ?? whole);
    return text;
  }

  /** The text a token holds itself: an inline run's, a code block's, raw HTML's; '' for the others. */
  private textOf(token: Token, links: Link[], anchors: BlockAnchor[]): string {
    if (token.type === 'inline') return this.inline(token, links, anchors);
    if (token.type === 'fence' || token.type === 'code_block') return token.content.trim();
    if (token.type === 'html_block') return htmlText(withoutShortcodeLines(token.content), anchors);
    return '';
  }

  /** The items of the list between `open` and `close`: each item's own text, nested lists as its items. */
  private listItems(open: number, close: number, links: Link[], anchors: BlockAnchor[], depth: number): ListItem[] {
    const items: ListItem[] = [];
    for (let i = open + 1; i < close; ) {
      const item = this.tokens[i]!;
      const itemClose = closeOf(this.tokens, i);
      if (item.type === 'list_item_open') {
        const texts: string[] = [];
        const nested: ListItem[] = [];
        for (let j = i + 1; j < itemClose; ) {
          const t = this.tokens[j]!;
          const end = closeOf(this.tokens, j);
          if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') {
            const ordered = t.type === 'ordered_list_open';
            if (depth < MAX_OUTLINE_DEPTH)
              for (const n of this.listItems(j, end, links, anchors, depth + 1)) nested.push(ordered ? orderedItem(n) : n);
          } else {
            // A paragraph, code, a quote or a table inside an item: its text is the item's.
            for (let k = j; k <= end; k++) {
              const text = this.textOf(this.tokens[k]!, links, anchors);
              if (text !== '') texts.push(text);
            }
          }
          j = end + 1;
        }
        const text = texts.join(' ');
        // Members in code-unit order (items, text): canonicalJson then copies nothing.
        items.push(nested.length > 0 ? { items: nested, text } : { text });
      }
      i = itemClose + 1;
    }
    return items;
  }

  private table(open: number, close: number): void {
    const header: string[][] = [];
    const rows: string[][] = [];
    const links: Link[] = [];
    const anchors: BlockAnchor[] = [];
    let inHead = false;
    let row: string[] | null = null;
    for (let i = open + 1; i < close; i++) {
      const t = this.tokens[i]!;
      if (t.type === 'thead_open') inHead = true;
      else if (t.type === 'thead_close') inHead = false;
      else if (t.type === 'tr_open') row = [];
      else if (t.type === 'tr_close' && row !== null) {
        (inHead ? header : rows).push(row);
        row = null;
      } else if (t.type === 'inline' && row !== null) row.push(this.inline(t, links, anchors));
    }
    const text = [...header, ...rows].map((cells) => cells.join(' | ')).join('\n');
    if (text.trim() !== '') this.add('table', text, this.tokens[open]!.map, { header, rows, links, anchors: atStart(anchors) });
  }

  /**
   * A definition list as kramdown and mmark write one: the lines before the first `: ` line are terms,
   * each `: ` line opens a definition, and the lines after it continue it.
   */
  private definitionList(inline: Token, map: [number, number] | null): void {
    const links: Link[] = [];
    const anchors: BlockAnchor[] = [];
    const entries: { terms: string[]; definitions: string[] }[] = [];
    const lines: Token[][] = [[]];
    for (const c of inline.children ?? []) {
      if (c.type === 'softbreak' || c.type === 'hardbreak') lines.push([]);
      else lines.at(-1)!.push(c);
    }
    let entry: { terms: string[]; definitions: string[] } | undefined;
    let inDefinition = false;
    for (const children of lines) {
      const text = this.inline({ children } as Token, links, anchors);
      const definition = /^:\s+/.exec(text);
      if (definition !== null) {
        entry ??= { terms: [], definitions: [] };
        if (entries.at(-1) !== entry) entries.push(entry);
        entry.definitions.push(text.slice(definition[0].length));
        inDefinition = true;
      } else if (inDefinition && entry !== undefined) {
        entry.definitions[entry.definitions.length - 1] += ` ${text}`;
      } else {
        if (entry === undefined || entry.definitions.length > 0) entry = { terms: [], definitions: [] };
        entry.terms.push(text);
      }
    }
    const text = entries.map((e) => [...e.terms, ...e.definitions].join('\n')).join('\n');
    if (text !== '') this.add('definition-list', text, map, { entries, links, anchors: atStart(anchors) });
  }

  /** A block quote, one block: GitHub's alerts (`> [!NOTE]`) are notes, informative as a note class is. */
  private blockquote(open: number, close: number): void {
    const texts: string[] = [];
    const links: Link[] = [];
    const anchors: BlockAnchor[] = [];
    for (let i = open + 1; i < close; i++) {
      const text = this.textOf(this.tokens[i]!, links, anchors);
      if (text !== '') texts.push(text);
    }
    let text = texts.join('\n');
    const alert = ALERT.exec(text);
    if (alert !== null) {
      text = text.slice(alert[0].length).trim();
      const kind = alert[1]!.toLowerCase();
      if (text !== '')
        this.add('note', text, this.tokens[open]!.map, {
          links,
          anchors: atStart(anchors),
          marker: { normativity: 'informative', reason: `markdown-alert:${kind}` },
        });
      return;
    }
    if (text !== '') this.add('blockquote', text, this.tokens[open]!.map, { links, anchors: atStart(anchors) });
  }

  private add(kind: BlockKind, text: string, map: [number, number] | null, extra: Partial<BlockDraft>): void {
    const links = extra.links !== undefined && extra.links.length === 0 ? undefined : extra.links;
    const anchors = [...this.takePendingIds().map((id) => ({ id, start: 0 })), ...(extra.anchors ?? [])];
    this.builder.addBlock({
      ...extra,
      kind,
      text,
      fragment: null,
      links,
      anchors: anchors.length === 0 ? undefined : anchors,
      span: this.span(map),
    });
  }

  /** The ids of anchors with no text of their own read since the last block or heading: they name the next one. */
  takePendingIds(): string[] {
    const ids = this.pendingIds;
    this.pendingIds = [];
    return ids;
  }

  /** The source span of lines [map[0], map[1]): from its first line's start to its last written line's end. */
  span(map: [number, number] | null): BlockDraft['span'] {
    if (map === null) return undefined;
    const from = Math.min(map[0], this.lines.length - 1);
    // markdown-it counts the blank line after a list as the list's: the span ends at its last text.
    let to = Math.min(Math.max(map[1] - 1, from), this.lines.length - 1);
    while (to > from && this.lines[to]!.text.trim() === '') to--;
    const first = this.lines[from]!;
    const last = this.lines[to]!;
    return { unit: 'utf16-source', start: first.start, end: last.end, line: first.line, endLine: last.line };
  }
}

/** A link's text as the HTML extractor records one: at most MAX_LINK_TEXT code units of its source text, else cut, ending in "…". */
function linkText(raw: string): string {
  const head = linkTextHead(raw);
  return head === raw ? normalizeSpace(raw) : `${normalizeSpace(head)}…`;
}

/** An image's alternative text (markdown-it keeps it as the image token's children). */
function imageAlt(token: Token): string {
  return (token.children ?? []).map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : '')).join('');
}

/** The list's first number (`3.` starts at 3). */
function listStart(token: Token): number {
  const start = Number(token.attrGet('start') ?? 1);
  return Number.isSafeInteger(start) ? start : 1;
}

function orderedItem(item: ListItem): ListItem {
  return item.items === undefined ? { ordered: true, text: item.text } : { items: item.items, ordered: true, text: item.text };
}

/** A list's block text as the HTML extractor writes one: `- item` or `1. item`, nested items indented two spaces. */
function listText(items: ListItem[], ordered: boolean, start: number, depth: number): string {
  const indent = '  '.repeat(depth);
  return items
    .map((item, n) => {
      const own = `${indent}${ordered ? `${start + n}. ` : '- '}${item.text}`;
      if (item.items === undefined) return own;
      return `${own}\n${listText(item.items, item.items[0]?.ordered === true, 1, depth + 1)}`;
    })
    .join('\n');
}

/**
 * The text of raw HTML in Markdown (a `<details>`, a table written as HTML), as the HTML extractor's tree
 * builder reads it: tags and comments dropped. The ids of its elements go to `anchors`, at their offsets.
 */
function htmlText(html: string, anchors: BlockAnchor[] | null): string {
  const parts: string[] = [];
  const ids: BlockAnchor[] = [];
  let length = 0;
  // Depth-first with a stack of its own: raw HTML may nest deeper than the call stack goes.
  const { document } = parseMarkup(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  // A string on the stack is text to write: the space that ends a block element, which words do not cross.
  const stack: (ChildNode | string)[] = [...document.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') {
      parts.push(node);
      length += node.length;
    } else if (isText(node)) {
      parts.push(node.data);
      length += node.data.length;
    } else if (isTag(node) && !SKIPPED_ELEMENTS.has(node.name)) {
      // A block element (or a line break) parts words; an inline one (`<span>inert</span>.`) does not.
      if (BLOCK_TAGS.has(node.name) || node.name === 'br') {
        parts.push(' ');
        length += 1;
        stack.push(' ');
      }
      const id = anchors === null ? undefined : anchorId(node);
      if (id !== undefined) ids.push({ id, start: length });
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  const raw = parts.join('');
  if (anchors !== null && ids.length > 0) appendAll(anchors, normalizedAnchors(raw, ids));
  return normalizeSpace(raw);
}

/**
 * Raw HTML without its lines of Hugo shortcode tags alone (dialect-markup.ts): a block of HTML runs to the
 * next blank line, so the `{{< /example >}}` that closes an example written in HTML is inside it.
 */
function withoutShortcodeLines(html: string): string {
  if (!html.includes('{{')) return html;
  return html
    .split('\n')
    .filter((line) => !isShortcodeLine(line.trim()))
    .join('\n');
}

/** Elements whose content is no text of the page. */
const SKIPPED_ELEMENTS = new Set(['script', 'style', 'template', 'noscript']);

/** Anchors found anywhere in a block's parts (a list item, a cell, a quoted paragraph): the block holds them, from its start. */
function atStart(anchors: BlockAnchor[]): BlockAnchor[] {
  return anchors.map(({ id }) => ({ id, start: 0 }));
}

/**
 * The id an opening tag of inline raw HTML gives (`<a name="x">`, `<span id="y">`), as anchors.ts reads
 * an element's: its `id`, or an anchor's `name`.
 */
function openTagId(html: string): string | null {
  const tag = /^<([A-Za-z][\w-]*)(\s[^>]*)?>$/.exec(html.trim());
  if (tag === null || tag[2] === undefined) return null;
  const names = tag[1]!.toLowerCase() === 'a' ? 'id|name' : 'id';
  const m = new RegExp(String.raw`\s(?:${names})\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>\x60]+))`, 'i').exec(tag[2]);
  const id = m === null ? '' : (m[1] ?? m[2] ?? m[3] ?? '');
  return id === '' ? null : id;
}

/**
 * Anchors recorded at offsets into `raw` moved to offsets into normalizeSpace(raw), in one scan: each
 * run of collapsible white space becomes one space, none leads or trails (text-sink.ts).
 */
function normalizedAnchors(raw: string, anchors: readonly BlockAnchor[]): BlockAnchor[] {
  const result: BlockAnchor[] = [];
  let k = 0;
  let length = 0;
  let inRun = false;
  for (let i = 0; i <= raw.length && k < anchors.length; i++) {
    while (k < anchors.length && anchors[k]!.start <= i)
      result.push({ id: anchors[k++]!.id, start: length + (inRun && length > 0 ? 1 : 0) });
    if (i === raw.length) break;
    if (/[ \t\n\r\f\u00a0]/.test(raw[i]!)) inRun = true;
    else {
      length += inRun && length > 0 ? 2 : 1;
      inRun = false;
    }
  }
  return result;
}
