/** File and folder names that define a workspace (kept apart so the query path need not load the config code). */
export const CONFIG_FILE_NAME = 'episteme.json';
export const STATE_DIR_NAME = '.episteme';
/** Each stage's output folder (workspace-relative) unless the config's `outputs` (or --snapshots) say otherwise. */
export const DEFAULT_OUTPUTS = { snapshots: 'snapshots', specs: 'specs', chunks: 'chunks', diffs: 'diffs' } as const;
