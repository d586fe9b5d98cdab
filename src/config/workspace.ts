import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkedCacheUrl } from './cache-url.js';
import { EpistemeError } from '../failure.js';
import { schemaFields, schemaRanges, validateWorkspaceConfig } from '../generated/validators.js';
import { describeSchemaErrors } from '../store/schema-errors.js';
import { DEFAULT_MAX_INPUT_BYTES, parseJsonInput, readBoundedInput } from '../store/bounded-input.js';
import { isDirectory, regularFileProblem } from '../store/bounded-read.js';
import { loadManualIngestMap, type ManualIngestSource } from './manual-ingest-map.js';
import { loadManifest, manifestInvalid, type HttpSource } from './manifest.js';
import { resolveCaptureBounds, type CaptureBounds } from '../capture/bounds.js';
import { assignDocumentIds } from './source-url.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import type { SourceSpec } from '../document/types.js';

import { CONFIG_FILE_NAME, DEFAULT_OUTPUTS, STATE_DIR_NAME } from '../store/names.js';
import { findConfigUpward } from '../store/find-workspace.js';
import { checkOwnedFolders, ownedFolders } from './owned-folders.js';
import { ShapingFiles } from './shaping-files.js';
import { loadWorkspaceFamilies } from './workspace-rules.js';
import { registeredFamilyIds } from './manifest.js';
import type { LoadedFamily } from '../extract/families.js';

export { CONFIG_FILE_NAME, STATE_DIR_NAME };
/** What to do where no workspace is found: every form works as written in any folder. */
export const NOT_A_WORKSPACE_HINT =
  `Run from a workspace folder (one holding ${CONFIG_FILE_NAME}, or below it), pass --config PATH/${CONFIG_FILE_NAME}, ` +
  'or start one here with `episteme pipeline --map MAP.json` (local files) or `--manifest MANIFEST.json` (HTTP sources).';
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface StageOutputs {
  snapshots: string;
  specs: string;
  chunks: string;
  diffs: string;
}

/** One source of the workspace, with everything the graph needs to build its chain. */
export interface WorkspaceSource {
  documentId: string;
  spec: SourceSpec;
  /** How the snapshot is captured: a local file (manual-ingest map) or HTTP (manifest). */
  capture: ManualIngestSource | HttpSource;
}

export interface Workspace {
  /** Absolute; every path in artifacts and output is relative to it. */
  root: string;
  /** Workspace-relative path of the config file, or null for a workspace given by flags. */
  configFile: string | null;
  stateDir: string;
  outputs: StageOutputs;
  options: { extract: Record<string, unknown>; chunk: Record<string, unknown>; index: Record<string, unknown> };
  limits: { maxFileBytes: number; capture: CaptureBounds };
  /** Sorted by documentId. */
  sources: WorkspaceSource[];
  /** Workspace-relative path of the manual-ingest map, when there is one. */
  mapFile: string | null;
  /** Workspace-relative path of the capture manifest, when there is one (not for stdin). */
  manifestFile: string | null;
  /** Config `remoteCache`: the action cache URL a build reads from (--remote-cache overrides it). */
  remoteCache?: string;
  /** The workspace's own extraction families (episteme.json "rules"); empty without one. */
  families: LoadedFamily[];
  /** The rules folder (workspace-relative) and its rules files (absolute), when there is one. */
  rulesFolder: string | null;
  rulesFiles: string[];
  /** The config, map, manifest and rules files as found just before they were read (shaping-files.ts). */
  shaping: ShapingFiles;
}

export interface WorkspaceFlags {
  config?: string | undefined;
  map?: string | undefined;
  manifest?: string | undefined;
  maxInputBytes?: number | undefined;
  outputs?: Partial<StageOutputs>;
}

interface RawConfig {
  rules?: string;
  manualIngest?: string;
  manifest?: string;
  outputs?: Partial<StageOutputs>;
  options?: { extract?: Record<string, unknown>; chunk?: Record<string, unknown>; index?: Record<string, unknown> };
  limits?: { maxFileBytes?: number; capture?: Partial<CaptureBounds> };
  remoteCache?: string;
}

/**
 * Finds and validates the workspace. With --config, or else the nearest episteme.json in the current
 * folder or above it (as git finds .git), the config file defines it; with only --map or --manifest
 * and no config up to the file system root, the current folder is the workspace root.
 */
