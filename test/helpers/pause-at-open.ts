/**
 * A preload script (NODE_OPTIONS=--require) that pauses the command it is loaded into the first time
 * it opens a file whose path includes `pathPart`: it writes log/paused (the path) in its working
 * folder and waits for log/go, so a test can change the workspace at that exact point.
 */
export function pauseAtFirstOpen(pathPart: string): string {
  return `
const fs = require('node:fs');
const openSync = fs.openSync;
let paused = false;
fs.openSync = function (file, ...rest) {
  if (!paused && String(file).includes(${JSON.stringify(pathPart)})) {
    paused = true;
    fs.writeFileSync('log/paused', String(file));
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (!fs.existsSync('log/go')) Atomics.wait(nap, 0, 0, 10);
  }
  return openSync.call(this, file, ...rest);
};
`;
}
