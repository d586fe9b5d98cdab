/**
 * Renders the build graph with each target's state, as Graphviz DOT, Mermaid or JSON. Pure functions
 * of the view: the same graph and states give the same bytes (targets in the graph's topological order,
 * edges dependency -> dependent, no timestamps or absolute paths).
 */
export type TargetState = 'up-to-date' | 'dirty' | 'maybe-dirty' | 'failed' | 'skipped';

export interface ViewTarget {
  target: string;
  rule: string;
  /** Direct dependencies, in the graph's order. */
  deps: string[];
  state: TargetState;
  /** Why it is dirty (explain's wording); empty when up to date. */
  reasons: string[];
  /** For a failed or skipped target: the last build's error. */
  error?: { code: string; message: string };
}

export interface GraphView {
  targets: ViewTarget[];
}

export type GraphFormat = 'dot' | 'mermaid' | 'json';

const STATE_COLOURS: Record<TargetState, { fill: string; line: string }> = {
  'up-to-date': { fill: '#d1fae5', line: '#047857' },
  dirty: { fill: '#fef3c7', line: '#b45309' },
  'maybe-dirty': { fill: '#fefce8', line: '#a16207' },
  failed: { fill: '#fee2e2', line: '#b91c1c' },
  skipped: { fill: '#f3f4f6', line: '#6b7280' },
};

export function renderGraph(view: GraphView, format: GraphFormat): string {
  switch (format) {
    case 'dot':
      return renderDot(view);
    case 'mermaid':
      return renderMermaid(view);
    case 'json':
      return JSON.stringify(graphJson(view), null, 2) + '\n';
    default:
      return unreachable(format);
  }
}

/** The JSON form: targets with their state, and the edges as [dependency, dependent] pairs. */
export function graphJson(view: GraphView): { targets: ViewTarget[]; edges: [string, string][] } {
  return { targets: view.targets, edges: edges(view) };
}

function edges(view: GraphView): [string, string][] {
  return view.targets.flatMap((t) => t.deps.map((dep) => [dep, t.target] as [string, string]));
}

/** One detail line: the state, then why (or the error). */
function stateText(t: ViewTarget): string {
  if (t.error) return `${t.state}: ${t.error.code}: ${t.error.message}`;
  return t.reasons.length === 0 ? t.state : `${t.state}: ${t.reasons.join('; ')}`;
}

export function renderDot(view: GraphView): string {
  const lines = ['digraph episteme {', '  rankdir=LR;', '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];'];
  for (const t of view.targets) {
    const colour = STATE_COLOURS[t.state];
    const label = `${t.target}\n${t.rule} · ${t.state}`;
    lines.push(
      `  ${dotString(t.target)} [label=${dotString(label)}, tooltip=${dotString(stateText(t))}, ` +
        `fillcolor=${dotString(colour.fill)}, color=${dotString(colour.line)}];`,
    );
  }
  for (const [from, to] of edges(view)) lines.push(`  ${dotString(from)} -> ${dotString(to)};`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

/** A DOT quoted string: backslash and quote escaped, line breaks as DOT's \n, no raw control characters. */
function dotString(text: string): string {
  return `"${text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r\n|\r|\n/g, '\\n')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
    .replace(/[\u0000-\u001f\u007f]/g, ' ')}"`;
}

export function renderMermaid(view: GraphView): string {
  const ids = new Map(view.targets.map((t, i) => [t.target, `t${i}`]));
  const lines = ['flowchart LR'];
  for (const t of view.targets)
    lines.push(`  ${ids.get(t.target)!}["${mermaidText(t.target)}<br/>${mermaidText(`${t.rule} · ${t.state}`)}"]:::${cssName(t.state)}`);
  for (const [from, to] of edges(view)) lines.push(`  ${ids.get(from)!} --> ${ids.get(to)!}`);
  for (const state of Object.keys(STATE_COLOURS) as TargetState[]) {
    const colour = STATE_COLOURS[state];
    lines.push(`  classDef ${cssName(state)} fill:${colour.fill},stroke:${colour.line}`);
  }
  return lines.join('\n') + '\n';
}

/** Text inside a quoted Mermaid label: entity codes for the characters Mermaid would read as syntax. */
function mermaidText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return text.replace(/[&"<>#;[\]{}|`]/g, (c) => `#${c.codePointAt(0)};`).replace(/[\u0000-\u001f\u007f]/g, ' ');
}

function cssName(state: TargetState): string {
  return state.replace(/-/g, '_');
}

function unreachable(value: never): never {
  throw new Error(`unreachable graph format ${String(value)}`);
}
