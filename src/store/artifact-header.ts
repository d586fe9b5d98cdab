import { EpistemeError } from '../failure.js';

/**
 * Every derived artifact shares one envelope (schema/artifact.schema.json): its kind, a format
 * version, the producer, and a content fingerprint over everything else (artifact.ts computes and
 * verifies it). This module reads the envelope without hashing and without importing node:crypto,
 * for readers that need only the recorded fingerprint: the query's stale check compares it with the
 * one its search index records, and loading node:crypto would cost a cold query ~7 ms.
 */
export type ArtifactKind =
  | 'document'
  | 'document-chunks'
  | 'snapshot-index'
  | 'document-index'
  | 'chunk-index'
  | 'snapshot-index-segment'
  | 'document-index-segment'
  | 'chunk-index-segment'
  | 'search-index'
  | 'search-index-segment'
  | 'diff';

export interface Artifact<T = unknown> {
  artifact: ArtifactKind;
  formatVersion: number;
  producer: { name: string; version: string };
  fingerprint: string;
  payload: T;
}

/** Parses an artifact and checks its kind and format version, but not its fingerprint. */
export function parseArtifactUnverified<T>(text: string, expectedKind: ArtifactKind, expectedFormat: number, label: string): Artifact<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new EpistemeError('artifact-invalid', `${label} is not valid JSON (truncated or corrupted).`, {
      hint: 'Rebuild it with `episteme build`.',
      details: { file: label },
      cause,
    });
  }
  const candidate = parsed as Partial<Artifact<T>>;
  if (typeof candidate !== 'object' || candidate === null || candidate.artifact !== expectedKind) {
    const found =
      typeof candidate === 'object' && candidate !== null && /^[a-z-]{1,40}$/.test(String(candidate.artifact))
        ? `a ${String(candidate.artifact)} artifact`
        : 'no Episteme artifact';
    throw new EpistemeError('artifact-invalid', `${label} is not a ${expectedKind} artifact.`, {
      hint: `It is ${found}: name the ${expectedKind} file a build wrote.`,
      details: { file: label },
    });
  }
  if (candidate.formatVersion !== expectedFormat) {
    throw new EpistemeError(
      'artifact-invalid',
      `${label} has ${expectedKind} format version ${String(candidate.formatVersion)}; this Episteme reads version ${expectedFormat}.`,
      { hint: 'Rebuild it with this version: `episteme build`.', details: { file: label } },
    );
  }
  if (typeof candidate.fingerprint !== 'string') {
    throw new EpistemeError('artifact-invalid', `${label} has no fingerprint.`, {
      hint: 'Rebuild it with `episteme build`.',
      details: { file: label },
    });
  }
  return candidate as Artifact<T>;
}
