import { type AnyNode, type Document, type Element, isTag, isText, isCDATA } from 'domhandler';
import { findOne, textContent } from 'domutils';
import type { BlockKind, DocumentBuilder, Link, ListItem } from '../document-builder.js';
import { MAX_KEYWORD_TEXT, keywordOf, type KeywordSpan } from '../bcp14.js';
import { textOfAtMost } from '../dom-nodes.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { MAX_TREE_DEPTH, parseMarkup } from '../markup-parser.js';
import { MAX_LINK_TEXT, MAX_OUTLINE_DEPTH, XML_ENTITY_BOUNDS, boundExceeded } from '../input-bounds.js';
import { compareCodeUnits } from '../../store/canonical-json.js';
import { MAX_SCRIPT_NESTING, type ScriptKind, isNoteMarker, scriptText } from '../scripts.js';
import { RfcTargets, isUnnumbered } from './rfc-xref.js';
import { authorAddresses, rfcFrontMetadata } from './rfc-front.js';
import {
  type CitationOptions,
  bibxmlAnchor,
  groupedReferenceLists,
  includedReference,
  isXInclude,
  referenceCitation,
} from './rfc-references.js';
import { DOI_BACKEND, emulatesXml2rfcBackend, isRenderedVocabulary, lengthOf, writtenForRfc2629Xslt } from './rfc2629-extensions.js';

export interface XmlExtractResult {
  title: string;
  confidence: number;
}

/**
 * Internal DTD entities (`<!ENTITY MUST "<bcp14>MUST</bcp14>">`, used by httpwg RFC XML) are expanded
 * textually before parsing, since htmlparser2 does not read DTDs. External (SYSTEM) entities are dropped.
 * Expansion is one level: a reference inside an entity's value is left as written, so nesting cannot
 * amplify ("billion laughs" yields its literal text). Repetition can (a 1 MiB value referenced 10,000
 * times), so the count of expansions and the expanded size are bounded (XML_ENTITY_BOUNDS): past a
 * bound the document fails with extract-bound-exceeded instead of exhausting memory.
 * The DOCTYPE and its declarations are found by linear scans: the regular expressions they replace
 * backtracked quadratically on unterminated declarations.
 */
function expandInternalEntities(source: string): { text: string; expanded: number; external: number } {
  const doctype = findInternalSubset(source);
  if (!doctype) return { text: source, expanded: 0, external: 0 };
  const values = new Map<string, string>();
  let external = 0;
  for (const decl of entityDeclarations(source, doctype.subsetStart, doctype.subsetEnd)) {
    if (decl.value === null) {
      // A bibxml reference stands in as the <reference> it holds, without its text: xrefs to it read
      // "[RFC3550]" and the reference list keeps its entry; the citation is not read (a declared limit).
      const anchor = bibxmlAnchor(decl.systemId ?? '');
      values.set(decl.name, anchor === null ? '' : `<reference anchor="${anchor}"/>`);
      external++;
    } else values.set(decl.name, decl.value);
  }
  if (values.size === 0) return { text: source, expanded: 0, external };
  const body = source.slice(0, doctype.start) + source.slice(doctype.end);
  const bounds = XML_ENTITY_BOUNDS;
  let expanded = 0;
  let expandedChars = 0;
  const text = body.replace(/&([A-Za-z_][\w.-]*);/g, (whole, name: string) => {
    const value = values.get(name);
    if (value === undefined) return whole;
    expanded++;
    expandedChars += value.length;
    if (expanded > bounds.maxExpansions) {
      throw boundExceeded('xml-entity-expansions', `The XML expands more than ${bounds.maxExpansions} internal entity references.`);
    }
    if (expandedChars > bounds.maxExpandedChars) {
      throw boundExceeded('xml-entity-size', `Internal entities of the XML expand to more than ${bounds.maxExpandedChars} characters.`);
    }
    if (expandedChars > bounds.amplificationActivationChars && expandedChars > bounds.amplificationFactor * source.length) {
      throw boundExceeded(
        'xml-entity-amplification',
        `Internal entities of the XML expand to more than ${bounds.amplificationFactor} times its size (entity amplification).`,
      );
    }
    return value;
  });
  return { text, expanded, external };
}

const isRegexSpace = (ch: string | undefined): boolean => ch !== undefined && /\s/.test(ch);
const isNameStart = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z_]/.test(ch);
const isNameChar = (ch: string | undefined): boolean => ch !== undefined && /[\w.-]/.test(ch);
const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /\w/.test(ch);

/**
 * The first `<!DOCTYPE ... [ subset ]>` (the match of /<!DOCTYPE[^[>]*\[([\s\S]*?)\]\s*>/), in one pass:
 * `start`/`end` span the whole DOCTYPE, `subsetStart`/`subsetEnd` the text between the brackets.
 */
export function findInternalSubset(source: string): { start: number; end: number; subsetStart: number; subsetEnd: number } | null {
  // Where the last search for "[" or ">" stopped: a later DOCTYPE starting before it stops there too,
  // so `<!DOCTYPE` repeated with neither after it is read once, not once per DOCTYPE (quadratic).
  let stop = -1;
  for (let start = source.indexOf('<!DOCTYPE'); start !== -1; start = source.indexOf('<!DOCTYPE', start + 1)) {
    let i = start + '<!DOCTYPE'.length;
    if (i <= stop) i = stop;
    else {
      while (i < source.length && source[i] !== '[' && source[i] !== '>') i++;
      stop = i;
    }
    if (i >= source.length) return null;
    if (source[i] !== '[') continue;
    const subsetStart = i + 1;
    // The shortest subset ending in "]" + whitespace + ">"; if there is none here, there is none later.
    for (let j = subsetStart; j < source.length; j++) {
      if (source[j] !== ']') continue;
      let k = j + 1;
      while (isRegexSpace(source[k])) k++;
      if (source[k] === '>') return { start, end: k + 1, subsetStart, subsetEnd: j };
      j = k - 1;
    }
    return null;
  }
  return null;
}

