import { apparatusReason, isApparatusReason } from '../document/apparatus.js';
import type { Authority, Block, Diagnostic, Normativity, PageStart, Section } from '../document/types.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { findKeywords, type KeywordSpan } from './bcp14.js';
import { MAX_OUTLINE_DEPTH, MAX_SOURCE_ID_LENGTH } from './input-bounds.js';
import { appendAll } from '../array-extremes.js';

export type BlockKind =
  | 'paragraph'
  | 'list'
  | 'table'
  | 'code'
  | 'idl'
  | 'grammar'
  | 'algorithm'
  | 'note'
  | 'example'
  | 'issue'
  | 'definition-list'
  | 'blockquote'
  | 'artwork'
  | 'form-field';

export interface Link {
  text: string;
  href: string;
}

/** A table cell spanning more than one slot: where it starts (row in `header` or `rows`, column) and how far it reaches. */
export interface TableSpan {
  part: 'header' | 'rows';
  row: number;
  column: number;
  rowSpan: number;
  colSpan: number;
}

/** One step of an algorithm: citable by its path ("3.2.1"), with the source's id when it has one. */
export interface AlgorithmStep {
  path: string;
  /** The step's own text, without its substeps. */
  text: string;
  id?: string;
  /** `<var>` names used in the step, in order of first use. */
  variables?: string[];
  links?: Link[];
  steps?: AlgorithmStep[];
}

export interface ListItem {
  text: string;
  ordered?: boolean;
  items?: ListItem[];
}

export type Span = {
  unit?: 'utf16-source' | 'utf16-page-text';
  start?: number;
  end?: number;
  line?: number;
  endLine?: number;
  page?: number;
  endPage?: number;
  itemStart?: number;
  itemEnd?: number;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  column?: number;
};

/** A normativity marker found on the block or an ancestor element (class, element name). */
export interface Marker {
  normativity: Normativity;
  reason: string;
}

/** An element id inside a block's text: where (UTF-16 offset into the text) the element with that id begins. */
export interface BlockAnchor {
  id: string;
  start: number;
}

/** Anchors moved past the separators before their element's text (an id names its text, not the space before it). */
function anchorsOnText(text: string, anchors: BlockAnchor[]): BlockAnchor[] {
  return anchors.map(({ id, start }) => {
    let at = Math.min(start, text.length);
    while (at < text.length && /\s/.test(text[at]!)) at++;
    return { id, start: at };
  });
}

/** The block with `keywords` among its members in code-unit order (canonicalJson then copies nothing). */
function withKeywords<T extends object>(block: T, keywords: KeywordSpan[]): T & { keywords: KeywordSpan[] } {
  const copy: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(block)) {
    if (!placed && key > 'keywords') {
      copy['keywords'] = keywords;
      placed = true;
    }
    if (key !== 'keywords') copy[key] = value;
  }
  if (!placed) copy['keywords'] = keywords;
  return copy as T & { keywords: KeywordSpan[] };
}

export interface BlockDraft {
  kind: BlockKind;
  text: string;
  /** The block's own id or the nearest enclosing fragment id. */
  fragment: string | null;
  marker?: Marker | null;
  /** Keywords the source marks explicitly (offsets into `text`). */
  markedKeywords?: KeywordSpan[];
  links?: Link[];
  ordered?: boolean;
  items?: ListItem[];
  steps?: AlgorithmStep[];
  caption?: string;
  header?: string[][];
  rows?: string[][];
  /** PDF tables: the page of each row in `rows` (a table may continue across pages). */
  rowPages?: number[];
  /** PDF: where each later page begins in `text` (Block.pageStarts). */
  pageStarts?: PageStart[];
  /** Cells spanning several slots (their text fills every slot they cover in header/rows). */
  spans?: TableSpan[];
  entries?: { terms: string[]; definitions: string[] }[];
  language?: string;
  /** Ids of elements inside the block (in text order), so a citation can point at the exact text. */
  anchors?: BlockAnchor[];
  field?: { name: string; type: string; value: string | boolean | null; options?: string[]; readOnly?: boolean };
  page?: number;
  span?: Span;
  confidence?: number;
}

