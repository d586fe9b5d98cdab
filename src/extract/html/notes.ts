import type { Element } from 'domhandler';
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