/** An entity declaration: its replacement text, or null and its system identifier when external. */
export interface EntityDeclaration {
  name: string;
  value: string | null;
  systemId?: string | null;
}

/** The system identifier of an external entity: the last quoted literal (`SYSTEM "u"`, `PUBLIC "p" "u"`). */
export function systemIdOf(afterKeyword: string): string | null {
  return /(["'])([^"']*)\1\s*$/.exec(afterKeyword)?.[2] ?? null;
}

/**
 * The internal and external entity declarations of the subset, as the expression
 * /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)'|(SYSTEM|PUBLIC)\b[^>]*)>/g matches them
 * (value null: external), with searches for the next quote or ">" remembered so that unterminated
 * declarations cost linear time in total.
 */
export function entityDeclarations(source: string, from: number, to: number): EntityDeclaration[] {
  const subset = source.slice(from, to);
  // The last search per character: [from, found] holds no other occurrence, so it answers any `at` inside it.
  const nextOf = new Map<string, { from: number; found: number }>();
  const next = (ch: string, at: number): number => {
    const known = nextOf.get(ch);
    if (known !== undefined && at >= known.from && (known.found === -1 || at <= known.found)) return known.found;
    const found = subset.indexOf(ch, at);
    nextOf.set(ch, { from: at, found });
    return found;
  };
  const out: EntityDeclaration[] = [];
  let at = subset.indexOf('<!ENTITY');
  while (at !== -1) {
    let i = at + '<!ENTITY'.length;
    let end = -1;
    let decl: EntityDeclaration | null = null;
    if (isRegexSpace(subset[i])) {
      while (isRegexSpace(subset[i])) i++;
      const nameStart = i;
      if (isNameStart(subset[i])) {
        i++;
        while (isNameChar(subset[i])) i++;
        const name = subset.slice(nameStart, i);
        if (isRegexSpace(subset[i])) {
          while (isRegexSpace(subset[i])) i++;
          const quote = subset[i];
          if (quote === '"' || quote === "'") {
            const close = next(quote, i + 1);
            if (close !== -1 && subset[close + 1] === '>') {
              decl = { name, value: subset.slice(i + 1, close) };
              end = close + 2;
            }
          } else if ((subset.startsWith('SYSTEM', i) || subset.startsWith('PUBLIC', i)) && !isWordChar(subset[i + 6])) {
            const gt = next('>', i + 6);
            if (gt !== -1) {
              decl = { name, value: null, systemId: systemIdOf(subset.slice(i + 6, gt)) };
              end = gt + 1;
            }
          }
        }
      }
    }
    if (decl) out.push(decl);
    at = subset.indexOf('<!ENTITY', decl ? end : at + 1);
  }
  return out;
}

function localName(el: Element): string {
  const name = el.name;
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

function childElements(el: Element): Element[] {
  return el.children.filter((c): c is Element => isTag(c));
}

function firstChild(el: Element, name: string): Element | undefined {
  return childElements(el).find((c) => localName(c) === name);
}

/** Inline RFC XML elements: their text flows into the surrounding paragraph. */
const RFC_INLINE = new Set([
  'xref',
  'eref',
  'bcp14',
  'em',
  'strong',
  'tt',
  'sub',
  'sup',
  'spanx',
  'ref',
  'dfn',
  'h',
  'highlight',
  'span',
  'q',
  'length',
  'abnf-char-sequence',
  'br',
  'vspace',
  'relref',
  'contact',
  'cref',
  'iref',
  'anchor-alias',
  'x',
]);
/** Block elements a v2 <t> may hold; each becomes its own block. */
const T_BLOCK_CHILDREN = new Set(['list', 'figure', 'artwork', 'sourcecode', 'texttable']);
/**
 * Artwork types that are grammars: ABNF in its dialects (abnf, abnf7230, …), and the schema languages
 * rfc2629.xslt renders the same way (`pre.inline`): XML DTDs and RELAX NG compact syntax.
 */
const GRAMMAR_TYPES = /^(?:abnf|application\/xml-dtd$|application\/relax-ng-compact-syntax$)/;
/** Never content in RFC XML. */
const RFC_SKIP = new Set(['iref', 'cref', 'anchor-alias', 'source', 'link', 'boilerplate', 'toc', 'displayreference']);

class RfcXmlWalker {
  private readonly builder: DocumentBuilder;
  private readonly baseUrl: string;
  private readonly links: boolean;
  /** Labels of xref targets (sections, figures, tables, references), built when the walk starts. */
  private targets: RfcTargets | null = null;
  /** xml2rfc vocabulary v3 (`<rfc version="3">`), whose defaults differ from v2's. */
  private version3 = false;
  /** Written for rfc2629.xslt, whose renderings follow its own conventions (rfc2629-extensions.ts). */
  private rfc2629 = false;
  /** The renderings list references sorted by label (`sortRefs="true"`, `<?rfc sortrefs="yes"?>`). */
  private sortReferences = false;
  /** The renderer adds DOIs and info-page targets to RFC references (CitationOptions.rfcLinks). */
  private rfcLinks = false;
  sectionCount = 0;
  /** How many `<sup>`/`<sub>` enclose the node being written. */
  private scriptNesting = 0;
  /** `x:length-of` lengths by target element, each counted once. */
  private readonly lengths = new Map<Element, number>();
  /** Whether content of the document comes from documents named by `<x:source>` (not read here). */
  externalSources = false;

  constructor(builder: DocumentBuilder, baseUrl: string, links: boolean) {
    this.builder = builder;
    this.baseUrl = baseUrl;
    this.links = links;
  }

  /** Walks <rfc>: abstract and notes, then middle sections numbered 1.., then back sections A.. */
  walk(rfc: Element, options: { rfc2629: boolean; sortReferences: boolean; rfcLinks: boolean }): string {
    const { rfc2629 } = options;
    this.rfc2629 = rfc2629;
    this.sortReferences = options.sortReferences;
    this.rfcLinks = options.rfcLinks;
    this.targets = new RfcTargets(rfc, rfc2629);
    this.version3 = rfc.attribs['version'] === '3';
    for (const [key, value] of rfcFrontMetadata(rfc)) this.builder.setMetadata(key, value);
    const front = firstChild(rfc, 'front');
    let title = '';
    if (front) {
      const t = firstChild(front, 'title');
      if (t) title = normalizeSpace(textContent(t));
      const abstract = firstChild(front, 'abstract');
      if (abstract) {
        const { fragment, alternateIds, derivedIds } = this.fragmentOf(abstract);
        this.builder.openSection({ fragment, alternateIds, derivedIds, heading: 'Abstract', level: 2, number: null });
        this.body(abstract, fragment);
      }
      for (const note of childElements(front).filter((c) => localName(c) === 'note')) {
        const name = firstChild(note, 'name');
        const heading = name ? normalizeSpace(this.inlineText(name)) : (note.attribs['title'] ?? 'Note');
        this.builder.openSection({ fragment: note.attribs['pn'] ?? note.attribs['anchor'] ?? null, heading, level: 2, number: null });
        // A front note ("Editorial Note", "About This Document") is about the document, never part of its specification.
        this.builder.markCurrentSectionInformative('marker-element:note');
        this.body(note, null);
      }
      for (const boiler of childElements(front).filter((c) => localName(c) === 'boilerplate')) {
        for (const s of childElements(boiler)) if (localName(s) === 'section') this.section(s, 2, null, false);
      }
    }
    const middle = firstChild(rfc, 'middle');
    let counter = 0;
    if (middle) for (const s of childElements(middle)) if (localName(s) === 'section') this.section(s, 2, String(++counter), true);
    const back = firstChild(rfc, 'back');
    if (back) {
      let letter = 0;
      const grouped = groupedReferenceLists(back);
      for (const s of childElements(back)) {
        const name = localName(s);
        if (name === 'references' && grouped.length === 0) this.references(s, 2, String(++counter));
        else if (name === 'references' && s === grouped[0]) {
          // Several lists in <back>: one "References" section holds them, as the renderings print it.
          const number = String(++counter);
          this.builder.openSection({ fragment: null, derivedIds: [`section-${number}`], heading: 'References', level: 2, number });
          this.sectionCount++;
          for (const [k, list] of grouped.entries()) this.references(list, 3, `${number}.${k + 1}`);
        } else if (name === 'section') {
          const numbered = !isUnnumbered(s);
          this.section(s, 2, numbered ? String.fromCharCode(65 + letter++) : null, numbered);
        }
      }
    }
    this.authorsSection(rfc);
    return title;
  }

  /**
   * The renderings print "Authors' Addresses" from the front matter, so the XML gives that section
   * too: with no id (the XML has none), the id xml2rfc's HTML uses as a derived alias.
   */
  private authorsSection(rfc: Element): void {
    const addresses = authorAddresses(rfc);
    if (addresses === null) return;
    // Prepared XML keeps the section (anchor "authors-addresses") but not its text: fill it.
    const current = this.builder.currentSection;
    const prepared =
      current !== null && (current.fragment === 'authors-addresses' || current.alternateIds?.includes('authors-addresses') === true);
    if (!prepared)
      this.builder.openSection({ fragment: null, derivedIds: ['authors-addresses'], heading: addresses.heading, level: 2, number: null });
    for (const entry of addresses.entries)
      this.builder.addBlock({
        kind: 'paragraph',
        text: entry,
        fragment: null,
        marker: { normativity: 'informative', reason: 'marker-element:author' },
      });
  }

  private headingOf(el: Element): string {
    const name = firstChild(el, 'name');
    if (name) return normalizeSpace(this.inlineText(name));
    return normalizeSpace(el.attribs['title'] ?? '');
  }

  /**
   * Fragment: the prepared `pn`, else the anchor; both are ids this XML contains. The id xml2rfc's HTML
   * gives the same section ("appendix-A" for pn "section-appendix.a") is not in the XML, so it is only
   * a derived alias.
   */
  private fragmentOf(el: Element): { fragment: string | null; alternateIds: string[]; derivedIds: string[] } {
    const pn = el.attribs['pn'];
    const anchor = el.attribs['anchor'];
    if (pn !== undefined && pn !== '') {
      const html = htmlIdForPn(pn);
      return {
        fragment: pn,
        alternateIds: anchor !== undefined && anchor !== '' && anchor !== pn ? [anchor] : [],
        derivedIds: html !== pn && html !== anchor ? [html] : [],
      };
    }
    return { fragment: anchor !== undefined && anchor !== '' ? anchor : null, alternateIds: [], derivedIds: [] };
  }

  private section(el: Element, level: number, number: string | null, numbered: boolean): void {
    const explicitNumbered = !isUnnumbered(el);
    // Past the outline depth the builder keeps sections at its last level: they are not numbered deeper.
    const n = numbered && explicitNumbered && level <= MAX_OUTLINE_DEPTH ? number : null;
    const { fragment, alternateIds, derivedIds } = this.fragmentOf(el);
    // Without pn or anchor the XML names no id: the HTML id for the number is only a derived alias.
    if (fragment === null && n !== null) derivedIds.push(/^[A-Z]/.test(n) ? `appendix-${n}` : `section-${n}`);
    this.builder.openSection({ fragment, alternateIds, derivedIds, heading: this.headingOf(el), level, number: n, span: spanOf(el) });
    this.sectionCount++;
    this.body(el, fragment);
    let sub = 0;
    for (const c of childElements(el)) {
      const name = localName(c);
      if (name === 'section') {
        const childNumbered = !isUnnumbered(c) && n !== null;
        this.section(c, level + 1, childNumbered ? `${n}.${++sub}` : null, childNumbered);
      } else if (name === 'references') {
        this.references(c, level + 1, n === null ? null : `${n}.${++sub}`);
      }
    }
  }

  private references(el: Element, level: number, number: string | null): void {
    const { fragment, alternateIds, derivedIds } = this.fragmentOf(el);
    const heading = this.headingOf(el) || 'References';
    if (fragment === null && number !== null) derivedIds.push(`section-${number}`);
    this.builder.openSection({ fragment, alternateIds, derivedIds, heading, level, number, span: spanOf(el) });
    this.sectionCount++;
    let sub = 0;
    // The entries of one list form one definition list, term "[label]", as the renderings print them.
    const entries: { terms: string[]; definitions: string[] }[] = [];
    const links: Link[] = [];
    let start: number | null = null;
    let end: number | null = null;
    const flushEntries = (): void => {
      if (entries.length === 0) return;
      if (this.sortReferences) entries.sort((a, b) => compareCodeUnits(sortKey(a.terms[0]!), sortKey(b.terms[0]!)));
      const text = entries.map((e) => [...e.terms, ...e.definitions].join('\n')).join('\n');
      this.builder.addBlock({
        kind: 'definition-list',
        text,
        fragment,
        entries: entries.splice(0),
        marker: { normativity: 'informative', reason: 'marker-element:reference' },
        links: links.length > 0 ? links.splice(0) : undefined,
        span: start === null ? undefined : { unit: 'utf16-source', start, end: end ?? start },
      });
      start = null;
    };
    for (const node of el.children) {
      // `<?rfc include="…/reference.RFC.4844.xml"?>`, `<xi:include href="…">`: the renderer reads that file (not read here).
      const included = includedReference(node);
      if (included !== null) {
        entries.push({ terms: [`[${this.targets?.referenceLabel(included) ?? included}]`], definitions: [] });
        this.externalSources = true;
        continue;
      }
      if (!isTag(node)) continue;
      const c = node;
      const name = localName(c);
      if (name === 'references') {
        flushEntries();
        this.references(c, level + 1, number === null ? null : `${number}.${++sub}`);
      } else if (name === 'reference' || name === 'referencegroup') {
        const anchor = c.attribs['anchor'] ?? '';
        const label = `[${this.targets?.referenceLabel(anchor) ?? anchor}]`;
        const options: CitationOptions = { convention: this.rfc2629 ? 'rfc2629' : 'xml2rfc', rfcLinks: this.rfcLinks };
        const cite = (r: Element): string =>
          // An <annotation> follows the citation, its cross-references rendered as in running text.
          [
            referenceCitation(r, options),
            ...childElements(r)
              .filter((a) => localName(a) === 'annotation')
              .map((a) => this.inlineText(a)),
          ]
            .filter((p) => p !== '')
            .join(' ');
        // A group lists its members' citations, then its own target, as both renderers print it.
        const groupTarget = name === 'referencegroup' && c.attribs['target'] ? [`<${c.attribs['target']}>`] : [];
        const citation =
          name === 'reference'
            ? cite(c)
            : [
                ...childElements(c)
                  .filter((r) => localName(r) === 'reference')
                  .map(cite),
                ...groupTarget,
              ].join('\n');
        entries.push({ terms: [label], definitions: citation === '' ? [] : [citation] });
        // A reference without its text (x:source, a bibxml entity) is printed from another document.
        if (citation === '') this.externalSources = true;
        const target = c.attribs['target'];
        if (target !== undefined && this.links) links.push({ text: label, href: target });
        // The citation lives in the document <x:source> names, which is not read here.
        if (this.targets?.sourceDocument(anchor) != null) this.externalSources = true;
        const span = spanOf(c);
        if (span) {
          start ??= span.start;
          end = span.end;
        }
      }
    }
    flushEntries();
  }

  /** The block content of a section (its direct non-section children). */
  private body(el: Element, fragment: string | null): void {
    // Text directly in a section: none in a valid RFC, but where the tree's depth cap attached the
    // content of deeper elements (xml-depth-capped: "their text is kept"). One paragraph per run.
    let loose: string[] = [];
    const flushLoose = (): void => {
      const text = normalizeSpace(loose.join(''));
      loose = [];
      if (text !== '') this.builder.addBlock({ kind: 'paragraph', text, fragment });
    };
    for (const c of el.children) {
      if (isText(c)) {
        loose.push(c.data);
        continue;
      }
      if (isTag(c)) {
        const name = localName(c);
        if (name === 'section' || name === 'references' || name === 'name' || RFC_SKIP.has(name)) continue;
        if (!isRenderedVocabulary(c)) continue;
        flushLoose();
        this.block(c, fragment);
      }
    }
    flushLoose();
  }

  private block(el: Element, fragment: string | null): void {
    const name = localName(el);
    const ownFragment = el.attribs['anchor'] ?? el.attribs['pn'] ?? fragment;
    switch (name) {
      case 't': {
        // v2 lists and figures live inside <t>: <t>intro<list>..</list>outro</t>. The renderings
        // print the text before, the list or figure, and the text after as separate blocks.
        if (childElements(el).some((c) => T_BLOCK_CHILDREN.has(localName(c)))) {
          let run: AnyNode[] = [];
          const flushRun = (): void => {
            if (run.length > 0) this.emitFlowNodes('paragraph', run, ownFragment);
            run = [];
          };
          for (const c of el.children) {
            if (isTag(c) && T_BLOCK_CHILDREN.has(localName(c))) {
              flushRun();
              if (localName(c) === 'list') this.listBlock(c, ownFragment);
              else this.block(c, ownFragment);
            } else run.push(c);
          }
          flushRun();
          return;
        }
        this.emitFlow('paragraph', el, ownFragment, {});
        return;
      }
      case 'ul':
      case 'ol':
      case 'list':
        this.listBlock(el, ownFragment);
        return;
      case 'dl':
        this.definitionList(el, ownFragment);
        return;
      case 'figure': {
        // The figure's caption and id belong to its first artwork or code block.
        const figureFragment = el.attribs['pn'] ?? el.attribs['anchor'] ?? fragment;
        let caption = this.targets?.captionOf(el) ?? '';
        for (const c of childElements(el)) {
          const n = localName(c);
          if (n === 'artwork' || n === 'sourcecode') {
            this.verbatim(c, figureFragment, caption);
            caption = '';
          } else if (n === 'preamble' || n === 'postamble') this.emitFlow('paragraph', c, ownFragment, {});
        }
        return;
      }
      case 'artwork':
      case 'sourcecode':
        this.verbatim(el, ownFragment, '');
        return;
      case 'texttable':
      case 'table':
        this.table(el, ownFragment);
        return;
      case 'blockquote':
        this.emitFlow('blockquote', el, ownFragment, {});
        return;
      case 'aside':
      case 'note':
        this.emitFlow('note', el, ownFragment, {}, { normativity: 'informative', reason: `marker-element:${name}` });
        return;
      case 'preamble':
      case 'postamble':
        this.emitFlow('paragraph', el, ownFragment, {});
        return;
      default:
        if (RFC_INLINE.has(name)) this.emitFlow('paragraph', el, ownFragment, {});
        else for (const c of childElements(el)) this.block(c, ownFragment);
    }
  }

  /**
   * Artwork and source code. Kinds as both renderings can tell them apart: ABNF is grammar, drawings
   * (artwork without a type, or ascii-art/drawing/svg) are artwork, everything else is code.
   */
  private verbatim(el: Element, fragment: string | null, caption: string): void {
    const type = (el.attribs['type'] ?? '').toLowerCase();
    const drawing = type === '' || type === 'ascii-art' || type === 'drawing' || type === 'svg' || type === 'call-flow';
    const kind: BlockKind = GRAMMAR_TYPES.test(type) ? 'grammar' : localName(el) === 'artwork' && drawing ? 'artwork' : 'code';
    const text = trimVerbatim(this.verbatimText(el));
    if (text !== '') this.builder.addBlock({ kind, text, fragment, caption, language: type || undefined, span: spanOf(el) });
  }

  /** One paragraph from part of an element's children (text around a list nested in <t>). */
  private emitFlowNodes(kind: BlockKind, nodes: AnyNode[], fragment: string | null): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    for (const n of nodes) this.flow(n, sink, keywords, links, false);
    const text = sink.toString();
    if (text === '') return;
    const first = nodes[0]!;
    const last = nodes[nodes.length - 1]!;
    const span =
      first.startIndex === null
        ? undefined
        : { unit: 'utf16-source' as const, start: first.startIndex, end: (last.endIndex ?? first.startIndex) + 1 };
    this.builder.addBlock({ kind, text, fragment, marker: null, markedKeywords: keywords, links, span });
  }

  /** Artwork text as written, with cross-references inside it (ABNF comments) rendered as the RFC shows them. */
  private verbatimText(el: Element): string {
    let out = '';
    const visit = (node: AnyNode): void => {
      if (isText(node) || isCDATA(node)) out += textContent(node);
      else if (isTag(node) && isRenderedVocabulary(node)) {
        const name = localName(node);
        if (name === 'xref' && !hasContent(node)) {
          out += this.targets?.render(node, { inArtwork: true }) ?? node.attribs['target'] ?? '';
          this.noteExternal(node);
        } else if (name === 'length-of') out += this.lengthOf(node);
        else for (const c of node.children) visit(c);
      }
    };
    for (const c of el.children) visit(c);
    return out;
  }

  private emitFlow(
    kind: BlockKind,
    el: Element,
    fragment: string | null,
    opts: { skipLists?: boolean },
    marker?: { normativity: 'informative'; reason: string },
  ): void {
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    this.flow(el, sink, keywords, links, opts.skipLists === true);
    const text = sink.toString();
    if (text === '') return;
    this.builder.addBlock({ kind, text, fragment, marker: marker ?? null, markedKeywords: keywords, links, span: spanOf(el) });
  }

  private flow(node: AnyNode, sink: TextSink, keywords: KeywordSpan[], links: Link[], skipLists: boolean): void {
    if (isText(node)) {
      sink.text(node.data);
      return;
    }
    if (isCDATA(node)) {
      sink.text(textContent(node));
      return;
    }
    if (!isTag(node)) return;
    const name = localName(node);
    if (RFC_SKIP.has(name) || !isRenderedVocabulary(node)) return;
    if (skipLists && name === 'list') return;
    if (name === 'length-of') {
      sink.text(this.lengthOf(node));
      return;
    }
    if (name === 'contact' && !hasContent(node)) {
      // A non-ASCII name is followed by its ASCII form, as xml2rfc prints contacts.
      const full = node.attribs['fullname'] ?? '';
      const ascii = node.attribs['asciiFullname'] ?? '';
      sink.text(full === '' ? ascii : ascii !== '' && ascii !== full ? `${full} (${ascii})` : full);
      return;
    }
    if (name === 'vspace' || name === 'br') {
      sink.lineBreak(1);
      return;
    }
    if ((name === 'sup' || name === 'sub') && this.script(node, name, sink, links, skipLists)) return;
    if (name === 'bcp14') {
      const read = textOfAtMost(node, MAX_KEYWORD_TEXT);
      const kw = read.cut ? null : keywordOf(read.text);
      for (const c of node.children) this.flow(c, sink, keywords, links, skipLists);
      if (kw !== null) keywords.push({ keyword: kw, start: sink.length - kw.length, end: sink.length, marked: true });
      return;
    }
    if (name === 'xref') {
      const target = node.attribs['target'] ?? '';
      const content = hasContent(node);
      const shown = content ? ownText(node) : (this.targets?.render(node) ?? target);
      if (content) {
        for (const c of node.children) this.flow(c, sink, keywords, links, skipLists);
        sink.text(this.targets?.sectionSuffix(node) ?? '');
      } else sink.text(shown);
      this.noteExternal(node);
      if (this.links && target !== '') {
        const href =
          node.attribs['derivedLink'] ?? this.targets?.externalLink(node) ?? `${this.baseUrl.split('#')[0] ?? this.baseUrl}#${target}`;
        links.push({ text: shown || target, href: resolve(href, this.baseUrl) });
      }
      return;
    }
    if (name === 'eref') {
      const target = node.attribs['target'] ?? '';
      // An empty eref prints as <URL> in v2 and as the bare URL in v3 unless `brackets` says otherwise.
      const angle = (node.attribs['brackets'] ?? (this.version3 ? 'none' : 'angle')) === 'angle';
      if (node.children.length === 0) sink.text(angle ? `<${target}>` : target);
      else for (const c of node.children) this.flow(c, sink, keywords, links, skipLists);
      if (this.links && target !== '') {
        // Its first MAX_LINK_TEXT code units, as an HTML link's (nested erefs each read theirs).
        const read = textOfAtMost(node, MAX_LINK_TEXT);
        const text = read.cut ? `${normalizeSpace(read.text)}…` : normalizeSpace(read.text);
        links.push({ text: text || target, href: resolve(target, this.baseUrl) });
      }
      return;
    }
    if (!skipLists && (name === 'list' || name === 'ul' || name === 'ol')) {
      // A list nested in running text keeps its item markers, as the renderings print them.
      const style = listStyle(node);
      const ordered = name === 'ol' || style === 'numbers' || style.startsWith('format');
      let i = 0;
      for (const c of childElements(node)) {
        const n = localName(c);
        if (n !== 'li' && n !== 't') continue;
        sink.lineBreak(1);
        sink.marker(ordered ? `${++i}. ` : '- ');
        this.flow(c, sink, keywords, links, skipLists);
      }
      sink.lineBreak(1);
      return;
    }
    const block = name === 't' || name === 'li' || name === 'dd' || name === 'dt' || name === 'artwork' || name === 'sourcecode';
    if (block) sink.lineBreak(1);
    if (name === 'artwork' || name === 'sourcecode') {
      sink.verbatim(trimVerbatim(textContent(node)));
      sink.lineBreak(1);
      return;
    }
    for (const c of node.children) this.flow(c, sink, keywords, links, skipLists);
    if (block) sink.lineBreak(1);
  }

  /**
   * v3 `<sup>`/`<sub>` as `^53` / `_(i+1)`, as the HTML extractor writes xml2rfc's rendering of them
   * (scripts.ts); false for a marker of cross-references only, and past MAX_SCRIPT_NESTING.
   */
  private script(node: Element, kind: ScriptKind, sink: TextSink, links: Link[], skipLists: boolean): boolean {
    if (this.scriptNesting >= MAX_SCRIPT_NESTING) return false;
    if (this.scriptNesting === 0 && isNoteMarker(node, isRenderedVocabulary, (e) => ['xref', 'eref'].includes(localName(e)))) return false;
    const inner = new TextSink();
    this.scriptNesting++;
    try {
      for (const c of node.children) this.flow(c, inner, [], links, skipLists);
    } finally {
      this.scriptNesting--;
    }
    const text = scriptText(kind, inner.toString());
    if (text !== '') sink.literal(text);
    return true;
  }

  /** `<x:length-of target>` as the renderer prints it; the target id when the document lacks it. */
  private lengthOf(el: Element): string {
    const id = el.attribs['target'] ?? '';
    const target = this.targets?.element(id);
    if (target === undefined) return id;
    // Once per target: thousands of references to one large artwork would each re-read all its text.
    let length = this.lengths.get(target);
    if (length === undefined) {
      length = lengthOf(target);
      this.lengths.set(target, length);
    }
    return String(length);
  }

  /** Remembers an `<xref x:rel>` whose section number only the document `<x:source>` names holds. */
  private noteExternal(xref: Element): void {
    if (xref.attribs['x:sec'] === undefined && xref.attribs['section'] === undefined && this.targets?.externalLink(xref) != null)
      this.externalSources = true;
  }

  private inlineText(el: Element): string {
    const sink = new TextSink();
    this.flow(el, sink, [], [], false);
    return sink.toString();
  }

  private listItems(list: Element): ListItem[] {
    const items: ListItem[] = [];
    for (const c of childElements(list)) {
      const name = localName(c);
      if (name !== 'li' && name !== 't') continue;
      const nested = childElements(c).filter((x) => ['ul', 'ol', 'list'].includes(localName(x)));
      const sink = new TextSink();
      for (const x of c.children) if (!(isTag(x) && ['ul', 'ol', 'list'].includes(localName(x)))) this.flow(x, sink, [], [], true);
      const item: ListItem = { text: sink.toString() };
      const sub = nested.flatMap((x) => this.listItems(x));
      if (sub.length > 0) item.items = sub;
      items.push(item);
    }
    return items;
  }

  private listBlock(el: Element, fragment: string | null): void {
    const style = listStyle(el);
    const ordered = localName(el) === 'ol' || style === 'numbers' || style.startsWith('format');
    if (localName(el) === 'list' && style === 'hanging') {
      // v2 hanging lists are definition lists: <t hangText="term">definition</t>.
      const entries = childElements(el)
        .filter((t) => localName(t) === 't')
        .map((t) => ({ terms: [normalizeSpace(t.attribs['hangtext'] ?? t.attribs['hangText'] ?? '')], definitions: [this.inlineText(t)] }));
      const text = entries.map((e) => `${e.terms[0]}\n${e.definitions[0]}`).join('\n');
      if (text.trim() !== '') this.builder.addBlock({ kind: 'definition-list', text, fragment, entries, span: spanOf(el) });
      return;
    }
    const items = this.listItems(el);
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    let i = 0;
    for (const c of childElements(el)) {
      const name = localName(c);
      if (name !== 'li' && name !== 't') continue;
      sink.marker(ordered ? `${++i}. ` : '- ');
      this.flow(c, sink, keywords, links, false);
    }
    const text = sink.toString();
    if (text !== '')
      this.builder.addBlock({ kind: 'list', text, fragment, ordered, items, markedKeywords: keywords, links, span: spanOf(el) });
  }

  private definitionList(el: Element, fragment: string | null): void {
    const entries: { terms: string[]; definitions: string[] }[] = [];
    const sink = new TextSink();
    const keywords: KeywordSpan[] = [];
    const links: Link[] = [];
    for (const c of childElements(el)) {
      const name = localName(c);
      if (name === 'dt') {
        entries.push({ terms: [normalizeSpace(this.inlineText(c))], definitions: [] });
      } else if (name === 'dd') {
        if (entries.length === 0) entries.push({ terms: [], definitions: [] });
        entries[entries.length - 1]!.definitions.push(this.inlineText(c));
      }
      this.flow(c, sink, keywords, links, false);
    }
    const text = sink.toString();
    if (text !== '')
      this.builder.addBlock({ kind: 'definition-list', text, fragment, entries, markedKeywords: keywords, links, span: spanOf(el) });
  }

  private table(el: Element, fragment: string | null): void {
    const header: string[][] = [];
    const rows: string[][] = [];
    if (localName(el) === 'texttable') {
      const cols = childElements(el)
        .filter((c) => localName(c) === 'ttcol')
        .map((c) => normalizeSpace(textContent(c)));
      if (cols.length > 0) header.push(cols);
      const cells = childElements(el)
        .filter((c) => localName(c) === 'c')
        .map((c) => normalizeSpace(this.inlineText(c)));
      const width = Math.max(1, cols.length);
      for (let i = 0; i < cells.length; i += width) rows.push(cells.slice(i, i + width));
    } else {
      const visit = (parent: Element, inHead: boolean): void => {
        for (const c of childElements(parent)) {
          const name = localName(c);
          if (name === 'thead') visit(c, true);
          else if (name === 'tbody' || name === 'tfoot') visit(c, false);
          else if (name === 'tr') {
            const cells = childElements(c)
              .filter((x) => localName(x) === 'td' || localName(x) === 'th')
              .map((x) => normalizeSpace(this.inlineText(x)));
            (inHead ? header : rows).push(cells);
          }
        }
      };
      visit(el, false);
    }
    const text = [...header, ...rows].map((r) => r.join(' | ')).join('\n');
    const caption = this.targets?.captionOf(el) ?? '';
    const tableFragment = el.attribs['pn'] ?? el.attribs['anchor'] ?? fragment;
    if (text.trim() !== '')
      this.builder.addBlock({ kind: 'table', text, fragment: tableFragment, header, rows, caption, span: spanOf(el) });
  }
}

/**
 * The id xml2rfc's HTML writer gives a prepared `pn`: numbered sections keep it ("section-4.1"),
 * appendices become "appendix-A" / "appendix-A.1" (pn "section-appendix.a" / "section-a.1").
 */
export function htmlIdForPn(pn: string): string {
  const appendix = /^section-appendix\.([a-z])$/.exec(pn);
  if (appendix) return `appendix-${appendix[1]!.toUpperCase()}`;
  const sub = /^section-([a-z])\.(\d+(?:\.\d+)*)$/.exec(pn);
  if (sub) return `appendix-${sub[1]!.toUpperCase()}.${sub[2]!}`;
  return pn;
}

/** `<rfc sortRefs="true">` (v3) or the v2 processing instruction `<?rfc sortrefs="yes"?>`. */
function sortsReferences(document: Document, rfc: Element): boolean {
  if (rfc.attribs['sortRefs'] !== undefined) return rfc.attribs['sortRefs'] === 'true';
  return document.children.some((c) => c.type === 'directive' && /^\?rfc\s[^>]*\bsortrefs=["']yes["']/.test((c as { data: string }).data));
}

/** References sort by label without regard to case ("[ALTSVC]" before "[HTTP/1.1]" before "[RFC1950]"). */
function sortKey(label: string): string {
  return label.toUpperCase();
}

/**
 * A v2 list's style: its own, else (RFC 7749: "the default is the style of the enclosing list") the
 * nearest enclosing list's, else "empty". v3 lists (`ul`, `ol`) have no style attribute.
 */
function listStyle(list: Element): string {
  const known = listStyles.get(list);
  if (known !== undefined) return known;
  const own = localName(list) === 'list' ? list.attribs['style'] : undefined;
  let style: string;
  if (own !== undefined && own !== '') style = own;
  else {
    // The nearest enclosing element that is a list, resolved once per list (memoized up the chain).
    let e = list.parent;
    while (e !== null && isTag(e) && localName(e) !== 'list') e = e.parent;
    style = e !== null && isTag(e) ? listStyle(e) : 'empty';
  }
  listStyles.set(list, style);
  return style;
}

/** listStyle per element: nested lists ask their ancestors once, not once per descendant. */
const listStyles = new WeakMap<Element, string>();

/**
 * Whether an element has content of its own (a child element, or text that is not only white space).
 * Looks at direct children only: asking the whole subtree at every level of a deep nest is quadratic.
 */
function hasContent(el: Element): boolean {
  return el.children.some((c) => isTag(c) || ((isText(c) || isCDATA(c)) && textContent(c).trim() !== ''));
}

/** The element's direct text, white space normalized (a link's text; never the whole subtree). */
function ownText(el: Element): string {
  return normalizeSpace(
    el.children
      .filter((c) => isText(c))
      .map((c) => (c as { data: string }).data)
      .join(''),
  );
}

function spanOf(el: Element): { unit: 'utf16-source'; start: number; end: number } | undefined {
  if (el.startIndex === null) return undefined;
  return { unit: 'utf16-source', start: el.startIndex, end: el.endIndex === null ? el.startIndex : el.endIndex + 1 };
}

function trimVerbatim(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines.map((l) => l.trimEnd()).join('\n');
}

function resolve(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/**
 * Generic XML: elements with a title-like child or attribute (section/title, div/head, sec/title)
 * become sections; elements holding text directly become paragraphs. Not one blob. `roots` are the
 * top-level elements: one in well-formed XML, each read in turn when a second follows (xml-malformed).
 */
function extractGenericXml(roots: readonly Element[], builder: DocumentBuilder): { title: string; sections: number } {
  const TITLE_NAMES = new Set(['title', 'name', 'head', 'heading', 'caption', 'label']);
  let sections = 0;
  let title = '';
  const walk = (el: Element, depth: number): void => {
    const kids = childElements(el);
    const titleChild = kids.find((k) => TITLE_NAMES.has(localName(k).toLowerCase()));
    const hasOwnText = el.children.some((c) => (isText(c) || isCDATA(c)) && textContent(c).trim() !== '');
    const id = el.attribs['id'] ?? el.attribs['xml:id'] ?? el.attribs['anchor'] ?? null;
    let opened = false;
    if ((titleChild !== undefined || el.attribs['title'] !== undefined) && kids.length > 1 && !hasOwnText) {
      const heading = normalizeSpace(titleChild ? textContent(titleChild) : (el.attribs['title'] ?? ''));
      if (title === '') title = heading;
      builder.openSection({ fragment: id, heading, level: Math.min(9, depth + 1), number: null, span: spanOf(el) });
      sections++;
      opened = true;
    }
    if (hasOwnText) {
      const text = normalizeSpace(textContent(el));
      if (text !== '') builder.addBlock({ kind: 'paragraph', text, fragment: id, span: spanOf(el) });
      return;
    }
    for (const k of kids) {
      if (opened && k === titleChild) continue;
      walk(k, opened ? depth + 1 : depth);
    }
  };
  for (const root of roots) walk(root, 1);
  return { title, sections };
}

export function extractXml(source: string, baseUrl: string, builder: DocumentBuilder, links: boolean): XmlExtractResult {
  const { text, expanded, external } = expandInternalEntities(source);
  if (expanded > 0)
    builder.info(
      'xml-entities-expanded',
      `${expanded} internal DTD entity references were expanded before parsing; source offsets after the DOCTYPE are approximate.`,
    );
  if (external > 0) builder.limits.add('xml-external-entities-not-loaded');
  const { document, cappedElements, xmlErrors, xmlErrorCount } = parseMarkup(text, {
    xmlMode: true,
    withStartIndices: true,
    withEndIndices: true,
    recognizeCDATA: true,
  });
  if (cappedElements > 0) {
    builder.warn(
      'xml-depth-capped',
      `${cappedElements} elements nested deeper than ${MAX_TREE_DEPTH} levels were attached at depth ${MAX_TREE_DEPTH}; ` +
        'their text is kept.',
    );
  }
  const roots = document.children.filter((c): c is Element => isTag(c));
  const root = roots[0];
  builder.limits.add('xml-dtd-not-validated');
  if (!root) {
    builder.error('xml-malformed', 'The XML has no root element.');
    return { title: '', confidence: 0 };
  }
  if (xmlErrorCount > 0) {
    // The parser keeps what it can (elements closed where the input ends, a second root's content); it
    // cannot keep what an unterminated comment swallowed.
    const more = xmlErrorCount > xmlErrors.length ? `; ${xmlErrorCount - xmlErrors.length} more` : '';
    builder.warn(
      'xml-malformed',
      `The XML is not well-formed: ${xmlErrors.join('; ')}${more}. Its content was kept where the parser could keep it.`,
    );
  }
  if (localName(root) === 'rfc') {
    const walker = new RfcXmlWalker(builder, baseUrl, links);
    const rfc2629 = writtenForRfc2629Xslt(document, root);
    const title = walker.walk(root, {
      rfc2629,
      sortReferences: sortsReferences(document, root),
      rfcLinks: rfc2629 ? emulatesXml2rfcBackend(document, DOI_BACKEND) : true,
    });
    // An XInclude (a section kept in a file of its own, a bibxml reference) names a document not read here.
    if (walker.externalSources || findOne(isXInclude, root.children, true) !== null) builder.limits.add('rfc-external-sources-not-read');
    return { title, confidence: walker.sectionCount > 0 ? 90 : 50 };
  }
  builder.info('xml-generic', `No known vocabulary for root element <${root.name}>; structure inferred from title-like elements.`);
  const result = extractGenericXml(roots, builder);
  return { title: result.title, confidence: result.sections > 0 ? 60 : 40 };
}
