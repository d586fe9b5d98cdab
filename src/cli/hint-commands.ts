import * as path from 'node:path';
import { findConfigUpward } from '../store/find-workspace.js';
import { CONFIG_FILE_NAME } from '../store/names.js';
import { isDirectory, readBoundedFile } from '../store/bounded-read.js';
import { DEFAULT_MAX_INPUT_BYTES, userJsonText } from '../store/bounded-input.js';
import { hasUnsafeCodePoint } from './terminal-text.js';

/** The commands that find a workspace from the current folder, or from --config, --map, --manifest. */
const WORKSPACE_COMMAND = /\bepisteme (build|pipeline|snapshot|manual-ingest|extract|chunk|index|explain|graph|watch|diff)\b(?! --help)/g;

export interface LocatingFlags {
  config?: string | undefined;
  map?: string | undefined;
  manifest?: string | undefined;
}

/**
 * The flags a command printed in a hint needs to reach the same workspace as the command that printed
 * it, from the same folder: none when the nearest episteme.json (see store/find-workspace.ts) is that
 * workspace's and names the same inputs; else the --config, --map and --manifest the user gave (a map
 * or manifest the config already names is left out; stdin cannot be replayed and is left out too).
 */
export function locatingArgs(cwd: string, flags: LocatingFlags): string[] {
  const args: string[] = [];
  let config: string | null = null;
  if (flags.config !== undefined) {
    config = path.resolve(cwd, flags.config);
    if (isDirectory(config)) config = path.join(config, CONFIG_FILE_NAME);
    if (findConfigUpward(cwd) !== config) args.push('--config', shellWord(relativeFrom(cwd, config)));
  } else config = findConfigUpward(cwd);
  const named = config === null ? {} : configuredInputs(config);
  for (const [flag, given, inConfig] of [
    ['--map', flags.map, named.manualIngest],
    ['--manifest', flags.manifest, named.manifest],
  ] as const) {
    if (given === undefined || given === '-') continue;
    if (inConfig !== undefined && path.resolve(cwd, given) === inConfig) continue;
    args.push(flag, shellWord(given));
  }
  return args;
}

/** Each `episteme <command>` in a hint, with the flags that reach this workspace from here. */
export function withLocatingArgs(hint: string, args: string[]): string {
  if (args.length === 0) return hint;
  const added = ` ${args.join(' ')}`;
  // Idempotent: a hint made from another (a build's from its first failed target's) is not doubled.
  return hint.replace(WORKSPACE_COMMAND, (command: string, _name: string, offset: number) =>
    hint.startsWith(added, offset + command.length) ? command : command + added,
  );
}

/** The map and manifest a config names (absolute), read leniently: an invalid config names none. */
function configuredInputs(config: string): { manualIngest?: string; manifest?: string } {
  try {
    // Bounded and regular files only: a FIFO or a huge file given as --config must never block a hint.
    const text = userJsonText(readBoundedFile(config, { label: 'Workspace config', maxBytes: DEFAULT_MAX_INPUT_BYTES }));
    const raw = JSON.parse(text) as { manualIngest?: unknown; manifest?: unknown };
    const root = path.dirname(config);
    const out: { manualIngest?: string; manifest?: string } = {};
    if (typeof raw.manualIngest === 'string') out.manualIngest = path.resolve(root, raw.manualIngest);
    if (typeof raw.manifest === 'string') out.manifest = path.resolve(root, raw.manifest);
    return out;
  } catch {
    return {};
  }
}

function relativeFrom(cwd: string, file: string): string {
  return path.relative(cwd, file).split(path.sep).join('/') || '.';
}

/** A path as one shell word: as is when it needs no quoting, else in single quotes (ANSI-C quotes for unsafe characters). */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if (!hasUnsafeCodePoint(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  // A newline, control or invisible character: human output shows it escaped (\u000A) inside the
  // quotes, where a shell takes the escape literally and the pasted command names another path. ANSI-C
  // quoting (bash, zsh, ksh) spells it with escapes the shell decodes, in plain ASCII that human
  // output shows as it is, and --json carries the same working word.
  let quoted = "$'";
  for (const char of word) {
    const code = char.codePointAt(0)!;
    if (char === '\\' || char === "'") quoted += `\\${char}`;
    else if (!hasUnsafeCodePoint(char)) quoted += char;
    else if (code < 0x80) quoted += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code <= 0xffff) quoted += `\\u${code.toString(16).padStart(4, '0')}`;
    else quoted += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${quoted}'`;
}