export interface SectionDraft {
  fragment: string | null;
  /** Id to use when the source gives no fragment (e.g. "section-4.2" rebuilt from RFC text). */
  id?: string;
  alternateIds?: string[];
  /** Ids of another rendering of the document (see Section.derivedIds): aliases, never the id. */
  derivedIds?: string[];
  heading: string;
  level: number;
  number: string | null;
  page?: number;
  span?: Span;
  confidence?: number;
}

interface OpenSection {
  section: Section;
  informative: string | null;
}

export interface BuilderPolicy {
  authority: Authority;
  informativeSectionIds: ReadonlySet<string>;
  informativeHeadings: ReadonlySet<string>;
  /**
   * Lower-case markers a heading carries when its section is informative ("(informative)" after an
   * annex title, RFC 6265's "Semantics (Non-Normative)"): read here, so every extractor (HTML, RFC XML,
   * RFC text, PDF) marks such a section, and a marker class on the heading may still say otherwise.
   */
  informativeHeadingMarkers: readonly string[];
  /** Keywords found by pattern count only when the document marks none (RFC HTML marks all of them). */
  keywordPatternFallback: boolean;
}

/**
 * Collects sections and blocks in document order and gives them stable ids: a section's id is its
 * fragment (suffixed "~2" on a duplicate), or "~s<n>" when the source names none; a block's id is its
 * section id plus "~b<k>", so editing one section leaves other sections' block ids unchanged.
 */
