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
export function textOf(node: AnyNode): string {
  if (node.type === ElementType.Text) return (node as Text).data;
  if (node.type === ElementType.Comment || !Object.hasOwn(node, 'children')) return '';
  const children = (node as ParentNode).children;
  if (children.length === 1) return textOf(children[0]!);
  const parts: string[] = [];
  for (const child of children) parts.push(textOf(child));
  return parts.join('');
}
