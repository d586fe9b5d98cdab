import { Option } from 'clipanion';
import { CaptureCommand } from './build-runner.js';
import type { Workspace } from '../config/workspace.js';
import type { RemoteCache } from '../cache/remote-cache.js';
import { EpistemeError } from '../failure.js';
import { inRange, rangeText } from './option-validators.js';
import { checkCacheFolder, checkedCacheUrl } from '../config/cache-url.js';
import { protectedFolders } from './workspace-command.js';
import { CONFIG_FILE_NAME } from '../store/names.js';

const REMOTE_CACHE_TIMEOUT_RANGE = { min: 1, max: 600 } as const;
const DEFAULT_REMOTE_CACHE_TIMEOUT_SECONDS = 10;
const REMOTE_CACHE_BUDGET_RANGE = { min: 1, max: 86400 } as const;
const DEFAULT_REMOTE_CACHE_BUDGET_SECONDS = 600;

/**
 * The remote-cache options of the commands that build everything (`build`, `pipeline`): the same
 * flags, validation and cache opening for both, so they cannot drift apart.
 */
export abstract class RemoteCacheCommand extends CaptureCommand {
  remoteCache = Option.String('--remote-cache', {
    description:
      'Action cache to read outputs from: an http(s):// Bazel HTTP cache (bazel-remote, nginx WebDAV) or a file:// folder ' +
      '(default: config remoteCache). Headers come from EPISTEME_REMOTE_CACHE_HEADERS(_FILE), never from flags.',
  });
  noRemoteCache = Option.Boolean('--no-remote-cache', false, {
    description:
      'Build without the remote cache the workspace config names (remoteCache), e.g. while it holds a wrong entry; ' +
      'not with the other --remote-cache flags.',
  });
  remoteCacheUpload = Option.Boolean('--remote-cache-upload', false, {
    description: 'Also upload outputs built locally to the remote cache (for trusted CI only).',
  });
  remoteCacheVerify = Option.String('--remote-cache-verify', {
    description:
      'Recompute this fraction (0 to 1) of remote cache hits, chosen by key, ' +
      'and fail with remote-cache-mismatch if one differs (default 0).',
  });
  remoteCacheTimeout = Option.String('--remote-cache-timeout', {
    description:
      'Seconds one remote cache request may take before the build goes on without the cache ' +
      `(default ${DEFAULT_REMOTE_CACHE_TIMEOUT_SECONDS}; ${rangeText(REMOTE_CACHE_TIMEOUT_RANGE)}).`,
    validator: inRange(REMOTE_CACHE_TIMEOUT_RANGE),
  });
  remoteCacheBudget = Option.String('--remote-cache-budget', {
    description:
      'Seconds the remote cache may take in one build, from its first request; past them the build goes on without it ' +
      `(default ${DEFAULT_REMOTE_CACHE_BUDGET_SECONDS}; ${rangeText(REMOTE_CACHE_BUDGET_RANGE)}).`,
    validator: inRange(REMOTE_CACHE_BUDGET_RANGE),
  });

  /**
   * The remote cache flags checked together, before anything else runs (the no-op fast path included),
   * so a command line is refused whatever the state of the workspace.
   */
  protected checkCacheFlags(): void {
    this.verifyFraction();
    // The URL too (the config's is checked when the config is read): an up-to-date workspace or an
    // empty shard must not let a command line pass that a build with work to do refuses.
    if (this.remoteCache !== undefined) checkedCacheUrl(this.remoteCache, { flag: '--remote-cache' });
    if (this.noRemoteCache && (this.remoteCache !== undefined || this.remoteCacheUpload || this.remoteCacheVerify !== undefined)) {
      throw new EpistemeError(
        'usage-error',
        '--no-remote-cache builds without a remote cache: ' +
          'it cannot go with --remote-cache, --remote-cache-upload or --remote-cache-verify.',
        { hint: 'Drop --no-remote-cache to use a cache, or drop the other --remote-cache flags to build without one.' },
      );
    }
  }

  /** The cache URL this build uses: the flag's, else the config's, none with --no-remote-cache. */
  protected cacheUrl(ws: Workspace): string | undefined {
    return this.noRemoteCache ? undefined : (this.remoteCache ?? ws.remoteCache);
  }

  /** How to build without this build's cache, for a hint: where its URL came from decides. */
  private withoutCache(ws: Workspace): string {
    const command = `episteme ${this.commandName} --no-remote-cache`;
    if (this.remoteCache === undefined) return `Meanwhile build without it: ${command} (the workspace config's remoteCache names it).`;
    if (ws.remoteCache !== undefined)
      return `Meanwhile build without it: ${command}, without --remote-cache (the workspace config names a cache too).`;
    return 'Meanwhile build without --remote-cache.';
  }

  protected override async openCache(ws: Workspace, dryRun: boolean): Promise<RemoteCache | undefined> {
    const url = this.cacheUrl(ws);
    if (url === undefined) {
      if (this.remoteCacheUpload || this.remoteCacheVerify !== undefined) {
        throw new EpistemeError('usage-error', '--remote-cache-upload and --remote-cache-verify need a remote cache.', {
          hint: 'Give --remote-cache URL, or set remoteCache in the workspace config.',
        });
      }
      return undefined;
    }
    const origin = this.remoteCache !== undefined ? { flag: '--remote-cache' } : { configFile: configLabel(ws) };
    const location = checkedCacheUrl(url, origin);
    if (location.kind === 'folder') checkCacheFolder(location.folder, protectedFolders(ws), origin, process.cwd());
    if (dryRun) return undefined;
    const { openRemoteCache } = await import('../cache/open.js');
    return openRemoteCache({
      location,
      upload: this.remoteCacheUpload,
      verifyFraction: this.verifyFraction(),
      timeoutMs: (this.remoteCacheTimeout ?? DEFAULT_REMOTE_CACHE_TIMEOUT_SECONDS) * 1000,
      budgetMs: (this.remoteCacheBudget ?? DEFAULT_REMOTE_CACHE_BUDGET_SECONDS) * 1000,
      maxFileBytes: ws.limits.maxFileBytes,
      withoutCache: this.withoutCache(ws),
      env: process.env,
    });
  }

  /**
   * Whether the no-op fast path may answer: not when a hit is to be recomputed, nor when an upload is
   * asked for, whose need of a cache is only checked once the workspace config is read.
   */
  protected cacheAllowsNoop(): boolean {
    return this.verifyFraction() === 0 && !this.remoteCacheUpload;
  }

  protected verifyFraction(): number {
    if (this.remoteCacheVerify === undefined) return 0;
    const text = this.remoteCacheVerify.trim();
    const value = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!(value >= 0 && value <= 1)) {
      throw new EpistemeError(
        'usage-error',
        `--remote-cache-verify takes a fraction from 0 to 1 (got ${JSON.stringify(this.remoteCacheVerify)}).`,
        { hint: 'E.g. --remote-cache-verify 0.05 recomputes one hit in twenty.' },
      );
    }
    return value;
  }
}

/** The workspace config as messages name it. */
function configLabel(ws: Workspace): string {
  return ws.configFile ?? CONFIG_FILE_NAME;
}
