import * as path from 'node:path';
import type { CleanRecord, FileStamp, TargetRecord } from './state.js';
import type { NoopProof } from './noop-proof-files.js';

/**
 * The shape every record read from the build state must have before anything uses it. The state's
 * checksums stop damage, not edits: whoever can write .episteme/ can recompute them. So each record is
 * checked as it is read (a target record, a source file stamp, the clean record, a log line): types,
 * required fields, and every path it names workspace-relative and inside the workspace (no `..`, not
 * absolute, no backslash or NUL), so a forged record can neither make a build read a file outside the
 * workspace nor make every later command fail. A record that does not validate is damage: the caller
 * discards it (a log line: the whole state) and the targets it described are rebuilt.
 *
 * Each check returns why the value is not valid, or null when it is.
 */

const HEX = /^[0-9a-f]+$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A workspace-relative path to a file inside the workspace, in the one spelling the build writes. */
export function relativePathProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return 'is not a path';
  if (value.length > 4096) return 'is too long';
  if (value.includes('\0') || value.includes('\\')) return 'holds a NUL or a backslash';
  if (value.startsWith('/') || /^[A-Za-z]:/.test(value)) return 'is absolute';
  for (const segment of value.split('/'))
    if (segment === '' || segment === '.' || segment === '..') return 'leaves its folder (an empty, `.` or `..` segment)';
  return null;
}

function stringMapProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'is not an object';
  for (const [key, item] of Object.entries(value)) if (typeof item !== 'string') return `has a non-string value at ${JSON.stringify(key)}`;
  return null;
}

/** [size, mtimeMs, ctimeMs, ino] as stamps hold them. */
export function stampProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'is not an object';
  if (!Number.isSafeInteger(value['size']) || (value['size'] as number) < 0) return 'has no size';
  if (typeof value['mtimeMs'] !== 'string' || typeof value['ctimeMs'] !== 'string') return 'has no mtimeMs or ctimeMs';
  if (typeof value['ino'] !== 'number' || !Number.isFinite(value['ino'])) return 'has no ino';
  return null;
}

export function fileStampProblem(value: unknown): string | null {
  const stamp = stampProblem(value);
  if (stamp !== null) return stamp;
  const hash = (value as Record<string, unknown>)['hash'];
  return typeof hash === 'string' && HEX.test(hash) ? null : 'has no content hash';
}

export function targetRecordProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'is not an object';
  if (typeof value['key'] !== 'string' || value['key'] === '') return 'has no key';
  const components = value['components'];
  if (!isRecord(components)) return 'has no key components';
  if (typeof components['rule'] !== 'string') return 'names no rule';
  if (typeof components['ruleVersion'] !== 'number' || !Number.isFinite(components['ruleVersion'])) return 'has no rule version';
  if (typeof components['producerVersion'] !== 'string') return 'has no producer version';
  const options = stringMapProblem(components['options']);
  if (options !== null) return `has options that ${options}`;
  const inputs = stringMapProblem(components['inputs']);
  if (inputs !== null) return `has inputs that ${inputs}`;
  const output = relativePathProblem(value['output']);
  if (output !== null) return `has an output path that ${output}`;
  if (typeof value['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(value['sha256'])) return 'has no SHA-256';
  const stamp = stampProblem(value['stamp']);
  if (stamp !== null) return `has a stamp that ${stamp}`;
  if (value['bodyStamp'] !== undefined) {
    const body = stampProblem(value['bodyStamp']);
    if (body !== null) return `has a body stamp that ${body}`;
  }
  if (value['facts'] !== undefined) {
    const facts = stringMapProblem(value['facts']);
    if (facts !== null) return `has facts that ${facts}`;
    const body = (value['facts'] as Record<string, string>)['body'];
    if (body !== undefined) {
      const why = relativePathProblem(body);
      if (why !== null) return `has a body path that ${why}`;
    }
  }
  return null;
}

export function cleanRecordProblem(value: unknown): string | null {
  if (value === null) return null;
  if (!isRecord(value)) return 'is not an object';
  if (typeof value['invocation'] !== 'string' || typeof value['producerVersion'] !== 'string') return 'has no invocation';
  if (!isRecord(value['ruleVersions'])) return 'has no rule versions';
  for (const version of Object.values(value['ruleVersions']))
    if (typeof version !== 'number') return 'has a rule version that is not a number';
  if (!isRecord(value['files'])) return 'has no files';
  for (const stamp of Object.values(value['files'])) if (stampProblem(stamp) !== null) return 'has a file stamp that does not validate';
  const order = value['order'];
  if (!Array.isArray(order) || order.some((name) => typeof name !== 'string')) return 'has no target order';
  return null;
}

/** A state.log entry (already parsed, checksum checked): what is wrong with it, or null. */
export function logEntryProblem(entry: Record<string, unknown>): string | null {
  if ('k' in entry || 'cr' in entry) return null;
  if ('t' in entry) {
    if (typeof entry['t'] !== 'string') return 'names no target';
    if (entry['r'] === null) return null;
    const why = targetRecordProblem(entry['r']);
    return why === null ? null : `the record of ${JSON.stringify(entry['t'])} ${why}`;
  }
  if ('f' in entry) {
    if (typeof entry['f'] !== 'string') return 'names no file';
    if (entry['s'] === null) return null;
    const why = fileStampProblem(entry['s']);
    return why === null ? null : `the stamp of ${JSON.stringify(entry['f'])} ${why}`;
  }
  if ('c' in entry) {
    const why = cleanRecordProblem(entry['c']);
    return why === null ? null : `the clean record ${why}`;
  }
  return 'is of no known kind';
}

/** A target record's JSON text (state.json keeps them as text until used): the record, or null when it does not validate. */
export function parseTargetRecord(text: string): TargetRecord | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return targetRecordProblem(parsed) === null ? (parsed as TargetRecord) : null;
}