export class DocumentBuilder {
  readonly sections: Section[] = [];
  readonly blocks: (Block & { keywords?: KeywordSpan[] })[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly limits = new Set<string>();
  /** Document metadata the source declares (front matter), key to text; first value of a key wins. */
  readonly metadata = new Map<string, string>();
  private readonly stack: OpenSection[] = [];
  private readonly usedIds = new Set<string>();
  /**
   * For a fragment given more than once, the suffix to try first for its next copy (`x~<n>`): every
   * smaller one is taken, and ids are never freed, so a document of 20,000 headings `{#x}` tries each
   * suffix once instead of counting up from 2 at every heading (quadratic: 150 KB took 22 s).
   */
  private readonly nextSuffix = new Map<string, number>();
  private readonly blockCounts = new Map<string, number>();
  private readonly informativeSections = new Map<string, string>();
  private anonymousCount = 0;
  /** The id an extractor asked for a section the source gives none (SectionDraft.id). */
  private readonly requestedIds = new Map<Section, string>();
  private readonly warnedOnce = new Set<string>();
  private markedKeywordCount = 0;
  private readonly policy: BuilderPolicy;

  constructor(policy: BuilderPolicy) {
    this.policy = policy;
  }

  get currentSection(): Section | null {
    return this.stack.length === 0 ? null : this.stack[this.stack.length - 1]!.section;
  }

  /**
   * Makes `section` (null: the document's top) current again, closing the sections opened since: the
   * blocks after a list of API entries (entrySelectors) belong to the section around the list. No
   * change when `section` is no longer open (a heading inside the list closed it).
   */
  resumeSection(section: Section | null): void {
    const at = section === null ? -1 : this.stack.findIndex((open) => open.section === section);
    if (section === null || at >= 0) this.stack.length = at + 1;
  }

  openSection(input: SectionDraft): Section {
    const draft = this.capLevel(this.boundedSectionIds(input));
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.section.level >= draft.level) this.stack.pop();
    // A table of contents holds its list, not the sections after it: a page that heads its contents h2
    // and its sections h3 (npm's documentation) had every section inside its contents, apparatus.
    while (this.stack.length > 0 && isContentsReason(this.stack[this.stack.length - 1]!.section.normativityReason)) this.stack.pop();
    const parent = this.stack.length === 0 ? null : this.stack[this.stack.length - 1]!;
    // A provisional id, unique among those given so far: settleIds gives the final ones, knowing every
    // id the source uses.
    let id: string;
    if (draft.fragment !== null && draft.fragment !== '') {
      id = draft.fragment;
      if (this.usedIds.has(id)) {
        let n = this.nextSuffix.get(draft.fragment) ?? 2;
        while (this.usedIds.has(`${draft.fragment}~${n}`)) n++;
        id = `${draft.fragment}~${n}`;
        this.nextSuffix.set(draft.fragment, n + 1);
      }
    } else if (draft.id !== undefined && !this.usedIds.has(draft.id)) {
      id = draft.id;
    } else {
      do id = `~s${++this.anonymousCount}`;
      while (this.usedIds.has(id));
    }
    this.usedIds.add(id);
    let informative: string | null = parent?.informative ?? null;
    // A section the family names (a change log, references) is apparatus even inside a section that
    // is informative for another reason (an appendix marked informative): its own reason says so.
    if (!isApparatusReason(informative)) {
      const ids = [draft.fragment === '' ? null : draft.fragment, ...(draft.alternateIds ?? [])];
      const hit = ids.find((x) => x !== null && this.policy.informativeSectionIds.has(x));
      if (hit) informative = apparatusReason('section', hit);
      else if (this.policy.informativeHeadings.has(draft.heading.toLowerCase()))
        informative = apparatusReason('heading', draft.heading.toLowerCase());
    }
    if (informative === null && this.policy.informativeHeadingMarkers.length > 0) {
      const lower = draft.heading.toLowerCase();
      const marker = this.policy.informativeHeadingMarkers.find((m) => lower.includes(m));
      if (marker !== undefined) informative = `heading-marker:${marker}`;
    }
    // Members in code-unit order, so that canonicalJson serialises the document without copying it.
    const section = {} as Section;
    if (draft.alternateIds && draft.alternateIds.length > 0) section.alternateIds = draft.alternateIds;
    if (draft.confidence !== undefined) section.confidence = draft.confidence;
    if (draft.derivedIds && draft.derivedIds.length > 0) section.derivedIds = draft.derivedIds;
    section.fragment = draft.fragment === '' ? null : draft.fragment;
    section.heading = draft.heading;
    section.id = id;
    section.level = draft.level;
    section.normativity = informative === null ? this.policy.authority : 'informative';
    if (informative !== null) section.normativityReason = informative;
    section.number = draft.number;
    if (draft.page !== undefined) section.page = draft.page;
    section.parentId = parent ? parent.section.id : null;
    if (draft.span !== undefined) section.span = draft.span;
    this.sections.push(section);
    if (draft.id !== undefined) this.requestedIds.set(section, draft.id);
    this.stack.push({ section, informative });
    if (informative !== null) this.informativeSections.set(id, informative);
    return section;
  }

  /**
   * A source id longer than MAX_SOURCE_ID_LENGTH, read as no id: every record under it would copy it
   * (see input-bounds.ts). Ids of ordinary length pass unchanged, and the draft is not copied.
   */
  private boundedId<T extends string | null | undefined>(id: T): T | null {
    if (id === null || id === undefined || id.length <= MAX_SOURCE_ID_LENGTH) return id;
    this.warnOnce(
      'id-too-long',
      `An id longer than ${MAX_SOURCE_ID_LENGTH} characters is read as no id: its text is cited at the enclosing section.`,
    );
    return null;
  }

  private boundedIds(ids: string[] | undefined): string[] | undefined {
    if (ids === undefined || ids.every((id) => id.length <= MAX_SOURCE_ID_LENGTH)) return ids;
    return ids.filter((id) => this.boundedId(id) !== null);
  }

