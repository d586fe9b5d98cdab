/**
 * Node built-ins for the query path, taken with process.getBuiltinModule (Node >= 20.16, Deno,
 * Bun) instead of `import`: importing node:fs makes Node build an ES module facade that reads
 * every export, and reading fs's lazy ReadStream/WriteStream getters loads fs streams. That and
 * zlib's facade were ~5 ms of a ~150 ms cold query. Other code imports built-ins normally.
 */
export const fs = process.getBuiltinModule('node:fs');

type Zlib = typeof import('node:zlib');
let zlibModule: Zlib | undefined;
/**
 * node:zlib, loaded on the first use of one of its members. Loading it loads node:stream and ~20
 * stream modules with it: ~11M of a cold Node 24 process's ~90M start-up instructions (valgrind,
 * bench/README.md). A query that never reads a row block or checks a CRC-32 (a usage error, a
 * missing or unreadable index, --help) does not pay for it. Same interface as the module, so
 * callers read `zlib.crc32(...)` as before.
 */
export const zlib: Zlib = new Proxy({} as Zlib, {
  get: (_target, name) => {
    if (zlibModule === undefined) zlibModule = process.getBuiltinModule('node:zlib');
    return Reflect.get(zlibModule, name);
  },
});
