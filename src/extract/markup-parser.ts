import { ElementType, type QuoteType, Tokenizer, type ParserOptions, type TokenizerCallbacks } from 'htmlparser2';
import type { ChildNode, Comment, Document, DomHandlerOptions, Element, ParentNode, Text } from 'domhandler';
import { newCDATA, newComment, newDocument, newElement, newProcessingInstruction, newText } from './dom-nodes.js';
import { readName } from './name-table.js';

/**
 * The tree builder for HTML and XML: htmlparser2's public `Tokenizer` drives it, and it builds the
 * domhandler tree itself (css-select and domutils read that tree), so the open-element stack is ours
 * and no dependency's internals are touched.
 *
 * Tree construction is htmlparser2's Parser + DomHandler, rule for rule and index for index (implied
 * end tags from its `openImpliesClose` list, void elements, one `<form>`, `</p>` and `</br>`, SVG
 * and MathML contexts, CDATA, processing instructions), so without start-tag rules the tree equals
 * htmlparser2's `parseDocument` (test/extract/linear-scans.test.ts checks this on random markup). The
 * HTML extractor adds the HTML standard's rules for table parts, list items and closing paragraphs as
 * start-tag rules (html/table-parsing.ts, list-item-parsing.ts, paragraph-parsing.ts), which run on
 * the open elements before a start tag is inserted.
 *
 * Two bounds keep every later walk of the tree safe on hostile nesting (100,000 levels or more):
 *
 * - Tree depth is capped at build time like Blink and WebKit (512): a node that would sit deeper is
 *   attached as a child of the element at depth 511, i.e. as a sibling at the cap. Its text is kept,
 *   in order; only the nesting is flattened. Every recursive walk (css-select, domutils, the
 *   extractors) then recurses at most MAX_TREE_DEPTH levels. Real documents nest far less, so their
 *   trees, and the documents extracted from them, are unchanged.
 * - The open-element stack is top-last (O(1) push and pop) and counts the names open, so an end tag
 *   with no open element and "is `<form>` open?" are O(1), and an end tag scans only down to its
 *   element, which it then closes: linear in depth (100,000 levels with unmatched end tags).
 */
export { MAX_TREE_DEPTH } from './input-bounds.js';
import { MAX_TREE_DEPTH } from './input-bounds.js';

export interface ParsedMarkup {
  document: Document;
  /** Elements that would have nested deeper than MAX_TREE_DEPTH and were attached at the cap. */
  cappedElements: number;
  /**
   * XML only: what made the input not well-formed, as the tree builder met it (an unterminated comment
   * or CDATA section, a second root element, an end tag that closes another element or none, elements
   * left open at the end), at most MAX_XML_ERRORS of them, in order; `xmlErrorCount` counts them all.
   */
  xmlErrors: string[];
  xmlErrorCount: number;
}

/** How many well-formedness errors are described; the rest are counted. */
export const MAX_XML_ERRORS = 5;

/** The open elements, as start-tag rules see and change them. */
export interface OpenElements {
  /** How many elements are open. */
  readonly length: number;
  /** The name of the open element `i` below the current node (0: the current node). */
  nameAt(i: number): string;
  /** Whether an element of this name is open (O(1)). */
  has(name: string): boolean;
  /** Closes the current node (an implied end tag). */
  pop(): void;
  /** Opens an element whose start tag is implied (no attributes), as the new current node. */
  openImplied(name: string): void;
}

/**
 * Runs before the start tag `name` is inserted (HTML only): may close and open elements. `names`, when
 * given, are the only start tags it acts on: the tree builder then calls no rule for other tags.
 */
export type StartTagRule = ((name: string, open: OpenElements) => void) & { readonly names?: ReadonlySet<string> };

/** A start-tag rule that acts only on `names` (and is called only for them). */
export function startTagRule(names: ReadonlySet<string>, rule: (name: string, open: OpenElements) => void): StartTagRule {
  return Object.assign(rule, { names });
}

