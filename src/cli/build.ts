import { Command, Option } from 'clipanion';
import { CaptureCommand } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class BuildCommand extends CaptureCommand {
  static override paths = [['build']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Bring targets up to date, rebuilding only what changed.',
    details: `
      Reads the workspace config (./episteme.json, or --config) and builds the given targets and everything they depend on; with no target, builds everything. Targets are output paths relative to the workspace root: \`snapshots/<doc>.json\`, \`specs/<doc>.json\`, \`chunks/<doc>.json\`, \`snapshots/index.json\`, \`specs/index.json\`, \`chunks/index.json\`, \`chunks/search-index.json\`.

      A target reruns only when its key changes: its rule and rule version, the producer version, the options that shape it, and the content hashes of its direct inputs. A rerun that produces the same bytes leaves the file untouched and its dependents clean (early cutoff). \`--dry-run\` lists every target with the reason it would run; \`episteme explain TARGET\` explains one.

      A source that leaves the graph (removed from the map or manifest, or left out by a one-off --map or --manifest) loses its derived files and its place in the indexes, but its captured snapshot (record, body, observation log) is kept, so it is up to date again, without a refetch, when it returns. \`--prune-snapshots\` deletes those captures.

      Exit codes: 0 all targets up to date or built; 1 a target failed (its previous output is kept; independent sources still build); 2 usage, config or input error.
    `,
    examples: [
      ['Build everything', 'episteme build'],
      ['Build only the search index and what it needs', 'episteme build chunks/search-index.json'],
      ['Show what would run and why', 'episteme build --dry-run'],
      ['Also delete captured snapshots of sources no longer in the inputs', 'episteme build --prune-snapshots'],
      ['Machine-readable summary', 'episteme build --json'],
    ],
  });
  readonly commandName = 'build';
  dryRun = Option.Boolean('--dry-run', false, { description: 'Show what would run and why; write nothing.' });
  targets = Option.Rest({ name: 'target' });

  async run(output: Output): Promise<CommandResult> {
    if (!this.dryRun && this.targets.length === 0) {
      const noop = await this.noopFastPath();
      if (noop) return noop;
    }
    const ws = await this.workspace();
    return (await this.runTargets(output, ws, this.targets, this.dryRun)).result;
  }
}