export async function loadWorkspace(cwd: string, flags: WorkspaceFlags): Promise<Workspace> {
  const maxInputBytes = flags.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  let configPath: string | null = null;
  if (flags.config !== undefined) {
    configPath = path.resolve(cwd, flags.config);
    // A symlink loop or dangling link is there, just not readable: say what it is, not "not found".
    const problem = fs.existsSync(configPath) ? null : regularFileProblem(configPath);
    if (problem !== null && problem.code !== 'input-not-found') {
      throw new EpistemeError(problem.code, `Workspace config ${flags.config} ${problem.problem}.`, {
        details: { path: flags.config, problem: problem.problem },
      });
    }
    if (problem !== null) {
      throw new EpistemeError('config-not-found', `Workspace config not found: ${flags.config}`, {
        hint: `Create it (see docs/workspace.md, "Workspace") or point --config at an existing ${CONFIG_FILE_NAME}.`,
        details: { path: flags.config },
      });
    }
  } else {
    configPath = findConfigUpward(cwd);
  }

  let raw: RawConfig = {};
  let root = cwd;
  const shaping = new ShapingFiles();
  if (configPath !== null) {
    if (isDirectory(configPath)) {
      configPath = path.join(configPath, CONFIG_FILE_NAME);
      if (regularFileProblem(configPath)?.code === 'input-not-found') {
        throw new EpistemeError('config-not-found', `No ${CONFIG_FILE_NAME} in ${flags.config ?? '.'}: it is not an Episteme workspace.`, {
          hint: `Point --config at a folder with an ${CONFIG_FILE_NAME}, or at the file itself.`,
          details: { path: flags.config ?? '.' },
        });
      }
    }
    root = path.dirname(configPath);
    const label = path.relative(cwd, configPath) || CONFIG_FILE_NAME;
    shaping.stat(configPath);
    const parsed = parseJsonInput(await readBoundedInput(configPath, maxInputBytes, 'Workspace config'), 'config-invalid', label);
    if (!validateWorkspaceConfig(parsed)) {
      const problems = describeSchemaErrors(
        validateWorkspaceConfig.errors,
        undefined,
        schemaRanges.validateWorkspaceConfig,
        schemaFields.validateWorkspaceConfig,
      );
      throw new EpistemeError('config-invalid', `${label} is invalid: ${problems.join('; ')}`, {
        hint: 'See docs/workspace.md, "Workspace", for the allowed fields.',
        details: { file: label, problems },
      });
    }
    raw = parsed as RawConfig;
    // Whole, as every field is checked here: a URL no build could use fails every command that reads
    // this config, so no build leaves a no-op proof for it that the fast path (which does not read the
    // config) could answer from.
    if (raw.remoteCache !== undefined) checkedCacheUrl(raw.remoteCache, { configFile: label });
  } else if (flags.map === undefined && flags.manifest === undefined) {
    throw new EpistemeError(
      'config-not-found',
      `No ${CONFIG_FILE_NAME} in this folder or any folder above it, and no --map or --manifest given: ` +
        'this is not an Episteme workspace.',
      { hint: NOT_A_WORKSPACE_HINT },
    );
  }
  if (flags.map === '-' && flags.manifest === '-') {
    throw new EpistemeError('usage-error', '--map and --manifest cannot both read stdin.', { hint: 'Give one of them as a file.' });
  }

  const outputs: StageOutputs = {
    ...DEFAULT_OUTPUTS,
    ...raw.outputs,
    ...definedOnly(flags.outputs ?? {}),
  };
  for (const [stage, dir] of Object.entries(outputs)) {
    const resolved = path.resolve(root, dir);
    if (resolved === root || !resolved.startsWith(root + path.sep)) {
      throw new EpistemeError('config-invalid', `Output folder for ${stage} must be inside the workspace: ${dir}`, {
        hint:
          `Give outputs.${stage} a folder below the workspace root, relative to ${configPath === null ? 'it' : CONFIG_FILE_NAME} ` +
          `(the default is "${stage}"); see docs/workspace.md, "What a workspace owns".`,
        details: { field: `outputs.${stage}` },
      });
    }
    const relative = path.relative(root, resolved).split(path.sep).join('/');
    // A backslash left after normalising is part of a folder name (POSIX): the build state records
    // paths with "/" only and refuses one holding a backslash, so no build after the first would be a no-op.
    if (relative.includes('\\')) {
      throw new EpistemeError('config-invalid', `Output folder for ${stage} holds a backslash: ${dir}`, {
        hint: `Write outputs.${stage} with "/" between folders and no backslash in a folder name (e.g. "${stage}").`,
        details: { field: `outputs.${stage}`, path: dir },
      });
    }
    outputs[stage as keyof StageOutputs] = relative;
  }
  const owned = ownedFolders(outputs);
  checkOwnedFolders(root, owned);

  // The workspace's own families come first: the map and manifest may name them.
  const own = raw.rules === undefined ? { families: [], folder: null, files: [] } : loadWorkspaceFamilies(root, raw.rules, owned, shaping);
  if (own.families.length > 0) {
    // Their selectors too, before any document is extracted with them (css-select loads only here).
    const { checkFamilySelectors } = await import('../extract/html/selector-check.js');
    for (const family of own.families) checkFamilySelectors(family.rules, family.workspaceFile ?? family.file);
  }
  const familyIds =
    own.families.length === 0 ? registeredFamilyIds : () => new Set([...registeredFamilyIds(), ...own.families.map((f) => f.rules.id)]);
  const mapArgument = flags.map ?? (raw.manualIngest === undefined ? undefined : path.resolve(root, raw.manualIngest));
  const limits = { maxFileBytes: raw.limits?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, capture: resolveCaptureBounds(raw.limits?.capture) };
  let captures: (ManualIngestSource | HttpSource)[] = [];
  let mapFile: string | null = null;
  if (mapArgument !== undefined) {
    const mapPath = mapArgument === '-' ? '-' : path.resolve(cwd, mapArgument);
    if (mapPath !== '-') shaping.stat(mapPath);
    captures = await loadManualIngestMap(mapPath, { root, cwd, maxInputBytes, familyIds, owned });
    mapFile = mapPath === '-' ? null : path.relative(root, mapPath).split(path.sep).join('/');
  }
  const manifestArgument = flags.manifest ?? (raw.manifest === undefined ? undefined : path.resolve(root, raw.manifest));
  let manifestFile: string | null = null;
  if (manifestArgument !== undefined) {
    const manifestPath = manifestArgument === '-' ? '-' : path.resolve(cwd, manifestArgument);
    if (manifestPath !== '-') shaping.stat(manifestPath);
    const manifest = await loadManifest(manifestPath, { cwd, maxInputBytes, familyIds });
    manifestFile = manifestPath === '-' ? null : path.relative(root, manifestPath).split(path.sep).join('/');
    // One source, one capture method: a URL in both the map and the manifest is ambiguous.
    const inMap = new Map(captures.map((c, index) => [c.spec.url, index]));
    const clashes = manifest.sources
      .filter((source) => inMap.has(source.spec.url))
      .map(
        (source) =>
          `entry ${source.entryIndex}, field url: duplicate of manual-ingest map entry ${inMap.get(source.spec.url)} ` +
          `(both are ${source.spec.url})`,
      );
    if (clashes.length > 0) throw manifestInvalid(manifest.label, clashes);
    captures = [...captures, ...manifest.sources];
  }

  const ids = assignDocumentIds(captures.map((c) => c.spec.url));
  const sources = captures
    .map((capture) => ({ documentId: ids.get(capture.spec.url)!, spec: capture.spec, capture }))
    .sort((a, b) => compareCodeUnits(a.documentId, b.documentId));

  return {
    root,
    configFile: configPath === null ? null : path.relative(root, configPath),
    stateDir: path.join(root, STATE_DIR_NAME),
    outputs,
    options: { extract: raw.options?.extract ?? {}, chunk: raw.options?.chunk ?? {}, index: raw.options?.index ?? {} },
    limits,
    sources,
    mapFile,
    manifestFile,
    ...(raw.remoteCache !== undefined ? { remoteCache: raw.remoteCache } : {}),
    families: own.families,
    rulesFolder: own.folder,
    rulesFiles: own.files,
    shaping,
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
