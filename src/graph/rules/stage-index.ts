import * as path from 'node:path';
import type { Workspace } from '../../config/workspace.js';
import { canonicalJson } from '../../store/canonical-json.js';
import {
  STAGE_SEGMENT_FILE_NAME,
  stageIndexBytes,
  stageManifestBytes,
  stageSegmentBytes,
  stageSegmentFileName,
  type StageIndexEntry,
  type StageIndexKind,
  type StageSegmentRef,
} from '../../store/stage-index.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../../rule-versions.js';
import type { IndexRuleId, SegmentRuleId } from '../graph.js';
import { readDependencyOutput } from './files.js';
import type { DepView, Rule, RuleEnv } from './types.js';

/**
 * Stage indexes: the atomic commit point of a stage, naming each document's file and its SHA-256, in
 * document-id order. Unsegmented, one file of entries; segmented (graph.ts), a manifest naming the
 * segment files, each a target of its own over a bounded run of documents, so an edit rewrites one
 * segment and the manifest.
 */

const NO_OPTIONS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** The segment rule and the index rule of one stage index. */
export function stageIndexRules(kind: StageIndexKind, dirOf: (ws: Workspace) => string): { segment: Rule; index: Rule } {
  const segment: Rule = {
    rule: `${kind}-segment` as SegmentRuleId,
    // The format shapes the bytes: a workspace committed in another format is rebuilt, not reused.
    version: () => STAGE_INDEX_FORMAT_VERSION,
    options: () => NO_OPTIONS,
    dataFiles: (ws) => [[dirOf(ws), (name) => STAGE_SEGMENT_FILE_NAME.test(name)]],
    run: async (env, node, deps, missing) => {
      const dir = dirOf(env.ws);
      const entries = entriesOf(env, kind, dir, node.name, deps);
      const bytes = stageSegmentBytes(
        kind,
        entries.map((entry) => canonicalJson(entry)),
      );
      return {
        bytes,
        outputPath: (sha256) => `${dir}/${stageSegmentFileName(sha256)}`,
        facts: {
          entries: String(entries.length),
          firstDocumentId: entries[0]?.documentId ?? '',
          lastDocumentId: entries.at(-1)?.documentId ?? '',
          ...(missing.length > 0 ? { missingSources: JSON.stringify(missing) } : {}),
        },
      };
    },
  };
  const index: Rule = {
    rule: kind as IndexRuleId,
    version: () => STAGE_INDEX_FORMAT_VERSION,
    options: () => NO_OPTIONS,
    dataFiles: () => [],
    run: async (env, node, deps, missing) => {
      const dir = dirOf(env.ws);
      if (node.kind === 'index' && node.segmented) {
        const refs = deps.map(
          (dep): StageSegmentRef => ({
            entries: Number(dep.record.facts?.entries ?? 0),
            file: path.posix.basename(dep.record.output),
            firstDocumentId: dep.record.facts?.firstDocumentId ?? '',
            lastDocumentId: dep.record.facts?.lastDocumentId ?? '',
            sha256: dep.sha256,
          }),
        );
        return { bytes: stageManifestBytes(kind, refs, missing), outputPath: () => node.name };
      }
      const entries = entriesOf(env, kind, dir, node.name, deps);
      return {
        bytes: stageIndexBytes(
          kind,
          entries.map((entry) => canonicalJson(entry)),
          missing,
        ),
        outputPath: () => node.name,
      };
    },
  };
  return { segment, index };
}

/**
 * The entries of these per-document dependencies (in document-id order, as the graph lists them). An
 * index vouches for the SHA-256 of every file it names: a file is read and checked the first time this
 * target names it with that hash, unless this process wrote it from the bytes it hashed. A file that
 * fails fails this target once and drops its record, so the next build rebuilds it.
 */
function entriesOf(env: RuleEnv, kind: StageIndexKind, dir: string, target: string, deps: DepView[]): StageIndexEntry[] {
  const committed = env.state.targets.get(target)?.components.inputs ?? {};
  for (const dep of deps)
    if (committed[dep.name] !== dep.sha256 && !env.memory.writtenFromHashedBytes.has(dep.record))
      readDependencyOutput(env, dep.name, dep.record.output, dep.sha256);
  return deps.map((dep) => stageIndexEntry(kind, dir, dep));
}

function stageIndexEntry(kind: StageIndexKind, dir: string, dep: DepView): StageIndexEntry {
  const entry: StageIndexEntry & Record<string, string> = {
    documentId: dep.source!.documentId,
    sourceUrl: dep.source!.spec.url,
    file: dep.record.output.slice(dir.length + 1),
    sha256: dep.record.sha256,
  };
  if (kind === 'snapshot-index') {
    entry.snapshotId = dep.record.facts?.snapshotId ?? '';
    entry.body = (dep.record.facts?.body ?? '').slice(dir.length + 1);
    entry.captureMethod = dep.record.facts?.captureMethod ?? '';
  }
  return entry;
}
