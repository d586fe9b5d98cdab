import { Builtins, Cli } from 'clipanion';
import { PRODUCER_VERSION } from '../version.js';
import { Output, markMainEntered } from './output.js';
import { BuildCommand } from './build.js';
import { PipelineCommand } from './pipeline.js';
import { ManualIngestCommand } from './manual-ingest.js';
import { SnapshotCommand } from './snapshot.js';
import { ExtractCommand } from './extract.js';
import { ChunkCommand } from './chunk.js';
import { IndexCommand } from './index-command.js';
import { QueryCommand } from './query.js';
import { ExplainCommand } from './explain.js';

export function createCli(): Cli {
  const cli = new Cli({ binaryLabel: 'Episteme', binaryName: 'episteme', binaryVersion: PRODUCER_VERSION, enableColors: false });
  for (const command of [BuildCommand, PipelineCommand, SnapshotCommand, ManualIngestCommand, ExtractCommand, ChunkCommand, IndexCommand, QueryCommand, ExplainCommand]) {
    cli.register(command);
  }
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
      throw error;
    });
  }
  const cli = createCli();
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
