import { Option } from 'clipanion';
import { DEFAULT_MAX_INPUT_BYTES } from '../config/bounded-input.js';
import { loadWorkspace, type Workspace } from '../config/workspace.js';
import { EpistemeCommand, isPositiveInteger } from './base-command.js';

/** Options of the commands that read a workspace (config file, or a map given directly). */
export abstract class WorkspaceCommand extends EpistemeCommand {
  config = Option.String('--config', { description: 'Workspace config file (default: ./episteme.json). Its folder is the workspace root.' });
  map = Option.String('--map', {
    description: 'Manual-ingest map to use instead of the config\'s (a file, or - for stdin). Without a config, the current folder is the workspace.',
  });
  maxInputBytes = Option.String('--max-input-bytes', {
    description: `Byte bound for the config and map, including stdin (default ${DEFAULT_MAX_INPUT_BYTES}).`,
    validator: isPositiveInteger,
  });

  protected workspace(extraOutputs: { snapshots?: string | undefined } = {}): Promise<Workspace> {
    return loadWorkspace(process.cwd(), {
      config: this.config,
      map: this.map,
      maxInputBytes: this.maxInputBytes,
      outputs: extraOutputs,
    });
  }
}