const formTags = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const pTag = new Set(['p']);
const headingTags = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p']);
const tableSectionTags = new Set(['thead', 'tbody']);
const ddtTags = new Set(['dd', 'dt']);
const rtpTags = new Set(['rt', 'rp']);

/** The current nodes a start tag closes first (htmlparser2's list). */
const openImpliesClose = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['a', new Set(['a'])],
  ['li', new Set(['li'])],
  ['p', pTag],
  ['h1', headingTags],
  ['h2', headingTags],
  ['h3', headingTags],
  ['h4', headingTags],
  ['h5', headingTags],
  ['h6', headingTags],
  ['select', formTags],
  ['input', formTags],
  ['output', formTags],
  ['button', formTags],
  ['datalist', formTags],
  ['textarea', formTags],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', ddtTags],
  ['dt', ddtTags],
  ['address', pTag],
  ['article', pTag],
  ['aside', pTag],
  ['blockquote', pTag],
  ['details', pTag],
  ['div', pTag],
  ['dl', pTag],
  ['fieldset', pTag],
  ['figcaption', pTag],
  ['figure', pTag],
  ['footer', pTag],
  ['form', pTag],
  ['header', pTag],
  ['hr', pTag],
  ['main', pTag],
  ['nav', pTag],
  ['ol', pTag],
  ['pre', pTag],
  ['section', pTag],
  ['table', pTag],
  ['ul', pTag],
  ['rt', rtpTags],
  ['rp', rtpTags],
  ['tbody', tableSectionTags],
  ['tfoot', tableSectionTags],
]);

const voidElements = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

const foreignContextElements = new Set(['math', 'svg']);
/** HTML integration points inside SVG and MathML (SVG-adjusted casing). */
const htmlIntegrationElements = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignObject', 'desc', 'title']);

const svgTagNameAdjustments = new Map<string, string>([
  ['altglyph', 'altGlyph'],
  ['altglyphdef', 'altGlyphDef'],
  ['altglyphitem', 'altGlyphItem'],
  ['animatecolor', 'animateColor'],
  ['animatemotion', 'animateMotion'],
  ['animatetransform', 'animateTransform'],
  ['clippath', 'clipPath'],
  ['feblend', 'feBlend'],
  ['fecolormatrix', 'feColorMatrix'],
  ['fecomponenttransfer', 'feComponentTransfer'],
  ['fecomposite', 'feComposite'],
  ['feconvolvematrix', 'feConvolveMatrix'],
  ['fediffuselighting', 'feDiffuseLighting'],
  ['fedisplacementmap', 'feDisplacementMap'],
  ['fedistantlight', 'feDistantLight'],
  ['fedropshadow', 'feDropShadow'],
  ['feflood', 'feFlood'],
  ['fefunca', 'feFuncA'],
  ['fefuncb', 'feFuncB'],
  ['fefuncg', 'feFuncG'],
  ['fefuncr', 'feFuncR'],
  ['fegaussianblur', 'feGaussianBlur'],
  ['feimage', 'feImage'],
  ['femerge', 'feMerge'],
  ['femergenode', 'feMergeNode'],
  ['femorphology', 'feMorphology'],
  ['feoffset', 'feOffset'],
  ['fepointlight', 'fePointLight'],
  ['fespecularlighting', 'feSpecularLighting'],
  ['fespotlight', 'feSpotLight'],
  ['fetile', 'feTile'],
  ['feturbulence', 'feTurbulence'],
  ['foreignobject', 'foreignObject'],
  ['glyphref', 'glyphRef'],
  ['lineargradient', 'linearGradient'],
  ['radialgradient', 'radialGradient'],
  ['textpath', 'textPath'],
]);

const FOREIGN_NONE = 0;
const FOREIGN_SVG = 1;
const FOREIGN_MATHML = 2;

const reNameEnd = /\s|\//;

class TreeBuilder implements TokenizerCallbacks, OpenElements {
  readonly root: Document = newDocument();
  cappedElements = 0;
  readonly xmlErrors: string[] = [];
  xmlErrorCount = 0;
  /** XML: a root element has begun (a second one is an error). */
  private sawRoot = false;

