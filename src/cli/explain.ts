import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import type { Workspace } from '../config/workspace.js';
import { planBuild } from '../graph/plan.js';
import { describeReason } from '../graph/key.js';
import type { TargetResult } from '../graph/scheduler.js';
import { readBoundedFile } from '../store/bounded-read.js';
import { sha256Hex } from '../store/hash.js';
import { readStageIndex } from '../store/stage-index.js';
import type { CommandResult } from './base-command.js';
import { targetNames } from './build-runner.js';
import { WorkspaceCommand } from './workspace-command.js';

export class ExplainCommand extends WorkspaceCommand {
  static override paths = [['explain']];
  static override usage = Command.Usage({
    category: 'Build',
    description: 'Say whether a target is up to date and, if not, exactly why.',
    details:
      `
      Compares the recorded key components of each target (rule version, producer version, named options, content hashes of its inputs, ` +
      `its output file) with the current ones, without building. Reasons: no previous record; input changed; ` +
      `upstream rebuilt with different content; upstream dirty; option changed (named, before -> after); ` +
      `rule or producer version changed; output missing or modified. A document (specs/<doc>.json) also shows the family its last ` +
      `build read it with, and, when no family names its URL, what in its content chose that family.
    `,
    examples: [
      ['Why would the search index rebuild?', 'episteme explain chunks/search-index.json'],
      ['Explain one document', 'episteme explain specs/url-spec-whatwg-org.json --json'],
    ],
  });
  readonly commandName = 'explain';
  targets = Option.Rest({ name: 'target', required: 1 });

  async run(): Promise<CommandResult> {
    const ws = await this.workspace();
    const names = targetNames(ws, this.targets);
    const summary = await planBuild(ws, names, 'explain');
    const requested = new Set(names);
    const explained = summary.targets.filter((t) => requested.has(t.target) || t.status !== 'up-to-date');
    // Only the documents asked about: a stale workspace lists every dirty target, and documents are megabytes.
    const families = documentFamilies(
      ws,
      explained.filter((t) => requested.has(t.target)),
    );
    const human: string[] = [];
    const targets = explained.map((t) => {
      human.push(`${t.target}: ${t.status}`);
      for (const reason of t.reasons) human.push(`  - ${describeReason(reason)}`);
      const family = families.get(t.target);
      if (family === undefined) return t;
      human.push(`  family: ${family.family}${family.familyFromContent === undefined ? '' : ` (${family.familyFromContent})`}`);
      return { ...t, ...family };
    });
    return { data: { targets }, human };
  }
}

/** What explain reads of the outputs: regular files only (a FIFO put there cannot block it), at most 1 GiB. */
const bounded = (file: string, label: string): Buffer => readBoundedFile(file, { label, maxBytes: 1024 * 1024 * 1024 });

/**
 * The family each document asked about was read with, from its committed document (the last build's:
 * a dirty target may be read with another once rebuilt), and the diagnostic that says why when no
 * family names its URL and its content chose one (family-from-content). Only documents the committed
 * index names, each checked against its SHA-256; none when nothing is committed yet.
 */
function documentFamilies(ws: Workspace, targets: readonly TargetResult[]): Map<string, { family: string; familyFromContent?: string }> {
  const found = new Map<string, { family: string; familyFromContent?: string }>();
  const wanted = new Set(targets.filter((t) => t.rule === 'extract').map((t) => t.target));
  if (wanted.size === 0) return found;
  const dir = path.join(ws.root, ws.outputs.specs);
  let entries: ReturnType<typeof readStageIndex>['entries'];
  try {
    entries = readStageIndex(dir, 'document-index', { dirLabel: ws.outputs.specs, read: bounded }).entries;
  } catch {
    return found;
  }
  for (const entry of entries) {
    const target = `${ws.outputs.specs}/${entry.documentId}.json`;
    if (!wanted.has(target) || path.basename(entry.file) !== entry.file) continue;
    try {
      const bytes = bounded(path.join(dir, entry.file), 'Document');
      if (sha256Hex(bytes) !== entry.sha256) continue;
      const document = (
        JSON.parse(bytes.toString('utf8')) as { payload: { family: string; diagnostics: { code: string; message: string }[] } }
      ).payload;
      const why = document.diagnostics.find((d) => d.code === 'family-from-content')?.message;
      found.set(target, { family: document.family, ...(why === undefined ? {} : { familyFromContent: why }) });
    } catch {
      // A document that cannot be read shows no family; the target's own status says what is wrong.
    }
  }
  return found;
}
