import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import type { ListItem } from '../document-builder.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { MAX_OUTLINE_DEPTH } from '../input-bounds.js';
import { scriptText } from '../scripts.js';
import { LIST_DEPTH_CAPPED } from './algorithms.js';
import { isNoteMarkerElement } from './flow.js';
import { BLOCK_TAGS, SKIP_TAGS } from './tags.js';
import type { HtmlWalk, WalkContext } from './walk.js';
import { termTargetIds } from './term-targets.js';

/**
 * `<ul>`, `<ol>`, `<menu>`, `<dir>`: one list block with its items nested as in the source; `definedBy`,
 * the definition the paragraph before it leads into it with (algorithms.ts definitionIdOf).
 */
export function extractList(walk: HtmlWalk, el: Element, ctx: WalkContext, definedBy?: string): void {
  walk.addFlowBlock('list', el, ctx, { ordered: el.name === 'ol', items: listItems(walk, el), definedBy });
}

/** `<dl>`: one block with its term/definition groups (`<div>` wrappers allowed). */
export function extractDefinitionList(walk: HtmlWalk, el: Element, ctx: WalkContext): void {
  // A term that names a definition the section gives after the list is cited by it (term-targets.ts).
  walk.withLeadIds(
    termTargetIds(el, () => walk.documentIds(el)),
    () => walk.addFlowBlock('definition-list', el, ctx, { entries: definitionEntries(walk, el) }),
  );
}

/** The item of an ordered list nested in an item, its members in code-unit order. */
function orderedItem(item: ListItem): ListItem {
  return item.items === undefined ? { ordered: true, text: item.text } : { items: item.items, ordered: true, text: item.text };
}

export function listItems(walk: HtmlWalk, list: Element, depth = 1): ListItem[] {
  const items: ListItem[] = [];
  for (const child of list.children) {
    if (!isTag(child) || child.name !== 'li' || walk.rules.prune(child)) continue;
    const sink = new TextSink();
    const nested: ListItem[] = [];
    const visit = (node: AnyNode): void => {
      if (isTag(node)) {
        if (SKIP_TAGS.has(node.name) || walk.rules.prune(node)) return;
        if ((node.name === 'ul' || node.name === 'ol') && depth >= MAX_OUTLINE_DEPTH) {
          // Past the outline depth a nested list is the item's text, as its block text writes it.
          walk.builder.warnOnce('list-depth-capped', LIST_DEPTH_CAPPED);
          sink.lineBreak(1);
          sink.literal(walk.plainText(node));
          sink.lineBreak(1);
          return;
        }
        if (node.name === 'ul' || node.name === 'ol') {
          for (const item of listItems(walk, node, depth + 1)) nested.push(node.name === 'ol' ? orderedItem(item) : item);
          return;
        }
        if ((node.name === 'sup' || node.name === 'sub') && !isNoteMarkerElement(node, walk.rules)) {
          // The item's text writes a superscript as its block text does (flow.ts, scripts.ts).
          sink.literal(scriptText(node.name, walk.plainText(node)));
          return;
        }
        if (BLOCK_TAGS.has(node.name)) sink.lineBreak(1);
        for (const c of node.children) visit(c);
        if (BLOCK_TAGS.has(node.name)) sink.lineBreak(1);
      } else if (isText(node)) {
        sink.text(node.data);
      }
    };
    for (const c of child.children) visit(c);
    // Members in code-unit order (items, ordered, text): canonicalJson then copies nothing.
    const text = sink.toString();
    items.push(nested.length > 0 ? { items: nested, text } : { text });
  }
  return items;
}

function definitionEntries(walk: HtmlWalk, dl: Element): { terms: string[]; definitions: string[] }[] {
  const entries: { terms: string[]; definitions: string[] }[] = [];
  let current: { terms: string[]; definitions: string[] } | null = null;
  const visit = (parent: Element): void => {
    for (const child of parent.children) {
      if (!isTag(child) || walk.rules.prune(child)) continue;
      if (child.name === 'dt') {
        if (current === null || current.definitions.length > 0) {
          current = { definitions: [], terms: [] };
          entries.push(current);
        }
        current.terms.push(normalizeSpace(walk.plainText(child)));
      } else if (child.name === 'dd') {
        if (current === null) {
          current = { definitions: [], terms: [] };
          entries.push(current);
        }
        current.definitions.push(walk.plainText(child));
      } else if (child.name === 'div') {
        visit(child);
      }
    }
  };
  visit(dl);
  return entries;
}