  private readonly source: string;
  private readonly rules: readonly StartTagRule[];
  /** Every start tag some rule acts on; null when a rule does not say (then all are called for every tag). */
  private readonly ruleNames: ReadonlySet<string> | null;
  private readonly htmlMode: boolean;
  private readonly lowerCaseTagNames: boolean;
  private readonly lowerCaseAttributeNames: boolean;
  private readonly recognizeSelfClosing: boolean;
  private readonly recognizeCDATA: boolean;
  private readonly withStart: boolean;
  private readonly withEnd: boolean;
  private readonly elementType: typeof ElementType.Tag | undefined;

  /** Source offsets of the current event, as htmlparser2's Parser keeps them (node spans). */
  private startIndex = 0;
  private endIndex = 0;
  private openTagStart = 0;
  private tagname = '';
  private attribname = '';
  private attribvalue = '';
  private attribs: Record<string, string> | null = null;

  /** Names of the open elements, current node last. */
  private readonly names: string[] = [];
  /** How many elements of each name are open. */
  private readonly openCount = new Map<string, number>();
  /** Foreign contexts (none, SVG, MathML), innermost last. */
  private readonly foreign: number[] = [FOREIGN_NONE];
  /**
   * The open elements' nodes, current node last. In step with `names`, except that a name is pushed
   * when its start tag begins and its node when the tag ends (a tag cut off by the end of the input
   * has a name and no node).
   */
  private readonly elements: Element[] = [];
  /** A text or comment node still being written to. */
  private lastNode: Text | Comment | null = null;
  /**
   * The pieces of the text node being written, when it has more than one (text around an entity,
   * `a &amp; b`): joined into one flat string when the node ends. Appending with `+=` made a chain of
   * pieces that every later read of the text (each scan, slice and regex of the walk) had to follow
   * or flatten again.
   */
  private textParts: string[] | null = null;

  constructor(source: string, options: ParserOptions & DomHandlerOptions, rules: readonly StartTagRule[]) {
    this.source = source;
    this.rules = rules;
    this.ruleNames = rules.every((rule) => rule.names !== undefined) ? new Set(rules.flatMap((rule) => [...rule.names!])) : null;
    this.htmlMode = options.xmlMode !== true;
    this.lowerCaseTagNames = options.lowerCaseTags ?? this.htmlMode;
    this.lowerCaseAttributeNames = options.lowerCaseAttributeNames ?? this.htmlMode;
    this.recognizeSelfClosing = options.recognizeSelfClosing ?? !this.htmlMode;
    this.recognizeCDATA = options.recognizeCDATA === true;
    this.withStart = options.withStartIndices === true;
    this.withEnd = options.withEndIndices === true;
    this.elementType = options.xmlMode === true ? ElementType.Tag : undefined;
  }

  // OpenElements (for start-tag rules)

  get length(): number {
    return this.names.length;
  }

  nameAt(i: number): string {
    return this.names[this.names.length - 1 - i]!;
  }

  has(name: string): boolean {
    return this.openCount.has(name);
  }

  pop(): void {
    this.closeCurrentElement();
  }

  openImplied(name: string): void {
    this.beginStartTag(name);
    this.finishStartTag();
  }

  // Tokenizer callbacks

  ontext(start: number, endIndex: number): void {
    const data = this.slice(start, endIndex);
    this.endIndex = endIndex - 1;
    this.addText(data);
    this.startIndex = endIndex;
  }

  ontextentity(cp: number, endIndex: number): void {
    this.endIndex = endIndex - 1;
    this.addText(String.fromCodePoint(cp));
    this.startIndex = endIndex;
  }

  isInForeignContext(): boolean {
    return this.foreign[this.foreign.length - 1] !== FOREIGN_NONE;
  }

