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
 * - The parser's own stacks stay linear in depth (see watchDepth): htmlparser2 pushes with `unshift`
 *   and scans the whole stack for every end tag (`indexOf`) and every `<form>` (`includes`), which is
 *   quadratic for deep input (100,000 levels with unmatched end tags: 27 s; with these: under 1 s).
 */
export { MAX_TREE_DEPTH } from './input-bounds.js';
import { MAX_TREE_DEPTH } from './input-bounds.js';

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

/**
 * htmlparser2 keeps its stacks (open element names, foreign contexts) with the top at index 0 and
 * pushes with `unshift`: every push and pop moves the whole array, quadratic in nesting depth (100,000
 * levels: seconds per stack). Past DEEP_STACK entries the stack is swapped for a view with the same
 * array interface over a top-last array, where the same operations are O(1); shallower documents
 * (every real one) keep the plain array and htmlparser2's own behaviour exactly.
 */
const DEEP_STACK = 1024;

type StackHost = Record<'stack' | 'foreignContext', unknown[]>;

function watchDepth(host: StackHost, field: 'stack' | 'foreignContext', countNames: boolean): void {
  const stack = host[field];
  // Names open, by count: "is <form> open?" and an end tag with no open element are O(1), not a scan.
  const open = new Map<unknown, number>();
  const add = (name: unknown, delta: number): void => {
    if (!countNames) return;
    const n = (open.get(name) ?? 0) + delta;
    if (n === 0) open.delete(name);
    else open.set(name, n);
  };
  const frontStack = (items: unknown[]): unknown[] =>
    new Proxy(items, {
      get(target, prop) {
        if (prop === 'length') return target.length;
        if (typeof prop === 'string' && /^\d+$/.test(prop)) return target[target.length - 1 - Number(prop)];
        switch (prop) {
          case 'unshift':
            return (...names: unknown[]): number => {
              for (let i = names.length - 1; i >= 0; i--) {
                add(names[i], 1);
                target.push(names[i]);
              }
              return target.length;
            };
          case 'shift':
            return (): unknown => {
              const name = target.pop();
              if (name !== undefined) add(name, -1);
              return name;
            };
          case 'includes':
            return (name: unknown): boolean => (countNames ? open.has(name) : target.includes(name));
          case 'indexOf':
            return (name: unknown): number => {
              if (countNames && !open.has(name)) return -1;
              const at = target.lastIndexOf(name);
              return at === -1 ? -1 : target.length - 1 - at;
            };
          default:
            return undefined;
        }
      },
      set(target, prop, value) {
        if (prop !== 'length') return false;
        target.length = value as number;
        open.clear();
        for (const name of target) add(name, 1);
        return true;
      },
    });
  Object.defineProperties(stack, {
    unshift: {
      value: (...names: unknown[]): number => {
        for (const name of names) add(name, 1);
        const length = Array.prototype.unshift.apply(stack, names);
        if (length > DEEP_STACK) host[field] = frontStack(stack.slice().reverse());
        return length;
      },
    },
    shift: {
      value: (): unknown => {
        const name: unknown = Array.prototype.shift.call(stack);
        if (name !== undefined) add(name, -1);
        return name;
      },
    },
    includes: { value: (name: unknown): boolean => (countNames ? open.has(name) : Array.prototype.includes.call(stack, name)) },
    indexOf: { value: (name: unknown): number => (countNames && !open.has(name) ? -1 : Array.prototype.indexOf.call(stack, name)) },
  });
}

/** `configure` adds format rules to the parser before it runs (HTML: the table insertion modes). */
export function parseMarkup(
  source: string,
  options: ParserOptions & DomHandlerOptions,
  configure?: (parser: Parser) => void,
): ParsedMarkup {
  const handler = new DepthCappedHandler(options);
  const parser = new Parser(handler, options);
  const host = parser as unknown as StackHost;
  watchDepth(host, 'stack', true);
  watchDepth(host, 'foreignContext', false);
  configure?.(parser);
  parser.end(source);
  return { document: handler.root, cappedElements: handler.cappedElements };
}
