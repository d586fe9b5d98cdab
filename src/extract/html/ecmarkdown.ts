import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { newElement, newText } from '../dom-nodes.js';
import { MAX_OUTLINE_DEPTH } from '../input-bounds.js';

/**
 * `<emu-alg>` as ecmarkdown source: the steps as the spec author writes them (tc39/ecma262's
 * spec.html, proposals whose page ecmarkup renders in the browser), not the rendered `<ol>`:
 *
 *     <emu-alg>
 *       1. Let _O_ be ? ToObject(*this* value).
 *       1. [id="step-len"] If _len_ = 0, then
 *         1. Return *undefined*.
 *       * A bulleted step.
 *     </emu-alg>
 *
 * One step per line, `1.` numbered (any number: the rendered list counts from the first item's) or `*`
 * bulleted, nested by indentation; a line without a marker continues the step above it. A step may
 * open with ecmarkdown's attribute list (`[id="step-len", fence-effects="user-code"]`): its `id` is the
 * step's id, as the rendered `<li id>` is. Inline formatting becomes the elements ecmarkup renders it
 * to: `_x_` a `<var>`, `*v*` an `<emu-val>`, `~c~` an `<emu-const>`, `|N|` an `<emu-nt>`, `` `c` `` a
 * `<code>`, `\` escaping the next character; inline HTML (`<emu-xref href>`, `<a href>`, `<sup>`) stays
 * as the parser built it. The result is the `<ol>`/`<ul>` tree of the rendered form, so the steps
 * (paths, ids, variables, links) and the block text come out of the one step writer (algorithms.ts).
 *
 * Linear in the source: each text node is split into lines once, each line is scanned once, and the
 * nesting is a stack of open lists (no recursion over the source), at most MAX_OUTLINE_DEPTH deep:
 * a step indented deeper is one more step of the deepest list (`onDepthCapped` is told).
 */

/** The element to read the steps from: a synthesized step tree when `alg` holds ecmarkdown, else null. */
export function ecmarkdownSteps(alg: Element, onDepthCapped: () => void): Element | null {
  if (!isEcmarkdownSource(alg)) return null;
  const lines = splitLines(alg.children);
  const root = made(newElement('emu-alg', {}));
  root.parent = alg.parent;
  const lead: AnyNode[] = [];
  /** Open lists, innermost last: the indentation of their markers, their items, the last item's content. */
  const open: { indent: number; list: Element; container: AnyNode[]; items: AnyNode[]; lastContent: AnyNode[] }[] = [];
  const rootChildren: AnyNode[] = [];
  const children = new Map<Element, AnyNode[]>();
  for (const line of lines) {
    const head = leadingMarker(line);
    if (head === null) {
      // A continuation line (or prose before the first step): joined to what precedes it.
      if (isBlank(line)) continue;
      const target = open.length === 0 ? lead : open[open.length - 1]!.lastContent;
      target.push(made(newText(' ')));
      // One by one: a line may hold more nodes than a call takes arguments.
      for (const node of inline(stripIndent(line))) target.push(node);
      continue;
    }
    while (open.length > 0 && open[open.length - 1]!.indent > head.indent) open.pop();
    let top = open[open.length - 1];
    if (top !== undefined && open.length >= MAX_OUTLINE_DEPTH && head.indent > top.indent) {
      // Past the outline depth a deeper step is one more step of the deepest list (no unbounded nesting).
      onDepthCapped();
      head.indent = top.indent;
    }
    const kind = head.ordered ? 'ol' : 'ul';
    // A marker of the other kind at the same indentation starts a sibling list (as in Markdown).
    const sibling = top !== undefined && top.indent === head.indent && top.list.name !== kind;
    if (top === undefined || top.indent < head.indent || sibling) {
      const container = sibling ? top!.container : (top?.lastContent ?? rootChildren);
      if (sibling) open.pop();
      const attribs: Record<string, string> = {};
      if (head.ordered && head.number !== 1) attribs['start'] = String(head.number);
      const list = made(newElement(kind, attribs));
      const items: AnyNode[] = [];
      children.set(list, items);
      container.push(list);
      top = { indent: head.indent, list, container, items, lastContent: [] };
      open.push(top);
    }
    const li = made(newElement('li', head.id === undefined ? {} : { id: head.id }));
    const content = inline(head.rest);
    top.items.push(li);
    children.set(li, content);
    top.lastContent = content;
  }
  // Children are set once every line is read: an item's content grows with its continuation lines.
  for (const [parent, nodes] of children) link(parent, nodes);
  link(root, lead.length > 0 ? [...lead, ...rootChildren] : rootChildren);
  return root;
}

/** Source, not rendered: no `<ol>`/`<ul>` inside, and some line opens with a step marker. */
function isEcmarkdownSource(alg: Element): boolean {
  let marker = false;
  for (const c of alg.children) {
    if (isTag(c) && (c.name === 'ol' || c.name === 'ul' || hasList(c))) return false;
    if (!marker && isText(c) && /(?:^|\n)[ \t]*(?:\d+\.|\*)[ \t]/.test(c.data)) marker = true;
  }
  return marker;
}

function hasList(el: Element): boolean {
  // Iterative: inline HTML inside a step may nest deep; a rendered list sits near the top.
  const stack: AnyNode[] = [...el.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    if (node.name === 'ol' || node.name === 'ul') return true;
    for (const c of node.children) stack.push(c);
  }
  return false;
}