  onopentagname(start: number, endIndex: number): void {
    this.endIndex = endIndex;
    const name = this.readTagName(start, endIndex);
    if (!this.htmlMode && this.names.length === 0) {
      if (this.sawRoot) this.xmlError(start, `a second root element <${name}>`);
      this.sawRoot = true;
    }
    if (this.htmlMode && (this.ruleNames === null || this.ruleNames.has(name))) for (const rule of this.rules) rule(name, this);
    this.beginStartTag(name);
  }

  onopentagend(endIndex: number): void {
    this.endIndex = endIndex;
    this.finishStartTag();
    this.startIndex = endIndex + 1;
  }

  onclosetag(start: number, endIndex: number): void {
    this.endIndex = endIndex;
    const name = this.readTagName(start, endIndex);
    if (this.htmlMode && (name === 'body' || name === 'html')) {
      // HTML's `</body>` and `</html>` close nothing: they only move the parser "after body", and text
      // or elements written after them go on in the open element (a browser shows them in the body).
      this.startIndex = endIndex + 1;
      return;
    }
    if (!this.isVoidElement(name)) {
      const names = this.names;
      const current = names[names.length - 1];
      if (!this.htmlMode && current !== name) {
        const what = this.openCount.has(name) ? `closes <${current}> too` : 'matches no open element';
        this.xmlError(start, `the end tag </${name}> ${what}`);
      }
      if (this.openCount.has(name)) {
        // Linear overall: the scan stops at the element, and everything it passed is closed.
        const at = names.lastIndexOf(name);
        while (names.length - 1 > at) this.closeCurrentElement();
        this.closeCurrentElement();
      } else if (this.htmlMode && name === 'p') {
        // `</p>` with no open <p>: an empty <p>.
        for (const rule of this.rules) rule('p', this);
        this.beginStartTag('p');
        this.closeCurrentTag();
      }
    } else if (this.htmlMode && name === 'br') {
      // `</br>`: a <br>.
      this.openElement(newElement('br', {}, this.elementType));
      this.closeElement();
    }
    this.startIndex = endIndex + 1;
  }

  onselfclosingtag(endIndex: number): void {
    this.endIndex = endIndex;
    if (this.recognizeSelfClosing || this.isInForeignContext()) {
      this.closeCurrentTag();
      this.startIndex = endIndex + 1;
    } else {
      this.onopentagend(endIndex);
    }
  }

  onattribname(start: number, endIndex: number): void {
    this.startIndex = start;
    this.attribname = readName(this.source, start, endIndex, this.lowerCaseAttributeNames);
  }

  onattribdata(start: number, endIndex: number): void {
    this.attribvalue += this.slice(start, endIndex);
  }

  onattribentity(cp: number): void {
    this.attribvalue += String.fromCodePoint(cp);
  }

  onattribend(_quote: QuoteType, endIndex: number): void {
    this.endIndex = endIndex;
    if (this.attribs && !Object.hasOwn(this.attribs, this.attribname)) this.attribs[this.attribname] = this.attribvalue;
    this.attribvalue = '';
  }

  ondeclaration(start: number, endIndex: number): void {
    this.endIndex = endIndex;
    const value = this.slice(start, endIndex);
    // In HTML only a DOCTYPE reaches here (the tokenizer turns other declarations into comments).
    const name = this.htmlMode ? (this.lowerCaseTagNames ? 'doctype' : value.slice(0, 7)) : this.instructionName(value);
    this.addNode(newProcessingInstruction(`!${name}`, `!${value}`));
    this.startIndex = endIndex + 1;
  }

  onprocessinginstruction(start: number, endIndex: number): void {
    this.endIndex = endIndex;
    const value = this.slice(start, endIndex);
    this.addNode(newProcessingInstruction(`?${this.instructionName(value)}`, `?${value}`));
    this.startIndex = endIndex + 1;
  }

  oncomment(start: number, endIndex: number, offset: number): void {
    this.endIndex = endIndex;
    // The tokenizer ends a comment at "-->" on its ">" (endIndex), or at the end of the input unterminated.
    if (!this.htmlMode && endIndex >= this.source.length) this.xmlError(start, 'a comment is never closed (no "-->"); the rest is in it');
    this.addComment(this.slice(start, endIndex - offset));
    this.startIndex = endIndex + 1;
  }

