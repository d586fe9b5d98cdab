import type { AnyNode, Document, Element } from 'domhandler';
import type { AlgorithmStep, BlockKind, DocumentBuilder, Link, ListItem, Marker, TableSpan } from '../document-builder.js';
import type { KeywordSpan } from '../bcp14.js';
import type { TextSink } from '../text-sink.js';
import type { CompiledRules } from './compiled-rules.js';
import type { DocumentIds } from './term-targets.js';

/** Inherited while walking: the nearest id and the normativity marker in effect. */
export interface WalkContext {
  fragment: string | null;
  /**
   * Where the element that gave `fragment` starts in the source: a section whose heading comes after
   * it, inside that element, is nearer to the blocks below the heading (AsciiDoc's `<div id="content">`
   * around every section, a Texinfo node's div around a sub-heading with an id of its own).
   */
  fragmentStart: number | null;
  marker: Marker | null;
  /** `<section id>` waiting for its first heading, shared by reference so only one heading takes it. */
  pendingSection: { id: string; taken: boolean } | null;
  /** Enclosing section elements (sectionSelectors): the heading level where the family says so. */
  sectionDepth: number;
  /**
   * Inside a sectioning root (SECTIONING_ROOTS): its headings title that content (a demo page in a
   * figure, a quoted document), not a section of this document.
   */
  inSectioningRoot: boolean;
}

/** Structured parts a construct adds to its block (lists, steps, tables, ...). */
export interface BlockExtra {
  ordered?: boolean;
  items?: ListItem[];
  steps?: AlgorithmStep[];
  entries?: { terms: string[]; definitions: string[] }[];
  header?: string[][];
  rows?: string[][];
  caption?: string;
  spans?: TableSpan[];
  language?: string;
  /**
   * The id of the definition the block belongs to when it has none of its own: the steps an
   * introducing paragraph's `<dfn>` names ("To <dfn id=x>x</dfn> given y, run these steps:").
   */
  definedBy?: string;
}

/**
 * What the walker offers the construct modules (sections, tables, algorithms, lists, notes,
 * preformatted): each gets the walk and one element, and adds its blocks through it.
 */
export interface HtmlWalk {
  readonly rules: CompiledRules;
  readonly builder: DocumentBuilder;
  /** A ReSpec source: its sections' first headings take the level of their nesting (respec-source.ts). */
  readonly respecSource: boolean;
  /** What is left of the document's bound on table span copies (TABLE_SPAN_COPY_BOUNDS), in characters. */
  spanCopyBudget: number;
  /** Walks a container: inline runs become paragraphs, block children are dispatched one by one. */
  walkContainer(parent: Element | Document, ctx: WalkContext): void;
  /** Writes the reading text of `node` into `sink`, recording marked keywords and links. */
  flow(node: AnyNode, sink: TextSink, keywords: KeywordSpan[], links: Link[], pre: boolean, depth?: number): void;
  /** Runs `write` with elements whose text starts where an id not their own is cited (FlowWriter.leadIds). */
  withLeadIds(leadIds: ReadonlyMap<Element, string>, write: () => void): void;
  /** Where the document's ids and headings are (term-targets.ts), built on first use. */
  documentIds(from: AnyNode): DocumentIds;
  /** Text of a cell or item without block structure. */
  plainText(node: AnyNode): string;
  /** One block of running text (with its keywords and links); `beforeAdd` sees the text first. */
  addFlowBlock(kind: BlockKind, el: Element, ctx: WalkContext, extra: BlockExtra, beforeAdd?: (text: string) => void): void;
  addBlock(
    kind: BlockKind,
    text: string,
    ctx: WalkContext,
    extra: BlockExtra & { keywords: KeywordSpan[]; links: Link[]; start: number | null; end: number | null },
    el?: Element,
  ): void;
}
