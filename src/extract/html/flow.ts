import { type AnyNode, type Element, isTag, isText, isCDATA } from 'domhandler';
import { textContent } from 'domutils';
import type { BlockAnchor, Link } from '../document-builder.js';
import { textOf, textOfAtMost } from '../dom-nodes.js';
import type { KeywordSpan } from '../bcp14.js';
import { MAX_KEYWORD_TEXT, keywordOf } from '../bcp14.js';
import { TextSink } from '../text-sink.js';
import type { CompiledRules } from './compiled-rules.js';
import { MAX_OUTLINE_DEPTH } from '../input-bounds.js';
import { MAX_SCRIPT_NESTING, type ScriptKind, isNoteMarker, scriptText } from '../scripts.js';
import { BLOCK_TAGS, SKIP_TAGS } from './tags.js';
import { anchorId } from './anchors.js';
import { isPermalinkGlyph } from './permalinks.js';
import { LinkTexts } from './link-texts.js';
import { LinkResolver } from '../link-resolver.js';

/** The reading text of elements: inline runs, list markers, table cells joined by " | ", links resolved. */
export class FlowWriter {
  /** Where the ids of elements inside the text go, set by the walker for a block's text; null otherwise. */
  anchors: BlockAnchor[] | null = null;
  /** The fragments of the same-document links (`href="#x"`) written with `anchors`, in document order. */
  linkTargets: string[] | null = null;
  /** Ids of anchors without text or link (`<a name="x"></a>`): marks of a place, not names of a term. */
  readonly emptyAnchorIds = new Set<string>();
  /** Ids of anchors with text and no link (`<a name="m">-m x</a>`): a term's name, and a place where one starts a block. */
  readonly namedAnchorIds = new Set<string>();
  /**
   * Ids of links to another place (`<a id="class_list_link" href="../class_list.html">`, an icon without
   * text): the id names the control itself, not the text after it, so it never names the next heading.
   * A self-link (`<a id="x" href="#x">`) is not one: it names its place.
   */
  readonly linkIds = new Set<string>();
  /**
   * Elements cited by an id that is not their own, recorded where their text starts: a table's rows
   * that head the rows after them, by their group's first id (tables.ts rowGroupIds); a definition
   * list's terms that name a definition after the list, by its id (term-targets.ts). Null elsewhere.
   */
  leadIds: ReadonlyMap<Element, string> | null = null;
  /** The anchors of elements without text (`<span id="x"></span>`, `<a name="x"></a>`): marks of a place. */
  readonly markAnchors = new WeakSet<BlockAnchor>();
  /** The anchors written for leadIds: they name the element's text, so a block with no text passes them to nothing. */
  readonly leadAnchors = new WeakSet<BlockAnchor>();
  /** How many `<sup>`/`<sub>` enclose the node being written. */
  private scriptNesting = 0;
  /** This writer serves one document: its links resolve against its URL. */
  private readonly links: LinkResolver;
  /** The texts of the links being written (null when links are not recorded). */
  private readonly linkTexts: LinkTexts | null;

  constructor(
    private readonly rules: CompiledRules,
    baseUrl: string,
    private readonly wantLinks: boolean,
  ) {
    this.links = new LinkResolver(baseUrl);
    this.linkTexts = wantLinks ? new LinkTexts() : null;
  }

