import { type AnyNode, type Document, type Element, isTag, isText, isCDATA } from 'domhandler';
import { isRespecSource, respecSectionHeading } from './respec-source.js';
import { htmlizedRfc } from './htmlized-rfc.js';
import { manualPageInPre } from './manual-page-pre.js';
import { extractManText } from '../text/man-text.js';
import { extractRfcText } from '../text/rfc-text.js';
import { selectAll, selectOne } from 'css-select';
import { findOne, textContent } from 'domutils';
import type { HtmlRules } from '../families.js';
import type { BlockAnchor, DocumentBuilder, Link, BlockKind } from '../document-builder.js';
import type { Section } from '../../document/types.js';
import type { KeywordSpan } from '../bcp14.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { MAX_TREE_DEPTH, parseMarkup, type ParsedMarkup } from '../markup-parser.js';
import { type CompiledRules, compileRules, type Matcher } from './compiled-rules.js';
import { compileSelector } from './selector-compile.js';
import { DocumentIds } from './term-targets.js';
import { FlowWriter } from './flow.js';
import { BLOCK_TAGS, HEADING_LEVEL, KNOWN_INLINE, SKIP_TAGS, containsHeading, containsSectionHeading } from './tags.js';
import type { BlockExtra, HtmlWalk, WalkContext } from './walk.js';
import { blockMarker, contextBelow, isInformativeStatement } from './normativity.js';
import { holdsContentAfter, openHeadingSection } from './sections.js';
import { asideKindOf, asideTitleIds, extractAside, isTitledAside } from './notes.js';
import { definitionIdOf, extractAlgorithm, introducesSteps, leadParagraph, leadsInto } from './algorithms.js';
import { extractDefinitionList, extractList } from './lists.js';
import {
  extractGridTable,
  extractLayoutTerms,
  extractTable,
  holdsLayoutContent,
  type LayoutBox,
  layoutBox,
  layoutTableCell,
  layoutTermRows,
  tableCells,
} from './tables.js';
import { tableInsertionRule } from './table-parsing.js';
import { listItemRule } from './list-item-parsing.js';
import { paragraphClosingRule } from './paragraph-parsing.js';
import { extractPreformatted } from './preformatted.js';
import { extractGrammar } from './grammar.js';
import { readFrontMatter } from './rfc-html.js';
import { walkFigure } from './figures.js';
import { anchorId, firstMarkLast, firstStableId, headingAnchorIds, leadingAnchorId, linkedIdLast } from './anchors.js';
import { isGeneratedId } from '../../document/generated-ids.js';
import { textOfAtMost } from '../dom-nodes.js';
import { TABLE_SPAN_COPY_BOUNDS } from '../input-bounds.js';

/** Lists and definition lists: one block each, unless a heading inside one opens a section. */
const LIST_TAGS: ReadonlySet<string> = new Set(['ol', 'ul', 'menu', 'dir', 'dl']);
/** Marks a list item is written with in place of a term (man(7)'s `.IP o`, `.IP *`): bullets, not names. */
const LIST_MARKS: ReadonlySet<string> = new Set(['o', '*', '-', '\u2022', '\u00b7', '\u25e6', '\u25cb', '\u2023', '\u2043']);
/** An item's number or letter written as its term (pod's `=item 1.`, man(7)'s `.IP 2)`, `(iv)`): no name either. */
const ITEM_NUMBER = /^(?:\(?(?:\d{1,4}|[a-z]|[ivxlc]{1,6})[.)]|\((?:\d{1,4}|[a-z]|[ivxlc]{1,6})\))$/i;

/** Elements that show a term as a name (man's `.B o`, mdoc's `Fl`/`Cm`, pod's `C<(R)>`): a mark in one is no bullet. */
const NAME_MARKUP: ReadonlySet<string> = new Set(['b', 'strong', 'code', 'kbd', 'samp', 'tt', 'var', 'i', 'em']);

/**
 * Whether a term's text is a list mark or an item number, not the name of an entry. A mark or number
 * set as code or bold names something (ar's modifier `<b>o</b>`, dash's printf flag `<code>-</code>`,
 * perlre's `<code>(R)</code>`); a plain mark is a bullet only where it repeats among the list's terms
 * (rsync's `.IP o` items), since one written once names a command (perldebug's `o` and `-`).
 */
function isListMark(term: Element, memo: WeakMap<AnyNode, Map<string, number>>): boolean {
  const read = textOfAtMost(term, 64);
  if (read.cut) return false;
  const text = read.text.trim();
  const mark = LIST_MARKS.has(text);
  if (!mark && !ITEM_NUMBER.test(text)) return false;
  if (hasNameMarkup(term)) return false;
  return !mark || termTexts(term, memo).get(text)! > 1;
}

/** Whether an element of NAME_MARKUP is inside `term` (a bounded look: a term of marks is small). */
function hasNameMarkup(term: Element): boolean {
  const stack: AnyNode[] = [...term.children];
  for (let seen = 0; stack.length > 0 && seen < 256; seen++) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    if (NAME_MARKUP.has(node.name)) return true;
    stack.push(...node.children.slice(0, 256));
  }
  return false;
}

