import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { textOf } from '../dom-nodes.js';
import type { KeywordSpan } from '../bcp14.js';
import type { AlgorithmStep, Link } from '../document-builder.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import { MAX_OUTLINE_DEPTH } from '../input-bounds.js';
import { ecmarkdownSteps } from './ecmarkdown.js';
import { SKIP_TAGS } from './tags.js';
import { isGeneratedId } from '../../document/generated-ids.js';
import type { HtmlWalk, WalkContext } from './walk.js';

/**
 * Algorithms: ecmarkup `<emu-alg>`, Bikeshed `<div class="algorithm">` (a family's algorithm
 * selectors), and an `<ol>` introduced by a paragraph ending like "... run these steps:" (a family's
 * algorithmIntroductions). One `algorithm` block each, with its steps nested as in the source.
 *
 * Each step has a path ("3.2.1": its position in each enclosing list, counted from 1 or the list's
 * `start`), its own text (without its substeps), the source's id when the `<li>` (or its first
 * paragraph) has one, its variables (`<var>`) and its links. The block text writes each step on its
 * own line as "<path>. <text>", indented by depth, so a reader (and the index) sees "3.2.1." and the
 * chunker can cite the steps a chunk covers.
 */
export function extractAlgorithm(walk: HtmlWalk, el: Element, ctx: WalkContext, definedBy?: string): void {
  const sink = new TextSink();
  const keywords: KeywordSpan[] = [];
  const links: Link[] = [];
  const pending: { step: AlgorithmStep; start: number; end: number }[] = [];
  const writer = { walk, sink, keywords, links, pending };
  let steps: AlgorithmStep[];
  if (isStepList(el)) {
    steps = writeSteps(writer, el, '');
  } else {
    steps = [];
    // An <emu-alg> holding ecmarkdown source is read as the step tree ecmarkup renders it to.
    writeIntroAndSteps(
      writer,
      (el.name === 'emu-alg' ? ecmarkdownSteps(el, () => walk.builder.warnOnce('list-depth-capped', LIST_DEPTH_CAPPED)) : null) ?? el,
      steps,
    );
  }
  const text = sink.toString();
  if (text === '') return;
  for (const { step, start, end } of pending) step.text = text.slice(start, Math.min(end, text.length)).trim();
  // A marked algorithm of one sentence (Bikeshed's div.algorithm around a <p>) has no steps to list.
  walk.addBlock(
    'algorithm',
    text,
    ctx,
    { keywords, links, start: el.startIndex, end: el.endIndex, steps: steps.length > 0 ? steps : undefined, definedBy },
    el,
  );
}

/**
 * The paragraph right before a list, and its text (lower case, spaces collapsed), or null. It leads
 * into the list when its text ends with a colon ("To <dfn>x</dfn>, run these steps:", "execute the
 * following <dfn>rules for ...</dfn>:"; leadsInto), or with a family's algorithmIntroductions
 * (introducesSteps), which need not end with one: a workspace family may say "as follows.".
 */
export function leadParagraph(walk: HtmlWalk, list: Element): { paragraph: Element; text: string } | null {
  let prev = list.prev;
  while (prev !== null && isText(prev) && prev.data.trim() === '') prev = prev.prev;
  if (prev === null || !isTag(prev) || prev.name !== 'p' || walk.rules.prune(prev)) return null;
  const paragraph = prev;
  // Read only when asked (introducesSteps, leadsInto): most lists need neither.
  let text: string | undefined;
  return {
    paragraph,
    get text(): string {
      text ??= normalizeSpace(textOf(paragraph)).toLowerCase();
      return text;
    },
  };
}

/** Whether a lead paragraph leads into the list after it: its text ends with a colon. */
export function leadsInto(lead: { text: string }): boolean {
  return lead.text.endsWith(':');
}

/** Whether a lead paragraph introduces steps ("The X algorithm steps are:"): a family's algorithmIntroductions. */
export function introducesSteps(lead: { text: string }, introductions: readonly string[]): boolean {
  return introductions.some((ending) => lead.text.endsWith(ending));
}

/**
 * The id of the definition a lead paragraph makes: its first `<dfn>` with an id of the source's own
 * (not a generated back-reference). The list after it is that definition (its steps, its rules): a
 * match in it cites the definition, as a reader looking up "forgiving-base64 decode" opens
 * `#forgiving-base64-decode`, not the section that also holds the encoder.
 */
