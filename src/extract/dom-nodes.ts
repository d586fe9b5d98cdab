import { ElementType } from 'htmlparser2';
import type { AnyNode, CDATA, Comment, Document, Element, ParentNode, ProcessingInstruction, Text } from 'domhandler';

/**
 * The nodes of the trees Episteme builds (markup-parser.ts, ecmarkdown.ts): the fields of domhandler's
 * nodes, in domhandler's order, so css-select, domutils and domhandler's `isTag`/`isText`/... read them
 * as they read domhandler's own (they read fields only: `type`, `children`, `parent`, `prev`, `next`,
 * `name`, `attribs`, `data`).
 *
 * Why not `new Element(...)` of domhandler: its nodes get their fields from class field initializers
 * on a common base class, and once that initializer has seen five node classes (document, element,
 * text, comment, doctype: any ordinary page) Node 20's V8 defines each field through its slow path.
 * Building a tree then cost about 12x per node, a third of extracting dom.html in a long-lived
 * worker (bench/extract-throughput, bench/watch-real-specs). Plain object literals, one shape per
 * kind, have no such cliff on any runtime. The nodes have no prototype methods (`cloneNode`, the
 * DOM-style getters): nothing here calls them.
 */

export function newElement(name: string, attribs: Record<string, string>, type?: Element['type']): Element {
  const node = {
    parent: null,
    prev: null,
    next: null,
    startIndex: null,
    endIndex: null,
    children: [],
    name,
    attribs,
    type: type ?? (name === 'script' ? ElementType.Script : name === 'style' ? ElementType.Style : ElementType.Tag),
  };
  return node as unknown as Element;
}

export function newText(data: string): Text {
  return { parent: null, prev: null, next: null, startIndex: null, endIndex: null, data, type: ElementType.Text } as unknown as Text;
}

export function newComment(data: string): Comment {
  return { parent: null, prev: null, next: null, startIndex: null, endIndex: null, data, type: ElementType.Comment } as unknown as Comment;
}

export function newProcessingInstruction(name: string, data: string): ProcessingInstruction {
  const node = { parent: null, prev: null, next: null, startIndex: null, endIndex: null, data, type: ElementType.Directive, name };
  return node as unknown as ProcessingInstruction;
}

export function newCDATA(children: ParentNode['children']): CDATA {
  const node = { parent: null, prev: null, next: null, startIndex: null, endIndex: null, children, type: ElementType.CDATA };
  return node as unknown as CDATA;
}

export function newDocument(): Document {
  const node = { parent: null, prev: null, next: null, startIndex: null, endIndex: null, children: [], type: ElementType.Root };
  return node as unknown as Document;
}

/**
 * domutils' `textContent` (the text of every text node below, comments left out), for the walk's hot
 * calls (each link's and keyword's text): a node with one child is read through without building an
 * array per level, and text of several pieces is joined flat, so scanning it later follows no chain.
 */
/**
 * textOf(node) up to `max` code units: the text, and whether more followed (cut). The walk stops once
 * past `max`, so a caller that needs only the start of an element's text (a link's, a keyword's) does
 * not read the whole subtree: nested elements each reading theirs cost depth x size. It stops as well
 * after MAX_NODES_READ nodes (cut: what follows is unread): a subtree of elements without text (100,000
 * empty `<i>` in a hidden div) was walked whole, by each link nested around it: a page of 200 links in
 * table cells around it took 1.2 s against 90 ms side by side. Children are taken one at a time, so a
 * node with many children costs only the ones read.
 */
export function textOfAtMost(node: AnyNode, max: number): { text: string; cut: boolean } {
  const parts: string[] = [];
  let length = 0;
  let budget = MAX_NODES_READ;
  const lists: AnyNode[][] = [[node]];
  const next: number[] = [0];
  while (lists.length > 0) {
    const top = lists.length - 1;
    const list = lists[top]!;
    const i = next[top]!;
    if (i >= list.length) {
      lists.pop();
      next.pop();
      continue;
    }
    next[top] = i + 1;
    const child = list[i]!;
    if (--budget < 0) return { text: parts.join(''), cut: true };
    if (child.type === ElementType.Text) {
      const data = (child as Text).data;
      if (length + data.length > max) {
        let end = max - length;
        // Never keep half of a surrogate pair.
        if (end > 0 && (data.charCodeAt(end - 1) & 0xfc00) === 0xd800) end -= 1;
        parts.push(data.slice(0, end));
        return { text: parts.join(''), cut: true };
      }
      parts.push(data);
      length += data.length;
    } else if (child.type !== ElementType.Comment && Object.hasOwn(child, 'children')) {
      const children = (child as ParentNode).children;
      if (children.length > 0) {
        lists.push(children);
        next.push(0);
      }
    }
  }
  return { text: parts.join(''), cut: false };
}

/** The most nodes textOfAtMost reads: past them, it answers as for text past its `max` (cut). */
export const MAX_NODES_READ = 4096;

export function textOf(node: AnyNode): string {
  if (node.type === ElementType.Text) return (node as Text).data;
  if (node.type === ElementType.Comment || !Object.hasOwn(node, 'children')) return '';
  const children = (node as ParentNode).children;
  if (children.length === 1) return textOf(children[0]!);
  const parts: string[] = [];
  for (const child of children) parts.push(textOf(child));
  return parts.join('');
}
