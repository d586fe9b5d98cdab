import type { MarkdownIt, StateBlock } from 'markdown-it';

/**
 * The markup lines of the Markdown dialects Internet-Drafts are written in, read as markup rather than
 * text: a markdown-it block rule, so fenced code keeps them as written, and a line glued under a
 * paragraph or a table row (`{: #tab-x title="..."}`) ends it instead of joining its text.
 *
 * - kramdown (kramdown-rfc, Jekyll): attribute and extension lines, `{: .note}`, `{:numbered="false"}`,
 *   `{::boilerplate bcp14-tagged}`; a `{::comment}` or `{::nomarkdown}` block up to its `{:/...}` is
 *   never text.
 * - mmark (its documents have `%%%` front matter): block attributes (`{#fig-x align="left"}`), the
 *   matter markers (`{mainmatter}`), and its special sections `.# Abstract`, read as level-1 headings.
 * - Hugo (the Markdown sources of Hugo sites): a line of shortcode tags alone (`{{< example >}}`,
 *   `{{< /callout >}}`, `{{% js-dismiss "alert" %}}`) is template markup; the text between a pair of
 *   them stays. A shortcode inside a line of text stays as written.
 *
 * An attribute line's `#id` names the heading it is written under or above (`dialectId`).
 */
export interface DialectEnv {
  [key: string]: unknown;
  mmark?: boolean;
}

/** The token a markup line becomes: no text, its line kept for the heading it may name. */
export const DIALECT_MARKUP = 'dialect_markup';

const KRAMDOWN_LINE = /^\{:.*\}$/;
const KRAMDOWN_BLOCK = /^\{::(comment|nomarkdown)\b[^}]*\}$/;
const ATTRIBUTE = String.raw`(?:[#.][^\s{}]+|[A-Za-z_][\w-]*=(?:"[^"]*"|'[^']*'|[^\s{}"']+))`;
const MMARK_LINE = new RegExp(String.raw`^\{(?:frontmatter|mainmatter|backmatter|${ATTRIBUTE}(?:\s+${ATTRIBUTE})*)\}$`);
const MMARK_SPECIAL_HEADING = /^\.#\s+(\S.*?)\s*$/;

export function dialectMarkup(md: MarkdownIt): void {
  md.block.ruler.before('table', DIALECT_MARKUP, rule, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
}

function lineAt(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]!).trimEnd();
}

function rule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const text = lineAt(state, startLine);
  if (text.charCodeAt(0) !== 0x7b /* { */ && text.charCodeAt(0) !== 0x2e /* . */) return false;
  const mmark = (state.env as DialectEnv).mmark === true;
  const special = mmark ? MMARK_SPECIAL_HEADING.exec(text) : null;
  if (special !== null) {
    if (silent) return true;
    const open = state.push('heading_open', 'h1', 1);
    open.markup = '.#';
    open.map = [startLine, startLine + 1];
    const inline = state.push('inline', '', 0);
    inline.content = special[1]!;
    inline.map = [startLine, startLine + 1];
    inline.children = [];
    state.push('heading_close', 'h1', -1).markup = '.#';
    state.line = startLine + 1;
    return true;
  }
  if (isShortcodeLine(text)) {
    if (silent) return true;
    // No content: a shortcode's arguments name no heading (dialectId) and no part marker.
    state.push(DIALECT_MARKUP, '', 0).map = [startLine, startLine + 1];
    state.line = startLine + 1;
    return true;
  }
  if (!KRAMDOWN_LINE.test(text) && !(mmark && MMARK_LINE.test(text))) return false;
  if (silent) return true;
  let next = startLine + 1;
  // A comment or raw-output block runs to its closing `{:/}` (or `{:/comment}`), the end if none.
  if (KRAMDOWN_BLOCK.test(text)) {
    while (next < endLine && !lineAt(state, next).includes('{:/')) next++;
    next = Math.min(next + 1, endLine);
  }
  const token = state.push(DIALECT_MARKUP, '', 0);
  token.content = text;
  token.map = [startLine, next];
  state.line = next;
  return true;
}

/**
 * Whether a line holds Hugo shortcode tags alone: `{{< name args >}}`, `{{< /name >}}`, `{{% name %}}`, `{{%
 * /name %}}`, with spaces between them. One scan, each tag's end found once: linear in the line.
 */
export function isShortcodeLine(text: string): boolean {
  let i = 0;
  let tags = 0;
  for (;;) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    if (i === text.length) return tags > 0;
    if (!text.startsWith('{{', i) || (text[i + 2] !== '<' && text[i + 2] !== '%')) return false;
    const close = text[i + 2] === '<' ? '>}}' : '%}}';
    let name = i + 3;
    while (text[name] === ' ' || text[name] === '/') name++;
    if (!/[\w-]/.test(text[name] ?? '')) return false;
    const end = text.indexOf(close, name);
    if (end === -1) return false;
    i = end + 3;
    tags++;
  }
}

/** The `#id` an attribute line gives (`{: #intro}`, `{#fig-x align="left"}`), or null. */
export function dialectId(markup: string): string | null {
  return /(?:^\{:?\s*|\s)#([^\s{}"'#.]+)/.exec(markup)?.[1] ?? null;
}
