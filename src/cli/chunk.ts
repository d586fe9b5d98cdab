import { Command } from 'clipanion';
import { GraphCommand, targetsOfRules } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class ChunkCommand extends GraphCommand {
  static override paths = [['chunk']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: 'Split extracted documents into bounded, overlapping, attributable chunks.',
    details: `
      Builds \`chunks/<doc>.json\` for every source and commits \`chunks/index.json\`. Chunk size and overlap come from the workspace config (options.chunk.maxChars, options.chunk.overlapChars) and are part of every chunk target's key.
    `,
    examples: [['Chunk every document', 'episteme chunk']],
  });
  readonly commandName = 'chunk';

  async run(output: Output): Promise<CommandResult> {
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, targetsOfRules(ws, ['chunk', 'chunk-index']))).result;
  }
}
