import type { Writable } from 'node:stream';
import { Builtins, Cli, type CommandClass } from 'clipanion';
import { PRODUCER_VERSION } from '../version.js';
import { Output, markMainEntered } from './output.js';
import { describeCause } from '../failure.js';
import { commandHelp, rootHelp } from './help.js';
import { diagnoseOptions, unknownCommand, type UsageProblem } from './usage-errors.js';
import { stderrWriter, stdoutWriter } from './stdout-writer.js';

/** Command name -> loader of its class (loaded on demand: a run loads its own command only). */
export type CommandTable = Record<string, () => Promise<CommandClass>>;

/**
 * Whatever escapes every handler (an error thrown from a callback, a rejected promise nobody awaited)
 * is still reported as a structured `internal-error`, never as Node's default stack dump; the stack is
 * shown with --debug only.
 */
function guardProcess(argv: string[]): void {
  const crash = (error: unknown): void => {
    const json = argv.includes('--json');
    const debug = argv.includes('--debug');
    const name = argv.find((a) => !a.startsWith('-')) ?? 'episteme';
    const output = new Output(name, json, 'never', stdoutWriter, stderr);
    try {
      process.exitCode = output.failure({
        code: 'internal-error',
        message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
        hint: 'This is a bug in Episteme; rerun with --debug and report it.',
        debug: debug ? describeCause(error) : undefined,
      });
    } finally {
      process.exit(1);
    }
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
}

/** Standard error, written like stdout (stdout-writer.ts): a human-mode error creates no stream. */
function stderr(): NodeJS.WriteStream {
  return stderrWriter as unknown as NodeJS.WriteStream;
}

export async function createCli(commands: CommandTable, only?: string): Promise<Cli> {
  const cli = new Cli({ binaryLabel: 'Episteme', binaryName: 'episteme', binaryVersion: PRODUCER_VERSION, enableColors: false });
  const single = only !== undefined && only in commands;
  const names = single ? [only] : Object.keys(commands);
  for (const command of await Promise.all(names.map((name) => commands[name]!()))) cli.register(command);
  // `episteme --help` and `--version` need the builtins; a named command handles its own --help,
  // and leaving them out shrinks the parser clipanion builds on every cold run.
  if (!single) {
    cli.register(Builtins.HelpCommand);
    cli.register(Builtins.VersionCommand);
  }
  return cli;
}

/**
 * Parses and runs one command line; returns the exit code. Parse errors become `usage-error`
 * (exit 2), as an envelope when --json was asked for.
 */
export async function runCli(argv: string[], commands: CommandTable): Promise<number> {
  markMainEntered();
  guardProcess(argv);
  const cli = await createCli(commands, argv[0]);
  // stdout and stderr are written with writeSync (stdout-writer.ts), so an output never creates a
  // stream of its own.
  const context = {
    stdin: process.stdin,
    stdout: stdoutWriter as unknown as Writable,
    stderr: stderr(),
    env: process.env,
    colorDepth: 1,
  };
  // Help is rendered here (help.ts), not by clipanion's builtin: grouped one-line commands at the root.
  // Written like every other output (stdout-writer.ts), so --help creates no stdout stream either.
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help'))) {
    stdoutWriter.write(rootHelp(cli));
    return 0;
  }
  if (argv.length === 2 && argv[0]! in commands && (argv[1] === '--help' || argv[1] === '-h')) {
    stdoutWriter.write(commandHelp(cli, await commands[argv[0]!]!()));
    return 0;
  }
  const gone = currentFolderGone(argv);
  if (gone !== null) return gone;
  const crowded = tooManyArguments(argv);
  if (crowded !== null) return crowded;
  let command: ReturnType<typeof cli.process>;
  try {
    command = cli.process(argv, context);
  } catch (error) {
    // `--limit -1`, `--term -x`: clipanion reads a value starting with "-" as an option and reports
    // "Not enough arguments", which hides the range (or takes a term away). Read again with each such
    // value attached (`--limit=-1`), so the option's own validation names its range.
    let problem = error;
    let parsed = argv;
    const attached = attachDashValues(cli, argv);
    if (attached !== null) {
      try {
        command = cli.process(attached, context);
        return cli.run(command, context);
      } catch (again) {
        // The value's own error (its range) when that is what is wrong now.
        problem = again;
        parsed = attached;
      }
    }
    const json = argv.includes('--json');
    const name = argv.find((a) => !a.startsWith('-')) ?? 'episteme';
    const output = new Output(name, json, 'never', stdoutWriter, stderr);
    return output.failure({ code: 'usage-error', ...describeParseError(cli, commands, parsed, problem) });
  }
  return cli.run(command, context);
}

