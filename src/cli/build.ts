import { Command, Option } from 'clipanion';
import { summaryResult } from './build-runner.js';
import { RemoteCacheCommand } from './remote-cache-command.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';
import { EpistemeError } from '../failure.js';

export class BuildCommand extends RemoteCacheCommand {
  static override paths = [['build']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Bring targets up to date, rebuilding only what changed.',
    details:
      `
      Reads the workspace config (the nearest episteme.json in the current folder or above it, or --config) and builds the ` +
      `given targets and everything they depend on; with no ` +
      `target, builds everything. Targets are output paths relative to the workspace root: \`snapshots/<doc>.json\`, ` +
      `\`specs/<doc>.json\`, \`chunks/<doc>.json\`, \`snapshots/index.json\`, \`specs/index.json\`, \`chunks/index.json\`, ` +
      `\`chunks/search-index.json\`.

      A target reruns only when its key changes: its rule and rule version, the producer version, the options that shape it, and the ` +
      `content hashes of its direct inputs. A rerun that produces the same bytes leaves the file untouched and its dependents clean ` +
      `(early cutoff). \`--dry-run\` lists every target with the reason it would run; \`episteme explain TARGET\` explains one.

      A source that leaves the graph (removed from the map or manifest, or left out by a one-off --map or --manifest) loses its derived ` +
      `files and its place in the indexes, but its captured snapshot (record, body, observation log) is kept, so it is up to date again, ` +
      `without a refetch, when it returns. \`--prune-snapshots\` deletes those captures.

      With \`--remote-cache URL\` (or config \`remoteCache\`), extraction and chunking outputs are looked up in a Bazel HTTP cache (or a ` +
      `file:// folder) before they run; every downloaded output is verified and a bad one is rebuilt locally; \`--no-remote-cache\` ` +
      `ignores the config's cache for one build. Uploading needs \`--remote-cache-upload\`. Request headers (a token) come from ` +
      `EPISTEME_REMOTE_CACHE_HEADERS or the file named by ` +
      `EPISTEME_REMOTE_CACHE_HEADERS_FILE. \`--shard I/N\` builds one share of the sources for a later assembling build (docs/ci.md, ` +
      `"Sharded builds").

      Exit codes: 0 all targets up to date or built; 1 a target failed (its previous output is kept; independent sources still build); 2 ` +
      `usage, config or input error.
    `,
    examples: [
      ['Build everything', 'episteme build'],
      ['Build only the search index and what it needs', 'episteme build chunks/search-index.json'],
      ['Show what would run and why', 'episteme build --dry-run'],
      ['Keep building as sources are saved (the same as episteme watch)', 'episteme build --watch'],
      ['Also delete captured snapshots of sources no longer in the inputs', 'episteme build --prune-snapshots'],
      ['Machine-readable summary', 'episteme build --json'],
      [
        'Build shard 2 of 4 and upload it (CI)',
        'episteme build --shard 2/4 --remote-cache https://cache.example.com/episteme --remote-cache-upload',
      ],
    ],
  });
  readonly commandName = 'build';
  dryRun = Option.Boolean('--dry-run', false, { description: 'Show what would run and why; write nothing.' });
  // Never true here: main.ts runs `build --watch ...` as `watch ...` before parsing. Declared for --help.
  watch = Option.Boolean('--watch', false, {
    description:
      'Build, then keep rebuilding what each save changes: the same as `episteme watch`, with its options (see `episteme watch --help`).',
  });
  shard = Option.String('--shard', {
    description:
      'Build only share I of N of the sources (by document id; no indexes) and upload them; ' +
      'needs --remote-cache and --remote-cache-upload.',
  });
  targets = Option.Rest({ name: 'target' });

  async run(output: Output): Promise<CommandResult> {
    const shard = this.shard === undefined ? null : await this.parsedShard();
    this.checkCacheFlags(); // a usage error whatever else happens
    if (!this.dryRun && this.targets.length === 0 && shard === null && this.cacheAllowsNoop()) {
      const noop = await this.noopFastPath();
      if (noop) return noop;
    }
    if (!this.dryRun && this.targets.length === 0 && shard === null) await this.startStageWorkerEarly();
    const ws = await this.workspace();
    let targets = this.targets;
    if (shard !== null) {
      if (targets.length > 0)
        throw new EpistemeError('usage-error', '--shard builds its share of every source; it takes no targets.', {
          hint: 'Drop the targets, or drop --shard.',
        });
      if (this.cacheUrl(ws) === undefined || !this.remoteCacheUpload) {
        throw new EpistemeError(
          'usage-error',
          '--shard needs --remote-cache (or config remoteCache) and --remote-cache-upload: a shard is only useful uploaded.',
          {
            hint: 'E.g. episteme build --shard 1/4 --remote-cache https://cache.example.com/episteme --remote-cache-upload',
          },
        );
      }
      const { inShard } = await import('../cache/shard.js');
      const { targetNames } = await import('../graph/graph.js');
      targets = ws.sources.filter((source) => inShard(source.documentId, shard)).map((source) => targetNames(ws, source.documentId).chunk);
      if (targets.length === 0) {
        const counts = { 'up-to-date': 0, built: 0, unchanged: 0, failed: 0, skipped: 0, dirty: 0, 'maybe-dirty': 0 };
        const result = summaryResult({ targets: [], counts, actions: 0, removed: [], ok: true }, this.dryRun, this.summaryOptions(ws.root));
        result.data.shard = shard;
        return result;
      }
    }
    const { result } = await this.runTargets(output, ws, targets, this.dryRun);
    if (shard !== null) result.data.shard = shard;
    return result;
  }

  private async parsedShard(): Promise<{ index: number; count: number }> {
    const { parseShard, MAX_SHARDS } = await import('../cache/shard.js');
    const shard = parseShard(this.shard!);
    if (shard === null) {
      throw new EpistemeError('usage-error', `--shard takes I/N with 1 <= I <= N <= ${MAX_SHARDS} (got ${JSON.stringify(this.shard)}).`, {
        hint: 'E.g. --shard 1/4 ... --shard 4/4 on four machines.',
      });
    }
    return shard;
  }
}
