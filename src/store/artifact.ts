import { canonicalJson, canonicalJsonFile } from './canonical-json.js';
import { sha256Hex } from './hash.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { EpistemeError } from '../failure.js';

/**
 * Every derived artifact shares one envelope (schema/artifact.schema.json): its kind, a format
 * version, the producer, and a content fingerprint over everything else. Readers verify the
 * fingerprint, so a truncated or edited artifact is detected by the file itself.
 */
export type ArtifactKind =
  | 'document'
  | 'document-chunks'
  | 'snapshot-index'
  | 'document-index'
  | 'chunk-index'
  | 'search-index'
  | 'diff';

export interface Artifact<T = unknown> {
  artifact: ArtifactKind;
  formatVersion: number;
  producer: { name: string; version: string };
  fingerprint: string;
  payload: T;
}

export function makeArtifact<T>(kind: ArtifactKind, formatVersion: number, payload: T): Artifact<T> {
  const body = { artifact: kind, formatVersion, producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION }, payload };
  return { ...body, fingerprint: 'sha256:' + sha256Hex(canonicalJson(body)) };
}

/** Serialises an artifact to its exact on-disk bytes. */
export function artifactBytes(artifact: Artifact): string {
  return canonicalJsonFile(artifact);
}

/** Parses and verifies an artifact; `label` names the file in errors. */
export function parseArtifact<T>(text: string, expectedKind: ArtifactKind, expectedFormat: number, label: string): Artifact<T> {
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
    throw new EpistemeError('artifact-invalid', `${label} is not a ${expectedKind} artifact.`, { details: { file: label } });
  }
  if (candidate.formatVersion !== expectedFormat) {
    throw new EpistemeError(
      'artifact-invalid',
      `${label} has ${expectedKind} format version ${String(candidate.formatVersion)}; this Episteme reads version ${expectedFormat}.`,
      { hint: 'Rebuild it with this version: `episteme build`.', details: { file: label } },
    );
  }
  const { fingerprint, ...body } = candidate;
  const actual = 'sha256:' + sha256Hex(canonicalJson(body));
  if (fingerprint !== actual) {
    throw new EpistemeError('artifact-invalid', `${label} fails its fingerprint check (tampered or truncated).`, {
      hint: 'Rebuild it with `episteme build`.',
      details: { file: label, expected: fingerprint, actual },
    });
  }
  return candidate as Artifact<T>;
}
