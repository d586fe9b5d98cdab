import { Command, Option } from 'clipanion';
import { GraphCommand, targetsOfRules } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class ManualIngestCommand extends GraphCommand {
  static override paths = [['manual-ingest']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: 'Record local files as snapshots under canonical http(s) source URLs.',
    details:
      `
      The map is a JSON array of \`{"sourceUrl", "localPath", "contentType"?, "charset"?, "family"?, "authority"?, "extractor"?}\`; ` +
      `a relative \`localPath\` resolves against the map file's folder. It is validated strictly: unknown fields, wrong types, ` +
      `non-http(s) URLs, duplicate URLs (compared after canonicalisation: scheme and host case, default port, ` +
      `empty path) and missing files are errors naming the entry.

      Ingest is content-addressed and idempotent: unchanged bytes reuse the recorded snapshot; changed bytes create a new one. ` +
      `Files larger than limits.maxFileBytes (default 64 MiB) fail that source only. Writes \`snapshots/records/<snapshotId>.json\`, ` +
      `\`snapshots/bodies/<sha256>\` and commits \`snapshots/index.json\` last.
    `,
    examples: [
      ['Ingest a map into ./snapshots', 'episteme manual-ingest --map ./manual-ingest.json --snapshots ./snapshots'],
      ['Read the map from stdin', 'cat map.json | episteme manual-ingest --map -'],
    ],
  });
  readonly commandName = 'manual-ingest';
  /** Records local files only: no manifest (and no capture) here; `snapshot` captures a manifest. */
  override manifest: string | undefined = undefined;
  snapshots = Option.String('--snapshots', {
    description: "Snapshot folder, relative to the workspace root (default: snapshots, or the config's outputs.snapshots).",
  });

  protected override outputFlags(): { snapshots?: string | undefined } {
    return { snapshots: this.snapshots };
  }

  async run(output: Output): Promise<CommandResult> {
    const ws = await this.workspace({ snapshots: this.snapshots });
    return (await this.runTargets(output, ws, targetsOfRules(ws, ['snapshot', 'snapshot-index']))).result;
  }
}
