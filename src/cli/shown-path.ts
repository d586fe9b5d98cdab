import path from 'node:path';

/**
 * How a human message names a workspace file: as a path from the current folder, so it can be
 * pasted into a shell or an editor from where the command ran. Targets keep their names (paths from
 * the workspace root) in --json, where they are identifiers; from the workspace root both agree.
 */
export function shownFrom(root: string, cwd: string): (workspacePath: string) => string {
  const base = path.resolve(cwd);
  const workspace = path.resolve(root);
  if (base === workspace) return (workspacePath) => workspacePath;
  return (workspacePath) => path.relative(base, path.join(workspace, workspacePath)).split(path.sep).join('/') || '.';
}

/** A document's or its chunks' content-addressed file (`specs/<doc>.<hash>.json`) names its target `specs/<doc>.json`. */
const CONTENT_ADDRESSED = /\.[0-9a-f]{16}\.json$/;

/**
 * A target argument as the graph names it: a target name (a path from the workspace root) as is, a
 * path from the current folder to an output inside the workspace (so that a path a message printed
 * can be passed back), or the file a target wrote (`specs/<doc>.<hash>.json`, as the human summary
 * shows it). Arguments that are none of these stay as given (the caller reports them).
 */
export function targetNameOf(argument: string, root: string, cwd: string, isTarget: (name: string) => boolean): string {
  const fromRoot = path.relative(path.resolve(root), path.resolve(cwd, argument));
  const inside = fromRoot !== '' && !fromRoot.startsWith('..') && !path.isAbsolute(fromRoot);
  const candidates = [argument, ...(inside ? [fromRoot.split(path.sep).join('/')] : [])];
  for (const candidate of candidates) {
    if (isTarget(candidate)) return candidate;
    const named = candidate.replace(CONTENT_ADDRESSED, '.json');
    if (named !== candidate && isTarget(named)) return named;
  }
  return argument;
}
