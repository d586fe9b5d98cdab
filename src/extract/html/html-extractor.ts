import { type AnyNode, type Document, type Element, isTag, isText, isCDATA } from 'domhandler';
import { compile, selectAll, selectOne } from 'css-select';
import { textContent } from 'domutils';
import type { HtmlRules } from '../families.js';
import type { BlockAnchor, DocumentBuilder, ListItem, Marker, Link, BlockKind } from '../document-builder.js';
import type { KeywordSpan } from '../bcp14.js';
import { keywordOf } from '../bcp14.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { MAX_TREE_DEPTH, parseMarkup, type ParsedMarkup } from '../markup-parser.js';
import { readFrontMatter } from './rfc-html.js';
import { walkFigure } from './figures.js';
import { headingAnchorIds, leadingAnchorId } from './anchors.js';

type Matcher = (el: Element) => boolean;

/** Compiled selector lists per rules object: compiled once per worker, reused for every document. */
interface CompiledRules {
  prune: Matcher;
  section: Matcher;
  headingStrip: Matcher;
  sectionNumber: Matcher;
  algorithm: Matcher;
  idl: Matcher;
  grammar: Matcher;
  keyword: Matcher;
  noteClasses: Set<string>;
  exampleClasses: Set<string>;
  issueClasses: Set<string>;
  informativeClasses: Set<string>;
  normativeClasses: Set<string>;
  informativeStatements: string[];
  // issue 11 (RFC renderings): optional rule lists.
  note: Matcher;
  metadata: Matcher;
  artwork: Matcher;
  blockAnchor: Matcher | null;
}

const compiledCache = new WeakMap<HtmlRules, CompiledRules>();

function compileList(selectors: string[]): Matcher {
  if (selectors.length === 0) return () => false;
  const query = compile<AnyNode, Element>(selectors.join(', '));
  return (el) => query(el);
}

function compileRules(rules: HtmlRules): CompiledRules {
  const known = compiledCache.get(rules);
  if (known) return known;
  const compiled: CompiledRules = {
    prune: compileList(rules.pruneSelectors),
    section: compileList(rules.sectionSelectors),
    headingStrip: compileList(rules.headingStripSelectors),
    sectionNumber: compileList(rules.sectionNumberSelectors),
    algorithm: compileList(rules.algorithmSelectors),
    idl: compileList(rules.idlSelectors),
    grammar: compileList(rules.grammarSelectors),
    keyword: compileList(rules.keywordSelectors),
    noteClasses: new Set(rules.noteClasses),
    exampleClasses: new Set(rules.exampleClasses),
    issueClasses: new Set(rules.issueClasses),
    informativeClasses: new Set(rules.informativeClasses),
    normativeClasses: new Set(rules.normativeClasses),
    informativeStatements: rules.informativeStatements.map((s) => s.toLowerCase()),
    note: compileList(rules.noteSelectors ?? []),
    metadata: compileList(rules.metadataSelectors ?? []),
    artwork: compileList(rules.artworkSelectors ?? []),
    // null without selectors, so other families never walk a block looking for its opening anchor.
    blockAnchor: rules.blockAnchorSelectors !== undefined && rules.blockAnchorSelectors.length > 0 ? compileList(rules.blockAnchorSelectors) : null,
  };
  compiledCache.set(rules, compiled);
  return compiled;
}

/** Elements that start a new line in flow text and end an inline run. */
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html',
  'legend', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead',
  'tr', 'ul', 'xmp', 'listing', 'plaintext', 'search',
]);

/** Never content: skipped wherever they occur. */
const SKIP_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'link', 'meta', 'base', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'audio', 'video', 'source', 'track', 'input', 'select', 'textarea', 'button']);

const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

const SECTION_NUMBER_PREFIX = /^(?:(?:Appendix|Annex)\s+)?((?:\d+|[A-Z])(?:\.\d+)*)\.?(?=\s)\s*/;

export interface HtmlExtractContext {
  source: string;
  /** Document URL without fragment: the base for links. */
  baseUrl: string;
  rules: HtmlRules;
  builder: DocumentBuilder;
  links: boolean;
}

export interface HtmlExtractResult {
  title: string;
  headingCount: number;
  idCount: number;
}