export function definitionIdOf(paragraph: Element): string | undefined {
  const stack: AnyNode[] = [...paragraph.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    const id = node.attribs['id'];
    if (node.name === 'dfn' && id !== undefined && id !== '' && !isGeneratedId(id)) return id;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return undefined;
}

export const LIST_DEPTH_CAPPED = `Lists nested deeper than ${MAX_OUTLINE_DEPTH} levels are kept in the text of the deepest item.`;

interface StepWriter {
  walk: HtmlWalk;
  sink: TextSink;
  keywords: KeywordSpan[];
  links: Link[];
  /** Steps whose text is cut from the block text once it is complete. */
  pending: { step: AlgorithmStep; start: number; end: number }[];
}

function isStepList(el: Element): boolean {
  return el.name === 'ol' || el.name === 'ul';
}

/** A container algorithm: its prose is written as it comes, its outermost lists become the steps. */
function writeIntroAndSteps(w: StepWriter, el: Element, steps: AlgorithmStep[]): void {
  for (const c of el.children) {
    if (isTag(c)) {
      if (SKIP_TAGS.has(c.name) || w.walk.rules.prune(c)) continue;
      if (isStepList(c)) {
        // Steps continue their numbering across lists of one algorithm only when the source says so (start=).
        // One by one: a list may hold more steps than a call takes arguments.
        for (const step of writeSteps(w, c, '')) steps.push(step);
        continue;
      }
      if (containsStepList(c)) {
        w.sink.lineBreak(1);
        writeIntroAndSteps(w, c, steps);
        w.sink.lineBreak(1);
        continue;
      }
    }
    w.walk.flow(c, w.sink, w.keywords, w.links, false);
  }
}

function containsStepList(el: Element): boolean {
  for (const c of el.children) if (isTag(c) && (isStepList(c) || containsStepList(c))) return true;
  return false;
}

function writeSteps(w: StepWriter, list: Element, parentPath: string): AlgorithmStep[] {
  const steps: AlgorithmStep[] = [];
  const startAttr = Number.parseInt(list.attribs['start'] ?? '', 10);
  let n = Number.isFinite(startAttr) && list.name === 'ol' ? startAttr : 1;
  const depth = parentPath === '' ? 0 : parentPath.split('.').length;
  for (const li of list.children) {
    if (!isTag(li) || li.name !== 'li' || w.walk.rules.prune(li)) continue;
    const path = parentPath === '' ? String(n) : `${parentPath}.${n}`;
    n++;
    w.sink.marker(`${'  '.repeat(depth)}${path}. `);
    // Past the outline depth, nested lists stay in the step's text (as list lines) instead of
    // becoming substeps whose paths and indentation grow with every level.
    const deepest = depth + 1 >= MAX_OUTLINE_DEPTH;
    const start = w.sink.length;
    const stepLinks: Link[] = [];
    const variables: string[] = [];
    // Beside the list, so that telling a new name costs the same however many the step has.
    const seenVariables = new Set<string>();
    const nested: Element[] = [];
    for (const c of li.children) {
      if (isTag(c) && isStepList(c) && !deepest) {
        nested.push(c);
        continue;
      }
      if (isTag(c) && isStepList(c)) w.walk.builder.warnOnce('list-depth-capped', LIST_DEPTH_CAPPED);
      w.walk.flow(c, w.sink, w.keywords, stepLinks, false);
      collectVariables(w.walk, c, variables, seenVariables);
    }
    // Members in code-unit order (id, links, path, steps, text, variables), so that canonicalJson
    // serialises the document without copying it; the text is filled in when the block's is known.
    const step = {} as AlgorithmStep;
    w.pending.push({ step, start, end: w.sink.length });
    const id = stepId(li);
    if (id !== undefined) step.id = id;
    if (stepLinks.length > 0) {
      step.links = stepLinks;
      for (const link of stepLinks) w.links.push(link);
    }
    step.path = path;
    const substeps: AlgorithmStep[] = [];
    for (const list of nested) for (const sub of writeSteps(w, list, path)) substeps.push(sub);
    if (substeps.length > 0) step.steps = substeps;
    step.text = '';
    if (variables.length > 0) step.variables = variables;
    steps.push(step);
  }
  return steps;
}

/** The step's id in the source: the `<li>`'s, else its first element child's when that is a paragraph. */
function stepId(li: Element): string | undefined {
  const own = li.attribs['id'];
  if (own !== undefined && own !== '') return own;
  for (const c of li.children) {
    if (isText(c) && c.data.trim() === '') continue;
    if (isTag(c) && c.name === 'p') {
      const id = c.attribs['id'];
      if (id !== undefined && id !== '') return id;
    }
    break;
  }
  return undefined;
}

/** Distinct `<var>` names in the step's own content, in order of first use. */
function collectVariables(walk: HtmlWalk, node: AnyNode, into: string[], seen: Set<string>): void {
  if (!isTag(node) || SKIP_TAGS.has(node.name) || walk.rules.prune(node)) return;
  if (node.name === 'var') {
    const name = normalizeSpace(textOf(node));
    if (name !== '' && !seen.has(name)) {
      seen.add(name);
      into.push(name);
    }
    return;
  }
  if (isStepList(node)) return;
  for (const c of node.children) collectVariables(walk, c, into, seen);
}
