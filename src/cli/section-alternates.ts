import * as path from 'node:path';
import { findConfigUpward } from '../store/find-workspace.js';
import { readBoundedFile } from '../store/bounded-read.js';
import { DEFAULT_MAX_INDEX_INPUT_BYTES, DEFAULT_MAX_INPUT_BYTES, userJsonText } from '../store/bounded-input.js';
import { sha256Hex } from '../store/hash.js';
import type { SectionAlternates } from '../query/section.js';

/**
 * The other ids of a document's sections, read from its evidence document in the workspace the search
 * index belongs to: an older anchor before a heading, rfc2629.xslt's `rfc.section.5.5` beside
 * `fields.values`, a Texinfo node's `SEC172`. Chunk rows carry the ids a search cites, not these, so a
 * link from another document into one (`show URL#rfc.section.5.5`, MCP `read`) found nothing. Read on
 * such a miss only, and only a document whose evidence is the one the index was built from (its file
 * as specs/index.json names it, with that SHA-256, of the snapshot the index cites); anything else
 * (an index outside a workspace, a rebuilt document, a damaged file) answers null, and the citation
 * stays not found.
 */
export function workspaceSectionAlternates(searchIndex: string): SectionAlternates {
  return (documentId, snapshotId) => {
    try {
      return alternatesOf(searchIndex, documentId, snapshotId);
    } catch {
      return null;
    }
  };
}

interface SpecsEntry {
  documentId?: unknown;
  file?: unknown;
  sha256?: unknown;
}

interface EvidenceSection {
  id: string;
  fragment: string | null;
  alternateIds?: string[];
}

function alternatesOf(searchIndex: string, documentId: string, snapshotId: string): Map<string, string> | null {
  const config = findConfigUpward(path.dirname(path.resolve(searchIndex)));
  if (config === null) return null;
  const root = path.dirname(config);
  const outputs = (JSON.parse(readJson(config, DEFAULT_MAX_INPUT_BYTES)) as { outputs?: { specs?: unknown } }).outputs;
  const specs = path.resolve(root, typeof outputs?.specs === 'string' ? outputs.specs : 'specs');
  if (!isInside(root, specs)) return null;
  const entries = (
    JSON.parse(readJson(path.join(specs, 'index.json'), DEFAULT_MAX_INDEX_INPUT_BYTES)) as { payload?: { entries?: SpecsEntry[] } }
  ).payload?.entries;
  const entry = entries?.find((e) => e.documentId === documentId);
  if (typeof entry?.file !== 'string' || typeof entry.sha256 !== 'string' || entry.file !== path.basename(entry.file)) return null;
  const bytes = readBoundedFile(path.join(specs, entry.file), { label: 'Evidence document', maxBytes: DEFAULT_MAX_INDEX_INPUT_BYTES });
  if (sha256Hex(bytes) !== entry.sha256) return null;
  const document = (
    JSON.parse(bytes.toString('utf8')) as { payload?: { provenance?: { snapshotId?: unknown }; sections?: EvidenceSection[] } }
  ).payload;
  if (document?.provenance?.snapshotId !== snapshotId) return null;
  const alternates = new Map<string, string>();
  for (const section of document.sections ?? [])
    for (const id of section.alternateIds ?? []) if (!alternates.has(id)) alternates.set(id, section.fragment ?? section.id);
  return alternates;
}

function readJson(file: string, maxBytes: number): string {
  return userJsonText(readBoundedFile(file, { label: 'Workspace file', maxBytes }));
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
