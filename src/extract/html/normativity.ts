import type { Element } from 'domhandler';
import type { BlockKind, Marker } from '../document-builder.js';
import { type CompiledRules, classesOf, markerClass } from './compiled-rules.js';
import type { WalkContext } from './walk.js';

/**
 * The normativity marker in effect below `el`: its marker classes (example, informative/note/issue,
 * normative) override the inherited one, except that nothing inside an example leaves it.
 */
export function markerBelow(rules: CompiledRules, el: Element, inherited: Marker | null): Marker | null {
  const classes = classesOf(el);
  if (classes.length === 0 || (inherited !== null && inherited.normativity === 'example')) return inherited;
  const ex = markerClass(classes, rules.exampleClasses);
  const info = markerClass(classes, rules.informativeClasses) ?? markerClass(classes, rules.noteClasses) ?? markerClass(classes, rules.issueClasses);
  const norm = markerClass(classes, rules.normativeClasses);
  if (ex !== undefined) return { normativity: 'example', reason: `marker-class:${ex}` };
  if (info !== undefined) return { normativity: 'informative', reason: `marker-class:${info}` };
  if (norm !== undefined) return { normativity: 'normative', reason: `marker-class:${norm}` };
  return inherited;
}

/** The walk context below `el`: its id becomes the nearest fragment; marker classes apply. */
export function contextBelow(rules: CompiledRules, el: Element, outer: WalkContext): WalkContext {
  const id = el.attribs['id'];
  let fragment = outer.fragment;
  let pendingSection = outer.pendingSection;
  if (id !== undefined && id !== '') {
    fragment = id;
    if (rules.section(el)) pendingSection = { id, taken: false };
  }
  const marker = markerBelow(rules, el, outer.marker);
  if (fragment === outer.fragment && marker === outer.marker && pendingSection === outer.pendingSection) return outer;
  return { fragment, marker, pendingSection };
}

/** The marker of one block: its kind (examples, notes, issues) and its own classes over the context's. */
export function blockMarker(rules: CompiledRules, kind: BlockKind, inherited: Marker | null, el?: Element): Marker | null {
  let marker = inherited;
  if (kind === 'example') marker = { normativity: 'example', reason: marker?.reason ?? 'marker-kind:example' };
  else if ((kind === 'note' || kind === 'issue') && (marker === null || marker.normativity === 'normative')) marker = { normativity: 'informative', reason: `marker-kind:${kind}` };
  if (el && marker === inherited) marker = markerBelow(rules, el, inherited);
  return marker;
}

/** "This section is non-normative." at the start of a paragraph marks the current section. */
export function isInformativeStatement(rules: CompiledRules, text: string): boolean {
  const lower = text.toLowerCase();
  return rules.informativeStatements.some((s) => lower.startsWith(s));
}
