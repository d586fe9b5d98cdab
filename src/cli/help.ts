import type { Cli, CommandClass } from 'clipanion';
import { PRODUCER_VERSION } from '../version.js';

/**
 * Help in the conventions of git, npm and cargo: the root help lists commands grouped, one line
 * each; a command's help is clipanion's detailed usage with each value placeholder (`#0`) named
 * for what it takes.
 */

/** Groups in the order a new user meets them; each command's category comes from its usage. */
const GROUP_ORDER = ['Build', 'Stages', 'Retrieval'];

export function rootHelp(cli: Cli): string {
  const definitions = cli.definitions({ colored: false }).filter((d) => d.path.startsWith('episteme ') && !d.path.startsWith('episteme -'));
  const groups = new Map<string, { name: string; description: string }[]>();
  for (const d of definitions) {
    const group = d.category?.trim() || 'Other';
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group)!.push({ name: d.path.slice('episteme '.length), description: (d.description ?? '').trim() });
  }
  const ordered = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const width = Math.max(...definitions.map((d) => d.path.length - 'episteme '.length)) + 3;
  const lines = [
    `Episteme ${PRODUCER_VERSION}: record sources, extract attributable evidence offline, chunk, index and query it.`,
    '',
    'Usage: episteme <command> [options]',
  ];
  for (const group of ordered) {
    lines.push('', `${group}:`);
    for (const c of groups.get(group)!.sort((a, b) => (a.name < b.name ? -1 : 1)))
      lines.push(...wrapped(`  ${c.name.padEnd(width)}`, c.description));
  }
  lines.push(
    '',
    'Options of every command: --json (one JSON envelope on stdout), --progress auto|always|never,',
    '--debug (cause details on failures), -h/--help.',
    '',
    'Run `episteme <command> --help` for its options, defaults, limits and examples.',
    'Run `episteme --version` for the version.',
  );
  return lines.join('\n') + '\n';
}

function rank(group: string): number {
  const i = GROUP_ORDER.indexOf(group);
  return i < 0 ? GROUP_ORDER.length : i;
}

/** What each option's value is, for the usage line and the option list. */
const PLACEHOLDERS: Record<string, string> = {
  '--progress': '<auto|always|never>',
  '--format': '<dot|mermaid|json>',
  '--debounce': '<ms>',
  '--fail-on': '<error|warning|never>',
  '--config': '<file>',
  '--map': '<file|->',
  '--manifest': '<file|->',
  '--trace': '<file>',
  '--out': '<file|->',
  '--index': '<file|->',
  '--chunk-index': '<file>',
  '--before': '<folder>',
  '--after': '<folder>',
  '--snapshots': '<folder>',
  '--term': '<term>',
  '--max-age': '<seconds>',
  '--wait-lock': '<seconds>',
  '--wait-build': '<seconds>',
  '--remote-cache': '<url>',
  '--remote-cache-verify': '<0..1>',
  '--remote-cache-timeout': '<secs>',
  '--remote-cache-budget': '<secs>',
  '--shard': '<i/n>',
  '--family': '<family>',
  '--authority': '<normative|informative>',
  '--document-type': '<type>',
  '--normativity': '<normative|informative|example>',
};

const OPTION_LINE = /^ {2}(-\S+(?:,-\S+)*)( #0)? {2,}(\S.*)$/;

/** A command's detailed help, with `--flag #0` written as `--flag <what>`, the option list realigned. */
export function commandHelp(cli: Cli, command: CommandClass): string {
  const lines = cli.usage(command, { detailed: true, colored: false }).split('\n');
  const options: { at: number; left: string; description: string }[] = [];
  lines.forEach((line, at) => {
    const m = OPTION_LINE.exec(line);
    if (m) options.push({ at, left: m[2] ? `${m[1]} ${PLACEHOLDERS[m[1]!] ?? '<n>'}` : m[1]!, description: m[3]! });
  });
  const width = Math.max(0, ...options.map((o) => o.left.length)) + 3;
  for (const o of options) lines[o.at] = wrapped(`  ${o.left.padEnd(width)}`, o.description).join('\n');
  const text = lines.join('\n').replace(/(--[a-z0-9-]+) #0/g, (_, flag: string) => `${flag} ${PLACEHOLDERS[flag] ?? '<n>'}`);
  // Any other long line (the usage line, an example): wrapped at its own indent.
  return text
    .split('\n')
    .flatMap((line) => (line.length <= HELP_WIDTH ? [line] : wrapped(/^ */.exec(line)![0], line.trimStart())))
    .join('\n');
}

/** Help text fits 100 columns, as the project's own text does. */
export const HELP_WIDTH = 100;

/**
 * `text` after `lead`, word-wrapped at HELP_WIDTH with continuation lines indented to the lead's
 * width (a hanging indent, as git and cargo print option lists). A word longer than a line stays whole.
 */
function wrapped(lead: string, text: string): string[] {
  const indent = ' '.repeat(lead.length);
  const lines: string[] = [];
  let line = lead;
  for (const word of text.split(/ +/)) {
    if (word === '') continue;
    const fresh = line === lead || line === indent;
    if (!fresh && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = indent + word;
    } else line = fresh ? line + word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}
