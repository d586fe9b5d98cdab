import assert from 'node:assert/strict';
import { type CliResult, runCli } from './rig.js';

/** Every `episteme ...` command a hint names, as argument lists (quoted words unquoted). */
export function hintCommands(hint: string): string[][] {
  const commands: string[][] = [];
  for (const [, line] of hint.matchAll(/`?episteme ((?:[^`.;(]|\.(?=\S))+)/g)) {
    const words = [...line!.trim().matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    commands.push(words);
  }
  return commands;
}

/** Runs each command the failure's hint names, where it was shown; each must succeed. */
export async function runHint(result: CliResult, cwd: string): Promise<void> {
  const hint = result.json!.error!.hint!;
  const commands = hintCommands(hint);
  assert.ok(commands.length > 0, `the hint names no command: ${hint}`);
  for (const args of commands) {
    const ran = await runCli([...args, '--json'], { cwd });
    assert.equal(ran.code, 0, `hint command \`episteme ${args.join(' ')}\` failed in ${cwd}: ${ran.stdout}${ran.stderr}`);
  }
}
