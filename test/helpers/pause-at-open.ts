/**
 * A preload script (NODE_OPTIONS=--require) that pauses the command it is loaded into the first time
 * it opens a file whose path includes `pathPart`: it writes log/paused (the path) in its working
 * folder and waits for log/go, so a test can change the workspace at that exact point. With
 * `writing`, only an open for writing counts (reads of the same folder, such as the checks of its
 * files, go on).
 */
export function pauseAtFirstOpen(pathPart: string, options: { writing?: boolean } = {}): string {
  return `
const fs = require('node:fs');
const openSync = fs.openSync;
let paused = false;
const { O_WRONLY, O_RDWR } = fs.constants;
const writes = (flags) =>
  typeof flags === 'string' ? /[wa+]/.test(flags) : typeof flags === 'number' && (flags & (O_WRONLY | O_RDWR)) !== 0;
fs.openSync = function (file, ...rest) {
  if (!paused && String(file).includes(${JSON.stringify(pathPart)}) && (${options.writing === true} ? writes(rest[0]) : true)) {
    paused = true;
    fs.writeFileSync('log/paused', String(file));
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (!fs.existsSync('log/go')) Atomics.wait(nap, 0, 0, 10);
  }
  return openSync.call(this, file, ...rest);
};
`;
}
