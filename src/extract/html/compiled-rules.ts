import type { Element } from 'domhandler';
import { compileSelector } from './selector-compile.js';
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
  /** Of several marks at one place, the first names it (FamilyHtmlRules.marksNameFirst). */
  marksNameFirst: boolean;
  informativeSection: Matcher;
  noteClasses: Set<string>;
  exampleClasses: Set<string>;
  issueClasses: Set<string>;
  informativeClasses: Set<string>;
  normativeClasses: Set<string>;
  informativeStatements: string[];
  /** The longest informative statement's length when every statement is printable ASCII, else null. */
  informativeStatementChars: number | null;
  // RFC renderings (issue 11): front matter, artwork, blocks named by a leading anchor.
  metadata: Matcher;
  artwork: Matcher;
  /** Code that is not a `<pre>` (codeSelectors); null without selectors. */
  code: Matcher | null;
  /** Definition lists read entry by entry (entryListSelectors); null without selectors. */
  entryList: Matcher | null;
  /** Captions of the rest of their parent (captionSelectors); null without selectors. */
  caption: Matcher | null;
  blockAnchor: Matcher | null;
  /** Grid tables (javadoc's div.summary-table); null without selectors, so no element is asked. */
  gridTable: Matcher | null;
  /** The header cells that open a grid table. */
  gridHeaderCell: Matcher;
  /** Definition terms that name an API entry (entrySelectors); null without selectors, so no list is asked. */
  entry: Matcher | null;
  /** Elements right after a list of entries that go on with its last entry (entryContinuationSelectors); null without selectors. */
  entryContinuation: Matcher | null;
  /** Elements holding one API entry each (entryBlockSelectors); null without selectors. */
  entryBlock: Matcher | null;
  /** Headings read as a label paragraph (labelHeadingSelectors); null without selectors. */
  labelHeading: Matcher | null;
  /** Elements whose headings nest below the section open where they start (nestedHeadingSelectors); null without selectors. */
  nestedHeading: Matcher | null;
  /** Reference entries (referenceEntrySelectors); null without selectors or without referenceNameSelectors. */
  referenceEntry: Matcher | null;
  /** The name element of a reference entry (referenceNameSelectors); null without selectors. */
  referenceName: Matcher | null;
}

const compiledCache = new WeakMap<HtmlRules, CompiledRules>();

/**
 * A family's informative statements, lower case, each also in the other spelling of its negation:
 * "non-normative" and "not normative" say the same (Bikeshed has written both), so a family, shipped
 * or a workspace's own, that lists one form reads the other too.
 */
export function statementForms(statements: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const statement of statements) {
    const lower = statement.toLowerCase();
    forms.add(lower);
    forms.add(lower.replaceAll('non-normative', 'not normative'));
    forms.add(lower.replaceAll('not normative', 'non-normative'));
  }
  return [...forms];
}

function compileList(selectors: string[]): Matcher {
  if (selectors.length === 0) return () => false;
  // Every element of a document meets each rule's matchers (a tenth of an extraction on real specs,
  // and more when one selector list ran whole for every element with a class). Each selector is
  // compiled alone, behind the cheap tests its subject needs (subjectGate): a type, class names in the
  // class attribute, an id, attributes present. A list matches when one of its selectors does, so
  // testing only the selectors whose gate an element passes answers as the whole list does.
  const gates = selectors.map(subjectGate);
  if (gates.some((gate) => gate === null)) {
    const query = compileSelector(selectors.join(', '));
    return (el) => query(el);
  }
  const byType = new Map<string, GatedSelector[]>();
  // Untyped subjects, by what they need first: class names (the candidates for a class attribute's
  // value are remembered: a document has few distinct values), else an id or an attribute.
  const byClass: GatedSelector[] = [];
  const byOther: GatedSelector[] = [];
  selectors.forEach((selector, i) => {
    const gate = gates[i]!;
    const gated: GatedSelector = { ...gate, query: compileSelector(selector) };
    if (gate.type !== undefined) {
      const list = byType.get(gate.type);
      if (list === undefined) byType.set(gate.type, [gated]);
      else list.push(gated);
    } else if (gate.classes.length > 0) byClass.push(gated);
    else byOther.push(gated);
  });
  const classCandidates = new Map<string, GatedSelector[]>();
  const candidatesOfClass = (value: string): GatedSelector[] => {
    let known = classCandidates.get(value);
    if (known === undefined) {
      known = byClass.filter((s) => s.classes.every((name) => value.includes(name)));
      // Kept as a copy: an attribute value is a slice of its document's source, which a remembered
      // slice would keep alive for as long as the worker lives.
      if (classCandidates.size < MAX_REMEMBERED_CLASS_VALUES) classCandidates.set(flatCopy(value), known);
    }
    return known;
  };
  return (el) => {
    const typed = byType.get(el.name);
    if (typed !== undefined) for (const s of typed) if (passes(s, el) && s.query(el)) return true;
    if (byClass.length > 0) {
      const value = el.attribs['class'];
      if (value !== undefined) for (const s of candidatesOfClass(value)) if (passes(s, el) && s.query(el)) return true;
    }
    for (const s of byOther) if (passes(s, el) && s.query(el)) return true;
    return false;
  };
}

