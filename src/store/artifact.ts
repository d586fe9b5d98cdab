import { createHash } from 'node:crypto';
import { canonicalJson, canonicalJsonFile } from './canonical-json.js';
import { sha256Hex } from './hash.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { EpistemeError } from '../failure.js';
import { parseArtifactUnverified, type Artifact, type ArtifactKind } from './artifact-header.js';

export type { Artifact, ArtifactKind } from './artifact-header.js';

/**
 * Every derived artifact shares one envelope (schema/artifact.schema.json): its kind, a format
 * version, the producer, and a content fingerprint over everything else. Readers verify the
 * fingerprint, so a truncated or edited artifact is detected by the file itself.
 */
export function makeArtifact<T>(kind: ArtifactKind, formatVersion: number, payload: T): Artifact<T> {
  const body = { artifact: kind, formatVersion, producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION }, payload };
  return { ...body, fingerprint: 'sha256:' + sha256Hex(canonicalJson(body)) };
}

/** Serialises an artifact to its exact on-disk bytes. */
export function artifactBytes(artifact: Artifact): string {
  return canonicalJsonFile(artifact);
}

const PRODUCER_JSON = canonicalJson({ name: PRODUCER_NAME, version: PRODUCER_VERSION });

/**
 * The bytes artifactBytes(makeArtifact(kind, formatVersion, payload)) gives, serialising the payload
 * once: the envelope's keys in code-unit order are artifact, fingerprint, formatVersion, payload,
 * producer, and the fingerprint covers the same text without its own key.
 */
export function artifactFile(kind: ArtifactKind, formatVersion: number, payload: unknown): string {
  return artifactFileOfPayloadJson(kind, formatVersion, canonicalJson(payload));
}

/** artifactFile for a payload already given as canonical JSON. */
export function artifactFileOfPayloadJson(kind: ArtifactKind, formatVersion: number, payloadJson: string): string {
  const head = `{"artifact":${JSON.stringify(kind)},`;
  const before = `"formatVersion":${formatVersion},"payload":`;
  const after = `,"producer":${PRODUCER_JSON}}`;
  // Hashed piece by piece: the same digest as of head + rest, without first copying a multi-megabyte
  // payload into one flat string for the hasher (the pieces split no character).
  const fingerprint = createHash('sha256').update(head).update(before).update(payloadJson).update(after).digest('hex');
  return `${head}"fingerprint":"sha256:${fingerprint}",${before}${payloadJson}${after}\n`;
}

/**
 * artifactFileOfPayloadJson as UTF-8 bytes, with their SHA-256, for a payload already encoded as
 * UTF-8. A stage worker encodes a large artifact once and hashes bytes: hashing or copying one
 * multi-megabyte JavaScript string instead converts it again each time (a spec with one non-Latin-1
 * character makes the whole string two bytes per character). The buffer is its own ArrayBuffer, so a
 * worker can transfer it to the main thread instead of copying it.
 */
export function artifactFileBytes(kind: ArtifactKind, formatVersion: number, payload: Uint8Array): { bytes: Buffer; sha256: string } {
  const head = `{"artifact":${JSON.stringify(kind)},`;
  const before = `"formatVersion":${formatVersion},"payload":`;
  const after = `,"producer":${PRODUCER_JSON}}`;
  const fingerprint = createHash('sha256').update(head).update(before).update(payload).update(after).digest('hex');
  const prefix = Buffer.from(`${head}"fingerprint":"sha256:${fingerprint}",${before}`, 'utf8');
  const suffix = Buffer.from(`${after}\n`, 'utf8');
  const bytes = Buffer.allocUnsafeSlow(prefix.length + payload.length + suffix.length);
  prefix.copy(bytes, 0);
  bytes.set(payload, prefix.length);
  suffix.copy(bytes, prefix.length + payload.length);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The UTF-8 bytes of `pieces` joined (a piece given as bytes is taken as UTF-8 already), written into
 * one buffer (no joined string is made), and where each piece starts in them (offsets[i];
 * offsets[pieces.length] is the end).
 */
export function utf8OfPieces(pieces: readonly (string | Uint8Array)[]): { bytes: Buffer; offsets: number[] } {
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : piece.length;
  const bytes = Buffer.allocUnsafe(length);
  const offsets = new Array<number>(pieces.length + 1);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) {
    offsets[i] = at;
    const piece = pieces[i]!;
    if (typeof piece === 'string') at += bytes.write(piece, at, 'utf8');
    else {
      bytes.set(piece, at);
      at += piece.length;
    }
  }
  offsets[pieces.length] = at;
  return { bytes, offsets };
}

/** Parses and verifies an artifact; `label` names the file in errors. */
export function parseArtifact<T>(text: string, expectedKind: ArtifactKind, expectedFormat: number, label: string): Artifact<T> {
  const candidate = parseArtifactUnverified<T>(text, expectedKind, expectedFormat, label);
  const { fingerprint, ...body } = candidate;
  const actual = 'sha256:' + sha256Hex(canonicalJson(body));
  if (fingerprint !== actual) {
    throw new EpistemeError('artifact-invalid', `${label} fails its fingerprint check (tampered or truncated).`, {
      hint: 'Rebuild it with `episteme build`.',
      details: { file: label, expected: fingerprint, actual },
    });
  }
  return candidate;
}