  private boundedSectionIds(draft: SectionDraft): SectionDraft {
    const fragment = this.boundedId(draft.fragment);
    const id = this.boundedId(draft.id);
    const alternateIds = this.boundedIds(draft.alternateIds);
    const derivedIds = this.boundedIds(draft.derivedIds);
    if (fragment === draft.fragment && id === draft.id && alternateIds === draft.alternateIds && derivedIds === draft.derivedIds)
      return draft;
    const bounded: SectionDraft = { ...draft, fragment };
    if (id === null) delete bounded.id;
    if (alternateIds !== undefined) bounded.alternateIds = alternateIds;
    if (derivedIds !== undefined) bounded.derivedIds = derivedIds;
    return bounded;
  }

  /** Algorithm steps without their over-long ids (a step keeps its path); the same array when none is. */
  private boundedSteps(steps: AlgorithmStep[]): AlgorithmStep[] {
    let changed = false;
    const out = steps.map((step) => {
      const inner = step.steps === undefined ? undefined : this.boundedSteps(step.steps);
      const tooLong = step.id !== undefined && this.boundedId(step.id) === null;
      if (!tooLong && inner === step.steps) return step;
      changed = true;
      const copy: AlgorithmStep = { ...step };
      if (tooLong) delete copy.id;
      if (inner !== undefined) copy.steps = inner;
      return copy;
    });
    return changed ? out : steps;
  }

  /** A section deeper than MAX_OUTLINE_DEPTH is opened at that level, beside the deepest sections. */
  private capLevel(draft: SectionDraft): SectionDraft {
    if (draft.level <= MAX_OUTLINE_DEPTH) return draft;
    this.warnOnce(
      'section-depth-capped',
      `Sections nested deeper than ${MAX_OUTLINE_DEPTH} levels are kept at level ${MAX_OUTLINE_DEPTH}.`,
    );
    return { ...draft, level: MAX_OUTLINE_DEPTH };
  }

  /** "This section is non-normative." applies to the current section and everything under it. */
  markCurrentSectionInformative(reason: string): void {
    const top = this.stack[this.stack.length - 1];
    if (!top || top.informative !== null) return;
    top.informative = reason;
    top.section.normativity = 'informative';
    top.section.normativityReason = reason;
    this.informativeSections.set(top.section.id, reason);
  }

  /**
   * An explicit normative marker on a section (class="normative" inside an informative one): the
   * section and what it contains stop inheriting the enclosing section's informative status.
   */
  markCurrentSectionNormative(): void {
    const top = this.stack[this.stack.length - 1];
    if (!top || top.informative === null) return;
    top.informative = null;
    top.section.normativity = this.policy.authority;
    delete top.section.normativityReason;
    this.informativeSections.delete(top.section.id);
  }

