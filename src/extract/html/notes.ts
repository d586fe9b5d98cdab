import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { HEADING_LEVEL } from './tags.js';
import { anchorId, headingAnchorIds } from './anchors.js';
import type { BlockKind } from '../document-builder.js';
import { type CompiledRules, classesOf, markerClass } from './compiled-rules.js';
import type { HtmlWalk, WalkContext } from './walk.js';

/** The aside kind a family's selectors or classes give an element: example wins over issue, issue over note. */
export function asideKindOf(rules: CompiledRules, el: Element): 'example' | 'issue' | 'note' | undefined {
  if (rules.example(el)) return 'example';
  if (rules.note(el)) return 'note';
  const classes = classesOf(el);
  if (classes.length === 0) return undefined;
  if (markerClass(classes, rules.exampleClasses) !== undefined) return 'example';
  if (markerClass(classes, rules.issueClasses) !== undefined) return 'issue';
  if (markerClass(classes, rules.noteClasses) !== undefined) return 'note';
  return undefined;
}

/** A note, example or issue without headings inside: one block of its flow text. */
export function extractAside(walk: HtmlWalk, kind: BlockKind, el: Element, ctx: WalkContext): void {
  walk.addFlowBlock(kind, el, ctx, {});
}

/**
 * Whether the one heading inside an aside is its title: the aside's text starts with it and it holds no
 * other heading (DocBook's `<div class="note"><h3 class="title">Note</h3><p>...`, an admonition's label).
 * Such an aside is one block, its title the start of its text, not a section that would take in the
 * text after the aside.
 */
export function isTitledAside(el: Element): boolean {
  let headings = 0;
  let titled: boolean | undefined;
  const visit = (node: AnyNode, inHeading: boolean): void => {
    if (isText(node)) {
      if (titled === undefined && node.data.trim() !== '') titled = inHeading;
      return;
    }
    if (!isTag(node)) return;
    const heading = HEADING_LEVEL.has(node.name);
    if (heading) headings++;
    for (const c of node.children) visit(c, inHeading || heading);
  };
  for (const c of el.children) visit(c, false);
  return headings === 1 && titled === true;
}

/**
 * The ids of a titled aside's heading (isTitledAside): its own and those of the anchors inside it
 * (Apache's `<div class="note"><h3><a id="what_is_matched">What is matched?</a></h3>`). They name
 * the aside as a heading names its section, so they open a passage as an empty anchor does.
 */
export function asideTitleIds(el: Element): string[] {
  let heading: Element | undefined;
  const find = (node: Element): void => {
    for (const c of node.children) {
      if (heading !== undefined || !isTag(c)) continue;
      if (HEADING_LEVEL.has(c.name)) heading = c;
      else find(c);
    }
  };
  find(el);
  if (heading === undefined) return [];
  const own = anchorId(heading);
  return own === undefined ? headingAnchorIds(heading) : [own, ...headingAnchorIds(heading).filter((id) => id !== own)];
}
