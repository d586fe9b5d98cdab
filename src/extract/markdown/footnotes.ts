import type { MarkdownIt, StateBlock, StateInline } from 'markdown-it';

/**
 * GitHub's footnotes, which markdown-it's default preset does not read: a reference `text[^note]` and
 * its definition `[^note]: The note.` (lines after it continue it, up to a blank line or the next
 * definition). Without this a definition was a paragraph starting "[^note]:" (or, one word long, a
 * link reference definition that swallowed it) and a reference a link reading "^note".
 *
 * As on github.com, a reference is a footnote only when its definition exists, references are numbered
 * in the order they first appear (`[1]` in the text), and the definition is cited at `#fn-<label>`.
 */
export interface FootnoteEnv {
  [key: string]: unknown;
  /** The labels defined (lowercased, as labels match regardless of case). */
  footnoteLabels?: Set<string>;
  /** Each referenced label's number, in the order of first reference. */
  footnoteNumbers?: Map<string, number>;
}

export const FOOTNOTE_DEFINITION = 'footnote_definition_open';
export const FOOTNOTE_REFERENCE = 'footnote_reference';

const DEFINITION = /^\[\^([^\]\s]{1,200})\]:[ \t]*/;

export function footnotes(md: MarkdownIt): void {
  md.block.ruler.before('reference', FOOTNOTE_DEFINITION, definition);
  md.inline.ruler.after('image', FOOTNOTE_REFERENCE, reference);
}

function lineAt(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]!);
}

function definition(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const first = lineAt(state, startLine);
  const m = DEFINITION.exec(first);
  if (m === null) return false;
  if (silent) return true;
  const parts = [first.slice(m[0].length)];
  // Lines after it continue it, as a paragraph's do: up to a blank line, the next definition or a line
  // that opens another block (a heading, a list, a fence).
  const terminators = state.md.block.ruler.getRules('paragraph');
  let next = startLine + 1;
  for (; next < endLine && !state.isEmpty(next); next++) {
    if (DEFINITION.test(lineAt(state, next))) break;
    if (state.sCount[next]! - state.blkIndent < 4 && terminators.some((rule) => rule(state, next, endLine, true))) break;
    parts.push(lineAt(state, next));
  }
  const env = state.env as FootnoteEnv;
  const label = m[1]!.toLowerCase();
  env.footnoteLabels ??= new Set();
  env.footnoteLabels.add(label);
  const open = state.push(FOOTNOTE_DEFINITION, '', 1);
  open.meta = { label, id: `fn-${m[1]!}` };
  open.map = [startLine, next];
  // Its text is read as inline Markdown by the core rule, as a paragraph's is.
  const inline = state.push('inline', '', 0);
  inline.content = parts.join('\n').trim();
  inline.map = [startLine, next];
  inline.children = [];
  state.push('footnote_definition_close', '', -1);
  state.line = next;
  return true;
}

function reference(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x5b /* [ */ || src.charCodeAt(pos + 1) !== 0x5e /* ^ */) return false;
  const m = /^\[\^([^\]\s]{1,200})\]/.exec(src.slice(pos, pos + 204));
  const env = state.env as FootnoteEnv;
  const label = m?.[1]?.toLowerCase();
  if (m === null || label === undefined || env.footnoteLabels?.has(label) !== true) return false;
  if (!silent) {
    env.footnoteNumbers ??= new Map();
    const numbers = env.footnoteNumbers;
    if (!numbers.has(label)) numbers.set(label, numbers.size + 1);
    state.push(FOOTNOTE_REFERENCE, '', 0).meta = { label };
  }
  state.pos += m[0].length;
  return true;
}
