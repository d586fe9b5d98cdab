import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { textContent } from 'domutils';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { SKIP_TAGS } from './tags.js';
import { declaredSectionNormativity } from './normativity.js';
import type { HtmlWalk, WalkContext } from './walk.js';
import { headingAnchorIds } from './anchors.js';
import { respecHeadingLevel } from './respec-source.js';
import { fragmentOf, isPermalinkGlyph } from './permalinks.js';
import { isGeneratedId } from '../../document/generated-ids.js';

/**
 * A printed number: `2`, `2.1.`, `A.1`, `A.`, `Appendix A`, `Chapter 8.`, with the dash that may part it from the title
 * (the Lua 5.2 manual's `2.1 &ndash; Values and Types`, 5.1's `2.1 - Lexical Conventions`); groups: the
 * Appendix/Annex/Chapter word, the number, its dot.
 */
const SECTION_NUMBER_PREFIX = /^(?:(Appendix|Annex|Chapter)\s+)?((?:\d+|[A-Z])(?:\.\d+)*)(\.?)(?=\s)\s*(?:[-–—]\s+)?/;

/**
 * A heading opens a section: its number (a section-number element or a printed prefix or
 * data-level), its text without self-links or permalink glyphs, and its id: the pending
 * `<section id>` (the heading's own id then an alternate), else its own, else the one its self-link
 * names inside it (the others alternates), else that of the enclosing element its permalink names
 * (enclosingSelfLinkId), else that of an empty anchor just before it (`leadingIds`, the others
 * alternates); at its tag's level or, where the family says so, its section nesting depth. The
 * section's own markup may declare it informative or normative (normativity.ts).
 * `signatureName`: an API entry's signature, headed by the name it declares (true), or by the name given.
 * Returns the heading text, or null when nothing was opened.
 */
export function openHeadingSection(
  walk: HtmlWalk,
  el: Element,
  level: number,
  ctx: WalkContext,
  leadingIds: readonly string[] = [],
  signatureName: boolean | string = false,
): string | null {
  const rules = walk.rules;
  const sink = new TextSink();
  let number: string | null = null;
  const visit = (node: AnyNode): void => {
    if (isTag(node)) {
      if (SKIP_TAGS.has(node.name)) return;
      if (rules.sectionNumber(node)) {
        number ??=
          normalizeSpace(textContent(node))
            .replace(/^(?:Appendix|Annex|Chapter)\s+/, '')
            .replace(/\.$/, '') || null;
        return;
      }
      if (rules.headingStrip(node) || rules.prune(node) || isPermalinkGlyph(node, true)) return;
      if (node.name === 'br') sink.space();
      for (const c of node.children) visit(c);
    } else if (isText(node)) {
      sink.text(node.data);
    }
  };
  for (const c of el.children) visit(c);
  let text = normalizeSpace(sink.toString());
  if (number === null) {
    const m = SECTION_NUMBER_PREFIX.exec(text);
    if (m?.[2] !== undefined && m[0].length < text.length && !isWordLetter(m)) {
      number = m[2];
      text = text.slice(m[0].length);
    }
  }
  // An API entry's heading is the name its signature declares, not the parameter list after it.
  // A name given (the text of the element that bears an entry's id) is the heading as it stands.
  if (typeof signatureName === 'string') text = signatureName;
  else if (signatureName) text = nameOfSignature(text);
  if (number === null) {
    const dataLevel = el.attribs['data-level'];
    if (dataLevel !== undefined && dataLevel !== '') number = dataLevel;
  }
  // Without its own id, a heading is named by its self-linking anchor (anchors.ts). The other ids
  // inside it open it as well and are alternate ids, beside its own id too (Apache's manual:
  // `<h2 id="rewritebase"><span id="RewriteBase">`; Bikeshed keeps a renamed section's old ids as
  // empty spans in its heading), but not the back-references a generator numbers (`ref-for-x①`).
  const anchorIds = headingAnchorIds(el);
  const ownId = el.attribs['id'] ?? anchorIds[0] ?? enclosingSelfLinkId(el) ?? leadingIds[0];
  let fragment: string | null = ownId ?? null;
  const alternateIds: string[] = anchorIds.filter((id) => id !== ownId && !isGeneratedId(id));
  // Anchors written just before the heading with no text of their own (`<a name="Node"></a><h2>`,
  // Texinfo's node and section anchors, texi2html's `<a name="SEC12">`) name it too.
  // A set, not includes(): a hostile page can put tens of thousands of anchors before one heading.
  const named = new Set(alternateIds);
  for (const id of leadingIds) {
    if (id === ownId || named.has(id)) continue;
    named.add(id);
    alternateIds.push(id);
  }
  const pending = ctx.pendingSection;
  if (pending && !pending.taken) {
    pending.taken = true;
    fragment = pending.id;
    if (ownId !== undefined && ownId !== pending.id) alternateIds.push(ownId);
  }
  if (text === '' && fragment === null) return null;
  walk.builder.openSection({
    fragment,
    alternateIds: alternateIds.filter((id) => id !== fragment),
    heading: text,
    level: sectionLevel(walk, el, level, ctx),
    number,
    span: { end: el.endIndex === null ? (el.startIndex ?? 0) : el.endIndex + 1, start: el.startIndex ?? 0, unit: 'utf16-source' },
  });
  const declared = declaredSectionNormativity(rules, el);
  if (declared?.normativity === 'informative') walk.builder.markCurrentSectionInformative(declared.reason);
  else if (declared?.normativity === 'normative') walk.builder.markCurrentSectionNormative();
  return text;
}

