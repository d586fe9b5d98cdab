import { type AnyNode, type Element, isTag, isText } from 'domhandler';

/**
 * Superscripts and subscripts as text, the same in every extractor (HTML `<sup>`/`<sub>`, RFC XML v3
 * `<sup>`/`<sub>`): a superscript is `^` and its content, a subscript `_` and its content, the
 * content in parentheses unless it is one run of letters and digits: `2^53`, `x_i`, `2^(n+1)`,
 * `x_(i+1)`. Concatenated, `2<sup>53</sup>` would read "253", another number; written this way the
 * index sees the tokens "2" and "53" (the tokenizer splits at `^`), so the query `"2^53"` finds it as a
 * phrase and "253" does not.
 *
 * A footnote or reference marker (`<sup><a href="#fn1">1</a></sup>`, `<sup>[<a href="#r3">3</a>]</sup>`:
 * all its text inside links, brackets and separators aside) keeps the form it had: its text as it
 * reads, with its link.
 */

const ONE_RUN = /^[\p{L}\p{N}]+$/u;

/** Scripts nested deeper flow as plain text, so no content is copied more than this many times. */
export const MAX_SCRIPT_NESTING = 4;

export type ScriptKind = 'sup' | 'sub';

/** The text form of a superscript or subscript whose content reads `content` (empty stays empty). */
export function scriptText(kind: ScriptKind, content: string): string {
  const inner = content.trim();
  if (inner === '') return '';
  const mark = kind === 'sup' ? '^' : '_';
  return ONE_RUN.test(inner) ? `${mark}${inner}` : `${mark}(${inner})`;
}

/** What a note marker may hold outside its links: brackets, separators and spaces. */
const MARKER_PUNCTUATION = /^[\s[\](),;]*$/;

/**
 * True when the `<sup>`/`<sub>` `el` is a note or reference marker: it holds a link (`isLink`), and its
 * text outside links is only brackets and separators. Iterative, and stops at the first other text.
 */
export function isNoteMarker(el: Element, isRendered: (e: Element) => boolean, isLink: (e: Element) => boolean): boolean {
  let links = 0;
  const stack: AnyNode[] = el.children.slice().reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) {
      if (!MARKER_PUNCTUATION.test(node.data)) return false;
      continue;
    }
    if (!isTag(node) || !isRendered(node)) continue;
    if (isLink(node)) {
      links++;
      continue;
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return links > 0;
}
