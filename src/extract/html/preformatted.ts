import { type Element, isTag, isText } from 'domhandler';
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

/**
 * The language a block's classes name: its own `lang-*` / `language-*`, else those of the one `<code>`
 * it wraps (`<pre><code class="language-rust">`, as CommonMark renderers, highlight.js, mdBook and
 * Hugo write it), else the `highlight-*` class of the wrapper Pygments output sits in (Sphinx's
 * `<div class="highlight-python3"><div class="highlight"><pre>`; GitHub's `highlight-source-js`), a
 * project's unnamed default (`highlight-default`, `highlight-none`) aside. Pandoc's `sourceCode` blocks
 * name it as a bare class (`<pre class="sourceCode sh">`).
 */
function languageOf(el: Element): string | undefined {
  const own = classLanguage(el);
  if (own !== undefined) return own;
  // mdBook writes <pre><pre class="playground"><code class="language-rust">: look through the wrappers.
  let inner = onlyChildElement(el);
  for (let depth = 0; depth < 3 && inner !== undefined && (inner.name === 'code' || inner.name === 'pre'); depth++) {
    const fromInner = classLanguage(inner);
    if (fromInner !== undefined) return fromInner;
    inner = onlyChildElement(inner);
  }
  let wrapper = el.parent;
  for (let up = 0; up < 2 && wrapper !== null && isTag(wrapper); up++, wrapper = wrapper.parent) {
    for (const c of classesOf(wrapper)) {
      if (!c.startsWith('highlight-')) continue;
      const language = c.slice(10).replace(/^source-/, '');
      if (language !== '' && language !== 'default' && language !== 'none') return language;
    }
  }
  return undefined;
}

function classLanguage(el: Element): string | undefined {
  const classes = classesOf(el);
  for (const c of classes) {
    if (c.startsWith('lang-') && c.length > 5) return c.slice(5);
    if (c.startsWith('language-') && c.length > 9) return c.slice(9);
  }
  // Pandoc's highlighter names the language as a bare class beside its own: <pre class="sourceCode sh">
  // (the fenced block's info string; the <code> inside names the syntax it used, "sourceCode bash").
  if (classes.includes('sourceCode')) return classes.find((c) => !PANDOC_CODE_CLASSES.has(c));
  return undefined;
}

/** The classes pandoc writes on a highlighted block besides its language. */
const PANDOC_CODE_CLASSES: ReadonlySet<string> = new Set(['sourceCode', 'numberSource', 'numberLines']);

/** The one element child of `el`, when its other children are white space only. */
function onlyChildElement(el: Element): Element | undefined {
  let only: Element | undefined;
  for (const c of el.children) {
    if (isTag(c)) {
      if (only !== undefined) return undefined;
      only = c;
    } else if (isText(c) && c.data.trim() !== '') {
      return undefined;
    }
  }
  return only;
}
