/**
 * Parse errors in words that name the problem and the fix: an unknown command or option with the
 * nearest valid names (by edit distance), or none; a missing required option by name. clipanion's own
 * messages ("Command not found; did you mean:" with an empty list) are the fallback only.
 */

export interface OptionDefinition {
  nameSet: string[];
  definition: string;
  description?: string | undefined;
  required: boolean;
}

export interface UsageProblem {
  message: string;
  hint: string;
}

export { editDistance, nearest } from '../nearest.js';
import { nearest } from '../nearest.js';

function suggestion(names: string[]): string {
  if (names.length === 0) return '';
  const quoted = names.map((n) => `\`${n}\``);
  return `Did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`}? `;
}

/** An unknown command: the nearest command names, or none. */
export function unknownCommand(name: string, commands: readonly string[]): UsageProblem {
  const near = nearest(name, commands);
  return {
    message: `Unknown command "${name}".`,
    hint: `${suggestion(near.map((n) => `episteme ${n}`))}Run \`episteme --help\` for the list of commands.`,
  };
}

/**
 * The first unknown option, else the first missing required option, of `argv` (after the command
 * name) against the command's option definitions; null when neither explains the parse error.
 */
export function diagnoseOptions(command: string, args: readonly string[], options: readonly OptionDefinition[]): UsageProblem | null {
  const takesValue = new Map<string, boolean>();
  for (const option of options) {
    const valued = /#0|\.\.\./.test(option.definition);
    for (const name of option.nameSet) {
      takesValue.set(name, valued);
      if (!valued && name.startsWith('--')) takesValue.set(`--no-${name.slice(2)}`, false);
    }
  }
  for (const name of ['-h', '--help']) takesValue.set(name, false);
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') continue;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const valued = takesValue.get(name);
    if (valued === undefined) {
      // `->>`, `-1`: a value that starts with a dash, not an option name.
      if (!/^--?[A-Za-z]/.test(arg) && !arg.includes("'"))
        return {
          message: `Unknown option ${name} for \`episteme ${command}\`: an argument that starts with "-" is read as an option.`,
          hint: `Put it after \`--\`: \`episteme ${command} -- '${arg}'\`, or run \`episteme ${command} --help\`.`,
        };
      const near = nearest(
        name,
        [...takesValue.keys()].filter((n) => n.startsWith('--') && !n.startsWith('--no-')),
      );
      return {
        message: `Unknown option ${name} for \`episteme ${command}\`.`,
        hint: `${suggestion(near)}Run \`episteme ${command} --help\` for its options.`,
      };
    }
    seen.add(name);
    if (valued && !arg.includes('=')) i += 1;
  }
  for (const option of options) {
    if (!option.required || option.nameSet.some((n) => seen.has(n))) continue;
    const name = option.nameSet[0]!;
    return {
      message: `Missing required option ${name}${option.description ? ` (${option.description.replace(/\.$/, '')})` : ''}.`,
      hint: `Add ${name} <value>; run \`episteme ${command} --help\` for an example.`,
    };
  }
  return null;
}
