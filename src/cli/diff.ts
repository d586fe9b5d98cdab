import { DOCUMENT_FORMAT_VERSION } from '../rule-versions.js';
import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import type { EvidenceDocument } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { parseArtifact } from '../store/artifact.js';
import { writeFileAtomic } from '../store/atomic-file.js';
import { sha256Hex } from '../store/hash.js';
import { readStageIndex } from '../store/stage-index.js';
import { isDirectory, readBoundedFile } from '../store/bounded-read.js';
import type { CommandResult } from './base-command.js';
import type { Output } from './output.js';
import { WorkspaceCommand, protectedFolders } from './workspace-command.js';
import { checkUserOutputFile, writeUserOutputFile } from '../config/user-output-file.js';
import { claimOwnedFolders, ownedFolders } from '../config/owned-folders.js';
import { readRegularFileSync } from '../regular-file.js';

/** Format versions of the artifacts a corpus is made of (see graph/rules.ts and graph/stage-tasks.ts). */

/** Default bound on the bytes read from each corpus (its index and every document it names). */
const DEFAULT_MAX_CORPUS_BYTES = 512 * 1024 * 1024;

export class DiffCommand extends WorkspaceCommand {
  static override paths = [['diff']];
  static override usage = Command.Usage({
    category: 'Retrieval',
    description: 'Compare two complete extracted corpora: added, removed and changed documents, sections and blocks.',
    details:
      `
      A corpus is a specs folder: its \`index.json\` (the document index) and the documents it names, ` +
      `each checked against its recorded SHA-256. Both corpora must be complete: a corpus whose index lists failed sources is refused ` +
      `(\`artifact-invalid\`), since its missing documents would show up as removals.

      Documents are matched by source URL (and fragment). In a changed document the report lists the changed fields, the sections added, ` +
      `removed or changed (matched by id) and the blocks added, removed or changed (aligned by content, ` +
      `so blocks whose ordinal ids shifted after an insertion are not reported). Block text appears as a SHA-256, ` +
      `a length and a short excerpt.

      Every file of a corpus must be a regular file; \`--max-input-bytes\` bounds the bytes read from each corpus (default ` +
      `${DEFAULT_MAX_CORPUS_BYTES}), checked before each file is read.

      By default the later corpus is this workspace's specs folder and the report is written to \`diffs/diff.json\` in the workspace. ` +
      `\`--out PATH\` writes it elsewhere; \`--out -\` (requires --json) returns it as \`data.artifact\`. The report is deterministic: ` +
      `the same corpora give the same bytes.
    `,
    examples: [
      ['Compare an older copy of the corpus with the workspace', 'episteme diff --before ../last-release/specs'],
      ['Compare two folders and return the report as JSON', 'episteme diff --before old/specs --after new/specs --out - --json'],
    ],
  });
  readonly commandName = 'diff';
  before = Option.String('--before', { required: true, description: 'The earlier corpus: a specs folder, or its index.json.' });
  after = Option.String('--after', { description: "The later corpus (default: this workspace's specs folder)." });
  out = Option.String('--out', {
    description: 'Write the report to this path instead of diffs/diff.json, or - to return it as data.artifact (requires --json).',
  });

  async run(_output: Output): Promise<CommandResult> {
    if (this.out === '-' && !this.json) {
      throw new EpistemeError('usage-error', '--out - requires --json: the report is returned as data.artifact in the envelope.', {
        hint: 'Run `episteme diff --before PATH --out - --json`, or give --out a file path.',
      });
    }
    const ws = this.after === undefined || this.out === undefined ? await this.workspace() : undefined;
    const outContext = { flag: '--out', cwd: process.cwd(), protectedFolders: ws === undefined ? [] : protectedFolders(ws) };
    // A bad --out fails before any work is done (and is checked again when written).
    if (this.out !== undefined && this.out !== '-') checkUserOutputFile(this.out, outContext);
    const afterPath = this.after ?? path.join(ws!.root, ws!.outputs.specs);
    const maxBytes = this.maxInputBytes ?? DEFAULT_MAX_CORPUS_BYTES;
    const before = readCorpus(this.before, 'before', maxBytes);
    const after = readCorpus(afterPath, 'after', maxBytes);
    const { diffArtifactBytes, diffCorpora } = await import('../diff/corpus-diff.js');
    const payload = diffCorpora(before, after);
    const bytes = diffArtifactBytes(payload);
    const { summary } = payload;
    const human = [
      `${summary.added} added, ${summary.removed} removed, ${summary.changed} changed, ${summary.unchanged} unchanged ` +
        `(${summary.before} -> ${summary.after} documents)`,
      ...payload.added.map((doc) => `+ ${doc.sourceUrl}`),
      ...payload.removed.map((doc) => `- ${doc.sourceUrl}`),
      ...payload.changed.map((doc) => {
        const fields = doc.fields.length > 0 ? `; fields ${doc.fields.join(', ')}` : '';
        return `~ ${doc.sourceUrl}: blocks ${changeCounts(doc.blocks)}; sections ${changeCounts(doc.sections)}${fields}`;
      }),
    ];
    const data: Record<string, unknown> = { summary };
    if (this.out === '-') {
      data.artifact = JSON.parse(bytes) as unknown;
      return { data, human };
    }
    if (this.out !== undefined) {
      writeUserOutputFile(this.out, bytes, outContext);
    } else {
      const target = path.join(ws!.root, ws!.outputs.diffs, 'diff.json');
      const remembered = this.remember(ws!, data);
      if (remembered !== null) human.push(remembered);
      // Write only when the bytes change (no mtime churn for watchers).
      if (!sameText(target, bytes)) writeFileAtomic(target, bytes);
      claimOwnedFolders(ws!.root, ownedFolders(ws!.outputs));
    }
    const target = this.out !== undefined ? path.resolve(this.out) : path.join(ws!.root, ws!.outputs.diffs, 'diff.json');
    const shown = ws !== undefined && this.out === undefined ? path.relative(ws.root, target).split(path.sep).join('/') : this.out!;
    data.out = shown;
    human.push(`wrote ${shown}`);
    return { data, human };
  }
}

