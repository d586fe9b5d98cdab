import { isGeneratedId } from '../../document/generated-ids.js';
import type { Element } from 'domhandler';
import type { BlockKind, Marker } from '../document-builder.js';
import { type CompiledRules, classesOf, markerClass } from './compiled-rules.js';
import type { WalkContext } from './walk.js';
import { SECTIONING_ROOTS } from './tags.js';

/**
 * The normativity marker in effect below `el`: its marker classes (example, informative/note/issue,
 * normative) override the inherited one, except that nothing inside an example leaves it.
 */
export function markerBelow(rules: CompiledRules, el: Element, inherited: Marker | null): Marker | null {
  const classes = classesOf(el);
  const note = rules.note(el);
  if ((classes.length === 0 && !note) || (inherited !== null && inherited.normativity === 'example')) return inherited;
  const ex = markerClass(classes, rules.exampleClasses);
  // A family's note selectors (xml2rfc's <aside>) mark what is inside informative, as note classes do.
  const info =
    markerClass(classes, rules.informativeClasses) ??
    markerClass(classes, rules.noteClasses) ??
    markerClass(classes, rules.issueClasses) ??
    (note ? el.name : undefined);
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
  let fragmentStart = outer.fragmentStart;
  let pendingSection = outer.pendingSection;
  let sectionDepth = outer.sectionDepth;
  const isSection = rules.section(el);
  if (isSection) sectionDepth++;
  // A generated id (Sphinx's `<dl id="index-0">`, pandoc's `<div id="cb5">`) counts what comes before
  // it, so it names no passage of the blocks inside; a section's is still the section's only name.
  if (id !== undefined && id !== '' && (isSection || !isGeneratedId(id))) {
    fragment = id;
    fragmentStart = el.startIndex;
    if (isSection) pendingSection = { id, taken: false };
  }
  const marker = markerBelow(rules, el, outer.marker);
  const inSectioningRoot = outer.inSectioningRoot || SECTIONING_ROOTS.has(el.name);
  if (
    fragment === outer.fragment &&
    marker === outer.marker &&
    pendingSection === outer.pendingSection &&
    sectionDepth === outer.sectionDepth &&
    inSectioningRoot === outer.inSectioningRoot
  )
    return outer;
  return { fragment, fragmentStart, marker, pendingSection, sectionDepth, inSectioningRoot };
}

/** The marker of one block: its kind (examples, notes, issues) and its own classes over the context's. */
export function blockMarker(rules: CompiledRules, kind: BlockKind, inherited: Marker | null, el?: Element): Marker | null {
  let marker = inherited;
  if (kind === 'example') marker = { normativity: 'example', reason: marker?.reason ?? 'marker-kind:example' };
  else if ((kind === 'note' || kind === 'issue') && (marker === null || marker.normativity === 'normative'))
    marker = { normativity: 'informative', reason: `marker-kind:${kind}` };
  if (el && marker === inherited) marker = markerBelow(rules, el, inherited);
  return marker;
}

/**
 * The normativity a section's own markup declares: a marker class on its heading or on the section
 * element around it (`<section class="informative">`, Bikeshed's `<h2 class="non-normative">`). Null
 * when the markup says nothing, so the section keeps what it inherits (enclosing section, known ids
 * and headings) or what its heading's text says (a heading marker, read by the DocumentBuilder).
 */
export function declaredSectionNormativity(
  rules: CompiledRules,
  heading: Element,
): { normativity: 'normative' | 'informative'; reason: string } | null {
  const section = nearestSectionElement(rules, heading);
  const own = markerBelow(rules, heading, null) ?? (section === null ? null : markerBelow(rules, section, null));
  if (own !== null) return { normativity: own.normativity === 'normative' ? 'normative' : 'informative', reason: own.reason };
  if (section !== null && rules.informativeSection(section))
    return { normativity: 'informative', reason: `marker-element:${section.name}` };
  return null;
}

/** The element that holds a heading's section: the nearest `<section>` or family section element above it. */
function nearestSectionElement(rules: CompiledRules, heading: Element): Element | null {
  for (let p = heading.parent; p !== null && p.type !== 'root'; p = p.parent) {
    const el = p as Element;
    if (el.name === 'section' || rules.section(el)) return el;
    // Only wrappers between the heading and its section count (Bikeshed's div.heading); stop at content.
    if (el.name !== 'div' && el.name !== 'header' && el.name !== 'hgroup') return null;
  }
  return null;
}

/** "This section is non-normative." at the start of a paragraph marks the current section. */
export function isInformativeStatement(rules: CompiledRules, text: string): boolean {
  // Every paragraph asks: lower-case only the prefix a statement can match. With ASCII statements that
  // answers as lower-casing the whole text does (each character lower-cases on its own to one or more
  // code units; the one context rule, Greek final sigma, gives non-ASCII either way).
  const statementChars = rules.informativeStatementChars;
  const lower = (statementChars === null ? text : text.slice(0, statementChars)).toLowerCase();
  return rules.informativeStatements.some((s) => lower.startsWith(s));
}
