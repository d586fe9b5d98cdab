// Stands in for clipanion/lib/platform/node.mjs in the bundled CLI. The original imports `tty`
// (which loads `net`) at module load just to compute a default color depth; Episteme always passes
// enableColors: false and colorDepth: 1, and that import alone was ~5-10 ms of a cold query.
// getCaptureActivator is the original's logic, with AsyncLocalStorage imported instead of require()d
// (require does not exist in an ES module bundle).
import { AsyncLocalStorage } from 'node:async_hooks';

export function getDefaultColorDepth() {
  if (process.env.FORCE_COLOR === '1') return 8;
  return 1;
}

let gContextStorage;
export function getCaptureActivator(context) {
  let contextStorage = gContextStorage;
  if (typeof contextStorage === 'undefined') {
    // Episteme's context gives stdout and stderr as getters (stdout writes with writeSync, stderr is
    // the lazily created process.stderr): both end on the process's own descriptors, so there is
    // nothing to capture, and process.stdout and process.stderr need not be created to compare.
    const lazy = (name) => typeof Object.getOwnPropertyDescriptor(context, name)?.get === 'function';
    if ((lazy('stdout') || context.stdout === process.stdout) && (lazy('stderr') || context.stderr === process.stderr)) return null;
    contextStorage = gContextStorage = new AsyncLocalStorage();
    const origStdoutWrite = process.stdout._write;
    process.stdout._write = function (chunk, encoding, cb) {
      const store = contextStorage.getStore();
      if (typeof store === 'undefined') return origStdoutWrite.call(this, chunk, encoding, cb);
      return store.stdout.write(chunk, encoding, cb);
    };
    const origStderrWrite = process.stderr._write;
    process.stderr._write = function (chunk, encoding, cb) {
      const store = contextStorage.getStore();
      if (typeof store === 'undefined') return origStderrWrite.call(this, chunk, encoding, cb);
      return store.stderr.write(chunk, encoding, cb);
    };
  }
  return (fn) => contextStorage.run(context, fn);
}