/**
 * The most arguments a command line may hold. clipanion's parser copies the words read so far at each
 * word, so its time grows with the square of their number (8,000 words: 15 s and 600 MB before any
 * bound of the command was checked); a thousand is 0.4 s, more than any command needs: `build` with no
 * target builds all, `--shard` splits them, and a query's words are bounded at 4,096 characters.
 */
export const MAX_ARGUMENTS = 1024;

/** A usage error, before parsing, for a command line longer than MAX_ARGUMENTS; null otherwise. */
function tooManyArguments(argv: readonly string[]): number | null {
  if (argv.length <= MAX_ARGUMENTS) return null;
  const name = argv.find((a) => !a.startsWith('-')) ?? 'episteme';
  const output = new Output(name, argv.includes('--json'), 'never', stdoutWriter, stderr);
  return output.failure({
    code: 'usage-error',
    message: `The command line holds ${argv.length} arguments; Episteme reads at most ${MAX_ARGUMENTS}.`,
    hint: 'Name no target to build all of them, split the build with --shard I/N, or shorten the query to its key words.',
  });
}

/**
 * A shell whose folder was deleted or moved away (`rm -rf` or a branch switch in another terminal)
 * still runs commands there, and process.cwd() then throws ENOENT: every relative path, the workspace
 * lookup and each message's paths depend on it. Said once, before any work, as an input error (it
 * used to surface as internal-error "uv_cwd" from wherever the first path was resolved). Null when
 * the folder is there.
 */
function currentFolderGone(argv: string[]): number | null {
  try {
    process.cwd();
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    const name = argv.find((a) => !a.startsWith('-')) ?? 'episteme';
    const output = new Output(name, argv.includes('--json'), 'never', stdoutWriter, stderr);
    return output.failure({
      code: 'input-not-found',
      message: 'The current folder no longer exists: it was deleted or moved after this shell entered it.',
      hint: 'Change to a folder that exists (cd), or to the recreated one (cd "$PWD"), and run the command again.',
    });
  }
}

/**
 * `argv` with every value-taking option of the command followed by a word that starts with one "-"
 * and is no option of that command (`-1`, `-x`) joined to it (`--limit=-1`); null when there is none.
 * A word starting with "--" stays an option, so a forgotten value before `--json` is still reported.
 */
function attachDashValues(cli: Cli, argv: string[]): string[] | null {
  const first = argv[0];
  const definition = first === undefined ? undefined : cli.definitions({ colored: false }).find((d) => d.path === `episteme ${first}`);
  if (definition === undefined) return null;
  const valued = new Set<string>();
  const known = new Set<string>(['-h']);
  for (const option of definition.options)
    for (const name of option.nameSet) {
      known.add(name);
      if (/#0|\.\.\./.test(option.definition)) valued.add(name);
    }
  const out: string[] = [argv[0]!];
  let changed = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (valued.has(arg) && next !== undefined && /^-[^-]/.test(next) && !known.has(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
      changed = true;
    } else out.push(arg);
  }
  return changed ? out : null;
}

/** A parse error as the problem and its fix (see usage-errors.ts); clipanion's message is the fallback. */
function describeParseError(cli: Cli, commands: CommandTable, argv: string[], error: unknown): UsageProblem {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !(first in commands)) return unknownCommand(first, Object.keys(commands));
  if (first !== undefined && first in commands) {
    const definition = cli.definitions({ colored: false }).find((d) => d.path === `episteme ${first}`);
    const problem = definition ? diagnoseOptions(first, argv.slice(1), definition.options) : null;
    if (problem) return problem;
  }
  // clipanion's own words, without its "did you mean" list (which can be empty) or the usage dump, both
  // after a blank line; an argument it quotes may hold a newline of its own (Output shows it escaped).
  let message = error instanceof Error ? error.message.split('\n\n')[0]!.replace(/^Usage Error: /, '') : String(error);
  if (/^Command not found/.test(message))
    message = first && first in commands ? `Invalid arguments for \`episteme ${first}\`.` : 'Invalid command line.';
  return { message, hint: `Run \`episteme ${first && first in commands ? `${first} ` : ''}--help\`.` };
}