/**
 * The name a signature declares: its text before the parameter list (`json.dump(obj, fp, *, ...)` is
 * `json.dump`, `Pattern.match(string[, pos[, endpos]])` is `Pattern.match`, `chomp!(sep)` is `chomp!`); a term without one
 * (`re.DOTALL`, `class asyncio.TaskGroup`) is all name.
 */
export function nameOfSignature(text: string): string {
  // A name may end in Ruby's `!` or `?` (`capitalize!(*options)`, `casecmp?(other)`).
  const open = /([\p{L}\p{N}_][!?]?)\s*\(/u.exec(text);
  return open === null ? text : text.slice(0, open.index + open[1]!.length).trim();
}

/**
 * A lone capital letter printed with neither a dot nor "Appendix" before it is a word, not an appendix
 * number: "A simple example" (Python's Logging HOWTO), "I Want It". `A.`, `A.1` and `Appendix A` stay
 * numbers; digits need no dot ("2 Terminology").
 */
function isWordLetter(m: RegExpExecArray): boolean {
  return m[1] === undefined && m[3] === '' && /^[A-Z]$/.test(m[2]!);
}

/** The outline level of a heading whose tag says `level`. */
function sectionLevel(walk: HtmlWalk, el: Element, level: number, ctx: WalkContext): number {
  // Nesting: an <h1> opens its clause's level, an <h2> inside it ("Syntax") the level below.
  if (walk.rules.sectionLevelFromNesting && ctx.sectionDepth > 0) return ctx.sectionDepth + level - 1;
  // A ReSpec source: a section's first heading is as deep as the section, whatever its tag.
  if (walk.respecSource) return respecHeadingLevel(el) ?? level;
  return level;
}

/**
 * The id of an element around the heading that a link inside the heading names (`href="#x"`): the
 * heading's permalink. rustdoc writes `<div id="tymethod.next"><h4>fn <a href="#tymethod.next">next</a>`,
 * Sphinx before docutils 0.17 `<div class="section" id="x"><h2>Title<a class="headerlink" href="#x">¶</a>`,
 * Haddock `<a href="#g:1" id="g:1"><h1>`: the heading has no id, and the reader opens the wrapper's.
 */
function enclosingSelfLinkId(heading: Element): string | undefined {
  const targets = new Set<string>();
  const visit = (node: Element): void => {
    for (const c of node.children) {
      if (!isTag(c)) continue;
      const href = c.name === 'a' ? c.attribs['href'] : undefined;
      if (href !== undefined && href.length > 1 && href.startsWith('#')) targets.add(fragmentOf(href));
      visit(c);
    }
  };
  visit(heading);
  // A link around the heading that names the place it stands is its permalink too: Haddock writes
  // `<a href="#g:1" id="g:1"><h1>Getting started</h1></a>`.
  for (let p = heading.parent; p !== null && isTag(p); p = p.parent) {
    const href = p.name === 'a' ? p.attribs['href'] : undefined;
    if (href !== undefined && href.length > 1 && href.startsWith('#')) targets.add(fragmentOf(href));
  }
  if (targets.size === 0) return undefined;
  for (let p = heading.parent; p !== null && isTag(p); p = p.parent) {
    const id = p.attribs['id'];
    if (id !== undefined && targets.has(id)) return id;
  }
  return undefined;
}

/**
 * Whether anything read follows `child` among its parent's children (an element the family does not
 * prune, or text): a section element holding its section's content, not only its heading (rustdoc
 * wraps each method's signature heading alone in section#method.x, its docs follow outside).
 */
export function holdsContentAfter(walk: HtmlWalk, child: Element): boolean {
  for (let next = child.next; next !== null; next = next.next) {
    if (isText(next) && next.data.trim() !== '') return true;
    if (isTag(next) && !SKIP_TAGS.has(next.name) && !walk.rules.prune(next)) return true;
  }
  return false;
}
