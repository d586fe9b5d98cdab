import { type BaseContext, Command, type CommandClass } from 'clipanion';

/**
 * A command line of long options parsed without clipanion's state machine. Clipanion builds that
 * machine from every option on each start and walks it token by token: ~4.5 ms of a cold Node 24
 * query (a fifth of what the query costs above the runtime's own start), for the shape agents send
 * (`query --index F --term T --json`). The values still come from clipanion: each option's own
 * `definition` says its names and arity, and its own `transformer` turns what was given into the
 * value (defaults, repeats, validators, `--no-` negation): clipanion's custom-option protocol,
 * so the command sees exactly what `cli.process` would give it.
 *
 * Anything else is left to clipanion, which parses or reports it as before (undefined here): a
 * positional, `--`, a short or batched flag, `--help`, an unknown or misspelt option, a value that
 * looks like an option, `--flag=value` on a boolean, a missing required option, or a value its
 * validator refuses. A test compares the two parsers on generated command lines.
 */

interface OptionShape {
  preferredName: string;
  arity: number;
  allowBinding: boolean;
  names: string[];
  required: boolean;
}

interface OptionSpec {
  definition(builder: unknown, key: string): void;
  transformer(builder: unknown, key: string, state: unknown, context: unknown): unknown;
}

interface ParsedOption {
  name: string;
  value: unknown;
}

/** A long option name as clipanion's OPTION_REGEX accepts it. */
const LONG_OPTION = /^--[a-z]+(?:-[a-z]+)*$/;

export function parseLongOptions(commandClass: CommandClass, argv: readonly string[], context: BaseContext): Command | undefined {
  const paths = (commandClass.paths ?? []).filter((path) => path.length > 0 && path.every((segment, i) => argv[i] === segment));
  if (paths.length !== 1) return undefined;
  const path = paths[0]!;
  const shapes = optionShapes(commandClass);
  if (shapes === undefined) return undefined;
  const byName = new Map<string, OptionShape>();
  for (const shape of shapes.values()) for (const name of shape.names) if (LONG_OPTION.test(name)) byName.set(name, shape);
  const options: ParsedOption[] = [];
  for (let i = path.length; i < argv.length; i++) {
    const token = argv[i]!;
    if (!token.startsWith('--') || token === '--') return undefined;
    const equals = token.indexOf('=');
    if (equals >= 0) {
      const name = token.slice(0, equals);
      const shape = byName.get(name);
      if (shape === undefined || shape.arity !== 1 || !shape.allowBinding) return undefined;
      options.push({ name, value: token.slice(equals + 1) });
      continue;
    }
    const shape = byName.get(token);
    if (shape !== undefined && shape.arity === 0) {
      options.push({ name: shape.preferredName, value: true });
    } else if (shape !== undefined && shape.arity === 1) {
      const value = argv[i + 1];
      // clipanion takes the next token as the value unless it looks like an option ("-" is stdin).
      if (value === undefined || (value.startsWith('-') && value !== '-')) return undefined;
      options.push({ name: token, value });
      i++;
    } else {
      // clipanion negates `--x` as `--no-x`, but not a name that itself starts with `--no-`.
      const base = `--${token.slice('--no-'.length)}`;
      const negated = token.startsWith('--no-') && !base.startsWith('--no-') ? byName.get(base) : undefined;
      if (shape !== undefined || negated === undefined || negated.arity !== 0) return undefined;
      options.push({ name: negated.preferredName, value: false });
    }
  }
  for (const shape of shapes.values()) if (shape.required && !options.some((option) => shape.names.includes(option.name))) return undefined;
  const state = {
    candidateUsage: null,
    errorMessage: null,
    ignoreOptions: false,
    options,
    path: [...path],
    positionals: [],
    remainder: null,
    selectedIndex: 0,
    tokens: [],
  };
  const command = new commandClass();
  try {
    for (const [key, spec] of specsOf(command))
      (command as unknown as Record<string, unknown>)[key] = spec.transformer(null, key, state, context);
  } catch {
    // A value its validator refuses: clipanion reports it.
    return undefined;
  }
  command.context = context;
  command.path = [...path];
  return command;
}

/** The options of a command instance: its fields that hold clipanion option specs. */
function specsOf(command: object): [string, OptionSpec][] {
  const specs: [string, OptionSpec][] = [];
  for (const key in command) {
    const value = (command as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[Command.isOption])
      specs.push([key, value as OptionSpec]);
  }
  return specs;
}

const shapesByClass = new WeakMap<object, Map<string, OptionShape> | undefined>();

/**
 * Each option's names and arity, as its definition tells a builder; undefined when the command
 * has anything but options of arity 0 or 1 (positionals, rest, proxy), which only clipanion parses.
 */
function optionShapes(commandClass: CommandClass): Map<string, OptionShape> | undefined {
  if (shapesByClass.has(commandClass)) return shapesByClass.get(commandClass);
  let shapes: Map<string, OptionShape> | undefined = new Map();
  try {
    for (const [key, spec] of specsOf(new commandClass())) {
      let shape: OptionShape | undefined;
      const recorder = {
        addOption(option: { names: string[]; arity?: number; required?: boolean; allowBinding?: boolean }) {
          if (shape !== undefined) throw new Error('two options in one field');
          const names = [...option.names];
          shape = {
            names,
            preferredName: names.reduce((longest, name) => (name.length > longest.length ? name : longest), ''),
            arity: option.arity ?? 0,
            required: option.required ?? false,
            allowBinding: option.allowBinding ?? true,
          };
        },
      };
      spec.definition(recorder, key);
      const defined = shape as OptionShape | undefined;
      if (defined === undefined || defined.arity > 1) throw new Error('not an option of arity 0 or 1');
      shapes.set(key, defined);
    }
  } catch {
    // A positional, rest or proxy option (the recorder has no addPositional).
    shapes = undefined;
  }
  shapesByClass.set(commandClass, shapes);
  return shapes;
}