/** Inherited while walking: the nearest id and the normativity marker in effect. */
interface WalkContext {
  fragment: string | null;
  marker: Marker | null;
  /** `<section id>` waiting for its first heading, shared by reference so only one heading takes it. */
  pendingSection: { id: string; taken: boolean } | null;
}

function classesOf(el: Element): string[] {
  const value = el.attribs['class'];
  if (value === undefined || value === '') return [];
  return value.split(/[ \t\n\r\f]+/).filter((c) => c !== '');
}

function markerClass(classes: string[], set: Set<string>): string | undefined {
  for (const c of classes) if (set.has(c)) return c;
  return undefined;
}

export function parseHtml(source: string): ParsedMarkup {
  return parseMarkup(source, { withStartIndices: true, withEndIndices: true, decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
}

class HtmlWalker {
  private readonly rules: CompiledRules;
  private readonly builder: DocumentBuilder;
  private readonly baseUrl: string;
  private readonly baseNoHash: string;
  private readonly wantLinks: boolean;
  headingCount = 0;
  firstH1 = '';
  /** Ids of elements inside the block being written, with their offsets in its text (null between blocks). */
  private anchors: BlockAnchor[] | null = null;

  constructor(ctx: HtmlExtractContext) {
    this.rules = compileRules(ctx.rules);
    this.builder = ctx.builder;
    this.baseUrl = ctx.baseUrl;
    this.baseNoHash = ctx.baseUrl.split('#')[0] ?? ctx.baseUrl;
    this.wantLinks = ctx.links;
  }

  // ---- structure -------------------------------------------------------------------------

  /** Walks a container: inline runs become paragraphs, block children are handled one by one. */
  walkContainer(parent: Element | Document, ctx: WalkContext): void {
    let run: AnyNode[] = [];
    const flush = (): void => {
      if (run.length > 0) this.inlineRun(run, ctx);
      run = [];
    };
    for (const child of parent.children) {
      if (isTag(child)) {
        if (SKIP_TAGS.has(child.name)) continue;
        if (this.isBlockLevel(child)) {
          flush();
          this.blockElement(child, ctx);
        } else if (this.rules.prune(child)) {
          // Pruned: dropped with everything inside.
        } else {
          run.push(child);
        }
      } else if (isText(child) || isCDATA(child)) {
        run.push(child);
      }
    }
    flush();
  }

  private isBlockLevel(el: Element): boolean {
    if (BLOCK_TAGS.has(el.name)) return true;
    if (KNOWN_INLINE.has(el.name)) {
      // An inline element that wraps blocks (e.g. <a><div>) is walked as a container.
      return el.children.some((c) => isTag(c) && (BLOCK_TAGS.has(c.name) || HEADING_LEVEL[c.name] !== undefined));
    }
    if (this.rules.algorithm(el) || this.rules.idl(el) || this.rules.grammar(el)) return true;
    // Custom elements (emu-note, wpt, c-): a container when they hold block children.
    return el.children.some((c) => isTag(c) && (BLOCK_TAGS.has(c.name) || !KNOWN_INLINE.has(c.name)));
  }

  private inlineRun(nodes: AnyNode[], ctx: WalkContext): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    this.anchors = [];
    for (const node of nodes) this.flow(node, sink, keywords, links, false);
    const text = sink.toString();
    if (text === '') return;
    const first = nodes[0];
    const last = nodes[nodes.length - 1];
    this.addBlock('paragraph', text, ctx, { keywords, links, start: first?.startIndex ?? null, end: last?.endIndex ?? null });
  }

  private blockElement(el: Element, outer: WalkContext): void {
    if (this.rules.prune(el)) return;
    const level = HEADING_LEVEL[el.name];
    if (level !== undefined) {
      this.heading(el, level, outer);
      return;
    }
    const r = this.rules;
    // issue 11 hook: front matter is document metadata (read in extractHtml), never blocks.
    if (r.metadata(el)) return;
    const ctx = this.contextFor(el, outer);
    const classes = classesOf(el);

    const exampleClass = markerClass(classes, r.exampleClasses);
    const issueClass = exampleClass === undefined ? markerClass(classes, r.issueClasses) : undefined;
    const noteClass = exampleClass === undefined && issueClass === undefined ? (markerClass(classes, r.noteClasses) ?? (r.note(el) ? el.name : undefined)) : undefined;
    const kindFromClass: BlockKind | undefined = exampleClass !== undefined ? 'example' : issueClass !== undefined ? 'issue' : noteClass !== undefined ? 'note' : undefined;
    const isAlgorithm = r.algorithm(el);
    const isIdl = !isAlgorithm && r.idl(el);
    const isGrammar = !isAlgorithm && !isIdl && r.grammar(el);

    if (kindFromClass !== undefined || isAlgorithm || isIdl || isGrammar) {
      if (containsHeading(el)) {
        this.walkContainer(el, ctx);
        return;
      }
      if (isIdl || isGrammar) {
        this.addPreformatted(isIdl ? 'idl' : 'grammar', el, ctx);
      } else if (isAlgorithm && kindFromClass === undefined) {
        this.addFlowBlock('algorithm', el, ctx, { steps: this.topLevelSteps(el) });
      } else {
        this.addFlowBlock(kindFromClass ?? 'note', el, ctx, {});
      }
      return;
    }

    switch (el.name) {
      case 'p':
        this.paragraph(el, ctx);
        return;
      case 'ul':
      case 'ol':
      case 'menu':
      case 'dir':
        this.addFlowBlock('list', el, ctx, { ordered: el.name === 'ol', items: this.listItems(el) });
        return;
      case 'table':
        this.table(el, ctx);
        return;
      case 'pre':
      case 'xmp':
      case 'listing':
      case 'plaintext':
        this.addPreformatted(r.artwork(el) ? 'artwork' : 'code', el, ctx);
        return;
      // issue 11 hook: a figure's caption belongs to its block (figures.ts).
      case 'figure':
        walkFigure(el, this.builder, (f) => this.walkContainer(f, ctx), (c) => normalizeSpace(this.plainText(c)), (c) => this.addFlowBlock('paragraph', c, ctx, {}));
        return;
      case 'figcaption':
        if (el.parent !== null && isTag(el.parent) && el.parent.name === 'figure') return;
        this.walkContainer(el, ctx);
        return;
      case 'dl':
        this.addFlowBlock('definition-list', el, ctx, { entries: this.definitionEntries(el) });
        return;
      case 'blockquote':
        this.addFlowBlock('blockquote', el, ctx, {});
        return;
      // issue 11: one author's contact details are one block, as the XML's <author> is.
      case 'address':
        this.addFlowBlock('paragraph', el, ctx, {});
        return;
      case 'hr':
        return;
      case 'tr':
      case 'tbody':
      case 'thead':
      case 'tfoot':
      case 'td':
      case 'th':
      case 'caption':
        // HTML5 ignores table-part tags outside a table and keeps their content: emulate that.
        this.walkContainer(el, ctx);
        return;
      default:
        this.walkContainer(el, ctx);
    }
  }

  /** The walk context below `el`: its id becomes the nearest fragment; marker classes apply. */
  private contextFor(el: Element, outer: WalkContext): WalkContext {
    const id = el.attribs['id'];
    let fragment = outer.fragment;
    let pendingSection = outer.pendingSection;
    if (id !== undefined && id !== '') {
      fragment = id;
      if (this.rules.section(el)) pendingSection = { id, taken: false };
    }
    let marker = outer.marker;
    const classes = classesOf(el);
    const r0 = this.rules;
    if ((classes.length > 0 || r0.note(el)) && (marker === null || marker.normativity !== 'example')) {
      const r = this.rules;
      const ex = markerClass(classes, r.exampleClasses);
      const info = markerClass(classes, r.informativeClasses) ?? markerClass(classes, r.noteClasses) ?? markerClass(classes, r.issueClasses) ?? (r.note(el) ? el.name : undefined);
      const norm = markerClass(classes, r.normativeClasses);
      if (ex !== undefined) marker = { normativity: 'example', reason: `marker-class:${ex}` };
      else if (info !== undefined) marker = { normativity: 'informative', reason: `marker-class:${info}` };
      else if (norm !== undefined) marker = { normativity: 'normative', reason: `marker-class:${norm}` };
    }
    if (fragment === outer.fragment && marker === outer.marker && pendingSection === outer.pendingSection) return outer;
    return { fragment, marker, pendingSection };
  }

  private heading(el: Element, level: number, ctx: WalkContext): void {
    this.headingCount++;
    const sink = new TextSink();
    let number: string | null = null;
    const visit = (node: AnyNode): void => {
      if (isTag(node)) {
        if (SKIP_TAGS.has(node.name)) return;
        if (this.rules.sectionNumber(node)) {
          number ??= normalizeSpace(textContent(node)).replace(/^(?:Appendix|Annex)\s+/, '').replace(/\.$/, '') || null;
          return;
        }
        if (this.rules.headingStrip(node) || this.rules.prune(node)) return;
        if (node.name === 'br') sink.space();
        for (const c of node.children) visit(c);
      } else if (isText(node)) {
        sink.text(node.data);
      }
    };
    for (const c of el.children) visit(c);
    let text = normalizeSpace(sink.toString());
    if (number === null) {
      const m = SECTION_NUMBER_PREFIX.exec(text);
      if (m?.[1] !== undefined && m[0].length < text.length) {
        number = m[1];
        text = text.slice(m[0].length);
      }
    }
    if (number === null) {
      const dataLevel = el.attribs['data-level'];
      if (dataLevel !== undefined && dataLevel !== '') number = dataLevel;
    }
    // issue 11 hook (anchors.ts): without its own id, a heading is named by its self-linking anchor;
    // its other anchors are alternate ids.
    const anchorIds = el.attribs['id'] === undefined ? headingAnchorIds(el) : [];
    const ownId = el.attribs['id'] ?? anchorIds[0] ?? firstDescendantId(el);
    let fragment: string | null = ownId ?? null;
    const alternateIds: string[] = anchorIds.slice(1);
    const pending = ctx.pendingSection;
    if (pending && !pending.taken) {
      pending.taken = true;
      fragment = pending.id;
      if (ownId !== undefined && ownId !== pending.id) alternateIds.push(ownId);
    }
    if (text === '' && fragment === null) return;
    if (level === 1 && this.firstH1 === '') this.firstH1 = text;
    this.builder.openSection({
      fragment,
      alternateIds,
      heading: text,
      level,
      number,
      span: { unit: 'utf16-source', start: el.startIndex ?? 0, end: el.endIndex === null ? el.startIndex ?? 0 : el.endIndex + 1 },
    });
  }

  private paragraph(el: Element, ctx: WalkContext): void {
    this.addFlowBlock('paragraph', el, ctx, {}, (text) => {
      const lower = text.toLowerCase();
      if (this.rules.informativeStatements.some((s) => lower.startsWith(s))) this.builder.markCurrentSectionInformative('statement');
    });
  }

  /** One block of running text (with its keywords and links); `beforeAdd` sees the text first. */
  private addFlowBlock(
    kind: BlockKind,
    el: Element,
    ctx: WalkContext,
    extra: { ordered?: boolean; items?: ListItem[]; steps?: ListItem[]; entries?: { terms: string[]; definitions: string[] }[] },
    beforeAdd?: (text: string) => void,
  ): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    this.anchors = [];
    this.flow(el, sink, keywords, links, false);
    const text = sink.toString();
    if (text === '') return;
    beforeAdd?.(text);
    this.addBlock(kind, text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, ...extra }, el);
  }

  private addPreformatted(kind: BlockKind, el: Element, ctx: WalkContext): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    const children = el.name === 'pre' ? dropLeadingNewline(el.children, sink) : el.children;
    this.anchors = [];
    for (const c of children) this.flow(c, sink, keywords, links, true);
    const text = sink.toString();
    if (text === '') return;
    const language = languageOf(el);
    this.addBlock(kind, text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, language }, el);
  }

  private table(el: Element, ctx: WalkContext): void {
    const header: string[][] = [];
    const rows: string[][] = [];
    let caption = '';
    const visitRows = (parent: Element, inHead: boolean): void => {
      for (const child of parent.children) {
        if (!isTag(child) || this.rules.prune(child)) continue;
        if (child.name === 'caption') caption = normalizeSpace(textContent(child));
        else if (child.name === 'thead') visitRows(child, true);
        else if (child.name === 'tbody' || child.name === 'tfoot') visitRows(child, false);
        else if (child.name === 'tr') {
          const cells: string[] = [];
          let allTh = true;
          for (const cell of child.children) {
            if (!isTag(cell) || (cell.name !== 'td' && cell.name !== 'th')) continue;
            if (cell.name !== 'th') allTh = false;
            cells.push(normalizeSpace(this.plainText(cell)));
          }
          if (cells.length === 0) continue;
          if (inHead || (allTh && rows.length === 0)) header.push(cells);
          else rows.push(cells);
        }
      }
    };
    visitRows(el, false);
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    this.anchors = [];
    this.flow(el, sink, keywords, links, false);
    const text = sink.toString();
    if (text === '') return;
    this.addBlock('table', text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, header, rows, caption }, el);
  }

  private addBlock(
    kind: BlockKind,
    text: string,
    ctx: WalkContext,
    extra: {
      keywords: KeywordSpan[];
      links: Link[];
      start: number | null;
      end: number | null;
      ordered?: boolean;
      items?: ListItem[];
      steps?: ListItem[];
      entries?: { terms: string[]; definitions: string[] }[];
      header?: string[][];
      rows?: string[][];
      caption?: string;
      language?: string;
    },
    el?: Element,
  ): void {
    // issue 11 hook: a block opened by a named anchor (a conformance clause) takes the anchor's id.
    const blockAnchor = this.rules.blockAnchor;
    const ownId = el?.attribs['id'] ?? (el === undefined || blockAnchor === null ? undefined : leadingAnchorId(el, blockAnchor));
    // The block's own id is its fragment already.
    const anchors = (this.anchors ?? []).filter((anchor) => anchor.id !== ownId || anchor.start !== 0);
    this.anchors = null;
    let marker = ctx.marker;
    if (kind === 'example') marker = { normativity: 'example', reason: marker?.reason ?? 'marker-kind:example' };
    else if ((kind === 'note' || kind === 'issue') && (marker === null || marker.normativity === 'normative')) marker = { normativity: 'informative', reason: `marker-kind:${kind}` };
    if (el && marker === ctx.marker) {
      // Marker classes on the block element itself.
      const own = this.contextFor(el, { fragment: null, marker: ctx.marker, pendingSection: null });
      marker = own.marker;
    }
    this.builder.addBlock({
      kind,
      text,
      fragment: ownId !== undefined && ownId !== '' ? ownId : ctx.fragment,
      marker,
      markedKeywords: extra.keywords,
      links: extra.links,
      ordered: extra.ordered,
      items: extra.items,
      steps: extra.steps,
      entries: extra.entries,
      header: extra.header,
      rows: extra.rows,
      caption: extra.caption,
      language: extra.language,
      anchors,
      span: extra.start === null ? undefined : { unit: 'utf16-source', start: extra.start, end: extra.end === null ? extra.start : extra.end + 1 },
    });
  }

  // ---- flow text ---------------------------------------------------------------------------

  /** Writes the reading text of `node` into `sink`, recording marked keywords and links. */
  private flow(node: AnyNode, sink: TextSink, keywords: KeywordSpan[], links: Link[], pre: boolean, depth = 0): void {
    if (isText(node) || isCDATA(node)) {
      const data = isText(node) ? node.data : textContent(node);
      if (pre) sink.verbatim(data);
      else sink.text(data);
      return;
    }
    if (!isTag(node)) return;
    const name = node.name;
    if (SKIP_TAGS.has(name) || this.rules.prune(node)) return;
    // A table's caption is its block's caption field, not part of its text (issue 11).
    if (name === 'caption' && !pre) return;
    // An id inside the block (<dfn id>, a numbered step, an inline anchor): a citation can point there.
    const id = node.attribs['id'];
    if (this.anchors !== null && id !== undefined && id !== '') this.anchors.push({ id, start: sink.length });
    if (name === 'br') {
      if (pre) sink.verbatim('\n');
      else sink.lineBreak(1);
      return;
    }
    if (this.rules.keyword(node)) {
      const kw = keywordOf(textContent(node));
      if (kw !== null) {
        for (const c of node.children) this.flow(c, sink, keywords, links, pre, depth);
        const end = sink.length;
        keywords.push({ keyword: kw, start: end - kw.length, end, marked: true });
        return;
      }
    }
    const isPre = pre || name === 'pre' || name === 'xmp' || name === 'listing' || name === 'plaintext';
    // Cells stay on their row's line, separated by " | "; rows and other blocks start new lines.
    const block = BLOCK_TAGS.has(name) && name !== 'td' && name !== 'th';
    if (block && !pre) sink.lineBreak(1);
    let childDepth = depth;
    if (name === 'li') {
      const parent = node.parent;
      const ordered = parent !== null && isTag(parent) && parent.name === 'ol';
      sink.marker('  '.repeat(Math.max(0, depth - 1)) + (ordered ? `${listIndex(node)}. ` : '- '));
    } else if (name === 'ul' || name === 'ol') {
      childDepth = depth + 1;
    } else if ((name === 'td' || name === 'th') && node.prev !== null && hasPreviousCell(node)) {
      sink.literal(' | ');
    }
    let children = node.children;
    if (isPre && !pre) children = dropLeadingNewline(children, sink);
    const linkStart = this.wantLinks && name === 'a' ? node.attribs['href'] : undefined;
    for (const c of children) this.flow(c, sink, keywords, links, isPre, childDepth);
    if (linkStart !== undefined) {
      const text = normalizeSpace(textContent(node));
      links.push({ text, href: this.resolve(linkStart) });
    }
    if (block && !pre) sink.lineBreak(1);
  }

  /** Text of a cell or item without block structure (tables, list items). */
  private plainText(node: AnyNode): string {
    const sink = new TextSink();
    if (isTag(node)) for (const c of node.children) this.flow(c, sink, [], [], false);
    else this.flow(node, sink, [], [], false);
    return sink.toString();
  }

  private listItems(list: Element): ListItem[] {
    const items: ListItem[] = [];
    for (const child of list.children) {
      if (!isTag(child) || child.name !== 'li' || this.rules.prune(child)) continue;
      const sink = new TextSink();
      const nested: ListItem[] = [];
      const visit = (node: AnyNode): void => {
        if (isTag(node)) {
          if (SKIP_TAGS.has(node.name) || this.rules.prune(node)) return;
          if (node.name === 'ul' || node.name === 'ol') {
            for (const item of this.listItems(node)) nested.push(node.name === 'ol' ? { ...item, ordered: true } : item);
            return;
          }
          if (BLOCK_TAGS.has(node.name)) sink.lineBreak(1);
          for (const c of node.children) visit(c);
          if (BLOCK_TAGS.has(node.name)) sink.lineBreak(1);
        } else if (isText(node)) {
          sink.text(node.data);
        }
      };
      for (const c of child.children) visit(c);
      const item: ListItem = { text: sink.toString() };
      if (nested.length > 0) item.items = nested;
      items.push(item);
    }
    return items;
  }

  /** The steps of an algorithm: items of its outermost lists. */
  private topLevelSteps(el: Element): ListItem[] {
    if (el.name === 'ol' || el.name === 'ul') return this.listItems(el);
    const steps: ListItem[] = [];
    const visit = (node: Element): void => {
      for (const c of node.children) {
        if (!isTag(c) || this.rules.prune(c)) continue;
        if (c.name === 'ol' || c.name === 'ul') steps.push(...this.listItems(c));
        else visit(c);
      }
    };
    visit(el);
    return steps;
  }

  private definitionEntries(dl: Element): { terms: string[]; definitions: string[] }[] {
    const entries: { terms: string[]; definitions: string[] }[] = [];
    let current: { terms: string[]; definitions: string[] } | null = null;
    const visit = (parent: Element): void => {
      for (const child of parent.children) {
        if (!isTag(child) || this.rules.prune(child)) continue;
        if (child.name === 'dt') {
          if (current === null || current.definitions.length > 0) {
            current = { terms: [], definitions: [] };
            entries.push(current);
          }
          current.terms.push(normalizeSpace(this.plainText(child)));
        } else if (child.name === 'dd') {
          if (current === null) {
            current = { terms: [], definitions: [] };
            entries.push(current);
          }
          current.definitions.push(this.plainText(child));
        } else if (child.name === 'div') {
          visit(child);
        }
      }
    };
    visit(dl);
    return entries;
  }

  private resolve(href: string): string {
    if (href.startsWith('#')) return this.baseNoHash + href;
    try {
      return new URL(href, this.baseUrl).href;
    } catch {
      return href;
    }
  }
}

