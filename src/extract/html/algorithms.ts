import { type Element, isTag } from 'domhandler';
import type { ListItem } from '../document-builder.js';
import { listItems } from './lists.js';
import type { HtmlWalk, WalkContext } from './walk.js';

/** An algorithm (a family's algorithm selectors): one block with its steps. */
export function extractAlgorithm(walk: HtmlWalk, el: Element, ctx: WalkContext): void {
  walk.addFlowBlock('algorithm', el, ctx, { steps: topLevelSteps(walk, el) });
}

/** The steps of an algorithm: items of its outermost lists. */
function topLevelSteps(walk: HtmlWalk, el: Element): ListItem[] {
  if (el.name === 'ol' || el.name === 'ul') return listItems(walk, el);
  const steps: ListItem[] = [];
  const visit = (node: Element): void => {
    for (const c of node.children) {
      if (!isTag(c) || walk.rules.prune(c)) continue;
      if (c.name === 'ol' || c.name === 'ul') steps.push(...listItems(walk, c));
      else visit(c);
    }
  };
  visit(el);
  return steps;
}