/** The source file stamps of state.json's header: why one does not validate, or null. */
export function fileStampsProblem(files: Record<string, unknown>): string | null {
  for (const [file, stamp] of Object.entries(files)) {
    const why = fileStampProblem(stamp);
    if (why !== null) return `the stamp of ${JSON.stringify(file)} ${why}`;
  }
  return null;
}

/**
 * A source file's path as the state records it: workspace-relative, with `..` only as a leading run
 * (a manual-ingest map may name files beside the workspace; the no-op check only stats them).
 */
function sourcePathProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'is not a path';
  let rest = value;
  while (rest.startsWith('../')) rest = rest.slice(3);
  return relativePathProblem(rest);
}

/** A proof's [path, size, mtimeMs, ino, ctimeMs]. */
function proofStampProblem(value: unknown, pathProblem: (path: unknown) => string | null): string | null {
  if (!Array.isArray(value) || value.length !== 5) return 'is not a [path, size, mtimeMs, ino, ctimeMs] list';
  const [file, size, mtimeMs, ino, ctimeMs] = value as unknown[];
  const why = pathProblem(file);
  if (why !== null) return `names a path that ${why}`;
  return stampProblem({ size, mtimeMs, ino, ctimeMs });
}

/** A target name as the graph spells it: a workspace path, perhaps with `#<document id>` (a segment). */
function targetNameProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'is not a string';
  return relativePathProblem(value.split('#', 1)[0]);
}

/**
 * Files the proof may name per target beside its output (a snapshot's body, a segmented index's
 * segments, one per 256 documents): far more than any corpus needs, far fewer than a forged list.
 */
const MAX_PROOF_ALSO = 100_000;

