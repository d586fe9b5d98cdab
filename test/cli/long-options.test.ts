import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { type BaseContext, Cli, Command, type CommandClass } from 'clipanion';
import { parseLongOptions } from '../../src/cli/long-options.js';
import { QueryCommand } from '../../src/cli/query.js';
import { commandClasses } from '../helpers/command-classes.js';
import { seededRandom } from '../helpers/random.js';

/**
 * The long-options parser (src/cli/long-options.ts) must give a command exactly the values
 * clipanion's parser gives it, and leave to clipanion every line clipanion would refuse. Compared on
 * generated command lines for every command: known and unknown options, values valid and not for
 * the validators, `--x=v`, `--no-x`, repeats, positionals, `--`, `-h`, values that look like options.
 */

/** The option names and arities of a command, from clipanion's own registration of it. */
function optionNames(commandClass: CommandClass): { flags: string[]; valued: string[] } {
  const cli = new Cli({ binaryName: 'episteme', enableColors: false });
  cli.register(commandClass);
  const builder = (cli as unknown as { builder: { builders: { options: { nameSet: string[]; arity: number }[] }[] } }).builder.builders[0]!;
  const flags = builder.options.filter((option) => option.arity === 0).flatMap((option) => option.nameSet);
  const valued = builder.options.filter((option) => option.arity > 0).flatMap((option) => option.nameSet);
  return { flags, valued };
}

function keysOf(command: object): string[] {
  const probe = new (command.constructor as new () => object)();
  return Object.keys(probe).filter((key) => {
    const value = (probe as Record<string, unknown>)[key];
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[Command.isOption] === true;
  });
}

const VALUES = [
  'x',
  '5',
  '0',
  '1',
  '10',
  '1001',
  '-',
  '-5',
  '--json',
  'a=b',
  '',
  ' 7 ',
  'normative',
  'informative',
  'example',
  'whatwg',
  'q"x',
];

function generateLine(
  next: () => number,
  commandPath: string[],
  names: { flags: string[]; valued: string[] },
  required: string[],
): string[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const line = [...commandPath];
  // Most lines carry the required options, so that many are accepted and compared.
  if (next() < 0.8) for (const name of required) line.push(name, pick(['x', 'chunks/search-index.json', 'conditional request']));
  const count = Math.floor(next() * 6);
  for (let i = 0; i < count; i++) {
    const kind = next();
    if (kind < 0.3 && names.valued.length > 0) line.push(pick(names.valued), pick(VALUES));
    else if (kind < 0.45 && names.valued.length > 0) line.push(`${pick(names.valued)}=${pick(VALUES)}`);
    else if (kind < 0.6 && names.flags.length > 0) line.push(pick(names.flags));
    else if (kind < 0.7 && names.flags.length > 0) line.push(`--no-${pick(names.flags).replace(/^--/, '')}`);
    else if (kind < 0.75 && names.flags.length > 0) line.push(`${pick(names.flags)}=true`);
    else if (kind < 0.8 && names.valued.length > 0) line.push(pick(names.valued));
    else line.push(pick(['--', '-h', '--help', '--nope', '-j', 'positional', '--no-no-json', '--Index', '-', '--json', '--debug']));
  }
  return line;
}

test('long options give every command the values clipanion gives it, and leave the rest to clipanion', async () => {
  const classes = await commandClasses();
  assert.ok(classes.length >= 12, `found ${classes.length} command classes`);
  const context = { env: {}, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, colorDepth: 1 } as BaseContext;
  const next = seededRandom(13);
  let accepted = 0;
  let compared = 0;
  for (const commandClass of classes) {
    const names = optionNames(commandClass);
    const cli = new Cli({ binaryName: 'episteme', enableColors: false });
    cli.register(commandClass);
    const definition = cli.definitions().find((d) => d.path.startsWith(`episteme ${commandClass.paths![0]!.join(' ')}`));
    const required = (definition?.options ?? []).filter((option) => option.required).map((option) => option.nameSet[0]!);
    for (let i = 0; i < 400; i++) {
      const line = generateLine(next, commandClass.paths![0]!, names, required);
      compared++;
      const direct = parseLongOptions(commandClass, line, context);
      if (direct === undefined) continue;
      accepted++;
      let reference: Command;
      try {
        reference = cli.process(line, context);
      } catch (error) {
        assert.fail(`clipanion refuses ${JSON.stringify(line)} (${String(error)}), the long-options parser accepted it`);
      }
      assert.equal(direct.constructor, reference.constructor, JSON.stringify(line));
      assert.deepEqual(direct.path, reference.path, JSON.stringify(line));
      for (const key of keysOf(reference)) {
        const [got, want] = [(direct as unknown as Record<string, unknown>)[key], (reference as unknown as Record<string, unknown>)[key]];
        assert.ok(
          isDeepStrictEqual(got, want),
          `${JSON.stringify(line)}: ${key} is ${JSON.stringify(got)}, clipanion gives ${JSON.stringify(want)}`,
        );
      }
    }
  }
  // The comparison means something only if the fast path took a fair share of the lines.
  assert.ok(accepted > compared / 10, `accepted ${accepted} of ${compared} lines`);
});

test("an agent's usual query line takes the long-options parser; --help, a positional and a bad value do not", () => {
  const context = { env: {}, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, colorDepth: 1 } as BaseContext;
  const line = [
    'query',
    '--index',
    'chunks/search-index.json',
    '--term',
    'conditional request',
    '--term=etag',
    '--limit',
    '5',
    '--json',
    '--no-collapse',
  ];
  const command = parseLongOptions(QueryCommand, line, context) as QueryCommand | undefined;
  assert.ok(command !== undefined);
  assert.equal(command.index, 'chunks/search-index.json');
  assert.deepEqual(command.terms, ['conditional request', 'etag']);
  assert.equal(command.limit, 5);
  assert.equal(command.collapse, false);
  for (const refused of [
    [...line, '--help'],
    [...line, 'stray'],
    ['query', '--index', 'x', '--term', 'y', '--limit', '0'],
    ['query', '--index', 'x', '--term', '-y'],
    ['query', '--index', 'x'],
    ['query', '--index', 'x', '--term', 'y', '--explain=true'],
    ['query', '--index', 'x', '--term', 'y', '--', '--json'],
  ]) {
    assert.equal(parseLongOptions(QueryCommand, refused, context), undefined, JSON.stringify(refused));
  }
  assert.notEqual(parseLongOptions(QueryCommand, ['query', '--index', '-', '--term', 'y'], context), undefined, 'stdin ("-") is a value');
});