  oncdata(start: number, endIndex: number, offset: number): void {
    this.endIndex = endIndex;
    if (!this.htmlMode && endIndex >= this.source.length) this.xmlError(start, 'a CDATA section is never closed (no "]]>")');
    const value = this.slice(start, endIndex - offset);
    if (!this.htmlMode || this.recognizeCDATA) {
      const text = newText('');
      const node = newCDATA([text]);
      this.addNode(node);
      text.parent = node;
      this.lastNode = text;
      this.addText(value);
      this.endText();
    } else if (this.isInForeignContext()) {
      this.addText(value);
    } else {
      this.addComment(`[CDATA[${value}]]`);
    }
    this.startIndex = endIndex + 1;
  }

  onend(): void {
    if (!this.htmlMode) {
      if (this.tagname !== '') this.xmlError(this.source.length, `the input ends inside the start tag <${this.tagname}>`);
      const open = this.names.slice(0, this.names.length - (this.tagname !== '' ? 1 : 0));
      if (open.length > 0) {
        const shown = open.length <= 3 ? open : ['...', ...open.slice(-3)];
        const list = shown.map((name) => (name === '...' ? name : `<${name}>`)).join(' ');
        this.xmlError(this.source.length, `the input ends with ${open.length} element${open.length === 1 ? '' : 's'} open (${list})`);
      }
    }
    // Every element still open ends here.
    this.endIndex = this.startIndex;
    this.endText();
    for (let i = this.names.length; i > 0; i--) this.closeElement();
  }

  // Tree construction

  /** Records a well-formedness error at source offset `at` (XML only). */
  private xmlError(at: number, what: string): void {
    this.xmlErrorCount++;
    if (this.xmlErrors.length < MAX_XML_ERRORS) this.xmlErrors.push(`${what} (line ${lineAt(this.source, at)})`);
  }

  private slice(start: number, end: number): string {
    return start === end ? '' : this.source.slice(start, end);
  }

  private isVoidElement(name: string): boolean {
    return this.htmlMode && voidElements.has(name);
  }

  private instructionName(value: string): string {
    const index = value.search(reNameEnd);
    const name = index < 0 ? value : value.slice(0, index);
    return this.lowerCaseTagNames ? name.toLowerCase() : name;
  }

  private readTagName(start: number, endIndex: number): string {
    const name = readName(this.source, start, endIndex, this.lowerCaseTagNames);
    if (!(this.lowerCaseTagNames && this.htmlMode)) return name;
    if (this.foreign[this.foreign.length - 1] === FOREIGN_SVG) return svgTagNameAdjustments.get(name) ?? name;
    // The end tag of an SVG element at an integration point (</foreignObject> inside its own content).
    if (this.foreign.length > 1) {
      const adjusted = svgTagNameAdjustments.get(name);
      if (adjusted !== undefined && this.openCount.has(adjusted)) return adjusted;
    }
    if (!this.isInForeignContext()) return name === 'image' ? 'img' : name;
    return name;
  }

  private beginStartTag(name: string): void {
    this.openTagStart = this.startIndex;
    this.tagname = name;
    // A second <form> is ignored while one is open: no node, nothing pushed.
    if (this.htmlMode && name === 'form' && this.openCount.has('form')) {
      this.tagname = '';
      return;
    }
    const impliesClose = this.htmlMode ? openImpliesClose.get(name) : undefined;
    if (impliesClose) {
      const names = this.names;
      while (names.length > 0 && impliesClose.has(names[names.length - 1]!)) this.closeCurrentElement();
    }
    if (!this.isVoidElement(name)) {
      this.names.push(name);
      this.openCount.set(name, (this.openCount.get(name) ?? 0) + 1);
      if (this.htmlMode) {
        if (name === 'svg') this.foreign.push(FOREIGN_SVG);
        else if (name === 'math') this.foreign.push(FOREIGN_MATHML);
        else if (htmlIntegrationElements.has(name)) this.foreign.push(FOREIGN_NONE);
      }
    }
    this.attribs = {};
  }

