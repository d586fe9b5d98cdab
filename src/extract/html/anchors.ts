import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { isGeneratedId } from '../../document/generated-ids.js';
import type { BlockAnchor } from '../document-builder.js';

/**
 * Ids that sit on anchors rather than on the element they name: `<h3><a name="Old"></a>6.3
 * <a name="State_Machines" href="#State_Machines">State Machines</a></h3>` (Unicode reports), or
 * `<p><b><a name="UAX15-C1" href="#UAX15-C1">UAX15-C1</a>.</b> A process ...` (a conformance clause).
 */

/** The id an element gives a fragment: its `id`, or an anchor's `name` (`<a name>`, which browsers scroll to as well). */
export function anchorId(el: Element): string | undefined {
  const id = el.attribs['id'] ?? (el.name === 'a' ? el.attribs['name'] : undefined);
  return id !== undefined && id !== '' ? id : undefined;
}

/**
 * The ids inside a heading, in document order, with the one its self-link names first: the self-link
 * (`href="#x"` on the anchor named x) is the id the document cites the section by; other names are
 * older aliases. Empty when the heading holds none.
 */
export function headingAnchorIds(heading: Element): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  let selfLink: string | undefined;
  const visit = (el: Element): void => {
    for (const c of el.children) {
      if (!isTag(c)) continue;
      const id = anchorId(c);
      if (id !== undefined) {
        if (!seen.has(id)) {
          seen.add(id);
          ids.push(id);
        }
        if (selfLink === undefined && c.attribs['href'] === `#${id}`) selfLink = id;
      }
      visit(c);
    }
  };
  visit(heading);
  if (selfLink === undefined) return ids;
  return [selfLink, ...ids.filter((id) => id !== selfLink)];
}

/** The id of an anchor matching `matches` that opens `block` (no text before it), if any. */
export function leadingAnchorId(block: Element, matches: (el: Element) => boolean): string | undefined {
  let found: string | undefined;
  let done = false;
  const visit = (node: AnyNode): void => {
    if (done) return;
    if (isText(node)) {
      if (node.data.trim() !== '') done = true;
      return;
    }
    if (!isTag(node)) return;
    if (matches(node)) {
      found = anchorId(node);
      done = true;
      return;
    }
    for (const c of node.children) visit(c);
  };
  for (const c of block.children) visit(c);
  return found;
}

/** The first id in `el` or below it that a citation may name (not a generator's back-reference). */
export function firstStableId(el: Element): string | undefined {
  const stack: Element[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const id = anchorId(node);
    if (id !== undefined && !isGeneratedId(id)) return id;
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      if (isTag(child)) stack.push(child);
    }
  }
  return undefined;
}

/**
 * A block's anchors with, at each place whose ids are all marks (elements without text), the first
 * moved last (a chunk keeps the last id at an offset), for a family whose runs of marks list one place's
 * names with the author's own first (marksNameFirst): Texinfo writes an option's index entries as empty
 * spans before its term (`index-SHARE_005fHISTORY`, `index-NO_005fSHARE_005fHISTORY`, ...,
 * `index-history_002c-sharing`). Where an element with text starts there, the innermost such element
 * names the place, as before.
 */
export function firstMarkLast(anchors: BlockAnchor[], marks: WeakSet<BlockAnchor>): BlockAnchor[] {
  let result: BlockAnchor[] | undefined;
  for (let i = 0; i < anchors.length; ) {
    let j = i + 1;
    while (j < anchors.length && anchors[j]!.start === anchors[i]!.start) j++;
    let allMarks = j - i > 1;
    for (let k = i; k < j && allMarks; k++) allMarks = marks.has(anchors[k]!);
    if (allMarks && anchors[i]!.id !== anchors[j - 1]!.id) {
      result ??= anchors.slice(0, i);
      for (let k = i + 1; k < j; k++) result.push(anchors[k]!);
      result.push(anchors[i]!);
    } else if (result !== undefined) for (let k = i; k < j; k++) result.push(anchors[k]!);
    i = j;
  }
  return result ?? anchors;
}

/**
 * A block's anchors with, at each place that has several ids, the one the block's own links name
 * moved last (a chunk keeps the last id at an offset). A generator may write several ids for one
 * entry (HAProxy's manual: `retries`, `4-retries`, `4.2-retries`, `retries (Proxies)`) and print the
 * entry's name as a link to one of them (`<a href="#4.2-retries">retries</a>`): that is the address it
 * gives the entry, as a heading's self-link is (headingAnchorIds). `targets` are the fragments of the
 * block's same-document links in document order; among a place's ids the one linked first wins.
 */
export function linkedIdLast(anchors: BlockAnchor[], targets: readonly string[]): BlockAnchor[] {
  if (targets.length === 0 || anchors.length < 2) return anchors;
  const firstLink = new Map<string, number>();
  targets.forEach((target, order) => {
    for (const form of [target, decodedFragment(target)]) if (form !== undefined && !firstLink.has(form)) firstLink.set(form, order);
  });
  let result: BlockAnchor[] | undefined;
  for (let i = 0; i < anchors.length; ) {
    let j = i + 1;
    while (j < anchors.length && anchors[j]!.start === anchors[i]!.start) j++;
    let chosen = -1;
    for (let k = i; k < j && j - i > 1; k++) {
      const order = firstLink.get(anchors[k]!.id);
      if (order !== undefined && (chosen < 0 || order < firstLink.get(anchors[chosen]!.id)!)) chosen = k;
    }
    if (chosen >= 0 && anchors[j - 1]!.id !== anchors[chosen]!.id) {
      result ??= anchors.slice(0, i);
      // Every copy of the chosen id goes last: the place keeps all its anchors, in their order otherwise.
      const id = anchors[chosen]!.id;
      for (let k = i; k < j; k++) if (anchors[k]!.id !== id) result.push(anchors[k]!);
      for (let k = i; k < j; k++) if (anchors[k]!.id === id) result.push(anchors[k]!);
    } else if (result !== undefined) for (let k = i; k < j; k++) result.push(anchors[k]!);
    i = j;
  }
  return result ?? anchors;
}

function decodedFragment(fragment: string): string | undefined {
  if (!fragment.includes('%')) return undefined;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}