/** The no-op proof's root (noop.json, checksum already checked): what is wrong with it, or null. */
export function noopProofProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'is not an object';
  if (!Number.isSafeInteger(value['version'])) return 'has no format version';
  if (typeof value['invocation'] !== 'string' || typeof value['producerVersion'] !== 'string') return 'has no invocation';
  if (!isRecord(value['ruleVersions'])) return 'has no rule versions';
  for (const version of Object.values(value['ruleVersions']))
    if (typeof version !== 'number') return 'has a rule version that is not a number';
  // The config, map, manifest and family rules files: absolute paths, only statted.
  if (!isRecord(value['files'])) return 'has no files';
  for (const [file, stamp] of Object.entries(value['files'])) {
    if (!path.isAbsolute(file) || file.includes('\0')) return `names a file ${JSON.stringify(file)} that is not an absolute path`;
    if (stampProblem(stamp) !== null) return `has a stamp of ${JSON.stringify(file)} that does not validate`;
  }
  const state = stampProblem(value['state']);
  if (state !== null) return `has a state.json stamp that ${state}`;
  if (value['log'] !== null) {
    const log = stampProblem(value['log']);
    if (log !== null) return `has a state.log stamp that ${log}`;
  }
  const targets = targetListProblem(value['targets']);
  if (targets !== null) return targets;
  const groups = value['groups'];
  if (!Array.isArray(groups)) return 'has no group list';
  const ids = new Set<string>();
  const files = new Set<string>();
  for (const group of groups) {
    if (!Array.isArray(group) || group.length !== 3 || !group.every((item) => typeof item === 'string'))
      return 'has a group that is not an [id, file, checksum] list';
    const [id, file, checksum] = group as string[];
    if (ids.has(id!) || files.has(file!)) return `names group ${JSON.stringify(id)} twice`;
    ids.add(id!);
    files.add(file!);
    if (!/^[0-9a-f]{16}\.json$/.test(file!)) return `names a group file ${JSON.stringify(file)} a build does not write`;
    if (!/^[0-9a-f]{16}$/.test(checksum!)) return `has no checksum of group ${JSON.stringify(id)}`;
  }
  return null;
}

/** A group's proof (noop/<file>, checksum already checked): what is wrong with it, or null. */
export function groupProofProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'is not an object';
  if (typeof value['group'] !== 'string') return 'names no group';
  const sources = value['sources'];
  if (!Array.isArray(sources)) return 'has no source list';
  const sourceNames = new Set<string>();
  for (const source of sources) {
    const why = proofStampProblem(source, sourcePathProblem);
    if (why !== null) return `has a source that ${why}`;
    const name = (source as string[])[0]!;
    if (sourceNames.has(name)) return `names source ${JSON.stringify(name)} twice`;
    sourceNames.add(name);
  }
  const targets = targetListProblem(value['targets']);
  if (targets !== null) return targets;
  const targetNames = new Set((value['targets'] as unknown[][]).map((target) => target[0] as string));
  const diagnostics = value['diagnostics'];
  if (!isRecord(diagnostics)) return 'has diagnostics that are not an object';
  for (const [name, facts] of Object.entries(diagnostics)) {
    if (!targetNames.has(name)) return `has diagnostics of ${JSON.stringify(name)}, a target it does not list`;
    const why = stringMapProblem(facts);
    if (why !== null) return `has diagnostics of ${JSON.stringify(name)} that ${why}`;
  }
  return null;
}

/**
 * A proof's target list: the fast path stats every file it names and reports its targets as they are
 * written, so a forged list must not name an output outside the workspace, a value of another type (a
 * TypeError mid-check), or the same target twice (a million copies of one real target would pass every stat).
 */
function targetListProblem(targets: unknown): string | null {
  if (!Array.isArray(targets)) return 'has no target list';
  const targetNames = new Set<string>();
  for (const target of targets) {
    if (!Array.isArray(target) || target.length !== 9)
      return 'has a target that is not a [name, rule, output, stamp…, also, position] list';
    const [name, rule, output, size, mtimeMs, ino, ctimeMs, also, position] = target as unknown[];
    const nameWhy = targetNameProblem(name);
    if (nameWhy !== null) return `has a target name that ${nameWhy}`;
    const label = `target ${JSON.stringify(name)}`;
    if (targetNames.has(name as string)) return `names ${label} twice`;
    targetNames.add(name as string);
    if (typeof rule !== 'string' || !/^[a-z][a-z-]{0,63}$/.test(rule)) return `names no rule for ${label}`;
    const outputWhy = relativePathProblem(output);
    if (outputWhy !== null) return `has an output path of ${label} that ${outputWhy}`;
    const stampWhy = stampProblem({ size, mtimeMs, ino, ctimeMs });
    if (stampWhy !== null) return `has an output stamp of ${label} that ${stampWhy}`;
    if (!Array.isArray(also) || also.length > MAX_PROOF_ALSO) return `has no list of the other files of ${label}`;
    for (const file of also) {
      const why = proofStampProblem(file, relativePathProblem);
      if (why !== null) return `has another file of ${label} that ${why}`;
    }
    if (!Number.isSafeInteger(position) || (position as number) < 0) return `has no position of ${label}`;
  }
  return null;
}

export type { CleanRecord, FileStamp, NoopProof };