  private finishStartTag(): void {
    this.startIndex = this.openTagStart;
    if (this.attribs) {
      this.openElement(newElement(this.tagname, this.attribs, this.elementType));
      this.attribs = null;
    }
    if (this.isVoidElement(this.tagname)) this.closeElement();
    this.tagname = '';
  }

  /** Ends the start tag being read and, for a self-closing tag, its element. */
  private closeCurrentTag(): void {
    const name = this.tagname;
    this.finishStartTag();
    if (this.names[this.names.length - 1] === name) this.closeCurrentElement();
  }

  /** Closes the current node. */
  private closeCurrentElement(): void {
    const name = this.names.pop()!;
    const n = this.openCount.get(name)! - 1;
    if (n === 0) this.openCount.delete(name);
    else this.openCount.set(name, n);
    if (this.htmlMode && (foreignContextElements.has(name) || htmlIntegrationElements.has(name))) this.foreign.pop();
    this.closeElement();
  }

  // The tree (domhandler's DomHandler, with the depth cap)

  private openElement(element: Element): void {
    if (this.elements.length >= MAX_TREE_DEPTH) this.cappedElements++;
    this.addNode(element);
    this.elements.push(element);
  }

  private closeElement(): void {
    this.endText();
    // No node when the input ended inside its start tag: then the document's end is set, as DomHandler does.
    const element: ParentNode = this.elements.pop() ?? this.root;
    if (this.withEnd) element.endIndex = this.endIndex;
  }

  private addText(data: string): void {
    const last = this.lastNode;
    if (last !== null && last.type === ElementType.Text) {
      if (this.textParts === null) this.textParts = [last.data, data];
      else this.textParts.push(data);
      if (this.withEnd) last.endIndex = this.endIndex;
      return;
    }
    const node = newText(data);
    this.addNode(node);
    this.lastNode = node;
  }

  private addComment(data: string): void {
    const node = newComment(data);
    this.addNode(node);
  }

  /** Ends the text node being written, if any: its pieces become its data. */
  private endText(): void {
    if (this.textParts !== null) {
      this.lastNode!.data = this.textParts.join('');
      this.textParts = null;
    }
    this.lastNode = null;
  }

  /** Appends a node to the current node, or past the cap to the element at depth MAX_TREE_DEPTH - 1. */
  private addNode(node: ChildNode): void {
    const elements = this.elements;
    const depth = elements.length;
    const parent: ParentNode = depth === 0 ? this.root : depth < MAX_TREE_DEPTH ? elements[depth - 1]! : elements[MAX_TREE_DEPTH - 2]!;
    const previousSibling = parent.children[parent.children.length - 1];
    if (this.withStart) node.startIndex = this.startIndex;
    if (this.withEnd) node.endIndex = this.endIndex;
    parent.children.push(node);
    if (previousSibling) {
      node.prev = previousSibling;
      previousSibling.next = node;
    }
    node.parent = parent;
    this.endText();
  }
}

/**
 * Parses HTML (or XML with `xmlMode`) into a domhandler tree. `rules` add start-tag rules in HTML (the
 * HTML extractor's table and list-item rules).
 */
export function parseMarkup(source: string, options: ParserOptions & DomHandlerOptions, rules: readonly StartTagRule[] = []): ParsedMarkup {
  const builder = new TreeBuilder(source, options, rules);
  const tokenizer = new Tokenizer(options, builder);
  if (source) tokenizer.write(source);
  tokenizer.end();
  return {
    document: builder.root,
    cappedElements: builder.cappedElements,
    xmlErrors: builder.xmlErrors,
    xmlErrorCount: builder.xmlErrorCount,
  };
}

/** The 1-based line of source offset `at` (errors are few: each counts its lines once). */
function lineAt(source: string, at: number): number {
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) line++;
  return line;
}
