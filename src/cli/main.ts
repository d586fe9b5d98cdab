import { runCli, type CommandTable } from './run-cli.js';

/**
 * Command modules, loaded on demand: a `query` run loads the query path only, and clipanion builds
 * its parser for the one command being run (both matter for a cold query's latency). `--help` and
 * unknown commands load them all.
 */
const COMMANDS: CommandTable = {
  build: async () => (await import('./build.js')).BuildCommand,
  pipeline: async () => (await import('./pipeline.js')).PipelineCommand,
  snapshot: async () => (await import('./snapshot.js')).SnapshotCommand,
  'manual-ingest': async () => (await import('./manual-ingest.js')).ManualIngestCommand,
  extract: async () => (await import('./extract.js')).ExtractCommand,
  chunk: async () => (await import('./chunk.js')).ChunkCommand,
  index: async () => (await import('./index-command.js')).IndexCommand,
  query: async () => (await import('./query.js')).QueryCommand,
  show: async () => (await import('./show.js')).ShowCommand,
  serve: async () => (await import('./serve.js')).ServeCommand,
  diff: async () => (await import('./diff.js')).DiffCommand,
  explain: async () => (await import('./explain.js')).ExplainCommand,
  watch: async () => (await import('./watch.js')).WatchCommand,
  graph: async () => (await import('./graph.js')).GraphViewCommand,
};

/** Entry point of every command line. */
export function main(argv: string[]): Promise<number> {
  return runCli(watchAlias(argv), COMMANDS);
}

/**
 * `episteme build --watch ...` is `episteme watch ...`, with the same options in any order: rewritten
 * before parsing, since the options are watch's. Only a `--watch` before a `--` counts (after it, the
 * word is a target name).
 */
function watchAlias(argv: string[]): string[] {
  if (argv[0] !== 'build') return argv;
  const end = argv.indexOf('--');
  const options = end < 0 ? argv : argv.slice(0, end);
  if (!options.includes('--watch')) return argv;
  return ['watch', ...options.slice(1).filter((a) => a !== '--watch'), ...(end < 0 ? [] : argv.slice(end))];
}

// Run as the program itself (`deno run jsr:@ismail-elkorchi/episteme/cli`, `bun dist/bundle/cli.js`,
// Node 24+): run the command line. Imported (`episteme/cli` on npm, `./cli` on JSR), nothing runs:
// import.meta.main is true only for the entry module, and undefined on runtimes without it.
if ((import.meta as { main?: boolean }).main === true) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