/** A file name with no folder part: no separator, not `.` or `..`, no NUL. */
function isPlainName(name: unknown): boolean {
  return typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

/**
 * Reads a complete extracted corpus: a specs folder (or its index.json) and every document it names,
 * verified. Every file is a regular file read within what is left of the corpus's byte bound.
 */
function readCorpus(given: string, side: 'before' | 'after', maxBytes: number): EvidenceDocument[] {
  const indexFile = isDirectory(given) ? path.join(given, 'index.json') : given;
  let budget = maxBytes;
  const dir = path.dirname(indexFile);
  const outside = (): EpistemeError =>
    new EpistemeError('artifact-invalid', `${indexFile} names a file outside its folder; the ${side} corpus is not used.`, {
      hint: 'A document index names files in its own folder only: rebuild the corpus with `episteme build`.',
      details: { corpus: side, file: indexFile },
    });
  const read = (file: string, label: string): Buffer => {
    // Only files beside the index: a name that leaves the folder is refused before the file system is
    // asked anything, so the answer is the same whether or not that file exists.
    if (file !== indexFile && !isPlainName(path.relative(dir, file))) throw outside();
    const bytes = readBoundedFile(file, {
      label,
      maxBytes: budget,
      tooLargeHint:
        `Raise the bound with --max-input-bytes=BYTES ` +
        `(default ${DEFAULT_MAX_CORPUS_BYTES}; it bounds each corpus) if the corpus is trusted.`,
    });
    budget -= bytes.byteLength;
    return bytes;
  };
  let indexBytes: Buffer;
  try {
    indexBytes = read(indexFile, `The ${side} corpus's document index`);
  } catch (error) {
    if (!(error instanceof EpistemeError) || error.code !== 'input-not-found') throw error;
    throw new EpistemeError('input-not-found', `The ${side} corpus has no document index at ${indexFile}.`, {
      hint: 'Give a specs folder (with its index.json) built by `episteme extract` or `episteme build`.',
      details: { corpus: side, file: indexFile },
    });
  }
  // A segmented index names its segment files beside it: each is read within the budget and checked against it.
  const index = {
    payload: readStageIndex(dir, 'document-index', {
      dirLabel: dir,
      indexBytes,
      read: (file) => read(file, `The ${side} corpus's document index segment`),
    }),
  };
  if (index.payload.missingSources.length > 0) {
    throw new EpistemeError(
      'artifact-invalid',
      `The ${side} corpus is incomplete: ${index.payload.missingSources.length} source(s) failed extraction.`,
      {
        hint: 'Diff compares complete corpora only; rebuild the corpus once every source extracts.',
        details: { corpus: side, missingSources: index.payload.missingSources },
      },
    );
  }
  return index.payload.entries.map((entry) => {
    // path.join would fold `a/../..` away: the name as written is what must stay in the folder.
    if (!isPlainName(entry.file)) throw outside();
    const file = path.join(dir, entry.file);
    let bytes: Buffer;
    try {
      bytes = read(file, `The ${side} corpus's document`);
    } catch (error) {
      if (!(error instanceof EpistemeError) || error.code !== 'input-not-found') throw error;
      throw new EpistemeError('artifact-invalid', `${file} (named by ${indexFile}) is missing.`, {
        hint: 'Rebuild the corpus.',
        details: { corpus: side, file },
      });
    }
    if (sha256Hex(bytes) !== entry.sha256) {
      throw new EpistemeError('artifact-invalid', `${file} does not match the SHA-256 recorded in ${indexFile} (tampered or truncated).`, {
        hint: 'Rebuild the corpus.',
        details: { corpus: side, file },
      });
    }
    return parseArtifact<EvidenceDocument>(bytes.toString('utf8'), 'document', DOCUMENT_FORMAT_VERSION, file).payload;
  });
}

/** "+added -removed ~changed": the counts of one part (blocks or sections) of a changed document. */
function changeCounts(part: { added: unknown[]; removed: unknown[]; changed: unknown[] }): string {
  return `+${part.added.length} -${part.removed.length} ~${part.changed.length}`;
}

/** Whether `file` is a regular file holding `text` (a FIFO or device there is replaced, never read). */
function sameText(file: string, text: string): boolean {
  try {
    return readRegularFileSync(file, 'utf8') === text;
  } catch {
    return false;
  }
}