  /** Writes the reading text of `node` into `sink`, recording marked keywords and links. */
  flow(node: AnyNode, sink: TextSink, keywords: KeywordSpan[], links: Link[], pre: boolean, depth = 0): void {
    if (isText(node) || isCDATA(node)) {
      const data = isText(node) ? node.data : textContent(node);
      this.linkTexts?.text(data);
      if (pre) sink.verbatim(data);
      else sink.text(data);
      return;
    }
    if (!isTag(node)) return;
    const name = node.name;
    // A table's caption is its block's caption field, not part of its text.
    if (SKIP_TAGS.has(name) || this.rules.prune(node) || (name === 'caption' && !pre) || (name === 'a' && isPermalinkGlyph(node))) {
      // Not written, yet part of an enclosing link's text (textOf's).
      if (this.linkTexts?.collecting) this.linkTexts.text(textOf(node));
      return;
    }
    // An id inside the block (<dfn id>, a numbered step, an inline anchor, a rule's <a name> in a
    // table row): a citation can point there.
    const id = anchorId(node);
    if (this.anchors !== null && id !== undefined) {
      const anchor = { id, start: sink.length };
      this.anchors.push(anchor);
      const empty = isEmptyElement(node);
      if (empty) this.markAnchors.add(anchor);
      const href = name === 'a' ? node.attribs['href'] : undefined;
      if (name === 'a' && href === undefined && empty) this.emptyAnchorIds.add(id);
      else if (name === 'a' && href === undefined) this.namedAnchorIds.add(id);
      else if (href !== undefined && href !== `#${id}`) this.linkIds.add(id);
    }
    // A link to a place in this document (its own entry's name, a cross-reference): anchors.ts linkedIdLast.
    if (this.linkTargets !== null && name === 'a') {
      const href = node.attribs['href'];
      if (href !== undefined && href.length > 1 && href.startsWith('#')) this.linkTargets.push(href.slice(1));
    }
    if ((name === 'sup' || name === 'sub') && !pre && this.script(node, name, sink, links)) return;
    if (name === 'br') {
      if (pre) sink.verbatim('\n');
      else sink.lineBreak(1);
      return;
    }
    if (this.rules.keyword(node)) {
      const read = textOfAtMost(node, MAX_KEYWORD_TEXT);
      const kw = read.cut ? null : keywordOf(read.text);
      if (kw !== null) {
        for (const c of node.children) this.flow(c, sink, keywords, links, pre, depth);
        const end = sink.length;
        keywords.push({ end, keyword: kw, marked: true, start: end - kw.length });
        return;
      }
    }
    const isPre = pre || name === 'pre' || name === 'xmp' || name === 'listing' || name === 'plaintext';
    // Cells stay on their row's line, separated by " | "; rows and other blocks start new lines.
    const block = BLOCK_TAGS.has(name) && name !== 'td' && name !== 'th';
    if (block && !pre) sink.lineBreak(1);
    const leadId = this.leadIds?.get(node);
    if (leadId !== undefined && this.anchors !== null) {
      const anchor = { id: leadId, start: sink.length };
      this.leadAnchors.add(anchor);
      this.anchors.push(anchor);
    }
    let childDepth = depth;
    if (name === 'li') {
      const parent = node.parent;
      const ordered = parent !== null && isTag(parent) && parent.name === 'ol';
      sink.marker(listIndent(depth) + (ordered ? `${listIndex(node)}. ` : '- '));
    } else if (name === 'ul' || name === 'ol') {
      childDepth = depth + 1;
    } else if ((name === 'td' || name === 'th') && node.prev !== null && hasPreviousCell(node)) {
      sink.separator(' | ');
    }
    const linkStart = !this.wantLinks
      ? undefined
      : name === 'a'
        ? node.attribs['href']
        : this.rules.crossReference(node) && !hasAnchor(node)
          ? node.attribs['href']
          : undefined;
    if (linkStart !== undefined) this.linkTexts!.begin();
    let children = node.children;
    if (isPre && !pre) {
      children = dropLeadingNewline(children);
      // The newline dropped is still part of an enclosing link's text.
      if (children !== node.children) this.linkTexts?.text(leadingNewline(node.children));
    }
    for (const c of children) this.flow(c, sink, keywords, links, isPre, childDepth);
    if (linkStart !== undefined) {
      const text = this.linkTexts!.end();
      // Members in code-unit order: canonicalJson then copies nothing.
      links.push({ href: this.resolve(linkStart), text });
    }
    if (block && !pre) sink.lineBreak(1);
  }

  /**
   * A superscript or subscript as `^53` / `_(i+1)` (scripts.ts); false for a note marker, which flows
   * as any element. Its content is written apart (to choose the parentheses), so its links are kept
   * and its keywords and inner ids are not placed; scripts nested more than MAX_SCRIPT_NESTING deep
   * flow as plain text, so no content is copied more than that many times.
   */
  private script(node: Element, kind: ScriptKind, sink: TextSink, links: Link[]): boolean {
    if (this.scriptNesting >= MAX_SCRIPT_NESTING) return false;
    if (this.scriptNesting === 0 && isNoteMarkerElement(node, this.rules)) return false;
    const inner = new TextSink();
    const anchors = this.anchors;
    this.anchors = null;
    this.scriptNesting++;
    try {
      for (const c of node.children) this.flow(c, inner, [], links, false);
    } finally {
      this.scriptNesting--;
      this.anchors = anchors;
    }
    const text = scriptText(kind, inner.toString());
    if (text !== '') sink.literal(text);
    return true;
  }

