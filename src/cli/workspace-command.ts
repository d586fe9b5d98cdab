import * as path from 'node:path';
import { Option } from 'clipanion';
import { DEFAULT_MAX_INPUT_BYTES } from '../store/bounded-input.js';
import type { Workspace } from '../config/workspace.js';
import { EpistemeCommand } from './base-command.js';
import { locatingArgs } from './hint-commands.js';
import { rememberedLine, rememberWorkspace } from '../config/remember-workspace.js';
import { shownFrom } from './shown-path.js';
import { DEFAULT_OUTPUTS } from '../store/names.js';
import { inRange, MAX_INPUT_BYTES_RANGE, rangeText } from './option-validators.js';

/** Options of the commands that read a workspace (config file, or a map or manifest given directly). */
export abstract class WorkspaceCommand extends EpistemeCommand {
  config = Option.String('--config', {
    description:
      'Workspace config file (default: the nearest episteme.json in the current folder or above it). ' +
      'Its folder is the workspace root.',
  });
  map = Option.String('--map', {
    description:
      "Manual-ingest map to use instead of the config's (a file, or - for stdin). Without a config, the current folder is the " +
      'workspace, and the first command that writes into it writes episteme.json naming the map.',
  });
  manifest = Option.String('--manifest', {
    description:
      "HTTP(S) capture manifest to use instead of the config's (a file, or - for stdin; schema/manifest.schema.json). " +
      'Without a config, the current folder is the workspace, and the first command that writes into it writes episteme.json ' +
      'naming it. A URL also in the map is an error.',
  });
  maxInputBytes = Option.String('--max-input-bytes', {
    description:
      `Byte bound for the config, map and manifest, including stdin ` +
      `(default ${DEFAULT_MAX_INPUT_BYTES}; ${rangeText(MAX_INPUT_BYTES_RANGE)}).`,
    validator: inRange(MAX_INPUT_BYTES_RANGE),
  });

  protected async workspace(extraOutputs: { snapshots?: string | undefined } = {}): Promise<Workspace> {
    const { loadWorkspace } = await import('../config/workspace.js');
    this.hintArgs = locatingArgs(process.cwd(), this);
    return loadWorkspace(process.cwd(), {
      config: this.config,
      map: this.map,
      manifest: this.manifest,
      maxInputBytes: this.maxInputBytes,
      outputs: extraOutputs,
    });
  }

  /**
   * Called by every command just before it writes into the workspace: a workspace given only by --map
   * or --manifest is remembered in episteme.json (config/remember-workspace.ts), so the commands its
   * hints name, and every later command here or below, need no flags. Returns the line that says so
   * (null when nothing was written); `data.configWritten` names the file.
   */
  protected remember(ws: Workspace, data: Record<string, unknown>, extraOutputs: { snapshots?: string | undefined } = {}): string | null {
    const written = rememberWorkspace(ws, { config: this.config, map: this.map, manifest: this.manifest });
    if (written === null) return null;
    this.hintArgs = locatingArgs(process.cwd(), this);
    data.configWritten = written;
    // A --snapshots that names the default folder is not in the config: no need to say it.
    const snapshots = ws.outputs.snapshots === DEFAULT_OUTPUTS.snapshots ? undefined : extraOutputs.snapshots;
    return rememberedLine(shownFrom(ws.root, process.cwd())(written), { map: this.map, manifest: this.manifest, snapshots });
  }
}

/** Absolute paths of a workspace's own folders: a user-named output file is never written inside them. */
export function protectedFolders(ws: Workspace): string[] {
  return [...Object.values(ws.outputs).map((dir) => path.join(ws.root, dir)), ws.stateDir];
}