/** How many of the terms beside `term` (its parent's `<dt>` children) have each short text; memoized per parent in `memo`. */
function termTexts(term: Element, memo: WeakMap<AnyNode, Map<string, number>>): Map<string, number> {
  const parent = term.parent ?? term;
  let counts = memo.get(parent);
  if (counts === undefined) {
    counts = new Map();
    const siblings = term.parent === null ? [term] : term.parent.children;
    for (const c of siblings) {
      if (!isTag(c) || c.name !== 'dt') continue;
      const read = textOfAtMost(c, 64);
      if (read.cut) continue;
      const text = read.text.trim();
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    memo.set(parent, counts);
  }
  return counts;
}

/**
 * The HTML walker: walks the parsed tree in document order and dispatches each block-level element
 * to the module of its construct (sections.ts, notes.ts, algorithms.ts, lists.ts, tables.ts,
 * grammar.ts, preformatted.ts); normativity.ts decides the marker in effect. Inline runs become paragraphs here.
 */

export interface HtmlExtractContext {
  source: string;
  /** Document URL without fragment: the base for links. */
  baseUrl: string;
  rules: HtmlRules;
  builder: DocumentBuilder;
  links: boolean;
  /** `source` already parsed by parseHtml (to read what the page declares before its family is chosen). */
  parsed?: ParsedMarkup;
}

export interface HtmlExtractResult {
  title: string;
  headingCount: number;
  idCount: number;
}

/** The tree builder with the standard's rules for table parts, list items and closing paragraphs added. */
export function parseHtml(source: string): ParsedMarkup {
  return parseMarkup(
    source,
    {
      withStartIndices: true,
      withEndIndices: true,
      decodeEntities: true,
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
      recognizeSelfClosing: declaresXhtml(source),
    },
    [listItemRule, paragraphClosingRule, tableInsertionRule],
  );
}

/** How far into a page its XHTML declaration is looked for (the XML declaration, DOCTYPE and `<html>`). */
const XHTML_DECLARATION_WINDOW = 2048;

/**
 * Whether a page declares itself XHTML, where `<tag/>` is an empty element: an XHTML DOCTYPE or the
 * XHTML namespace on its root. An XHTML serializer writes every empty element so: ImageMagick's pages
 * (`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN"`) hold `<iframe .../>` in their menu and
 * `<a class="anchor" id="x"/>` before each option; read as HTML, the iframe never closed and held the
 * whole page, so nothing after the menu was text. In HTML a `/>` on a non-void element is ignored.
 */
function declaresXhtml(source: string): boolean {
  const head = source.slice(0, XHTML_DECLARATION_WINDOW);
  return (
    /<!DOCTYPE\s+html\s+PUBLIC\s+"-\/\/W3C\/\/DTD XHTML/i.test(head) ||
    /<html\b[^>]*\sxmlns\s*=\s*["']http:\/\/www\.w3\.org\/1999\/xhtml["']/i.test(head)
  );
}

class HtmlWalker implements HtmlWalk {
  readonly rules: CompiledRules;
  readonly builder: DocumentBuilder;
  private readonly writer: FlowWriter;
  headingCount = 0;
  firstH1 = '';
  spanCopyBudget: number;
  /**
   * The ids of elements inside the block being written (<dfn id>, a numbered step, an inline
   * anchor), with their offsets in the text sink passed to `flow`: a citation can point there.
   * Collected per sink, so the text of a cell or an item (plainText) never mixes in.
   */
  private blockAnchors: { sink: TextSink; anchors: BlockAnchor[]; linkTargets: string[] } | null = null;
  /** Whether an inline element wraps blocks (isBlockLevel), asked once per element. */
  private readonly wrapsBlocks = new WeakMap<Element, boolean>();
  /**
   * Ids of anchors with no text of their own written between blocks (`<a name="Node"></a>`,
   * `<span id="index-x"></span>`): they name what follows them, the next heading (its section's ids)
   * or else the next block (anchors at its start). Dropped before, so `#Node` opened nothing.
   */
  private leadingIds: string[] = [];
  /**
   * The last stable id of an `<a name>` with no text (flow.ts emptyAnchorIds: between blocks or inside
   * one) that went to a block, not to a heading, and the section it was met in: it names the passage
   * from there to the next one or the section's end, as SQLite's pages write
   * `<a name="pragma_busy_timeout"></a>` before each entry they print without a heading. A
   * later block in that passage without an id of its own cites it (passageFragment), where it cited
   * the section the whole list of entries is in.
   */
  private passageAnchor: { id: string; at: number; section: Section | null } | null = null;
  /**
   * Where each section's heading starts and what bounds the section (sectionBound; Infinity when
   * nothing does): a block without an id cites the nearest of these sections that holds it, when its
   * heading lies inside the element whose id the block would otherwise cite (nearestFragment).
   */
  private readonly headingScopes = new WeakMap<Section, { heading: number; start: number; end: number }>();
  /** Whether a heading that opens a section is inside an element (containsSectionHeading), asked once per element. */
  private readonly sectionHeadingInside = new WeakMap<Element, boolean>();
  /** Whether a grid table is inside an element (holdsGridTable), asked once per element. */
  private readonly gridTableInside = new WeakMap<Element, boolean>();
  /** Where the document's ids and headings are (documentIds), built on first use. */
  private ids: DocumentIds | undefined;
  /** Elements read already as the continuation of the entry before them (continueEntry): their container passes over them. */
  private readonly continued = new Set<AnyNode>();
  /** How often each short term text occurs among a list's terms (isListMark), per list. */
  private readonly termTextCounts = new WeakMap<AnyNode, Map<string, number>>();
  /** The element the walk reads (extractionRoot): ids outside it are in no block. */
  root: Element | Document | null = null;

  constructor(
    ctx: HtmlExtractContext,
    readonly respecSource: boolean,
  ) {
    this.rules = compileRules(ctx.rules);
    this.builder = ctx.builder;
    this.spanCopyBudget = Math.max(TABLE_SPAN_COPY_BOUNDS.floorChars, TABLE_SPAN_COPY_BOUNDS.factor * ctx.source.length);
    this.writer = new FlowWriter(this.rules, ctx.baseUrl, ctx.links);
  }

  /** Walks `parent`'s children as blocks and inline runs; `skip`, children already read (an entry's signature), are not. */
  walkContainer(parent: Element | Document, ctx: WalkContext, skip?: ReadonlySet<AnyNode>): void {
    let run: AnyNode[] = [];
    const flush = (): void => {
      if (run.length > 0) this.inlineRun(run, ctx);
      run = [];
    };
    for (const child of parent.children) {
      if (skip?.has(child) === true || (this.continued.size > 0 && this.continued.has(child))) continue;
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

  /** An aside read as one block because its one heading is its title (notes.ts isTitledAside). */
  private readonly titledAside = (el: Element): boolean =>
    asideKindOf(this.rules, el) !== undefined && !this.rules.algorithm(el) && isTitledAside(el);

  private isBlockLevel(el: Element): boolean {
    if (BLOCK_TAGS.has(el.name)) return true;
    if (KNOWN_INLINE.has(el.name)) {
      // An inline element that wraps blocks, at any depth of inline wrappers (<a><div>, rfc2629.xslt's
      // <span><span><pre> figures), is walked as a container. Memoized: nested wrappers ask once each.
      const known = this.wrapsBlocks.get(el);
      if (known !== undefined) return known;
      const wraps = el.children.some(
        (c) => isTag(c) && (BLOCK_TAGS.has(c.name) || HEADING_LEVEL.has(c.name) || (KNOWN_INLINE.has(c.name) && this.isBlockLevel(c))),
      );
      this.wrapsBlocks.set(el, wraps);
      return wraps;
    }
    if (this.rules.algorithm(el) || this.rules.idl(el) || this.rules.grammar(el)) return true;
    // Custom elements (emu-note, wpt, c-): a container when they hold block children.
    return el.children.some((c) => isTag(c) && (BLOCK_TAGS.has(c.name) || !KNOWN_INLINE.has(c.name)));
  }

  private inlineRun(nodes: AnyNode[], ctx: WalkContext): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    for (const node of nodes) this.flow(node, sink, keywords, links, false);
    const text = sink.toString();
    if (text === '') {
      // Only anchors: kept for what comes next.
      if (this.blockAnchors?.sink === sink) this.keepLeading(this.blockAnchors.anchors);
      this.blockAnchors = null;
      return;
    }
    const first = nodes[0];
    const last = nodes[nodes.length - 1];
    this.addBlock('paragraph', text, ctx, { keywords, links, start: first?.startIndex ?? null, end: last?.endIndex ?? null });
  }

  /**
   * Inside an element of the family's nestedHeadingSelectors, the least level a heading opens a section
   * at: one below the section open where the outermost such element started (0 outside them).
   */
  private minHeadingLevel = 0;

  /**
   * A heading that labels what follows it rather than titles a section: its text ends in a colon
   * ("Parameters:", "Returns:", "Usage:", as LDoc heads the parts of every function's description) and
   * nothing names it (no id of its own or inside it, no section element's or anchor's id waiting for
   * it). Each opened a section of the group around, and the function's text after it no longer cited
   * the function's anchor. Read as a paragraph, as a family's label headings are.
   */
  private isLabelHeading(el: Element, outer: WalkContext): boolean {
    if (el.attribs['id'] !== undefined || this.leadingIds.length > 0) return false;
    if (outer.pendingSection !== null && !outer.pendingSection.taken) return false;
    const { text, cut } = textOfAtMost(el, MAX_LABEL_CHARS);
    if (cut || !/[:：]\s*$/.test(text)) return false;
    return headingAnchorIds(el).length === 0;
  }

  /**
   * Inside a reference entry (walkReferenceEntry), what its headings' tag levels are moved by to nest
   * below the entry's section (0 outside them).
   */
  private headingShift = 0;

  /** The level a heading of tag level `tagLevel` opens a section at, here. */
  private headingLevel(tagLevel: number): number {
    return Math.max(1, tagLevel + this.headingShift, this.minHeadingLevel);
  }

  /**
   * A reference entry inside a page (referenceEntrySelectors: DocBook's div.refentry, one manual page
   * in a book of them, flatpak's command reference): a section one level below the section around it,
   * headed by its name line (`flatpak-remote — Configuration for a remote`, the first paragraph of its
   * name element) and named by its own id, else the anchors it opens with. DocBook XSL writes every
   * entry's "Name", "Synopsis" and "Description" as h2 whatever the depth, so they were siblings of
   * the chapter around and of each other, and a question about one entry's options found no section
   * of that entry: the entry's headings are shifted to nest below it, and the name element's heading
   * (the label "Name", or GTK-Doc's title) heads no section of its own (its ids are the entry's
   * alternates). After the entry, the section around it goes on. False, and nothing is read, when
   * the entry has no name line or text before its name element.
   */
  private walkReferenceEntry(el: Element, ctx: WalkContext): boolean {
    const isName = this.rules.referenceName!;
    const before: Element[] = [];
    let nameEl: Element | undefined;
    for (const c of el.children) {
      if (isTag(c) && isName(c)) {
        nameEl = c;
        break;
      }
      if (isText(c) && c.data.trim() === '') continue;
      if (!isTag(c)) return false;
      const { text, cut } = textOfAtMost(c, 256);
      if (cut || text.trim() !== '') return false;
      before.push(c);
    }
    if (nameEl === undefined) return false;
    // Read once, bounded: the searches below then cost no more than this (entries nested in a name
    // element, hostile or not, are not searched again at every level).
    const whole = textOfAtMost(nameEl, MAX_NAME_CHARS);
    if (whole.cut) return false;
    const line = findOne((n) => n.name === 'p', nameEl.children, true);
    if (line === null || textOfAtMost(line, 1).text === '') return false;
    const nameHeading = findOne((n) => HEADING_LEVEL.has(n.name), nameEl.children, true);
    // The name element is read as the entry's heading (and its own heading): with more text than those
    // two (a second paragraph, a note), it is read as written, so that no word is lost.
    const named = normalizeSpace(whole.text);
    const lineText = normalizeSpace(textOfAtMost(line, MAX_NAME_CHARS).text);
    const headingText = nameHeading === null ? '' : normalizeSpace(textOfAtMost(nameHeading, MAX_NAME_CHARS).text);
    if (named.length > lineText.length + headingText.length + 1) return false;
    const ids: string[] = [];
    for (const c of before) {
      const id = anchorId(c) ?? firstStableId(c);
      if (id !== undefined && !isGeneratedId(id)) ids.push(id);
    }
    const leading = [...ids, ...this.leadingIds, ...(nameHeading === null ? [] : headingAnchorIds(nameHeading))];
    this.leadingIds = [];
    const around = this.builder.currentSection;
    const level = (around?.level ?? 0) + 1;
    this.headingCount++;
    const text = openHeadingSection(this, line, level, ctx, leading);
    const opened = this.builder.currentSection;
    if (text !== null && opened !== null && line.startIndex !== null) {
      this.headingScopes.set(opened, { heading: line.startIndex, start: el.startIndex ?? 0, end: el.endIndex ?? Infinity });
    }
    // A name heading that says more than the name line (Boost's "Class template static_vector" over
    // `boost::container::static_vector — ...`) is read as the entry's first paragraph; a one-word
    // label ("Name") or the name again (GTK-Doc's title) is not.
    if (nameHeading !== null && saysMoreThan(textOfAtMost(nameHeading, 256).text, textOfAtMost(line, 1024).text)) {
      this.addFlowBlock('paragraph', nameHeading, { ...ctx, pendingSection: null }, {});
    }
    const saved = { shift: this.headingShift, min: this.minHeadingLevel };
    this.headingShift = level + 1 - (nameHeading === null ? 2 : HEADING_LEVEL.get(nameHeading.name)!);
    this.minHeadingLevel = Math.max(saved.min, level + 1);
    try {
      this.walkContainer(el, { ...ctx, pendingSection: null }, new Set<AnyNode>([...before, nameEl]));
    } finally {
      this.headingShift = saved.shift;
      this.minHeadingLevel = saved.min;
    }
    this.builder.resumeSection(around);
    return true;
  }

  /**
   * An element whose headings sit below the section open where it starts (nestedHeadingSelectors: a TypeDoc
   * member's description, whose author writes `### Usage` as the member's own h3) raises the least level
   * of the headings inside it; every other element is dispatched as it is.
   */
  private blockElement(el: Element, outer: WalkContext): void {
    if (this.rules.nestedHeading?.(el) !== true || this.rules.prune(el)) {
      this.dispatchElement(el, outer);
      return;
    }
    const saved = this.minHeadingLevel;
    this.minHeadingLevel = Math.max(saved, (this.builder.currentSection?.level ?? 0) + 1);
    try {
      this.dispatchElement(el, outer);
    } finally {
      this.minHeadingLevel = saved;
    }
  }

  /** The dispatch: headings, then family constructs (asides, algorithms, IDL, grammar), then elements. */
  private dispatchElement(el: Element, outer: WalkContext): void {
    if (this.rules.prune(el)) return;
    const level = HEADING_LEVEL.get(el.name);
    // A family's label heading (Erlang/OTP's "Types" in each function, all with id="types") is a paragraph
    // of the entry it labels, citing it: not its own id, which the generator repeats.
    if (level !== undefined && !outer.inSectioningRoot && (this.rules.labelHeading?.(el) === true || this.isLabelHeading(el, outer))) {
      this.inlineRun(el.children, outer);
      return;
    }
    if (level !== undefined && outer.inSectioningRoot) {
      this.addFlowBlock('paragraph', el, contextBelow(this.rules, el, outer), {});
      return;
    }
    if (level !== undefined) {
      this.headingCount++;
      const leading = this.leadingIds;
      this.leadingIds = [];
      const text = openHeadingSection(this, el, this.headingLevel(level), outer, leading);
      const opened = this.builder.currentSection;
      if (text !== null && opened !== null && el.startIndex !== null) {
        const bound = this.sectionBound(el);
        this.headingScopes.set(opened, { heading: el.startIndex, start: bound?.startIndex ?? 0, end: bound?.endIndex ?? Infinity });
      }
      if (text !== null && level === 1 && this.firstH1 === '') this.firstH1 = text;
      return;
    }
    const group = outer.inSectioningRoot ? undefined : headingGroup(el, this.rules.prune);
    if (group !== undefined) {
      this.walkHeadingGroup(group, outer);
      return;
    }
    const r = this.rules;
    // Front matter is document metadata (read in extractHtml), never blocks.
    if (r.metadata(el)) return;
    // A family's caption (DocBook's div.table > p.title) is read by its parent, as a figcaption is.
    if (r.caption?.(el) === true && el.parent !== null && isTag(el.parent) && el.parent.name !== 'figure') return;
    const ctx = contextBelow(this.rules, el, outer);
    if (r.referenceEntry?.(el) === true && !outer.inSectioningRoot && this.walkReferenceEntry(el, ctx)) return;
    if (this.respecSource && el.name === 'section') this.respecSection(el, ctx);
    const captionEl = r.caption === null ? undefined : el.children.find((c): c is Element => isTag(c) && r.caption!(c));
    if (captionEl !== undefined && el.name !== 'figure') {
      this.walkFigure(el, ctx, captionEl);
      return;
    }

    // Code a family writes without <pre> (Doxygen's div.fragment, a div.line per line) keeps its lines.
    if (r.code?.(el) === true) {
      extractPreformatted(this, 'code', el, ctx);
      return;
    }
    const asideKind = asideKindOf(r, el);
    const isAlgorithm = r.algorithm(el);
    const isIdl = !isAlgorithm && r.idl(el);
    const isGrammar = !isAlgorithm && !isIdl && r.grammar(el);

    if (asideKind !== undefined || isAlgorithm || isIdl || isGrammar) {
      if (containsHeading(el) && !this.titledAside(el)) {
        this.walkContainer(el, ctx);
        return;
      }
      if (isIdl) extractPreformatted(this, 'idl', el, ctx);
      else if (isGrammar) extractGrammar(this, el, ctx);
      else if (isAlgorithm && asideKind === undefined) extractAlgorithm(this, el, ctx);
      else extractAside(this, asideKind ?? 'note', el, ctx);
      return;
    }

    if (el.name === 'dl' && r.entryList?.(el) === true) {
      this.walkEntryList(el, ctx);
      return;
    }

    // A list holding a heading (Bikeshed writes one when a Markdown list is not closed before it) is
    // walked as a container, as an aside or algorithm holding one is: the heading opens its section. So
    // is a list holding a grid table (javadoc lays out its summaries in ul.summary-list): the table is a block.
    if (
      LIST_TAGS.has(el.name) &&
      !ctx.inSectioningRoot &&
      (containsSectionHeading(el, this.titledAside, this.sectionHeadingInside) || this.holdsGridTable(el))
    ) {
      this.walkContainer(el, ctx);
      return;
    }

    if (r.gridTable?.(el) === true && extractGridTable(this, el, ctx)) return;

    const entry = r.entry;
    if (
      el.name === 'dl' &&
      entry !== null &&
      !ctx.inSectioningRoot &&
      el.children.some((c) => isTag(c) && c.name === 'dt' && this.namesEntry(c))
    ) {
      this.walkEntrySections(el, ctx);
      return;
    }

    if (r.entryBlock !== null && !ctx.inSectioningRoot && r.entryBlock(el)) {
      this.walkEntryBlock(el, ctx);
      return;
    }

    switch (el.name) {
      case 'p':
        this.addFlowBlock('paragraph', el, ctx, {}, (text) => {
          if (isInformativeStatement(r, text)) this.builder.markCurrentSectionInformative('statement');
        });
        return;
      case 'ol':
      case 'ul':
      case 'menu':
      case 'dir': {
        // A list a paragraph leads into with a definition ("To <dfn>x</dfn>, run these steps:") is that definition's.
        const lead = leadParagraph(this, el);
        const defined = lead === null ? undefined : definitionIdOf(lead.paragraph);
        const definedBy = defined !== undefined && leadsInto(lead!) ? defined : undefined;
        if (el.name === 'ol' && lead !== null && introducesSteps(lead, r.algorithmIntroductions))
          extractAlgorithm(this, el, ctx, definedBy);
        else extractList(this, el, ctx, definedBy);
        return;
      }
      case 'table': {
        const cell = layoutTableCell(el, this.rules.prune);
        if (cell !== undefined) {
          this.walkContainer(cell, layoutCellContext(this.rules, cell, ctx));
          return;
        }
        // A table that lays out a page (a navigation column beside the text): its headings open sections.
        const cells = ctx.inSectioningRoot ? [] : tableCells(el);
        if (cells.some((c) => holdsLayoutContent(c) && containsSectionHeading(c, this.titledAside, this.sectionHeadingInside))) {
          for (const c of cells) this.walkContainer(c, layoutCellContext(this.rules, c, ctx));
          return;
        }
        const terms = layoutTermRows(el);
        const box = terms === undefined && !ctx.inSectioningRoot ? layoutBox(el, this.rules.prune) : undefined;
        if (terms !== undefined) extractLayoutTerms(this, el, terms, ctx);
        else if (box !== undefined) this.walkLayoutBox(el, box, ctx);
        else extractTable(this, el, ctx);
        return;
      }
      case 'pre':
      case 'xmp':
      case 'listing':
      case 'plaintext':
        extractPreformatted(this, r.artwork(el) ? 'artwork' : 'code', el, ctx);
        return;
      // A figure's caption belongs to its block (figures.ts).
      case 'figure':
        this.walkFigure(el, ctx);
        return;
      case 'figcaption':
        if (el.parent !== null && isTag(el.parent) && el.parent.name === 'figure') return;
        this.walkContainer(el, ctx);
        return;
      // One author's contact details are one block, as the XML's <author> is.
      case 'address':
        this.addFlowBlock('paragraph', el, ctx, {});
        return;
      case 'dl':
        extractDefinitionList(this, el, ctx);
        return;
      case 'blockquote':
        this.addFlowBlock('blockquote', el, ctx, {});
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

  /**
   * A definition list whose terms name API entries (entrySelectors: Sphinx's `dl.py > dt.sig-object`):
   * each entry a subsection of the section around the list, one level below it, headed by the name its
   * term (the signature) declares, with the term's id; the signature is its first block, its definition
   * read as blocks (a class's methods are entries of their own inside it). Another term before the
   * definition (`re.DOTALL` after `re.S`) is an alternate id and a paragraph citing its own id. After
   * the list, the section around it goes on. (walkEntryList reads a family's entries without sections.)
   */
  private walkEntrySections(dl: Element, ctx: WalkContext): void {
    const around = this.builder.currentSection;
    const level = (around?.level ?? 0) + 1;
    let termsOpen = false;
    // The entry the list's last item is in, if it is one: what follows the list may go on with it.
    let entry: Section | null = null;
    // Text and inline elements written directly in the list (a browser shows them; past the tree depth
    // cap the text of deeper terms and paragraphs is left there) are read as walkContainer reads them.
    let run: AnyNode[] = [];
    const flush = (): void => {
      if (run.length > 0) this.inlineRun(run, ctx);
      run = [];
    };
    for (const child of dl.children) {
      if (isText(child) || isCDATA(child)) {
        if (!isText(child) || child.data.trim() !== '') termsOpen = false;
        run.push(child);
        continue;
      }
      if (!isTag(child) || SKIP_TAGS.has(child.name) || this.rules.prune(child)) continue;
      if (child.name !== 'dt' && child.name !== 'dd' && !this.isBlockLevel(child)) {
        termsOpen = false;
        run.push(child);
        continue;
      }
      flush();
      const childCtx = contextBelow(this.rules, child, ctx);
      // mandoc's `<dd>&nbsp;</dd>` between tags that share one body (ssh's four `-L` forms) ends no entry.
      if (termsOpen && isTagPlaceholder(child)) continue;
      if (child.name !== 'dt') {
        termsOpen = false;
        this.walkContainer(child, childCtx);
      } else if (!termsOpen && this.namesEntry(child)) {
        termsOpen = true;
        this.headingCount++;
        // The terms right after it name the same entry (`re.S` and `re.DOTALL`): its alternate ids.
        const ids = [...this.leadingIds, ...followingTermIds(child, isTagPlaceholder)];
        this.leadingIds = [];
        // The entry takes its term's id, never an enclosing <section>'s still waiting for its heading;
        // its heading is the name, and the whole signature is its first block.
        const text = openHeadingSection(this, child, level, { ...childCtx, pendingSection: null }, ids, true);
        const opened = this.builder.currentSection;
        if (text !== null && opened !== null && child.startIndex !== null) {
          this.headingScopes.set(opened, { heading: child.startIndex, start: dl.startIndex ?? 0, end: dl.endIndex ?? Infinity });
        }
        entry = text === null ? null : opened;
        this.addFlowBlock('paragraph', child, childCtx, {});
      } else if (isUntaggedTerm(child)) {
        // A term with no text and no id starts no item of its own (mandoc's `<dt></dt>`, a man page's
        // untagged .IP paragraph): its definition goes on with the item before it.
      } else {
        // A term that starts an item of its own without naming an entry (a Texinfo @table item with no
        // index entry after an @vindex one) is no part of the entry before it: the section around the list.
        if (!termsOpen) {
          this.builder.resumeSection(around);
          entry = null;
        }
        this.addFlowBlock('paragraph', child, childCtx, {});
      }
    }
    flush();
    if (entry !== null) this.continueEntry(dl, entry, ctx);
    this.builder.resumeSection(around);
  }

  /**
   * A table that boxes a part of the page (tables.ts layoutBox): its title, if it has one, heads a
   * section one level below the section around it, with the title's id; its cells are read in order
   * as containers. After the table, the section around it goes on.
   */
  private walkLayoutBox(table: Element, box: LayoutBox, ctx: WalkContext): void {
    const around = this.builder.currentSection;
    if (box.title !== undefined) {
      this.headingCount++;
      const leading = this.leadingIds;
      this.leadingIds = [];
      const text = openHeadingSection(this, box.title, (around?.level ?? 0) + 1, { ...ctx, pendingSection: null }, leading);
      const opened = this.builder.currentSection;
      if (text !== null && opened !== null && box.title.startIndex !== null) {
        this.headingScopes.set(opened, { heading: box.title.startIndex, start: table.startIndex ?? 0, end: table.endIndex ?? Infinity });
      }
    }
    for (const cell of box.cells) this.walkContainer(cell, layoutCellContext(this.rules, cell, ctx));
    if (box.title !== undefined) this.builder.resumeSection(around);
  }

  /**
   * The elements right after a list of entries that the family marks as going on with its last entry
   * (entryContinuationSelectors: mandoc renders a man page's .RS block inside a .TP item as a
   * `div.Bd-indent` after the list, and an untagged .IP paragraph after that as a list of its own):
   * each is read inside that entry, as are the continuations after it; only white space between.
   */
  private continueEntry(list: Element, entry: Section, ctx: WalkContext): void {
    const continues = this.rules.entryContinuation;
    if (continues === null) return;
    const scope = this.headingScopes.get(entry);
    for (let next = nextElementAfter(list); next !== undefined && continues(next); next = nextElementAfter(next)) {
      this.continued.add(next);
      if (this.rules.prune(next)) continue;
      // A block of it is within the entry's bound (nearestFragment), not cited by the section around.
      if (scope !== undefined && next.endIndex !== null) scope.end = Math.max(scope.end, next.endIndex);
      this.builder.resumeSection(entry);
      if (this.builder.currentSection !== entry) return; // a heading inside the list closed it
      this.blockElement(next, ctx);
    }
  }

  /**
   * Whether a term the family's entrySelectors select names an entry: a term that is a lone list mark
   * is a bullet (rsync's page writes its lists as `.IP o`, which mandoc tags `<dt id="o~12">o</dt>`:
   * 159 of them were sections headed "o"), and one that is an item's number ("1.") numbers it.
   */
  private namesEntry(term: Element): boolean {
    return this.rules.entry!(term) && !isListMark(term, this.termTextCounts);
  }

  /**
   * An element holding one API entry (entryBlockSelectors: Haddock's `div.top`, erl_docgen's
   * `article.func`, RDoc's `div.method-detail`): a subsection one level below the section around it, with
   * the id of its first child, the signature, or the first id inside it (Haddock's `a.def`), else the
   * element's own (RDoc's). A signature written as a heading
   * (erl_docgen's `h4`) is the entry's heading as it stands, and the headings of the same tag right
   * after it are other forms of the entry (`seq(From, To)`, `seq(From, To, Incr)`, one text): their ids
   * are its alternate ids, each a paragraph citing its own id. Any other signature is headed by the name
   * its id's element shows, else the name it declares, and is the entry's first block. The rest of the
   * element is its blocks (a class's methods entries of their own); after it, the section around it
   * goes on. An element whose first child holds no id is read as a container.
   */
  private walkEntryBlock(el: Element, ctx: WalkContext): void {
    const signature = el.children.find((c): c is Element => isTag(c) && !SKIP_TAGS.has(c.name) && !this.rules.prune(c));
    const named = signature === undefined ? undefined : anchorId(signature) !== undefined ? signature : firstIdInside(signature);
    // RDoc writes a method's id on the entry itself (`div.method-detail#method-i-chomp`), none in its signature.
    const entryId = signature !== undefined && named === undefined ? anchorId(el) : undefined;
    if (signature === undefined || (named === undefined && entryId === undefined)) {
      this.walkContainer(el, ctx);
      return;
    }
    const around = this.builder.currentSection;
    this.headingCount++;
    const isHeading = HEADING_LEVEL.has(signature.name);
    const forms = isHeading ? followingForms(signature) : [];
    const leading = [...(entryId === undefined ? [] : [entryId]), ...this.leadingIds, ...forms.flatMap((form) => anchorId(form) ?? [])];
    this.leadingIds = [];
    const sigCtx = contextBelow(this.rules, signature, ctx);
    // Its heading is the name the element bearing the id shows (Haddock's `a.def`), else the signature's name.
    const shown = named === undefined || named === signature ? '' : normalizeSpace(textContent(named));
    const heading = isHeading ? false : shown === '' ? true : shown;
    const text = openHeadingSection(this, signature, (around?.level ?? 0) + 1, { ...sigCtx, pendingSection: null }, leading, heading);
    const opened = this.builder.currentSection;
    if (text !== null && opened !== null && signature.startIndex !== null) {
      this.headingScopes.set(opened, { heading: signature.startIndex, start: el.startIndex ?? 0, end: el.endIndex ?? Infinity });
    }
    if (!isHeading) this.addFlowBlock('paragraph', signature, sigCtx, {});
    for (const form of forms) this.addFlowBlock('paragraph', form, contextBelow(this.rules, form, ctx), {});
    this.walkContainer(el, ctx, new Set<AnyNode>([signature, ...forms]));
    this.builder.resumeSection(around);
  }

  /**
   * Headings of one tag, each with an id, that an element holds alone (qdoc's `div.fngroup` of
   * `h3.fngroupitem`: the overloads `qobject_cast(QObject *)` and `qobject_cast(const QObject *)` that
   * one text documents): one section, opened by the first, the others its alternate ids, each a
   * paragraph citing its own id, as erl_docgen's forms are (walkEntryBlock). Read one by one, the first
   * was an empty section and the text after the group was cited at the last form alone.
   */
  private walkHeadingGroup(group: readonly Element[], outer: WalkContext): void {
    const [first, ...forms] = group as [Element, ...Element[]];
    this.headingCount++;
    const leading = [...this.leadingIds, ...forms.map((form) => anchorId(form) ?? firstIdOf(form))];
    this.leadingIds = [];
    const text = openHeadingSection(this, first, this.headingLevel(HEADING_LEVEL.get(first.name)!), outer, leading);
    const opened = this.builder.currentSection;
    if (text !== null && opened !== null && first.startIndex !== null) {
      const bound = this.sectionBound(first);
      this.headingScopes.set(opened, { heading: first.startIndex, start: bound?.startIndex ?? 0, end: bound?.endIndex ?? Infinity });
    }
    for (const form of forms) this.addFlowBlock('paragraph', form, contextBelow(this.rules, form, outer), {});
  }

  /**
   * A family's list of documented entries (entryListSelectors; pod2html writes every `=item` list as a
   * `<dl>`, perlfunc's functions and perlvar's variables each one): each term with an id that names
   * something (not a list mark or an item's number) opens an entry, a subsection of the section around
   * the list headed by the term as written, as API entries are (walkEntrySections). The terms right after
   * it are other forms of the entry (`splice ARRAY,OFFSET,LENGTH,LIST` then `splice ARRAY`; `$EVAL_ERROR`
   * then `$@`): its alternate ids, each a paragraph citing its own id; pod2html writes an empty `<dd>`
   * between forms, which keeps them one run. The definition is read as blocks inside the entry. Other
   * terms and their definitions are in the section around the list; after it, that section goes on.
   */
  private walkEntryList(list: Element, ctx: WalkContext, outer?: { around: Section | null; level: number }): void {
    // A <div> grouping items is read as part of its list: its entries open at the list's level, beside
    // the others, not inside the entry open before it.
    const around = outer === undefined ? this.builder.currentSection : outer.around;
    const level = outer === undefined ? (around?.level ?? 0) + 1 : outer.level;
    let termsOpen = false;
    // Text and inline elements written directly in the list (a browser shows them; past the tree depth
    // cap the text of deeper terms is left there) are read as walkContainer reads them.
    let run: AnyNode[] = [];
    const flush = (): void => {
      if (run.length > 0) this.inlineRun(run, ctx);
      run = [];
    };
    for (const child of list.children) {
      // Text between two terms parts them (followingTermIds stops there too): the next term is no other form.
      if (isText(child) || isCDATA(child)) {
        if (!isText(child) || child.data.trim() !== '') termsOpen = false;
        run.push(child);
        continue;
      }
      if (!isTag(child) || SKIP_TAGS.has(child.name) || this.rules.prune(child)) continue;
      if (child.name !== 'dt' && child.name !== 'dd' && child.name !== 'div' && !this.isBlockLevel(child)) {
        termsOpen = false;
        run.push(child);
        continue;
      }
      flush();
      const childCtx = contextBelow(this.rules, child, ctx);
      if (child.name === 'dt') {
        if (!termsOpen && anchorId(child) !== undefined && !isListMark(child, this.termTextCounts)) {
          this.headingCount++;
          const ids = [...this.leadingIds, ...followingTermIds(child, isBlankDefinition)];
          this.leadingIds = [];
          const text = openHeadingSection(this, child, level, { ...childCtx, pendingSection: null }, ids);
          const opened = this.builder.currentSection;
          if (text !== null && opened !== null && child.startIndex !== null) {
            this.headingScopes.set(opened, { heading: child.startIndex, start: list.startIndex ?? 0, end: list.endIndex ?? Infinity });
          }
        } else if (!termsOpen) this.builder.resumeSection(around);
        this.addFlowBlock('paragraph', child, childCtx, {});
        termsOpen = true;
        continue;
      }
      // pod2html writes an empty <dd> after each form of a function but the last: the forms stay one run.
      if (child.name === 'dd' && isBlank(child)) continue;
      termsOpen = false;
      if (child.name === 'dd') this.walkContainer(child, childCtx);
      else if (child.name === 'div') this.walkEntryList(child, ctx, { around, level });
      else this.blockElement(child, ctx);
    }
    flush();
    this.builder.resumeSection(around);
  }

  /** Whether a grid table of the family (gridTableSelectors) is inside `el`; memoized, so nested lists ask once per element. */
  private holdsGridTable(el: Element): boolean {
    const gridTable = this.rules.gridTable;
    if (gridTable === null) return false;
    const known = this.gridTableInside.get(el);
    if (known !== undefined) return known;
    let found = false;
    for (const c of el.children) {
      if (isTag(c) && (gridTable(c) || this.holdsGridTable(c))) {
        found = true;
        break;
      }
    }
    this.gridTableInside.set(el, found);
    return found;
  }

  addFlowBlock(kind: BlockKind, el: Element, ctx: WalkContext, extra: BlockExtra, beforeAdd?: (text: string) => void): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    this.flow(el, sink, keywords, links, false);
    const text = sink.toString();
    if (text === '') {
      // An element holding anchors alone (`<p><a id="option-help"></a></p>`: raw HTML in Markdown, as
      // mdBook renders it) names what comes next, as anchors between blocks do (inlineRun): its ids were lost.
      // The element's own id does not: an empty element with an id is a placeholder a script fills
      // (rfc2629.xslt's `<aside id="rfc.meta">`), not a name for the text after it.
      const own = el.attribs['id'];
      if (this.blockAnchors?.sink === sink) this.keepLeading(this.blockAnchors.anchors.filter((anchor) => anchor.id !== own));
      this.blockAnchors = null;
      return;
    }
    beforeAdd?.(text);
    this.addBlock(kind, text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, ...extra }, el);
  }

  /**
   * Anchors with no text, written where no text follows them, kept to name what comes next (the next
   * heading's section, else the next block). A link's id (`<a id="class_list_link" href="...">` around an
   * icon, as YARD's search button) names the link, not what follows it: it named the next heading.
   */
  private keepLeading(anchors: readonly BlockAnchor[]): void {
    // Nor does a term's lead id (term-targets.ts): it names the term's text, and there is none.
    for (const anchor of anchors)
      if (!this.writer.linkIds.has(anchor.id) && !this.writer.leadAnchors.has(anchor)) this.leadingIds.push(anchor.id);
  }

  addBlock(
    kind: BlockKind,
    text: string,
    ctx: WalkContext,
    extra: BlockExtra & { keywords: KeywordSpan[]; links: Link[]; start: number | null; end: number | null },
    el?: Element,
  ): void {
    // A block opened by a named anchor (a conformance clause) takes the anchor's id.
    const blockAnchor = this.rules.blockAnchor;
    const ownId = el?.attribs['id'] ?? (el === undefined || blockAnchor === null ? undefined : leadingAnchorId(el, blockAnchor));
    // A generated own id (Sphinx's `<dl id="index-0">`, pandoc's `<div id="cb5">`) counts what comes
    // before it, so it names no passage: the block cites what a block without an id cites, and the id
    // stays one of its anchors (cited only where nothing stable covers the text).
    const stableOwnId = ownId !== undefined && ownId !== '' && !isGeneratedId(ownId) ? ownId : undefined;
    // The anchors of the sink this text came from; the block's own stable id is its fragment already.
    const own = this.blockAnchors !== null && this.blockAnchors.sink.toString() === text ? this.blockAnchors : null;
    const collected = own === null ? [] : own.anchors;
    this.blockAnchors = null;
    let anchors = collected.filter((anchor) => anchor.id !== stableOwnId || anchor.start !== 0);
    // Empty anchors after all of the block's text (`text <A NAME="lbAC">&nbsp;</A>` then `<H2>`, as man2html
    // and roffit write each heading's anchor) mark no place in it: they name what comes next, as anchors
    // between blocks do. They named the paragraph before the heading, and the heading had no id.
    let cut = anchors.length;
    while (cut > 0 && anchors[cut - 1]!.start >= text.length && this.writer.emptyAnchorIds.has(anchors[cut - 1]!.id)) cut--;
    const trailing = anchors.slice(cut).map((anchor) => anchor.id);
    if (cut < anchors.length) anchors = anchors.slice(0, cut);
    if (this.leadingIds.length > 0) {
      const inside = new Set(anchors.map((anchor) => anchor.id));
      const leading = this.leadingIds.filter((id) => id !== ownId && !inside.has(id));
      // An array literal, not anchors.unshift(...leading): a spread into a call overflows the stack
      // past about a hundred thousand anchors (array-extremes.ts).
      anchors = [...leading.map((id) => ({ id, start: 0 })), ...anchors];
      this.leadingIds = [];
    }
    if (this.rules.marksNameFirst) anchors = firstMarkLast(anchors, this.writer.markAnchors);
    if (own !== null) anchors = linkedIdLast(anchors, own.linkTargets);
    let fragment = stableOwnId ?? this.passageFragment(ctx) ?? this.nearestFragment(ctx, extra.start);
    // Steps a paragraph defines cite the definition rather than a section around them; an element
    // nearer than the section that has an id (`div#text-method-algo` around them) still names them.
    if (fragment !== ownId && extra.definedBy !== undefined && (fragment === null || this.isSectionFragment(fragment)))
      fragment = extra.definedBy;
    // Where a stable id names the block, its own generated id at its start is no anchor: a chunk keeps
    // one id per offset, the innermost, so it hid the block's fragment and the block was cited by the
    // stable id before it (the previous block's) instead.
    if (ownId !== undefined && stableOwnId === undefined && fragment !== null && !isGeneratedId(fragment))
      anchors = anchors.filter((anchor) => anchor.id !== ownId || anchor.start !== 0);
    // The blocks after this one are in the passage its last empty anchor opens (passageAnchor), or
    // the heading of a titled aside: the aside's id names what follows it as a heading's would.
    const titleIds = el !== undefined && this.titledAside(el) ? asideTitleIds(el) : [];
    const titled = new Set(titleIds);
    for (let i = anchors.length - 1; i >= 0; i--) {
      const { id, start } = anchors[i]!;
      // An `<a name>` holding the text a block starts with (LAME's `<a name="m">-m x</a> Channel modes`
      // above the mode table and its paragraphs) names what follows as an empty one does.
      const empty = this.writer.emptyAnchorIds.has(id) || (start === 0 && this.writer.namedAnchorIds.has(id));
      if (!(empty || titled.has(id)) || isGeneratedId(id)) continue;
      // The heading's ids name one place, by the id it is cited by (its own, else its self-link's), not
      // by the last written in it: `<h3 id="new"><span id="old">` named the passage after it #old.
      const inBlock = titled.has(id) ? new Set(anchors.map((anchor) => anchor.id)) : null;
      const named = inBlock === null ? id : (titleIds.find((title) => inBlock.has(title) && !isGeneratedId(title)) ?? id);
      if (extra.start !== null) this.passageAnchor = { id: named, at: extra.start, section: this.builder.currentSection };
      break;
    }
    this.builder.addBlock({
      kind,
      text,
      fragment,
      marker: blockMarker(this.rules, kind, ctx.marker, el),
      markedKeywords: extra.keywords,
      links: extra.links,
      ordered: extra.ordered,
      items: extra.items,
      steps: extra.steps,
      entries: extra.entries,
      header: extra.header,
      rows: extra.rows,
      caption: extra.caption,
      spans: extra.spans,
      language: extra.language,
      anchors,
      span:
        extra.start === null
          ? undefined
          : { end: extra.end === null ? extra.start : extra.end + 1, start: extra.start, unit: 'utf16-source' },
    });
    for (const id of trailing) this.leadingIds.push(id);
  }

  /** Whether `id` is the fragment of a section open here (a block citing it names no place nearer). */
  private isSectionFragment(id: string): boolean {
    return this.builder.openSections.some((section) => section.fragment === id);
  }

  /**
   * The anchor opening the passage a block without an id is in (passageAnchor), when it is in the
   * block's section and nearer than the element around the block that has an id; else null.
   */
  private passageFragment(ctx: WalkContext): string | null {
    const passage = this.passageAnchor;
    if (passage === null || passage.section !== this.builder.currentSection) return null;
    if (ctx.fragmentStart !== null && ctx.fragmentStart > passage.at) return null;
    return passage.id;
  }

  /**
   * The id nearest before a block without one: the enclosing element's (`ctx.fragment`), unless a section
   * opened inside that element, after its start, has an id and the block is within its bound: the
   * heading is nearer. A block past that bound is asked of the enclosing section, and so on out.
   */
  private nearestFragment(ctx: WalkContext, at: number | null): string | null {
    if (ctx.fragment === null || ctx.fragmentStart === null || at === null) return ctx.fragment;
    const open = this.builder.openSections;
    for (let i = open.length - 1; i >= 0; i--) {
      const scope = this.headingScopes.get(open[i]!);
      // A section whose heading is not inside the element (it came before): that element is nearer.
      if (scope === undefined || scope.heading <= ctx.fragmentStart) return ctx.fragment;
      // The block is in that section only while within its bound (a ReSpec <section> may end before
      // the next heading does): else ask the enclosing section.
      if (at >= scope.start && at <= scope.end && open[i]!.fragment !== null) return open[i]!.fragment;
    }
    return ctx.fragment;
  }

  /** A figure, or an element a family's caption selector captions as one (figures.ts): its caption belongs to its block. */
  private walkFigure(el: Element, ctx: WalkContext, caption?: Element): void {
    walkFigure(
      el,
      this.builder,
      (f) => this.walkContainer(f, ctx),
      (c) => normalizeSpace(this.plainText(c)),
      (c) => this.addFlowBlock('paragraph', c, ctx, {}),
      caption,
    );
  }

  /**
   * The element that bounds a heading's section: the nearest around the heading that holds something
   * read after it (a `<section>` holding its content, the `<div>` around a run of headings and
   * paragraphs). An element around the heading alone does not: ReSpec's `div.header-wrapper` (the
   * heading and a pruned self-link), rustdoc's `section#method.x` (its docs follow outside it).
   * Null when none does: the section runs on to the next heading.
   */
  private sectionBound(heading: Element): Element | null {
    // One climb: at each element around the heading, what follows the branch the heading is on.
    for (let child = heading, p = heading.parent; p !== null && isTag(p); child = p, p = p.parent) {
      if (p.endIndex === null) return null;
      if (holdsContentAfter(this, child)) return p;
    }
    return null;
  }

  /** A ReSpec source's section that ReSpec gives a heading (respec-source.ts): opened here, with its id. */
  private respecSection(el: Element, ctx: WalkContext): void {
    const heading = respecSectionHeading(el);
    if (heading === null) return;
    const id = el.attribs['id'] ?? null;
    const pending = ctx.pendingSection;
    if (pending !== null && pending.id === id) pending.taken = true;
    let level = 1;
    for (let p: Element | null = el; p !== null && isTag(p); p = p.parent as Element | null) if (p.name === 'section') level++;
    this.builder.openSection({ fragment: id, heading, level: Math.min(level, 6), number: null });
  }

  withLeadIds(leadIds: ReadonlyMap<Element, string>, write: () => void): void {
    const outer = this.writer.leadIds;
    this.writer.leadIds = leadIds.size > 0 ? leadIds : null;
    try {
      write();
    } finally {
      this.writer.leadIds = outer;
    }
  }

  documentIds(from: AnyNode): DocumentIds {
    if (this.ids === undefined) {
      let root = from;
      if (this.root !== null) root = this.root;
      else while (root.parent !== null) root = root.parent;
      this.ids = new DocumentIds(root, (el) => SKIP_TAGS.has(el.name) || this.rules.prune(el));
    }
    return this.ids;
  }

  flow(node: AnyNode, sink: TextSink, keywords: KeywordSpan[], links: Link[], pre: boolean, depth = 0): void {
    if (this.blockAnchors?.sink !== sink) this.blockAnchors = { sink, anchors: [], linkTargets: [] };
    this.writer.anchors = this.blockAnchors.anchors;
    this.writer.linkTargets = this.blockAnchors.linkTargets;
    try {
      this.writer.flow(node, sink, keywords, links, pre, depth);
    } finally {
      this.writer.anchors = null;
      this.writer.linkTargets = null;
    }
  }

  plainText(node: AnyNode): string {
    return this.writer.plainText(node);
  }
}

/**
 * How much of a reference entry's name element is read to compare it with its heading and name line
 * ("Name", "flatpak-remote — Configuration for a remote"); past it, the element is read as written.
 */
const MAX_NAME_CHARS = 512;

/** The longest heading read as a label (isLabelHeading): a label is a word or two. */
const MAX_LABEL_CHARS = 64;

/** Whether `heading` has two words or more and a word `line` lacks (letters and digits compared case-insensitively). */
function saysMoreThan(heading: string, line: string): boolean {
  const words = heading.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 2) return false;
  const inLine = new Set(line.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  return words.some((word) => !inLine.has(word));
}

/** Whether an element holds nothing but white space. */
function isBlank(el: Element): boolean {
  return el.children.every((c) => isText(c) && c.data.trim() === '');
}

/**
 * Whether `el` is mandoc's placeholder definition, `<dd>&nbsp;</dd>`, written after a tag whose body is
 * the next tag's (mdoc's `.It Fl a` then `.It Fl b` and the text): a non-breaking space and nothing else.
 * Other generators' empty definitions (Sphinx's undocumented members) hold no such space.
 */
function isTagPlaceholder(el: Element): boolean {
  if (el.name !== 'dd' || el.children.length === 0) return false;
  let nbsp = false;
  for (const c of el.children) {
    if (!isText(c) || c.data.trim() !== '') return false;
    if (c.data.includes('\u00a0')) nbsp = true;
  }
  return nbsp;
}

/**
 * The ids of the `<dt>` elements right after `term`, past white space and the definitions `between`
 * passes over: mandoc's placeholders between tags that share one body (isTagPlaceholder), pod2html's
 * empty `<dd>` between the forms of one item (isBlankDefinition).
 */
function followingTermIds(term: Element, between: (el: Element) => boolean): string[] {
  const ids: string[] = [];
  for (let next = term.next; next !== null; next = next.next) {
    if (isText(next) && next.data.trim() === '') continue;
    if (isTag(next) && between(next)) continue;
    if (!isTag(next) || next.name !== 'dt') break;
    const id = anchorId(next);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** A `<dt>` with no text and no id: an untagged item, which only goes on with the one before it. */
function isUntaggedTerm(el: Element): boolean {
  return el.name === 'dt' && anchorId(el) === undefined && isBlank(el);
}

/** The element right after `el`, past white space and comments; undefined when text or nothing comes first. */
function nextElementAfter(el: Element): Element | undefined {
  for (let next = el.next; next !== null; next = next.next) {
    if (isTag(next)) return next;
    if (isText(next) && next.data.trim() !== '') return undefined;
    if (isCDATA(next)) return undefined;
  }
  return undefined;
}

/**
 * The context inside a layout table's cell: a cell of a table of data is a sectioning root (its headings
 * head the cell, not the document), but a layout table's cells are read as if the table were not there.
 */
function layoutCellContext(rules: CompiledRules, cell: Element, outer: WalkContext): WalkContext {
  const below = contextBelow(rules, cell, outer);
  return below.inSectioningRoot === outer.inSectioningRoot ? below : { ...below, inSectioningRoot: outer.inSectioningRoot };
}

/** A `<dd>` holding nothing but white space. */
function isBlankDefinition(el: Element): boolean {
  return el.name === 'dd' && isBlank(el);
}

/** Extracts the HTML `source` into the builder; returns the title and structure counts. */
export function extractHtml(ctx: HtmlExtractContext): HtmlExtractResult {
  const { document, cappedElements } = ctx.parsed ?? parseHtml(ctx.source);
  if (cappedElements > 0) {
    ctx.builder.warn(
      'html-depth-capped',
      `${cappedElements} elements nested deeper than ${MAX_TREE_DEPTH} levels were attached at depth ${MAX_TREE_DEPTH}, ` +
        'as browsers do; their text is kept.',
    );
  }
  // An htmlized RFC is the RFC's text in <pre> pages: read as that text (htmlized-rfc.ts).
  const htmlized = htmlizedRfc(document, ctx.source);
  if (htmlized !== null) {
    const read = extractRfcText(htmlized.text, ctx.builder, htmlized.map);
    ctx.builder.limits.add('text-layout-inferred');
    const titleEl = selectOne<AnyNode, Element>('title', document);
    let idCount = 0;
    for (const s of ctx.builder.sections) if (s.fragment !== null) idCount++;
    return { title: read.title || normalizeSpace(titleEl ? textContent(titleEl) : ''), headingCount: read.sectionCount, idCount };
  }
  // A formatted manual page in a <pre> is read as that text (manual-page-pre.ts).
  const manualPage = manualPageInPre(document, ctx.source);
  if (manualPage !== null) {
    const read = extractManText(manualPage.text, ctx.builder, manualPage.map);
    ctx.builder.limits.add('text-layout-inferred');
    return { title: read.title, headingCount: ctx.builder.sections.length, idCount: 0 };
  }
  const walker = new HtmlWalker(ctx, isRespecSource(document));
  const root: Element | Document = extractionRoot(document, ctx.rules.rootSelectors, walker.rules.entryBlock);
  walker.root = root;
  const titleEl = selectOne<AnyNode, Element>('title', document);
  // Front matter is metadata wherever it sits, even inside pruned containers (rfc-html.ts).
  if (ctx.rules.metadataSelectors !== undefined && ctx.rules.metadataSelectors.length > 0) {
    for (const el of selectAll<AnyNode, Element>(compileSelector(ctx.rules.metadataSelectors.join(', ')), document))
      readFrontMatter(el, ctx.builder);
  }
  const rootCtx: WalkContext = {
    fragment: null,
    fragmentStart: null,
    marker: null,
    pendingSection: null,
    sectionDepth: 0,
    inSectioningRoot: false,
  };
  walker.walkContainer(root, rootCtx);
  const title = normalizeSpace(titleEl ? textContent(titleEl) : '') || metadataCommentTitle(ctx.source) || walker.firstH1;
  let idCount = 0;
  for (const s of ctx.builder.sections) if (s.fragment !== null) idCount++;
  return { title, headingCount: walker.headingCount, idCount };
}

/**
 * The element the rules' root selectors name: the first selector's first match, when every other match
 * of that selector is inside it. A selector that matches several elements side by side (Erlang/OTP's
 * reference pages write each function as an `<article>`) names no one root: the next selector is tried,
 * so the page is not read as its first entry. Nor does a match that holds one API entry (`entryBlock`,
 * the family's entryBlockSelectors): a module page of one function (erl_docgen's one `article.func`) is
 * not that function, its description and the headings around the entry are read too.
 */
function extractionRoot(document: Document, selectors: readonly string[], entryBlock: Matcher | null): Element | Document {
  for (const selector of selectors) {
    const hits = selectAll<AnyNode, Element>(compileSelector(selector), document);
    const first = hits[0];
    if (first === undefined || entryBlock?.(first) === true) continue;
    if (hits.every((hit) => hit === first || isInside(hit, first))) return first;
  }
  return document;
}

function isInside(node: AnyNode, ancestor: Element): boolean {
  for (let p = node.parent; p !== null; p = p.parent) if (p === ancestor) return true;
  return false;
}

/** The first element inside `el` with an id (or an `<a name>`), in document order. */
function firstIdInside(el: Element): Element | undefined {
  for (const c of el.children) {
    if (!isTag(c)) continue;
    const found = anchorId(c) !== undefined ? c : firstIdInside(c);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Read no further than this for a page source's opening metadata comment. */
const MAX_METADATA_COMMENT = 4096;

/**
 * The title a page source declares in the JSON comment it opens with, as the Go website's pages do
 * (`<!--{ "Title": "The Go Programming Language Specification", "Path": "/ref/spec" }-->`: go.dev
 * renders the page inside its template, with that title); '' when it has none. A source without a
 * `<title>` or an `<h1>` was titled by its first heading ("Introduction").
 */
function metadataCommentTitle(source: string): string {
  const m = /^\s*<!--\s*(\{[\s\S]*?\})\s*-->/.exec(source.slice(0, MAX_METADATA_COMMENT));
  if (m === null) return '';
  try {
    const value: unknown = JSON.parse(m[1]!);
    const title = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['Title'] : undefined;
    return typeof title === 'string' ? normalizeSpace(title) : '';
  } catch {
    return '';
  }
}

/** The elements of the same tag as `heading` right after it, nothing but white space between them. */
/** The id of a heading: its own, else the first inside it (`<h3><a name="x">`). */
function firstIdOf(heading: Element): string {
  return anchorId(heading) ?? anchorId(firstIdInside(heading)!)!;
}

/**
 * The headings `el` holds and nothing else: two or more, of one tag, each with an id (its own or one
 * inside it), with no text between them; undefined for any other element (a heading itself, an
 * `<hgroup>` of a title and its subtitle, a wrapper holding a heading and its text).
 */
function headingGroup(el: Element, prune: (el: Element) => boolean): Element[] | undefined {
  if (HEADING_LEVEL.has(el.name) || el.name === 'hgroup') return undefined;
  const headings: Element[] = [];
  for (const c of el.children) {
    if (isText(c)) {
      if (c.data.trim() !== '') return undefined;
      continue;
    }
    if (!isTag(c)) continue;
    if (prune(c)) continue;
    if (!HEADING_LEVEL.has(c.name) || (headings.length > 0 && c.name !== headings[0]!.name)) return undefined;
    if (anchorId(c) === undefined && firstIdInside(c) === undefined) return undefined;
    headings.push(c);
  }
  return headings.length >= 2 ? headings : undefined;
}

function followingForms(heading: Element): Element[] {
  const forms: Element[] = [];
  for (let next = heading.next; next !== null; next = next.next) {
    if (isText(next) && next.data.trim() === '') continue;
    if (!isTag(next) || next.name !== heading.name || anchorId(next) === undefined) break;
    forms.push(next);
  }
  return forms;
}
