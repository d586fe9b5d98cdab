import { snapshotMetaFromFacts } from '../../capture/snapshot-facts.js';
import { namedOptions } from '../key.js';
import { canonicalJson } from '../../store/canonical-json.js';
import { sha256Hex } from '../../store/hash.js';
import { isPerDocumentFile, perDocumentPath } from './files.js';
import { readSnapshotBody, src } from './snapshot.js';
import type { Inspection, InspectTask } from '../../inspect/inspect.js';
import { bufferOf } from '../stage-tasks.js';
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
    const { extractOptions, extractionConfig, extractTimeoutMs } = env.stages;
    const facts = deps[0]!.record.facts ?? {};
    const meta = snapshotMetaFromFacts(facts);
    const body = readSnapshotBody(env, node, deps[0]!.name, facts.body!, meta.sha256);
    const options = extractOptions(env.ws.options.extract);
    const extractor = extractionConfig(src(node).spec, meta, options, env.ws.families)['extractor'] as Parameters<
      typeof extractTimeoutMs
    >[1];
    // Workspace families travel with the task: a worker knows only the built-in rules.
    const families = env.ws.families.length > 0 ? { families: env.ws.families } : {};
    const {
      bytes,
      sha256,
      facts: documentFacts,
    } = await env.pool.run(
      {
        stage: 'extract',
        input: { documentId: src(node).documentId, source: src(node).spec, snapshot: meta, body, options, ...families },
      },
      {
        timeoutMs: extractTimeoutMs(options, extractor, body.length),
        label: src(node).documentId,
        pdf: extractor === 'pdf',
        affinity: src(node).documentId,
        // Read for this task alone: moved to the worker, not copied (a large spec's body is megabytes).
        handOverBytes: true,
      },
    );
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

/** The inspection of a rule that inspects (its absence or another kind is a bug, not a cache defect). */
export function inspectionOf<K extends InspectTask['kind']>(blobs: RestoredBlobs, kind: K): Extract<Inspection, { ok: true; kind: K }> {
  const inspection = blobs.inspection;
  if (inspection?.kind !== kind) throw new Error(`no ${kind} inspection of the restored blobs`);
  return inspection as Extract<Inspection, { ok: true; kind: K }>;
}
