import { Command, Option } from 'clipanion';
import { planBuild } from '../graph/plan.js';
import { describeReason } from '../graph/key.js';
import type { CommandResult } from './base-command.js';
import { targetNames } from './build-runner.js';
import { WorkspaceCommand } from './workspace-command.js';

export class ExplainCommand extends WorkspaceCommand {
  static override paths = [['explain']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Say whether a target is up to date and, if not, exactly why.',
    details:
      `
      Compares the recorded key components of each target (rule version, producer version, named options, content hashes of its inputs, ` +
      `its output file) with the current ones, without building. Reasons: no previous record; input changed; ` +
      `upstream rebuilt with different content; upstream dirty; option changed (named, before -> after); ` +
      `rule or producer version changed; output missing or modified.
    `,
    examples: [
      ['Why would the search index rebuild?', 'episteme explain chunks/search-index.json'],
      ['Explain one document', 'episteme explain specs/url-spec-whatwg-org.json --json'],
    ],
  });
  readonly commandName = 'explain';
  targets = Option.Rest({ name: 'target', required: 1 });

  async run(): Promise<CommandResult> {
    const ws = await this.workspace();
    const names = targetNames(ws, this.targets);
    const summary = await planBuild(ws, names, 'explain');
    const requested = new Set(names);
    const explained = summary.targets.filter((t) => requested.has(t.target) || t.status !== 'up-to-date');
    const human: string[] = [];
    for (const t of explained) {
      human.push(`${t.target}: ${t.status}`);
      for (const reason of t.reasons) human.push(`  - ${describeReason(reason)}`);
    }
    return { data: { targets: explained }, human };
  }
}
