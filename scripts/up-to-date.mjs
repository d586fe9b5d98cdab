// The build steps after tsc skip their work when every output is at least as new as every input
// (make's rule, by modification time), so `npm test` right after `npm ci` (which builds through
// `prepare`) does not build twice. A missing output, or an input newer than the oldest output,
// means the step runs. `rm -rf dist` forces a full build.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The newest modification time under `file` (a file, or a folder walked whole); 0 when it is absent. */
function newest(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs; // a file removed from the folder changes the folder's time
  for (const entry of fs.readdirSync(file)) max = Math.max(max, newest(path.join(file, entry)));
  return max;
}

/** True when every output exists and none is older than any input (files or folders). */
export function upToDate(outputs, inputs) {
  let oldestOutput = Number.POSITIVE_INFINITY;
  for (const output of outputs) {
    if (!fs.existsSync(output)) return false;
    oldestOutput = Math.min(oldestOutput, fs.statSync(output).mtimeMs);
  }
  return inputs.every((input) => newest(input) <= oldestOutput);
}
