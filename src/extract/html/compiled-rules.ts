import type { AnyNode, Element } from 'domhandler';
import { compile } from 'css-select';
import type { HtmlRules } from '../families.js';

export type Matcher = (el: Element) => boolean;

/** A family's HTML rules with selector lists compiled: once per worker, reused for every document. */
export interface CompiledRules {
  prune: Matcher;
  section: Matcher;
  headingStrip: Matcher;
  sectionNumber: Matcher;
  algorithm: Matcher;
  /** Lower-case paragraph endings that make the next `<ol>` an algorithm. */
  algorithmIntroductions: string[];
  idl: Matcher;
  grammar: Matcher;
  keyword: Matcher;
  note: Matcher;
  example: Matcher;
  crossReference: Matcher;
  sectionLevelFromNesting: boolean;
  informativeSection: Matcher;
  informativeHeadingMarkers: string[];
  noteClasses: Set<string>;
  exampleClasses: Set<string>;
  issueClasses: Set<string>;
  informativeClasses: Set<string>;
  normativeClasses: Set<string>;
  informativeStatements: string[];
  // RFC renderings (issue 11): front matter, artwork, blocks named by a leading anchor.
  metadata: Matcher;
  artwork: Matcher;
  blockAnchor: Matcher | null;
}

const compiledCache = new WeakMap<HtmlRules, CompiledRules>();

function compileList(selectors: string[]): Matcher {
  if (selectors.length === 0) return () => false;
  const query = compile<AnyNode, Element>(selectors.join(', '));
  return (el) => query(el);
}

export function compileRules(rules: HtmlRules): CompiledRules {
  const known = compiledCache.get(rules);
  if (known) return known;
  const compiled: CompiledRules = {
    prune: compileList(rules.pruneSelectors),
    section: compileList(rules.sectionSelectors),
    headingStrip: compileList(rules.headingStripSelectors),
    sectionNumber: compileList(rules.sectionNumberSelectors),
    algorithm: compileList(rules.algorithmSelectors),
    algorithmIntroductions: (rules.algorithmIntroductions ?? []).map((s) => s.toLowerCase()),
    idl: compileList(rules.idlSelectors),
    grammar: compileList(rules.grammarSelectors),
    keyword: compileList(rules.keywordSelectors),
    note: compileList(rules.noteSelectors ?? []),
    example: compileList(rules.exampleSelectors ?? []),
    crossReference: compileList(rules.crossReferenceSelectors ?? []),
    sectionLevelFromNesting: rules.sectionLevelFromNesting === true,
    informativeSection: compileList(rules.informativeSectionSelectors ?? []),
    informativeHeadingMarkers: (rules.informativeHeadingMarkers ?? []).map((s) => s.toLowerCase()),
    noteClasses: new Set(rules.noteClasses),
    exampleClasses: new Set(rules.exampleClasses),
    issueClasses: new Set(rules.issueClasses),
    informativeClasses: new Set(rules.informativeClasses),
    normativeClasses: new Set(rules.normativeClasses),
    informativeStatements: rules.informativeStatements.map((s) => s.toLowerCase()),
    metadata: compileList(rules.metadataSelectors ?? []),
    artwork: compileList(rules.artworkSelectors ?? []),
    // null without selectors, so other families never walk a block looking for its opening anchor.
    blockAnchor:
      rules.blockAnchorSelectors !== undefined && rules.blockAnchorSelectors.length > 0 ? compileList(rules.blockAnchorSelectors) : null,
  };
  compiledCache.set(rules, compiled);
  return compiled;
}

export function classesOf(el: Element): string[] {
  const value = el.attribs['class'];
  if (value === undefined || value === '') return [];
  return value.split(/[ \t\n\r\f]+/).filter((c) => c !== '');
}

/** The first of `classes` in `set`, if any. */
export function markerClass(classes: string[], set: Set<string>): string | undefined {
  for (const c of classes) if (set.has(c)) return c;
  return undefined;
}
