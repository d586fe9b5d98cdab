import { Command } from 'clipanion';
import { GraphCommand, targetsOfRules } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';
import { DEFAULT_CHUNK_OPTIONS, MIN_MAX_CHARS } from '../chunk/chunker.js';

export class ChunkCommand extends GraphCommand {
  static override paths = [['chunk']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: 'Split extracted documents into bounded, overlapping, attributable chunks.',
    details:
      `
      Builds \`chunks/<doc>.json\` for every source and commits \`chunks/index.json\`, extracting first any document that is not ` +
      `up to date. Runs offline: an HTTP source without a recorded snapshot fails with \`snapshot-missing\` (capture it with ` +
      `\`episteme snapshot\`).

      Options (workspace config \`options.chunk\`, integers; part of every chunk target's key):

      - \`maxChars\`: default ${DEFAULT_CHUNK_OPTIONS.maxChars}, at least ${MIN_MAX_CHARS}. ` +
      `Longest chunk, in code points; a longer block is cut.
      - \`overlapChars\`: default ${DEFAULT_CHUNK_OPTIONS.overlapChars}, from 0 to half of maxChars. ` +
      `Characters of a cut block's previous piece repeated at the start of the next.

      Exit codes: 0 every target built or up to date; 1 a target failed, or a document carries diagnostics at the --fail-on ` +
      `severity; 2 usage, config or input error (including snapshot-missing).
    `,
    examples: [
      ['Chunk every document of the workspace (./episteme.json)', 'episteme chunk'],
      ['Chunk a manual-ingest map without a config', 'episteme chunk --map ./manual-ingest.json'],
    ],
  });
  readonly commandName = 'chunk';

  async run(output: Output): Promise<CommandResult> {
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, targetsOfRules(ws, ['chunk', 'chunk-index']))).result;
  }
}
