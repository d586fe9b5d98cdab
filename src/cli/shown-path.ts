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

/**
 * A target argument as the graph names it: a target name (a path from the workspace root) as is, or
 * else a path from the current folder to an output inside the workspace, so that a path a message
 * printed can be passed back. Arguments that are neither stay as given (the graph reports them).
 */
export function targetNameOf(argument: string, root: string, cwd: string, isTarget: (name: string) => boolean): string {
  if (isTarget(argument)) return argument;
  const fromRoot = path.relative(path.resolve(root), path.resolve(cwd, argument));
  if (fromRoot === '' || fromRoot.startsWith('..') || path.isAbsolute(fromRoot)) return argument;
  const name = fromRoot.split(path.sep).join('/');
  return isTarget(name) ? name : argument;
}