/** A string that shares no storage with the one it copies (V8 keeps substrings of 13 or more units as slices). */
function flatCopy(value: string): string {
  return value.length < 13 ? value : Array.from(value).join('');
}

/** Bounds the memory of class-attribute values per matcher (a hostile page can have a value per element). */
const MAX_REMEMBERED_CLASS_VALUES = 4096;

interface SubjectGate {
  /** The subject's type (lower case), when it names one. */
  type?: string;
  /** Class names the subject requires (each must occur in the class attribute). */
  classes: string[];
  /** Ids the subject requires (each must occur in the id attribute). */
  ids: string[];
  /** Attributes the subject requires present (lower case). */
  attributes: string[];
}

interface GatedSelector extends SubjectGate {
  query: (el: Element) => boolean;
}

/** Whether an element can be the selector's subject: necessary, never sufficient (substring tests). */
function passes(s: SubjectGate, el: Element): boolean {
  const attribs = el.attribs;
  if (s.classes.length > 0) {
    const value = attribs['class'];
    if (value === undefined) return false;
    for (const name of s.classes) if (!value.includes(name)) return false;
  }
  if (s.ids.length > 0) {
    const value = attribs['id'];
    if (value === undefined) return false;
    for (const name of s.ids) if (!value.includes(name)) return false;
  }
  for (const name of s.attributes) if (attribs[name] === undefined) return false;
  return true;
}

