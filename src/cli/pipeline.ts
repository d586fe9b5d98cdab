import { Command } from 'clipanion';
import { RemoteCacheCommand } from './remote-cache-command.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class PipelineCommand extends RemoteCacheCommand {
  static override paths = [['pipeline']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Run every stage: capture, extract, chunk and index (the same engine as `build` with no target).',
    details:
      `
      Equivalent to \`episteme build\` with no target. Without a workspace config, \`--map MAP.json\` makes the current folder the ` +
      `workspace (outputs in ./snapshots, ./specs, ./chunks; build state in ./.episteme) and writes ./episteme.json naming the map, ` +
      `so later commands here or below need no --map.

      Takes the remote cache options of \`build\` (\`--remote-cache URL\`, \`--no-remote-cache\`, \`--remote-cache-upload\`, ` +
      `\`--remote-cache-verify\`, \`--remote-cache-timeout\`; docs/ci.md, "The remote cache").
    `,
    examples: [
      ['Run the built-in example', 'episteme pipeline --config examples/episteme.json'],
      ['Run over a manual-ingest map in the current folder', 'episteme pipeline --map ./manual-ingest.json'],
    ],
  });
  readonly commandName = 'pipeline';

  async run(output: Output): Promise<CommandResult> {
    this.checkCacheFlags(); // a usage error whatever else happens
    if (this.cacheAllowsNoop()) {
      const noop = await this.noopFastPath();
      if (noop) return noop;
    }
    await this.startStageWorkerEarly();
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, [])).result;
  }
}
