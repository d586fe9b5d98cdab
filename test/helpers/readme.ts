import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './rig.js';

/**
 * The ```sh blocks of README.md under a heading (up to the next heading of the same or a higher
 * level), as written: the tests run them verbatim, so README cannot drift from what works.
 */
export function readmeBlocks(heading: string): string[] {
  const lines = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n');
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '') === heading);
  if (start < 0) throw new Error(`README.md has no heading "${heading}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const blocks: string[] = [];
  let block: string[] | null = null;
  for (const line of lines.slice(start + 1)) {
    const m = /^(#+) /.exec(line);
    if (block === null && m && m[1]!.length <= level) break;
    if (block === null && line === '```sh') block = [];
    else if (block !== null && line === '```') {
      blocks.push(block.join('\n'));
      block = null;
    } else if (block !== null) block.push(line);
  }
  return blocks;
}

/** Runs a README block with `sh -e` (each command must succeed), with `bin` first on PATH. */
export function runBlock(block: string, cwd: string, bin: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync('sh', ['-e', '-c', block], {
    cwd,
    encoding: 'utf8',
    timeout: 900_000,
    env: { ...process.env, ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' },
  });
}
