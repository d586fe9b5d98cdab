import { Command, Option } from 'clipanion';
import { planBuild } from '../graph/plan.js';
import { describeReason } from '../graph/key.js';
import { buildGraph } from '../graph/graph.js';
import { readFailures } from '../graph-view/failures.js';
import { graphJson, renderGraph, type GraphFormat, type TargetState, type ViewTarget } from '../graph-view/render.js';
import type { CommandResult } from './base-command.js';
import { targetNames } from './build-runner.js';
import { oneOf } from './option-validators.js';
import { WorkspaceCommand } from './workspace-command.js';

export class GraphViewCommand extends WorkspaceCommand {
  static override paths = [['graph']];
  static override usage = Command.Usage({
    category: 'Build',
    description: "Draw the build graph: targets, their edges and each one's state.",
    details:
      `
      Prints the given targets and everything they depend on (with no target, the whole graph) with their dependency edges and each ` +
      `target's state, without building: up to date; dirty, and why (the reasons of \`episteme explain\`); ` +
      `maybe dirty (runs only if an upstream rebuild changes its bytes); failed or skipped in the last build, with its error. ` +
      `Edges point from a dependency to its dependent.

      Formats: dot (Graphviz: \`episteme graph | dot -Tsvg > graph.svg\`), mermaid (a flowchart for Markdown), json ({targets: [{target, ` +
      `rule, deps, state, reasons, error?}], edges: [[dependency, dependent]]}). With --json, the envelope's data holds the JSON form ` +
      `and, for dot and mermaid, the rendered text.
    `,
    examples: [
      ['Render the whole graph as SVG', 'episteme graph | dot -Tsvg > graph.svg'],
      ["One document's chain, as Mermaid", 'episteme graph chunks/url-spec-whatwg-org.json --format mermaid'],
      ['States as JSON', 'episteme graph --format json'],
    ],
  });
  readonly commandName = 'graph';
  format = Option.String('--format', 'dot', {
    description: 'dot (default), mermaid or json.',
    validator: oneOf(['dot', 'mermaid', 'json'] as const),
  });
  targets = Option.Rest({ name: 'target' });

  async run(): Promise<CommandResult> {
    const ws = await this.workspace();
    const graph = buildGraph(ws);
    const summary = await planBuild(ws, targetNames(ws, this.targets), 'graph');
    const failures = readFailures(ws.stateDir);
    const targets: ViewTarget[] = summary.targets.map((t) => {
      let state: TargetState =
        t.status === 'up-to-date' || t.status === 'dirty' || t.status === 'maybe-dirty' || t.status === 'failed' || t.status === 'skipped'
          ? t.status
          : 'dirty';
      const view: ViewTarget = {
        target: t.target,
        rule: t.rule,
        deps: graph.nodes.get(t.target)?.deps ?? [],
        state,
        reasons: t.reasons.map(describeReason),
      };
      // The last build's failure stands until the target is up to date again.
      const failed = failures.get(t.target);
      if (failed && state !== 'up-to-date') {
        state = failed.status;
        view.state = state;
        view.error = { code: failed.code, message: failed.message };
      } else if (t.error) view.error = { code: t.error.code, message: t.error.message };
      return view;
    });
    const format = this.format as GraphFormat;
    const text = renderGraph({ targets }, format);
    return {
      data: { format, ...graphJson({ targets }), ...(format === 'json' ? {} : { text }) },
      human: text.replace(/\n$/, '').split('\n'),
    };
  }
}
