import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Builtins, Cli, type CommandClass } from 'clipanion';
import { REPO_ROOT } from '../helpers/rig.js';
import { commandClasses } from '../helpers/command-classes.js';

/**
 * The bundles replace clipanion's simplifyMachine with scripts/bundle/clipanion-simplify-machine.mjs
 * (set lookups instead of quadratic duplicate checks). Both must build the same parser: compared
 * here, transition by transition and in order, on the machine of every command alone (what a run
 * of one command builds) and of all of them with the builtins (what `episteme --help` and an
 * unknown command build).
 */

type Machine = { nodes: unknown[] };
interface ClipanionCore {
  makeAnyOfMachine(machines: Machine[]): Machine;
  simplifyMachine(machine: Machine): void;
  makeStateMachine(): Machine;
  makeNode(): unknown;
  injectNode(machine: Machine, node: unknown): number;
  registerStatic(machine: Machine, from: number, segment: string, to: number, reducer?: unknown): void;
  registerDynamic(machine: Machine, from: number, test: unknown, to: number, reducer?: unknown): void;
  registerShortcut(machine: Machine, from: number, to: number): void;
}
interface Builder {
  compile(): { machine: Machine };
}

const importFile = async <T>(file: string): Promise<T> => (await import(pathToFileURL(file).href)) as T;

/** The unsimplified machine of a CLI with these commands, as clipanion's CliBuilder.compile makes it. */
function rawMachine(core: ClipanionCore, classes: CommandClass[]): Machine {
  const cli = new Cli({ binaryName: 'episteme', enableColors: false });
  for (const commandClass of classes) cli.register(commandClass);
  const builders = (cli as unknown as { builder: { builders: Builder[] } }).builder.builders;
  return core.makeAnyOfMachine(builders.map((builder) => builder.compile().machine));
}

test('the bundled simplifyMachine builds the same parser as clipanion for every command and for the whole CLI', async () => {
  const core = await importFile<ClipanionCore>(path.join(REPO_ROOT, 'node_modules/clipanion/lib/core.mjs'));
  const replacement = await importFile<{ simplifyMachine(machine: Machine): void }>(
    path.join(REPO_ROOT, 'scripts/bundle/clipanion-simplify-machine.mjs'),
  );
  const classes = await commandClasses();
  assert.ok(classes.length >= 12, `found ${classes.length} command classes`);
  const sets: CommandClass[][] = [
    ...classes.map((commandClass) => [commandClass]),
    [...classes, Builtins.HelpCommand, Builtins.VersionCommand],
  ];
  for (const set of sets) {
    const expected = rawMachine(core, set);
    const actual = rawMachine(core, set);
    core.simplifyMachine(expected);
    replacement.simplifyMachine(actual);
    assert.ok(
      isDeepStrictEqual(actual, expected),
      `machines differ for ${set.map((commandClass) => commandClass.paths?.[0]?.join(' ') ?? commandClass.name).join(', ')}`,
    );
  }
});

/**
 * Shortcuts that reach one node by two ways (a diamond, and a cycle back to the start): the
 * transitions of that node arrive twice and only the first copy stays. Commands' machines never do
 * this today, so without it the duplicate checks would go untested.
 */
function diamondMachine(core: ClipanionCore): Machine {
  const machine = core.makeStateMachine();
  const [top, left, right, bottom, tail] = [0, 1, 2, 3, 4].map(() => core.injectNode(machine, core.makeNode())) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const sharedTest = ['isOption', '--shared'];
  core.registerStatic(machine, 0, '\u0001', top);
  core.registerShortcut(machine, top, left);
  core.registerShortcut(machine, top, right);
  core.registerShortcut(machine, left, bottom);
  core.registerShortcut(machine, right, bottom);
  core.registerShortcut(machine, bottom, tail);
  core.registerShortcut(machine, tail, top);
  core.registerDynamic(machine, left, ['isOption', '--left'], tail, 'pushTrue');
  core.registerDynamic(machine, right, sharedTest, tail, 'pushTrue');
  core.registerDynamic(machine, bottom, sharedTest, tail, 'pushTrue');
  core.registerDynamic(machine, bottom, ['isOption', '--bottom'], tail, 'pushTrue');
  core.registerStatic(machine, bottom, 'go', 1, 'pushPath');
  core.registerStatic(machine, right, 'go', 1, 'pushPath');
  core.registerStatic(machine, tail, '\u0000', 1);
  return machine;
}

test('the bundled simplifyMachine drops the same duplicate transitions as clipanion', async () => {
  const core = await importFile<ClipanionCore>(path.join(REPO_ROOT, 'node_modules/clipanion/lib/core.mjs'));
  const replacement = await importFile<{ simplifyMachine(machine: Machine): void }>(
    path.join(REPO_ROOT, 'scripts/bundle/clipanion-simplify-machine.mjs'),
  );
  const expected = diamondMachine(core);
  const actual = diamondMachine(core);
  core.simplifyMachine(expected);
  replacement.simplifyMachine(actual);
  assert.deepEqual(actual, expected);
});

test('both bundles carry the replacement simplifyMachine', () => {
  for (const bundle of [
    'dist/bundle/query-main.cjs',
    ...fs.readdirSync(path.join(REPO_ROOT, 'dist/bundle')).map((f) => `dist/bundle/${f}`),
  ]) {
    if (!/\.c?js$/.test(bundle)) continue;
    const text = fs.readFileSync(path.join(REPO_ROOT, bundle), 'utf8');
    if (!text.includes('function simplifyMachine(')) continue;
    assert.ok(text.includes('dynamicTargets'), `${bundle} has clipanion's original simplifyMachine`);
  }
  assert.ok(fs.readFileSync(path.join(REPO_ROOT, 'dist/bundle/query-main.cjs'), 'utf8').includes('dynamicTargets'));
});