const KNOWN_INLINE = new Set([
  'a', 'abbr', 'acronym', 'b', 'bdi', 'bdo', 'big', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd',
  'label', 'mark', 'nobr', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u',
  'var', 'wbr', 'output', 'meter', 'progress', 'slot', 'bcp14', 'c-',
]);

function containsHeading(el: Element): boolean {
  for (const c of el.children) {
    if (!isTag(c)) continue;
    if (HEADING_LEVEL[c.name] !== undefined) return true;
    if (containsHeading(c)) return true;
  }
  return false;
}

function firstDescendantId(el: Element): string | undefined {
  for (const c of el.children) {
    if (!isTag(c)) continue;
    const id = c.attribs['id'] ?? (c.name === 'a' ? c.attribs['name'] : undefined);
    if (id !== undefined && id !== '') return id;
    const deeper = firstDescendantId(c);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}

/** Item numbers already given, so the items of one list are numbered in linear time, not quadratic. */
const listIndexMemo = new WeakMap<Element, number>();

function listIndex(li: Element): number {
  let previous: Element | null = null;
  for (let sib = li.prev; sib !== null && previous === null; sib = sib.prev) if (isTag(sib) && sib.name === 'li') previous = sib;
  const known = previous === null ? undefined : listIndexMemo.get(previous);
  let index: number;
  if (known !== undefined) {
    index = known + 1;
  } else {
    const parent = li.parent;
    let start = 1;
    if (parent && isTag(parent)) {
      const s = Number.parseInt(parent.attribs['start'] ?? '', 10);
      if (Number.isFinite(s)) start = s;
    }
    let n = 0;
    for (let sib = li.prev; sib !== null; sib = sib.prev) if (isTag(sib) && sib.name === 'li') n++;
    index = start + n;
  }
  listIndexMemo.set(li, index);
  return index;
}

function hasPreviousCell(cell: Element): boolean {
  for (let sib = cell.prev; sib !== null; sib = sib.prev) if (isTag(sib) && (sib.name === 'td' || sib.name === 'th')) return true;
  return false;
}

/** HTML5 drops a newline right after <pre>; htmlparser2 keeps it, so drop it here. */
function dropLeadingNewline(children: AnyNode[], _sink: TextSink): AnyNode[] {
  const first = children[0];
  if (first && isText(first) && first.data.startsWith('\n')) {
    const copy = children.slice();
    const data = first.data.slice(1);
    copy[0] = Object.assign(Object.create(Object.getPrototypeOf(first) as object) as typeof first, first, { data });
    return copy;
  }
  if (first && isText(first) && first.data.startsWith('\r\n')) {
    const copy = children.slice();
    copy[0] = Object.assign(Object.create(Object.getPrototypeOf(first) as object) as typeof first, first, { data: first.data.slice(2) });
    return copy;
  }
  return children;
}

function languageOf(el: Element): string | undefined {
  for (const c of classesOf(el)) {
    if (c.startsWith('lang-')) return c.slice(5);
    if (c.startsWith('language-')) return c.slice(9);
  }
  return undefined;
}

/** Extracts the HTML `source` into the builder; returns the title and structure counts. */
export function extractHtml(ctx: HtmlExtractContext): HtmlExtractResult {
  const { document, cappedElements } = parseHtml(ctx.source);
  if (cappedElements > 0) {
    ctx.builder.warn('html-depth-capped', `${cappedElements} elements nested deeper than ${MAX_TREE_DEPTH} levels were attached at depth ${MAX_TREE_DEPTH}, as browsers do; their text is kept.`);
  }
  const walker = new HtmlWalker(ctx);
  let root: Element | Document = document;
  for (const selector of ctx.rules.rootSelectors) {
    const hit = selectOne<AnyNode, Element>(selector, document);
    if (hit) {
      root = hit;
      break;
    }
  }
  const titleEl = selectOne<AnyNode, Element>('title', document);
  // issue 11 hook: front matter is metadata wherever it sits, even inside pruned containers.
  if (ctx.rules.metadataSelectors !== undefined && ctx.rules.metadataSelectors.length > 0) {
    for (const el of selectAll<AnyNode, Element>(ctx.rules.metadataSelectors.join(', '), document)) readFrontMatter(el, ctx.builder);
  }
  const rootCtx: WalkContext = { fragment: null, marker: null, pendingSection: null };
  walker.walkContainer(root, rootCtx);
  const title = normalizeSpace(titleEl ? textContent(titleEl) : '') || walker.firstH1;
  let idCount = 0;
  for (const s of ctx.builder.sections) if (s.fragment !== null) idCount++;
  return { title, headingCount: walker.headingCount, idCount };
}
