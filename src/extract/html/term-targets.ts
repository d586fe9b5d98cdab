import { type AnyNode, type Element, hasChildren, isTag } from 'domhandler';
import { isGeneratedId } from '../../document/generated-ids.js';
import { anchorId, firstStableId } from './anchors.js';
import { HEADING_LEVEL } from './tags.js';

/**
 * Where each id of a document is first written and where its headings start (source offsets), to ask
 * whether an id is defined after a place and before the next heading. Built once per document, on
 * the first definition list that asks. An id inside what the extraction skips (`<template>`, a pruned
 * `[hidden]` or `<nav>`) is in no block, so it names no term.
 */
export class DocumentIds {
  /** Each id's first element. */
  private readonly elements = new Map<string, Element>();
  private readonly headings: number[] = [];
  /** The elements that hold a heading (a `<section id>` around its `<h2>`). */
  private readonly holders = new Set<AnyNode>();
  /** Whether an element is in what the extraction skips (`skip` on it or an ancestor), asked once per element. */
  private readonly skipped = new WeakMap<AnyNode, boolean>();

  constructor(
    private readonly root: AnyNode,
    private readonly skip: (el: Element) => boolean = () => false,
  ) {
    // Document order with an explicit stack: a deep tree must not overflow the call stack.
    const stack: AnyNode[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (isTag(node) && node.startIndex !== null) {
        const id = anchorId(node);
        if (id !== undefined && !this.elements.has(id)) this.elements.set(id, node);
        if (HEADING_LEVEL.has(node.name)) {
          this.headings.push(node.startIndex);
          // Each element is marked once: the walk up stops at one a heading before it marked.
          for (let up = node.parent; up !== null && !this.holders.has(up); up = up.parent) this.holders.add(up);
        }
      }
      if (hasChildren(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }

  /** Whether `el` is skipped (a pruned `[hidden]`, a `<template>`): only asked of a target, its answers kept for its ancestors. */
  private isSkipped(el: Element): boolean {
    const path: AnyNode[] = [];
    let up: AnyNode | null = el;
    let known = false;
    while (up !== null && up !== this.root) {
      const cached = this.skipped.get(up);
      if (cached !== undefined) {
        known = cached;
        break;
      }
      path.push(up);
      up = up.parent;
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const node = path[i]!;
      known = known || (isTag(node) && this.skip(node));
      this.skipped.set(node, known);
    }
    return known;
  }

  /**
   * Whether `id` is first written after source offset `after` with no heading between them, nor inside
   * its element: the id of a `<section>` or `<div>` that holds the next heading is that section's.
   */
  definedAheadInSection(id: string, after: number): boolean {
    const el = this.elements.get(id);
    if (el === undefined || el.startIndex === null || el.startIndex <= after || this.holders.has(el)) return false;
    const at = el.startIndex;
    // The first heading after `after` (headings are in document order, so ascending).
    let low = 0;
    let high = this.headings.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.headings[mid]! <= after) low = mid + 1;
      else high = mid;
    }
    return (low === this.headings.length || this.headings[low]! > at) && !this.isSkipped(el);
  }
}

/**
 * The terms of a definition list that name a definition the section gives after the list: a `<dt>`
 * with no id a citation may name, whose first link goes to an id of this document written after the
 * list and before the next heading. Bikeshed's "for web developers" boxes summarise the members a
 * section then defines (`<dt><code>element . <a href="#dom-element-closest">closest(selectors)</a>`
 * above `<dfn id="dom-element-closest">`): a match in the term or its description cited the section
 * (`#interface-element`, which defines twenty members) or the link's back-reference id; it cites the
 * member's definition, the id the term itself links to, a few lines below. A link to a definition
 * elsewhere (before the list, or in another section) is a use of the term, not what the entry is.
 */
export function termTargetIds(dl: Element, ids: () => DocumentIds): Map<Element, string> {
  const targets = new Map<Element, string>();
  const end = dl.endIndex;
  if (end === null) return targets;
  const visit = (parent: Element): void => {
    for (const child of parent.children) {
      if (!isTag(child)) continue;
      if (child.name === 'div') visit(child);
      if (child.name !== 'dt' || firstStableId(child) !== undefined) continue;
      const target = firstLinkedId(child);
      if (target !== undefined && !isGeneratedId(target) && ids().definedAheadInSection(target, end)) targets.set(child, target);
    }
  };
  visit(dl);
  return targets;
}

/** The id the first link inside `el` goes to in this document (`href="#x"`), if that link is one. */
function firstLinkedId(el: Element): string | undefined {
  const stack: Element[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.name === 'a' && node.attribs['href'] !== undefined) {
      const href = node.attribs['href'];
      if (!href.startsWith('#') || href.length < 2) return undefined;
      try {
        return decodeURIComponent(href.slice(1));
      } catch {
        return href.slice(1);
      }
    }
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      if (isTag(child)) stack.push(child);
    }
  }
  return undefined;
}
