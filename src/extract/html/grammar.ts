import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import type { KeywordSpan } from '../bcp14.js';
import type { Link } from '../document-builder.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { extractPreformatted } from './preformatted.js';
import type { HtmlWalk, WalkContext } from './walk.js';

/**
 * Grammar blocks. Preformatted grammars (`pre.abnf`, `pre.grammar`) keep their text verbatim. An
 * ecmarkup grammar (`<emu-grammar>` holding rendered `<emu-production>`s) is laid out as the
 * specification shows it: each production's left-hand side and `:` / `::` on one line, then each
 * right-hand side (`<emu-rhs>`) on its own indented line, its symbols separated by single spaces; the
 * source's indentation between elements never leaks into the text.
 */
export function extractGrammar(walk: HtmlWalk, el: Element, ctx: WalkContext): void {
  const productions = productionsOf(el);
  if (productions.length === 0) {
    extractPreformatted(walk, 'grammar', el, ctx);
    return;
  }
  const sink = new TextSink();
  const links: Link[] = [];
  const keywords: KeywordSpan[] = [];
  for (const production of productions) {
    const lhs: string[] = [];
    const rhs: Element[] = [];
    for (const c of production.children) {
      if (isTag(c) && c.name === 'emu-rhs') rhs.push(c);
      else if (isTag(c) || isText(c)) lhs.push(symbolText(c));
    }
    sink.lineBreak(1);
    sink.literal(normalizeSpace(lhs.join(' ')));
    for (const r of rhs) {
      sink.lineBreak(1);
      sink.literal('  ' + normalizeSpace(r.children.map(symbolText).join(' ')));
    }
    collectLinks(walk, production, links);
  }
  const text = sink.toString();
  if (text === '') return;
  walk.addBlock('grammar', text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex }, el);
}

function productionsOf(el: Element): Element[] {
  if (el.name === 'emu-production') return [el];
  const found: Element[] = [];
  const visit = (node: Element): void => {
    for (const c of node.children) {
      if (!isTag(c)) continue;
      if (c.name === 'emu-production') found.push(c);
      else visit(c);
    }
  };
  visit(el);
  return found;
}

/** One grammar symbol as the specification shows it (`<emu-opt>` renders as the subscript "opt"). */
function symbolText(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node)) return '';
  if (node.name === 'emu-opt') return '_opt';
  return node.children.map(symbolText).join('');
}

/** Links in the grammar (nonterminals link to their productions), through the walk's own resolver. */
function collectLinks(walk: HtmlWalk, production: Element, links: Link[]): void {
  const scratch = new TextSink();
  walk.flow(production, scratch, [], links, true);
}
