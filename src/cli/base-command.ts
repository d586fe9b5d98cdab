import { Command, Option } from 'clipanion';
import { oneOf } from './option-validators.js';
import { EpistemeError, describeCause } from '../failure.js';
import { Output, type ProgressMode } from './output.js';
import { withLocatingArgs } from './hint-commands.js';

export interface CommandResult {
  data: Record<string, unknown>;
  human: string[];
  /** Set when the command ran but reports a failure (e.g. some targets failed) along with its data. */
  failure?: EpistemeError;
}

/**
 * Options every command shares, and the one execute() that turns a command's result or error into
 * output and an exit code. Subclasses implement run().
 */
export abstract class EpistemeCommand extends Command {
  json = Option.Boolean('--json', false, {
    description: 'Print one schema-versioned JSON envelope on stdout (schema/cli-envelope.schema.json).',
  });
  progress = Option.String('--progress', 'auto', {
    description: 'Progress on stderr: auto (only when stderr is a terminal), always, never. With --json it is JSON Lines.',
    validator: oneOf(['auto', 'always', 'never'] as const),
  });
  debug = Option.Boolean('--debug', false, { description: 'Add cause details (stack traces) to failures.' });

  /**
   * Flags that reach this command's workspace from the current folder (see hint-commands.ts): every
   * `episteme <command>` a hint names gets them, so a hint runs as written where it is shown.
   */
  protected hintArgs: string[] = [];

  /** Name used in the envelope's `command` field. */
  abstract readonly commandName: string;
  abstract run(output: Output): Promise<CommandResult>;

  async execute(): Promise<number> {
    const output = new Output(this.commandName, this.json, this.progress as ProgressMode, this.context.stdout, () => this.context.stderr);
    try {
      const result = await this.run(output);
      if (result.failure) {
        return output.failure(this.describe(result.failure), result.data, result.human);
      }
      output.success(result.data, result.human);
      return 0;
    } catch (error) {
      if (error instanceof EpistemeError) return output.failure(this.describe(error));
      return output.failure({
        code: 'internal-error',
        message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
        hint: this.debug
          ? 'This is a bug in Episteme; please report it with this output.'
          : 'Rerun with --debug for details, and report it.',
        debug: this.debug ? describeCause(error) : undefined,
      });
    }
  }

  private describe(error: EpistemeError) {
    return {
      code: error.code,
      message: error.message,
      hint: error.hint === undefined ? undefined : withLocatingArgs(error.hint, this.hintArgs),
      details: error.details,
      debug: this.debug && error.cause !== undefined ? describeCause(error.cause) : undefined,
    };
  }
}

export { isPositiveInteger, isNonNegativeInteger } from './option-validators.js';
