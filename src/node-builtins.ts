/**
 * Node built-ins for the query path, taken with process.getBuiltinModule (Node >= 20.16, Deno,
 * Bun) instead of `import`: importing node:fs makes Node build an ES module facade that reads
 * every export, and reading fs's lazy ReadStream/WriteStream getters loads fs streams. That and
 * zlib's facade were ~5 ms of a ~150 ms cold query. Other code imports built-ins normally.
 */
export const fs = process.getBuiltinModule('node:fs');
export const zlib = process.getBuiltinModule('node:zlib');
