import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import { EpistemeError } from '../failure.js';
import { checkUserOutputFile, writeUserOutputFile } from '../config/user-output-file.js';
import { protectedFolders } from './workspace-command.js';
import { GraphCommand, targetsOfRules, aggregateNames } from './build-runner.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';

export class IndexCommand extends GraphCommand {
  static override paths = [['index']];
  static override usage = Command.Usage({
    category: 'Stages',
    description: 'Build the deterministic BM25 search index over all chunks.',
    details:
      `
      Builds \`chunks/search-index.json\` (and whatever it needs). The index stores integers only (counts, lengths, ` +
      `term frequencies) and records the fingerprint of the chunk index it was built from, so a query on a stale index fails with ` +
      `\`stale-index\`. BM25 parameters come from options.index.k1 and options.index.b (defaults 1.2 and 0.75).

      \`--out PATH\` also writes a copy of the index to PATH; \`--out -\` (requires --json) returns it in the envelope as ` +
      `\`data.artifact\` instead of mixing it with human output.
    `,
    examples: [
      ['Build the search index', 'episteme index'],
      ['Return the index in the JSON envelope', 'episteme index --out - --json'],
    ],
  });
  readonly commandName = 'index';
  out = Option.String('--out', { description: 'Also write the index to this path, or - to return it as data.artifact (requires --json).' });

  async run(output: Output): Promise<CommandResult> {
    if (this.out === '-' && !this.json) {
      throw new EpistemeError('usage-error', '--out - requires --json: the index is returned as data.artifact in the envelope.', {
        hint: 'Run `episteme index --out - --json`, or give --out a file path.',
      });
    }
    const ws = await this.workspace();
    // A bad --out fails before any work is done (and is checked again when written).
    if (this.out !== undefined && this.out !== '-')
      checkUserOutputFile(this.out, { flag: '--out', cwd: process.cwd(), protectedFolders: protectedFolders(ws) });
    const { result } = await this.runTargets(output, ws, targetsOfRules(ws, ['search-index']));
    // Diagnostics inside built documents do not stop the copy: the index is complete.
    if ((result.failure && result.failure.code !== 'document-diagnostics') || this.out === undefined) return result;
    const indexPath = path.join(ws.root, aggregateNames(ws).searchIndex);
    const text = fs.readFileSync(indexPath, 'utf8');
    if (this.out === '-') {
      result.data.artifact = JSON.parse(text) as unknown;
    } else {
      writeUserOutputFile(this.out, text, { flag: '--out', cwd: process.cwd(), protectedFolders: protectedFolders(ws) });
      // A segmented index is its manifest and the segment files it names, beside it: copy those too.
      const manifest = (JSON.parse(text) as { payload: { manifest?: { segments: [string][] } } }).payload.manifest;
      for (const [file] of manifest?.segments ?? []) {
        const copy = path.join(path.dirname(this.out), file);
        writeUserOutputFile(copy, fs.readFileSync(path.join(path.dirname(indexPath), file)), {
          flag: '--out',
          cwd: process.cwd(),
          protectedFolders: protectedFolders(ws),
        });
      }
      result.data.out = this.out;
      result.human.push(`wrote ${this.out}`);
    }
    return result;
  }
}