const SIMPLE_COMPOUND = /^([A-Za-z][A-Za-z0-9-]*)?((?:[.#][A-Za-z0-9_-]+|\[\s*[A-Za-z_][A-Za-z0-9_-]*[^\]]*\])*)(?::.*)?$/;
const COMPOUND_PART = /[.#][A-Za-z0-9_-]+|\[\s*([A-Za-z_][A-Za-z0-9_-]*)/g;

/**
 * What an element needs to be the subject (the last compound) of a selector: its type, class names,
 * ids and attribute names (pseudo-classes after them only narrow it further). Null when the selector
 * is beyond this simple reading (strings, escapes, namespaces, a list, a subject it cannot read): such
 * a list is matched by css-select whole. Class names and ids are case-sensitive in css-select (no
 * quirks mode), attribute names are not (the tree lower-cases them).
 */
export function subjectGate(selector: string): SubjectGate | null {
  if (/["',\\|]/.test(selector)) return null;
  const subject = lastCompound(selector.trim());
  const m = SIMPLE_COMPOUND.exec(subject);
  if (m === null) return null;
  const type = m[1]?.toLowerCase();
  const gate: SubjectGate = { classes: [], ids: [], attributes: [] };
  if (type !== undefined) gate.type = type;
  for (const part of (m[2] ?? '').matchAll(COMPOUND_PART)) {
    const text = part[0];
    if (text.startsWith('.')) gate.classes.push(text.slice(1));
    else if (text.startsWith('#')) gate.ids.push(text.slice(1));
    else gate.attributes.push(part[1]!.toLowerCase());
  }
  if (type === undefined && gate.classes.length === 0 && gate.ids.length === 0 && gate.attributes.length === 0) return null;
  return gate;
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
  const statements = statementForms(rules.informativeStatements);
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
    marksNameFirst: rules.marksNameFirst === true,
    informativeSection: compileList(rules.informativeSectionSelectors ?? []),
    noteClasses: new Set(rules.noteClasses),
    exampleClasses: new Set(rules.exampleClasses),
    issueClasses: new Set(rules.issueClasses),
    informativeClasses: new Set(rules.informativeClasses),
    normativeClasses: new Set(rules.normativeClasses),
    informativeStatements: statements,
    informativeStatementChars: statements.every((s) => /^[ -~]*$/.test(s)) ? Math.max(0, ...statements.map((s) => s.length)) : null,
    metadata: compileList(rules.metadataSelectors ?? []),
    artwork: compileList(rules.artworkSelectors ?? []),
    code: rules.codeSelectors !== undefined && rules.codeSelectors.length > 0 ? compileList(rules.codeSelectors) : null,
    entryList: rules.entryListSelectors !== undefined && rules.entryListSelectors.length > 0 ? compileList(rules.entryListSelectors) : null,
    caption: rules.captionSelectors !== undefined && rules.captionSelectors.length > 0 ? compileList(rules.captionSelectors) : null,
    // null without selectors, so other families never walk a block looking for its opening anchor.
    blockAnchor:
      rules.blockAnchorSelectors !== undefined && rules.blockAnchorSelectors.length > 0 ? compileList(rules.blockAnchorSelectors) : null,
    gridTable: rules.gridTableSelectors !== undefined && rules.gridTableSelectors.length > 0 ? compileList(rules.gridTableSelectors) : null,
    gridHeaderCell: compileList(rules.gridHeaderCellSelectors ?? []),
    entry: rules.entrySelectors !== undefined && rules.entrySelectors.length > 0 ? compileList(rules.entrySelectors) : null,
    entryContinuation:
      rules.entryContinuationSelectors !== undefined && rules.entryContinuationSelectors.length > 0
        ? compileList(rules.entryContinuationSelectors)
        : null,
    entryBlock:
      rules.entryBlockSelectors !== undefined && rules.entryBlockSelectors.length > 0 ? compileList(rules.entryBlockSelectors) : null,
    labelHeading:
      rules.labelHeadingSelectors !== undefined && rules.labelHeadingSelectors.length > 0 ? compileList(rules.labelHeadingSelectors) : null,
    nestedHeading:
      rules.nestedHeadingSelectors !== undefined && rules.nestedHeadingSelectors.length > 0
        ? compileList(rules.nestedHeadingSelectors)
        : null,
    referenceEntry:
      rules.referenceEntrySelectors !== undefined &&
      rules.referenceEntrySelectors.length > 0 &&
      rules.referenceNameSelectors !== undefined &&
      rules.referenceNameSelectors.length > 0
        ? compileList(rules.referenceEntrySelectors)
        : null,
    referenceName:
      rules.referenceNameSelectors !== undefined && rules.referenceNameSelectors.length > 0
        ? compileList(rules.referenceNameSelectors)
        : null,
  };
  compiledCache.set(rules, compiled);
  return compiled;
}

const NO_CLASSES: readonly string[] = Object.freeze([]);
/** Class lists by attribute value: a document has few distinct values, and a block asks up to three times. */
const classLists = new Map<string, readonly string[]>();

/** The class names of an element, in order (a shared list: read, never changed). */
export function classesOf(el: Element): readonly string[] {
  const value = el.attribs['class'];
  if (value === undefined || value === '') return NO_CLASSES;
  let known = classLists.get(value);
  if (known === undefined) {
    const names = value.split(/[ \t\n\r\f]+/).filter((c) => c !== '');
    known = Object.freeze(names);
    // Kept as copies, as candidatesOfClass keeps its keys: nothing remembered holds a document's source.
    if (classLists.size < MAX_REMEMBERED_CLASS_VALUES) classLists.set(flatCopy(value), Object.freeze(names.map(flatCopy)));
  }
  return known;
}

/** The first of `classes` in `set`, if any. */
export function markerClass(classes: readonly string[], set: Set<string>): string | undefined {
  for (const c of classes) if (set.has(c)) return c;
  return undefined;
}