  addBlock(draft: BlockDraft): Block {
    const top = this.stack[this.stack.length - 1];
    const sectionId = top ? top.section.id : null;
    const key = sectionId ?? '~front';
    const k = (this.blockCounts.get(key) ?? 0) + 1;
    this.blockCounts.set(key, k);
    let normativity: Normativity;
    let reason: string;
    if (draft.marker) {
      normativity = draft.marker.normativity;
      reason = draft.marker.reason;
    } else if (top && top.informative !== null) {
      normativity = 'informative';
      reason = top.informative;
    } else {
      normativity = this.policy.authority;
      reason = 'default-authority';
    }
    // Members in code-unit order, so that canonicalJson serialises the document without copying it.
    const block = {} as Block & { keywords?: KeywordSpan[] };
    const anchors = draft.anchors?.filter((anchor) => this.boundedId(anchor.id) !== null);
    if (anchors !== undefined && anchors.length > 0) block.anchors = anchorsOnText(draft.text, anchors);
    if (draft.caption !== undefined && draft.caption !== '') block.caption = draft.caption;
    if (draft.confidence !== undefined) block.confidence = draft.confidence;
    if (draft.entries) block.entries = draft.entries;
    if (draft.field) block.field = draft.field;
    block.fragment = this.boundedId(draft.fragment) ?? this.enclosingFragment();
    if (draft.header) block.header = draft.header;
    block.id = `${key}~b${k}`;
    if (draft.items) block.items = draft.items;
    if (draft.markedKeywords && draft.markedKeywords.length > 0) {
      block.keywords = draft.markedKeywords;
      this.markedKeywordCount += draft.markedKeywords.length;
    }
    block.kind = draft.kind;
    if (draft.language !== undefined && draft.language !== '') block.language = draft.language;
    if (draft.links && draft.links.length > 0) block.links = draft.links;
    block.normativity = normativity;
    block.normativityReason = reason;
    if (draft.ordered !== undefined) block.ordered = draft.ordered;
    if (draft.page !== undefined) block.page = draft.page;
    if (draft.pageStarts !== undefined && draft.pageStarts.length > 0) block.pageStarts = draft.pageStarts;
    if (draft.rowPages) block.rowPages = draft.rowPages;
    if (draft.rows) block.rows = draft.rows;
    block.sectionId = sectionId;
    if (draft.span !== undefined) block.span = draft.span;
    if (draft.spans && draft.spans.length > 0) block.spans = draft.spans;
    if (draft.steps) block.steps = this.boundedSteps(draft.steps);
    block.text = draft.text;
    this.blocks.push(block);
    return block;
  }

  setMetadata(key: string, value: string): void {
    if (key !== '' && value !== '' && !this.metadata.has(key)) this.metadata.set(key, value);
  }

  warn(code: string, message: string): void {
    this.diagnostics.push({ code, message, severity: 'warning' });
  }

  /** A warning given once per document, however often its cause occurs. */
  warnOnce(code: string, message: string): void {
    if (this.warnedOnce.has(code)) return;
    this.warnedOnce.add(code);
    this.warn(code, message);
  }

  error(code: string, message: string): void {
    this.diagnostics.push({ code, message, severity: 'error' });
  }

  info(code: string, message: string): void {
    this.diagnostics.push({ code, message, severity: 'info' });
  }

  /**
   * Final keyword pass: when the source marks keywords anywhere, only marked ones count (RFC HTML/XML);
   * otherwise upper-case keywords are found by pattern (never in code, IDL, grammar or artwork).
   */
  finishKeywords(): void {
    if (this.markedKeywordCount > 0 || !this.policy.keywordPatternFallback) return;
    for (let i = 0; i < this.blocks.length; i++) {
      const block = this.blocks[i]!;
      if (
        block.kind === 'code' ||
        block.kind === 'idl' ||
        block.kind === 'grammar' ||
        block.kind === 'artwork' ||
        block.kind === 'form-field'
      )
        continue;
      const found = findKeywords(block.text);
      if (found.length > 0) this.blocks[i] = withKeywords(block, found);
    }
  }

