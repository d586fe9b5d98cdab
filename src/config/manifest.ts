import * as fs from 'node:fs';
import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { schemaFields, validateManifest } from '../generated/validators.js';
import { builtinRules, rulesDir } from '../extract/package-paths.js';
import { describeSchemaErrors } from '../store/schema-errors.js';
import { parseJsonInput, readBoundedInput } from '../store/bounded-input.js';
import { resolveSourceSpecs } from './source-entries.js';
import type { Authority, ExtractorId, SourceSpec } from '../document/types.js';

/** A validated manifest entry: an http(s) source captured by `episteme snapshot` (and `build`). */
export interface HttpSource {
  method: 'http';
  spec: SourceSpec;
  /** Position in the manifest, for messages. */
  entryIndex: number;
}

interface RawEntry {
  url: string;
  family?: string;
  authority?: Authority;
  extractor?: ExtractorId;
}

export const MANIFEST_HINT =
  'The manifest is a JSON array of {"url": "https://...", "family"?: "<registered family id>", ' +
  '"authority"?: "normative"|"informative", "extractor"?: "html"|"pdf"|"text"|"xml"}; see schema/manifest.schema.json.';

/** Reads (a file, or stdin for "-", within maxInputBytes) and validates a manifest. */
export async function loadManifest(
  manifestPath: string,
  context: { cwd: string; maxInputBytes: number; familyIds?: () => ReadonlySet<string> },
): Promise<{ sources: HttpSource[]; label: string }> {
  const label = manifestPath === '-' ? 'manifest (stdin)' : path.relative(context.cwd, manifestPath) || manifestPath;
  const bytes = await readBoundedInput(manifestPath, context.maxInputBytes, 'Manifest');
  return { sources: parseManifest(parseJsonInput(bytes, 'manifest-invalid', label), label, context.familyIds), label };
}

/**
 * Strict validation of a parsed manifest: schema (unknown fields, wrong types, bounds), http(s) URLs
 * without credentials, duplicates after URL canonicalisation, registered families. Every problem names
 * its entry and field; all are reported at once (the first 20 in the message).
 */
export function parseManifest(value: unknown, label: string, familyIds: () => ReadonlySet<string> = registeredFamilyIds): HttpSource[] {
  if (!validateManifest(value))
    throw manifestInvalid(label, describeSchemaErrors(validateManifest.errors, undefined, {}, schemaFields.validateManifest));
  const entries = value as RawEntry[];
  const { specs, problems } = resolveSourceSpecs(entries, { field: 'url', of: (entry) => entry.url }, familyIds);
  const sources: HttpSource[] = [];
  specs.forEach((spec, index) => {
    if (spec) sources.push({ method: 'http', spec, entryIndex: index });
  });
  if (problems.length > 0) throw manifestInvalid(label, problems);
  return sources;
}

let cachedFamilies: ReadonlySet<string> | undefined;

/** For a long-running process (watch): the rules folder changed, list it again on next use. */
export function forgetRegisteredFamilyIds(): void {
  cachedFamilies = undefined;
}

/** Family ids are the names of rules/<id>.json (the extraction stage checks each file's content). */
export function registeredFamilyIds(): ReadonlySet<string> {
  if (cachedFamilies) return cachedFamilies;
  let names: string[] = [];
  try {
    const dir = rulesDir();
    names = (dir === undefined ? Object.keys(builtinRules()) : fs.readdirSync(dir)).filter((name) => name.endsWith('.json'));
  } catch {
    names = [];
  }
  cachedFamilies = new Set(names.map((name) => name.slice(0, -'.json'.length)));
  return cachedFamilies;
}

export function manifestInvalid(label: string, problems: string[]): EpistemeError {
  const shown = problems.slice(0, 20);
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : '';
  return new EpistemeError('manifest-invalid', `${label} is invalid: ${shown.join('; ')}${more}`, {
    hint: MANIFEST_HINT,
    details: { file: label, problems: shown },
  });
}
