import { Command } from 'clipanion';
import { CaptureCommand } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class PipelineCommand extends CaptureCommand {
  static override paths = [['pipeline']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Run every stage: capture, extract, chunk and index (the same engine as `build` with no target).',
    details: `
      Equivalent to \`episteme build\` with no target. Without a workspace config, \`--map MAP.json\` makes the current folder the workspace (outputs in ./snapshots, ./specs, ./chunks; build state in ./.episteme).
    `,
    examples: [
      ['Run the built-in example', 'episteme pipeline --config examples/episteme.json'],
      ['Run over a manual-ingest map in the current folder', 'episteme pipeline --map ./manual-ingest.json'],
    ],
  });
  readonly commandName = 'pipeline';

  async run(output: Output): Promise<CommandResult> {
    const noop = await this.noopFastPath();
    if (noop) return noop;
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, [])).result;
  }
}