  /**
   * The fragment of the innermost open section that has one: a block of a section the source gives
   * no id (a Unicode report's h4, an RFC XML section without an anchor) is cited where a reader can
   * open the page nearest to it, its enclosing section, rather than at the top of the document.
   */
  private enclosingFragment(): string | null {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const fragment = this.stack[i]!.section.fragment;
      if (fragment !== null) return fragment;
    }
    return null;
  }

  /** The open sections, outermost first (the current section last). */
  get openSections(): readonly Section[] {
    return this.stack.map((open) => open.section);
  }

  /**
   * The final section and block ids, once every section and block is known. A section's fragment
   * names the first section that has it; a later one is `<fragment>~<n>`, an id-less section takes the
   * id its extractor asked for or `~s<n>`; none of these made-up ids is one the source uses anywhere
   * (a section's fragment or alternate id, a block's fragment, an id inside a block), so `show URL#id`
   * opens what the source calls `id`, never a section whose id was made up. Block ids are then
   * `<section id>~b<k>` (front matter `~front~b<k>`), k counting the blocks of that id in order. For a
   * document whose ids do not collide these are the provisional ids openSection and addBlock gave.
   */
  settleIds(): void {
    const sourceIds = new Set<string>();
    for (const section of this.sections) {
      if (section.fragment !== null) sourceIds.add(section.fragment);
      for (const id of section.alternateIds ?? []) sourceIds.add(id);
    }
    for (const block of this.blocks) {
      if (block.fragment !== null) sourceIds.add(block.fragment);
      for (const anchor of block.anchors ?? []) sourceIds.add(anchor.id);
    }
    const taken = new Set<string>();
    const finalIds = new Map<string, string>();
    for (const section of this.sections) {
      if (section.fragment !== null && !taken.has(section.fragment)) {
        finalIds.set(section.id, section.fragment);
        taken.add(section.fragment);
      }
    }
    const free = (id: string): boolean => !taken.has(id) && !sourceIds.has(id);
    let anonymous = 0;
    // As nextSuffix: the suffixes below a fragment's last one are taken (`taken` only grows).
    const suffixes = new Map<string, number>();
    for (const section of this.sections) {
      if (finalIds.has(section.id)) continue;
      let id: string;
      if (section.fragment !== null) {
        let n = suffixes.get(section.fragment) ?? 2;
        do id = `${section.fragment}~${n++}`;
        while (!free(id));
        suffixes.set(section.fragment, n);
        this.warn('duplicate-section-id', `Section id "${section.fragment}" occurs more than once; later ones are renamed "${id}".`);
      } else {
        const requested = this.requestedIds.get(section);
        if (requested !== undefined && free(requested)) id = requested;
        else {
          do id = `~s${++anonymous}`;
          while (!free(id));
        }
      }
      finalIds.set(section.id, id);
      taken.add(id);
    }
    for (const section of this.sections) {
      section.id = finalIds.get(section.id)!;
      if (section.parentId !== null) section.parentId = finalIds.get(section.parentId)!;
    }
    const counts = new Map<string, number>();
    for (const block of this.blocks) {
      if (block.sectionId !== null) block.sectionId = finalIds.get(block.sectionId)!;
      const key = block.sectionId ?? '~front';
      const k = (counts.get(key) ?? 0) + 1;
      counts.set(key, k);
      block.id = `${key}~b${k}`;
    }
    const informative = [...this.informativeSections];
    this.informativeSections.clear();
    for (const [id, reason] of informative) this.informativeSections.set(finalIds.get(id) ?? id, reason);
  }

  /** Keeps only the section whose fragment or alternate id is `fragment`, with its subsections and blocks. */
  selectFragment(fragment: string): boolean {
    const root =
      this.sections.find((s) => s.fragment === fragment || s.alternateIds?.includes(fragment)) ??
      this.sections.find((s) => s.derivedIds?.includes(fragment));
    if (!root) return false;
    const keep = new Set<string>([root.id]);
    for (const section of this.sections) if (section.parentId !== null && keep.has(section.parentId)) keep.add(section.id);
    const sections = this.sections.filter((s) => keep.has(s.id));
    root.parentId = null;
    const blocks = this.blocks.filter((b) => b.sectionId !== null && keep.has(b.sectionId));
    this.sections.length = 0;
    appendAll(this.sections, sections);
    this.blocks.length = 0;
    appendAll(this.blocks, blocks);
    return true;
  }

  /** Mean of explicit per-section confidences is not used; callers pass their own document confidence. */
  sortedLimits(): string[] {
    return [...this.limits].sort(compareCodeUnits);
  }
}

/** The apparatus reasons of a table of contents (a family's `toc` or `contents` id, or its heading). */
const CONTENTS_REASONS = new Set([
  'section:toc',
  'section:contents',
  'section:table-of-contents',
  'heading:contents',
  'heading:table of contents',
]);

function isContentsReason(reason: string | null | undefined): boolean {
  return reason != null && CONTENTS_REASONS.has(reason);
}
