import { snapshotMetaFromFacts } from '../../capture/snapshot-facts.js';
import { namedOptions } from '../key.js';
import { canonicalJson } from '../../store/canonical-json.js';
import { sha256Hex } from '../../store/hash.js';
import { isPerDocumentFile, perDocumentPath } from './files.js';
import { readSnapshotBody, src } from './snapshot.js';
import type { Inspection, InspectTask } from '../../inspect/inspect.js';
import { bufferOf, type StageTask } from '../stage-tasks.js';
import type { TaskBounds } from '../stage-pool.js';
import type { StageModules } from '../stage-modules.js';
import type { Workspace, WorkspaceSource } from '../../config/workspace.js';
import type { SnapshotMeta } from '../../document/types.js';
import type { RestoredBlobs, Rule } from './types.js';

/** A snapshot's body extracted, on a stage worker, into an evidence document. */
export const extractRule: Rule = {
  rule: 'extract',
  dataFiles: (ws) => [[ws.outputs.specs, isPerDocumentFile]],
  version: (env) => env.stages.extractRuleVersion,
  options: (env, node, deps) => {
    const { extractionConfig, extractOptions } = env.stages;
    const meta = snapshotMetaFromFacts(deps[0]!.record.facts ?? {});
    return namedOptions('extract', extractionConfig(src(node).spec, meta, extractOptions(env.ws.options.extract), env.ws.families));
  },
  run: async (env, node, deps) => {
    const facts = deps[0]!.record.facts ?? {};
    const meta = snapshotMetaFromFacts(facts);
    const body = readSnapshotBody(env, node, deps[0]!.name, facts.body!, meta.sha256);
    const { task, bounds } = extractTask(env.stages, env.ws, src(node), meta, body);
    const { bytes, sha256, facts: documentFacts } = await env.pool.run(task, bounds);
    return {
      bytes: bufferOf(bytes),
      sha256,
      outputPath: perDocumentPath(env.ws.outputs.specs, src(node).documentId),
      facts: documentFacts,
    };
  },
  cache: {
    inspects: 'document',
    restore: (env, node, deps, blobs, context) => {
      const label = `the cached document of ${node.name}`;
      const document = inspectionOf(blobs, 'document');
      const snapshotId = deps[0]?.record.facts?.snapshotId;
      if (document.documentId !== src(node).documentId) throw new Error(`${label} is of document ${JSON.stringify(document.documentId)}`);
      if (document.snapshotId !== snapshotId) throw new Error(`${label} cites another snapshot`);
      // Made with this workspace's extraction config (family rules, options): the one the key names.
      const { extractionConfig, extractOptions } = env.stages;
      const meta = snapshotMetaFromFacts(deps[0]!.record.facts ?? {});
      const config = extractionConfig(src(node).spec, meta, extractOptions(env.ws.options.extract), env.ws.families);
      if (document.extractionConfigSha256 !== sha256Hex(canonicalJson(config)))
        throw new Error(`${label} was extracted with another extraction config (family rules or extract options)`);
      context.documents.set(blobs.output.sha256, { snapshotId });
      return {
        bytes: blobs.output.bytes,
        sha256: blobs.output.sha256,
        outputPath: perDocumentPath(env.ws.outputs.specs, src(node).documentId),
        facts: document.facts,
      };
    },
  },
};

/**
 * The extract task of a source's snapshot body and its bounds: what the rule runs, and what watch
 * starts while a save settles (watch/speculation.ts), so that both send the very same task.
 */
export function extractTask(
  stages: StageModules,
  ws: Workspace,
  source: WorkspaceSource,
  meta: SnapshotMeta,
  body: Uint8Array,
): { task: Extract<StageTask, { stage: 'extract' }>; bounds: TaskBounds } {
  const options = stages.extractOptions(ws.options.extract);
  const extractor = stages.extractionConfig(source.spec, meta, options, ws.families)['extractor'] as Parameters<
    StageModules['extractTimeoutMs']
  >[1];
  // Workspace families travel with the task: a worker knows only the built-in rules.
  const families = ws.families.length > 0 ? { families: ws.families } : {};
  return {
    task: { stage: 'extract', input: { documentId: source.documentId, source: source.spec, snapshot: meta, body, options, ...families } },
    bounds: {
      timeoutMs: stages.extractTimeoutMs(options, extractor, body.length),
      label: source.documentId,
      pdf: extractor === 'pdf',
      affinity: source.documentId,
      // Read for this task alone: moved to the worker, not copied (a large spec's body is megabytes).
      handOverBytes: true,
    },
  };
}

/** The inspection of a rule that inspects (its absence or another kind is a bug, not a cache defect). */
export function inspectionOf<K extends InspectTask['kind']>(blobs: RestoredBlobs, kind: K): Extract<Inspection, { ok: true; kind: K }> {
  const inspection = blobs.inspection;
  if (inspection?.kind !== kind) throw new Error(`no ${kind} inspection of the restored blobs`);
  return inspection as Extract<Inspection, { ok: true; kind: K }>;
}
