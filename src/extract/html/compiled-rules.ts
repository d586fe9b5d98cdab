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
  // Every element of a document meets each rule's matchers (a tenth of an extraction on real specs).
  // An element can only match a selector whose subject names its type or an attribute it has: one set
  // lookup and a few attribute checks refuse most elements before the compiled selector runs.
  const subjects = subjectRequirements(selectors);
  if (subjects === null) return (el) => query(el);
  const { types, attributes } = subjects;
  return (el) => {
    if (types.has(el.name)) return query(el);
    for (const name of attributes) if (el.attribs[name] !== undefined) return query(el);
    return false;
  };
}

/**
 * What an element needs to be the subject (the last compound) of one of the selectors: the type that
 * compound names, or else the attribute its first id, class or attribute selector tests. Null when a
 * subject has neither (`*`, a lone pseudo-class) or the selector is beyond this simple reading
 * (strings, escapes, namespaces): those always go to the compiled selector.
 */
export function subjectRequirements(selectors: string[]): { types: Set<string>; attributes: string[] } | null {
  const types = new Set<string>();
  const attributes = new Set<string>();
  for (const selector of selectors) {
    if (/["',\\|]/.test(selector)) return null;
    const subject = lastCompound(selector.trim());
    const type = /^[A-Za-z][A-Za-z0-9-]*/.exec(subject)?.[0];
    if (type !== undefined) {
      types.add(type.toLowerCase());
      continue;
    }
    const first = subject.charAt(0);
    if (first === '#') attributes.add('id');
    else if (first === '.') attributes.add('class');
    else if (first === '[') {
      const name = /^\[\s*([A-Za-z_][A-Za-z0-9_-]*)/.exec(subject)?.[1];
      if (name === undefined) return null;
      attributes.add(name.toLowerCase());
    } else return null;
  }
  return { types, attributes: [...attributes] };
}

/** The selector's last compound: what follows its last combinator outside brackets and parentheses. */
function lastCompound(selector: string): string {
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector.charAt(i);
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (depth === 0 && (c === ' ' || c === '>' || c === '+' || c === '~' || c === '\t' || c === '\n')) start = i + 1;
  }
  return selector.slice(start);
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
