import { Builtins, Cli, type CommandClass } from 'clipanion';
import { PRODUCER_VERSION } from '../version.js';
import { Output, markMainEntered } from './output.js';

/**
 * Command modules, loaded on demand: a `query` run loads the query path only, and clipanion builds
 * its parser for the one command being run (both matter for a cold query's latency). `--help` and
 * unknown commands load them all.
 */
const COMMANDS: Record<string, () => Promise<CommandClass>> = {
  build: async () => (await import('./build.js')).BuildCommand,
  pipeline: async () => (await import('./pipeline.js')).PipelineCommand,
  snapshot: async () => (await import('./snapshot.js')).SnapshotCommand,
  'manual-ingest': async () => (await import('./manual-ingest.js')).ManualIngestCommand,
  extract: async () => (await import('./extract.js')).ExtractCommand,
  chunk: async () => (await import('./chunk.js')).ChunkCommand,
  index: async () => (await import('./index-command.js')).IndexCommand,
  query: async () => (await import('./query.js')).QueryCommand,
  diff: async () => (await import('./diff.js')).DiffCommand,
  explain: async () => (await import('./explain.js')).ExplainCommand,
};

export async function createCli(only?: string): Promise<Cli> {
  const cli = new Cli({ binaryLabel: 'Episteme', binaryName: 'episteme', binaryVersion: PRODUCER_VERSION, enableColors: false });
  const names = only !== undefined && only in COMMANDS ? [only] : Object.keys(COMMANDS);
  for (const command of await Promise.all(names.map((name) => COMMANDS[name]!()))) cli.register(command);
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  return cli;
}

/**
 * Entry point: parse, run, return the exit code. Parse errors become `usage-error` (exit 2), as an
 * envelope when --json was asked for.
 */
export async function main(argv: string[]): Promise<number> {
  markMainEntered();
  // A closed pipe (`episteme query ... | head`) is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      // Nowhere left to report to: end with a failure code rather than a stack trace.
      process.exit(1);
    });
  }
  const cli = await createCli(argv[0]);
  const context = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, colorDepth: 1 };
  let command;
  try {
    command = cli.process(argv, context);
  } catch (error) {
    const json = argv.includes('--json');
    const name = argv.find((a) => !a.startsWith('-')) ?? 'episteme';
    const output = new Output(name, json, 'never', process.stdout, process.stderr);
    const message = error instanceof Error ? error.message.split('\n')[0]!.replace(/^Usage Error: /, '') : String(error);
    return output.failure({ code: 'usage-error', message, hint: `See \`episteme ${name === 'episteme' ? '' : name + ' '}--help\`.`.replace('  ', ' ') });
  }
  return cli.run(command, context);
}
