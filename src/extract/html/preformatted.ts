import type { Element } from 'domhandler';
import type { KeywordSpan } from '../bcp14.js';
import type { BlockKind, Link } from '../document-builder.js';
import { TextSink } from '../text-sink.js';
import { classesOf } from './compiled-rules.js';
import { dropLeadingNewline } from './flow.js';
import type { HtmlWalk, WalkContext } from './walk.js';

/** Code, IDL and grammar: text kept verbatim (whitespace and line breaks), language from lang-* classes. */
export function extractPreformatted(walk: HtmlWalk, kind: BlockKind, el: Element, ctx: WalkContext): void {
  const sink = new TextSink();
  const keywords: KeywordSpan[] = [];
  const links: Link[] = [];
  const children = el.name === 'pre' ? dropLeadingNewline(el.children) : el.children;
  for (const c of children) walk.flow(c, sink, keywords, links, true);
  const text = sink.toString();
  if (text === '') return;
  walk.addBlock(kind, text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, language: languageOf(el) }, el);
}

function languageOf(el: Element): string | undefined {
  for (const c of classesOf(el)) {
    if (c.startsWith('lang-')) return c.slice(5);
    if (c.startsWith('language-')) return c.slice(9);
  }
  return undefined;
}