  /** Text of a cell or item without block structure (tables, list items). */
  plainText(node: AnyNode): string {
    const sink = new TextSink();
    // A cell's or an item's own text: its ids are not at offsets of the block being written.
    const anchors = this.anchors;
    this.anchors = null;
    const links = this.linkTexts?.setAside();
    if (isTag(node)) for (const c of node.children) this.flow(c, sink, [], [], false);
    else this.flow(node, sink, [], [], false);
    this.anchors = anchors;
    if (links !== undefined) this.linkTexts!.restore(links);
    return sink.toString();
  }

  resolve(href: string): string {
    return this.links.resolve(href);
  }
}

/** A `<sup>`/`<sub>` that is a footnote or reference marker: its text all in links or cross-references. */
export function isNoteMarkerElement(el: Element, rules: CompiledRules): boolean {
  return isNoteMarker(
    el,
    (e) => !SKIP_TAGS.has(e.name),
    (e) => (e.name === 'a' && e.attribs['href'] !== undefined) || rules.crossReference(e),
  );
}

/** Two spaces per enclosing list, at most MAX_OUTLINE_DEPTH lists deep: deeper items line up with the last level. */
export function listIndent(depth: number): string {
  return '  '.repeat(Math.min(Math.max(0, depth - 1), MAX_OUTLINE_DEPTH - 1));
}

/** Item numbers already given, so the items of one list are numbered in linear time, not quadratic. */
const listIndexMemo = new WeakMap<Element, number>();

/**
 * An item's number: its list's `start` plus the items before it, the hidden and pruned ones too. The
 * items walked back over to the nearest one already numbered are numbered on the way: an item written
 * only after one that is never written (`<li hidden>`, a pruned table-of-contents item) counted every
 * item before it again (800 KB of them in a table cell: 12 s).
 */
export function listIndex(li: Element): number {
  const known = listIndexMemo.get(li);
  if (known !== undefined) return known;
  const pending: Element[] = [li];
  let index: number | undefined;
  for (let sib = li.prev; sib !== null && index === undefined; sib = sib.prev) {
    if (!isTag(sib) || sib.name !== 'li') continue;
    index = listIndexMemo.get(sib);
    if (index === undefined) pending.push(sib);
  }
  if (index === undefined) {
    const parent = li.parent;
    const start = parent && isTag(parent) ? Number.parseInt(parent.attribs['start'] ?? '', 10) : Number.NaN;
    index = (Number.isFinite(start) ? start : 1) - 1;
  }
  for (let i = pending.length - 1; i >= 0; i--) listIndexMemo.set(pending[i]!, ++index);
  return index;
}

/** Whether an element holds an `<a>`, by element: each is looked into once, however deep cross-references nest. */
const holdsAnchor = new WeakMap<Element, boolean>();

/** A cross-reference element already rendered as an `<a>` is linked by that `<a>`, once. */
function hasAnchor(el: Element): boolean {
  let known = holdsAnchor.get(el);
  if (known === undefined) {
    known = false;
    for (const c of el.children)
      if (isTag(c) && (c.name === 'a' || hasAnchor(c))) {
        known = true;
        break;
      }
    holdsAnchor.set(el, known);
  }
  return known;
}

function hasPreviousCell(cell: Element): boolean {
  for (let sib = cell.prev; sib !== null; sib = sib.prev) if (isTag(sib) && (sib.name === 'td' || sib.name === 'th')) return true;
  return false;
}

/** The newline dropLeadingNewline drops: "\r\n", "\n" or "". */
function leadingNewline(children: AnyNode[]): string {
  const first = children[0];
  if (!first || !isText(first)) return '';
  return first.data.startsWith('\n') ? '\n' : first.data.startsWith('\r\n') ? '\r\n' : '';
}

/** HTML5 drops a newline right after <pre>; htmlparser2 keeps it, so drop it here. */
export function dropLeadingNewline(children: AnyNode[]): AnyNode[] {
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

/** Whether an element holds no text (whitespace aside) at any depth. */
function isEmptyElement(el: Element): boolean {
  return el.children.every((c) => (isText(c) ? c.data.trim() === '' : isTag(c) && isEmptyElement(c)));
}
