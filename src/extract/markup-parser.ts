import { Parser, type ParserOptions } from 'htmlparser2';
import { DomHandler, type ChildNode, type Document, type DomHandlerOptions } from 'domhandler';

/**
 * htmlparser2 + domhandler with two bounds that keep every later walk of the tree safe on hostile
 * nesting (100,000 levels or more):
 *
 * - Tree depth is capped at build time like Blink and WebKit (512): a node that would sit deeper is
 *   attached as a child of the element at depth 511, i.e. as a sibling at the cap. Its text is kept,
 *   in order; only the nesting is flattened. Every recursive walk (css-select, domutils, the
 *   extractors) then recurses at most MAX_TREE_DEPTH levels. Real documents nest far less, so their
 *   trees, and the documents extracted from them, are unchanged.
 * - The parser's stack of open element names answers "is this name open?" from a count per name.
 *   htmlparser2 scans the whole stack for every end tag (`indexOf`) and for `<form>` and SVG names
 *   (`includes`), which is quadratic for deep input with unmatched end tags (40,000 levels: 5 s).
 */
export const MAX_TREE_DEPTH = 512;

export interface ParsedMarkup {
  document: Document;
  /** Elements that would have nested deeper than MAX_TREE_DEPTH and were attached at the cap. */
  cappedElements: number;
}

class DepthCappedHandler extends DomHandler {
  cappedElements = 0;
  private readonly withStart: boolean;
  private readonly withEnd: boolean;
  private parserRef: { startIndex: number | null; endIndex: number | null } | null = null;

  constructor(options: DomHandlerOptions) {
    super(undefined, options);
    this.withStart = options.withStartIndices === true;
    this.withEnd = options.withEndIndices === true;
  }

  override onparserinit(parser: Parameters<DomHandler['onparserinit']>[0]): void {
    super.onparserinit(parser);
    this.parserRef = parser;
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    if (this.tagStack.length > MAX_TREE_DEPTH) this.cappedElements++;
    super.onopentag(name, attribs);
  }

  /** domhandler's addNode, with the parent taken no deeper than the cap. */
  protected override addNode(node: ChildNode): void {
    const stack = this.tagStack;
    if (stack.length <= MAX_TREE_DEPTH) {
      super.addNode(node);
      return;
    }
    const parent = stack[MAX_TREE_DEPTH - 1]!;
    const previousSibling = parent.children[parent.children.length - 1];
    if (this.withStart && this.parserRef) node.startIndex = this.parserRef.startIndex;
    if (this.withEnd && this.parserRef) node.endIndex = this.parserRef.endIndex;
    parent.children.push(node);
    if (previousSibling) {
      node.prev = previousSibling;
      previousSibling.next = node;
    }
    node.parent = parent;
    this.lastNode = null;
  }
}

/** Gives the parser's open-element stack O(1) membership tests; positions are searched only when the name is open. */
function countOpenNames(parser: Parser): void {
  const stack = (parser as unknown as { stack: string[] }).stack;
  const open = new Map<string, number>();
  const add = (name: string, delta: number): void => {
    const n = (open.get(name) ?? 0) + delta;
    if (n === 0) open.delete(name);
    else open.set(name, n);
  };
  Object.defineProperties(stack, {
    unshift: {
      value: (...names: string[]): number => {
        for (const name of names) add(name, 1);
        return Array.prototype.unshift.apply(stack, names);
      },
    },
    shift: {
      value: (): string | undefined => {
        const name = Array.prototype.shift.call(stack) as string | undefined;
        if (name !== undefined) add(name, -1);
        return name;
      },
    },
    includes: { value: (name: string): boolean => open.has(name) },
    indexOf: { value: (name: string): number => (open.has(name) ? Array.prototype.indexOf.call(stack, name) : -1) },
  });
}

export function parseMarkup(source: string, options: ParserOptions & DomHandlerOptions): ParsedMarkup {
  const handler = new DepthCappedHandler(options);
  const parser = new Parser(handler, options);
  countOpenNames(parser);
  parser.end(source);
  return { document: handler.root, cappedElements: handler.cappedElements };
}
