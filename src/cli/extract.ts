import { Command } from 'clipanion';
import { GraphCommand, targetsOfRules } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class ExtractCommand extends GraphCommand {
  static override paths = [['extract']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: 'Extract recorded snapshots into structured evidence documents, offline.',
    details: `
      Builds \`specs/<doc>.json\` for every source (capturing first any snapshot that is missing) and commits \`specs/index.json\`. Documents hold sections, blocks, fragment ids, provenance (producer version, extractor, source SHA-256, extraction-config SHA-256, snapshot id) and diagnostics; all captured text is marked \`contentTrust: "untrusted-source"\`. No network access.
    `,
    examples: [['Extract every source of the workspace', 'episteme extract']],
  });
  readonly commandName = 'extract';

  async run(output: Output): Promise<CommandResult> {
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, targetsOfRules(ws, ['extract', 'document-index']))).result;
  }
}