/** The children of the `<emu-alg>` cut into lines: text split at line ends, elements kept whole. */
function splitLines(children: readonly AnyNode[]): AnyNode[][] {
  const lines: AnyNode[][] = [[]];
  for (const c of children) {
    if (!isText(c)) {
      lines[lines.length - 1]!.push(c);
      continue;
    }
    const parts = c.data.split(/\r\n?|\n/);
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part !== '') lines[lines.length - 1]!.push(made(newText(part)));
    });
  }
  return lines;
}

function isBlank(line: readonly AnyNode[]): boolean {
  return line.every((n) => isText(n) && n.data.trim() === '');
}

function stripIndent(line: readonly AnyNode[]): AnyNode[] {
  const first = line[0];
  if (first === undefined || !isText(first)) return line.slice();
  return [made(newText(first.data.replace(/^[ \t]+/, ''))), ...line.slice(1)];
}

interface Marker {
  indent: number;
  ordered: boolean;
  number: number;
  /** The line after its marker (and its attribute list, whose `id` is set on the item). */
  rest: AnyNode[];
  id?: string;
}

const MARKER = /^([ \t]*)(?:(\d+)\.|\*)(?:[ \t]+|$)/;
/** ecmarkdown's step attributes: `[id="step-x", fence-effects="user-code"]` right after the marker. */
const ATTRIBUTES = /^\[((?:[ \t]*[\w-]+[ \t]*=[ \t]*"[^"]*"[ \t]*,?)*)\][ \t]*/;
const ATTRIBUTE = /([\w-]+)[ \t]*=[ \t]*"([^"]*)"/g;

function leadingMarker(line: readonly AnyNode[]): Marker | null {
  const first = line[0];
  if (first === undefined || !isText(first)) return null;
  const m = MARKER.exec(first.data);
  if (m === null) return null;
  let text = first.data.slice(m[0].length);
  let id: string | undefined;
  const attrs = ATTRIBUTES.exec(text);
  if (attrs !== null) {
    for (const a of attrs[1]!.matchAll(ATTRIBUTE)) if (a[1] === 'id' && a[2] !== '') id = a[2];
    text = text.slice(attrs[0].length);
  }
  const rest = text === '' ? line.slice(1) : [made(newText(text)), ...line.slice(1)];
  const marker: Marker = {
    indent: m[1]!.replace(/\t/g, '  ').length,
    ordered: m[2] !== undefined,
    number: m[2] === undefined ? 1 : Number.parseInt(m[2], 10),
    rest,
  };
  if (id !== undefined) marker.id = id;
  return marker;
}

/** ecmarkdown's inline format characters and the element each renders to. */
const FORMATS: Record<string, string> = { _: 'var', '*': 'emu-val', '~': 'emu-const', '|': 'emu-nt', '`': 'code' };

/**
 * A line's nodes with ecmarkdown's inline formats as elements. A format opens at a format character
 * not preceded by a letter or digit and closes at the next same character not followed by one, with
 * no space just inside either end (so `a * b` and `snake_case` stay text).
 */
function inline(nodes: readonly AnyNode[]): AnyNode[] {
  const out: AnyNode[] = [];
  for (const n of nodes) {
    if (isText(n)) for (const run of formatRuns(n.data)) out.push(run);
    else out.push(n);
  }
  return out;
}

const WORD = /[\p{L}\p{N}]/u;

function formatRuns(text: string): AnyNode[] {
  const out: AnyNode[] = [];
  let plain = '';
  let i = 0;
  /** Per format character, the first position from which no closing one exists (keeps the scan linear). */
  const noCloseFrom = new Map<string, number>();
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length && FORMATS[text[i + 1]!] !== undefined) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    const tag = FORMATS[ch];
    if (tag !== undefined && (i === 0 || !WORD.test(text[i - 1]!)) && i + 1 < text.length && !/\s/.test(text[i + 1]!)) {
      const close = (noCloseFrom.get(ch) ?? Number.POSITIVE_INFINITY) <= i + 1 ? -1 : text.indexOf(ch, i + 1);
      if (close === -1) noCloseFrom.set(ch, i + 1);
      if (close > i + 1 && !/\s/.test(text[close - 1]!) && (close + 1 >= text.length || !WORD.test(text[close + 1]!))) {
        if (plain !== '') out.push(made(newText(plain)));
        plain = '';
        const el = made(newElement(tag, {}));
        link(el, [made(newText(text.slice(i + 1, close)))]);
        out.push(el);
        i = close + 1;
        continue;
      }
    }
    plain += ch;
    i++;
  }
  if (plain !== '') out.push(made(newText(plain)));
  return out;
}

/** Nodes made here (not the source's): only these get parent and sibling links. */
const synthesized = new WeakSet<AnyNode>();

function made<T extends AnyNode>(node: T): T {
  synthesized.add(node);
  return node;
}

/**
 * Sets `children` as the children of `parent`, linking the nodes made here to their parent and
 * siblings; nodes of the source tree (inline HTML) keep their own links: the source is not modified.
 */
function link(parent: Element, children: AnyNode[]): void {
  parent.children = children;
  let prev: AnyNode | null = null;
  for (const c of children) {
    if (synthesized.has(c)) {
      c.parent = parent;
      c.prev = prev;
      if (prev !== null && synthesized.has(prev)) prev.next = c;
    }
    prev = c;
  }
}
