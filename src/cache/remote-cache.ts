import { EpistemeError } from '../failure.js';
import type { KeyComponents } from '../graph/key.js';
import type { RuleEnv, RuleOutput } from '../graph/rules.js';
import { canonicalJson } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { decodeActionResult, encodeActionResult } from './action-result.js';
import { RESTORERS } from './restore.js';
import type { Secrets } from './secrets.js';
import { CacheUnavailable, type CacheStore } from './store.js';
import type { TargetCache, TargetCacheRequest } from './target-cache.js';

/** Bump to disown every entry written so far (a key-format change, a bad producer release). */
const ACTION_KEY_SALT = 'episteme-action-key/1';
/** An action result is a few hundred bytes; anything much larger is not ours. */
const MAX_ACTION_RESULT_BYTES = 64 * 1024;

export interface RemoteCacheOptions {
  upload: boolean;
  /** Fraction of hits (0..1) recomputed locally and compared; chosen by key, so the same on every run. */
  verifyFraction: number;
}

export interface RemoteCacheSummary {
  cache: string;
  upload: boolean;
  verifyFraction: number;
  /** Outputs restored from the cache (verified); their rules did not run. */
  hits: number;
  /** Cacheable targets that had to run locally. */
  misses: number;
  uploaded: number;
  /** Entries that failed verification (digest, artifact, target binding): rebuilt locally. */
  rejected: number;
  /** Hits recomputed by --remote-cache-verify (all matched, or the target failed). */
  verified: number;
  /** Set when the cache stopped answering and the build went on locally. */
  unavailable: boolean;
}

/**
 * The action key of a target: SHA-256 (the only key Bazel caches accept) of the salted canonical key
 * components. They hold only content hashes, rule versions and options, never a path outside the
 * workspace or a clock, so two checkouts of the same sources agree on it.
 */
export function actionKey(components: KeyComponents): string {
  return sha256Hex(`${ACTION_KEY_SALT}\n${canonicalJson(components)}`);
}

/** Whether a hit is recomputed: the first 32 bits of its key against the fraction. */
export function sampledForVerify(key: string, fraction: number): boolean {
  return parseInt(key.slice(0, 8), 16) < Math.floor(fraction * 0x1_0000_0000);
}

/**
 * The build's consultation of a cache store: restore verified outputs, store what ran (with
 * --remote-cache-upload), and stop at the first outage with one warning, so a dead or stalled server
 * costs one timeout per build rather than one per target.
 */
export class RemoteCache implements TargetCache {
  private readonly stats = { hits: 0, misses: 0, uploaded: 0, rejected: 0, verified: 0 };
  private outage: string | null = null;

  constructor(
    private readonly store: CacheStore,
    private readonly options: RemoteCacheOptions,
    private readonly secrets: Secrets,
  ) {}

  async produce(env: RuleEnv, request: TargetCacheRequest): Promise<{ output: RuleOutput; restored: boolean }> {
    const restorer = RESTORERS[request.node.rule];
    if (restorer === undefined) return { output: await request.run(), restored: false };
    const key = actionKey(request.components);
    const restored = await this.guard(env, () => this.fetch(env, request, key));
    if (restored) {
      this.stats.hits += 1;
      if (sampledForVerify(key, this.options.verifyFraction)) await this.verify(request, key, restored);
      return { output: restored, restored: true };
    }
    this.stats.misses += 1;
    const output = await request.run();
    // Only a success reaches this line (a failed rule threw). Inputs edited while the rule ran would put
    // the new output under the old key: re-check them first.
    if (this.options.upload && this.outage === null && request.inputsUnchanged() && this.acceptable(env, request, output)) {
      const bytes = typeof output.bytes === 'string' ? Buffer.from(output.bytes, 'utf8') : output.bytes;
      await this.guard(env, async () => {
        const hash = sha256Hex(bytes);
        // Blob first: an action result never names a blob that is not there yet.
        await this.store.put('cas', hash, bytes);
        await this.store.put('ac', key, encodeActionResult({ hash, sizeBytes: bytes.length }));
        this.stats.uploaded += 1;
      });
    }
    return { output, restored: false };
  }

  summary(): RemoteCacheSummary {
    return {
      cache: this.store.label,
      upload: this.options.upload,
      verifyFraction: this.options.verifyFraction,
      ...this.stats,
      unavailable: this.outage !== null,
    };
  }

  close(): void {
    this.store.close();
  }

  private async fetch(env: RuleEnv, request: TargetCacheRequest, key: string): Promise<RuleOutput | null> {
    const entry = await this.store.get('ac', key, MAX_ACTION_RESULT_BYTES);
    if (entry === null) return null;
    let digest: ReturnType<typeof decodeActionResult>;
    try {
      digest = decodeActionResult(entry);
    } catch (error) {
      return this.reject(env, request, `its action-cache entry ac/${key} is malformed (${(error as Error).message})`);
    }
    const blob = await this.store.get('cas', digest.hash, digest.sizeBytes);
    if (blob === null) return null; // named but gone (evicted): a miss
    const actual = sha256Hex(blob);
    if (actual !== digest.hash || blob.length !== digest.sizeBytes) {
      return this.reject(
        env,
        request,
        `blob cas/${digest.hash} has SHA-256 ${actual} and ${blob.length} bytes, not the ${digest.sizeBytes} bytes its action-cache entry names`,
      );
    }
    try {
      return RESTORERS[request.node.rule]!(env, request.node, request.deps, blob);
    } catch (error) {
      return this.reject(env, request, `the output named by ac/${key} is not this target's artifact (${(error as Error).message})`);
    }
  }

  /** Never upload what a reader would reject (e.g. a search index built from a partial chunk set). */
  private acceptable(env: RuleEnv, request: TargetCacheRequest, output: RuleOutput): boolean {
    try {
      RESTORERS[request.node.rule]!(
        env,
        request.node,
        request.deps,
        typeof output.bytes === 'string' ? Buffer.from(output.bytes, 'utf8') : output.bytes,
      );
      return true;
    } catch {
      return false;
    }
  }

  /** A damaged or foreign entry is a diagnostic, and the target is built locally. */
  private reject(env: RuleEnv, request: TargetCacheRequest, why: string): null {
    this.stats.rejected += 1;
    env.warnings.push({
      code: 'remote-cache-entry-rejected',
      target: request.node.name,
      message: this.secrets.redact(`Remote cache entry for ${request.node.name} not used: ${why}. Built locally.`),
    });
    return null;
  }

  private async verify(request: TargetCacheRequest, key: string, restored: RuleOutput): Promise<void> {
    const local = await request.run();
    const sha = (bytes: string | Buffer): string => sha256Hex(bytes);
    this.stats.verified += 1;
    if (sha(local.bytes) !== sha(restored.bytes)) {
      throw new EpistemeError(
        'remote-cache-mismatch',
        `The remote cache's output for ${request.node.name} differs from a local rebuild (action key ${key}): the cache holds a wrong result.`,
        {
          hint: 'Do not trust this cache: find who writes to it (only trusted CI should upload), then clear it. Build without --remote-cache meanwhile.',
          details: { target: request.node.name, actionKey: key, cached: sha(restored.bytes), local: sha(local.bytes) },
        },
      );
    }
  }

  /** Runs a cache exchange; the first outage disables the cache for the rest of the build, with one warning. */
  private async guard<T>(env: RuleEnv, exchange: () => Promise<T>): Promise<T | null> {
    if (this.outage !== null) return null;
    try {
      return await exchange();
    } catch (error) {
      if (!(error instanceof CacheUnavailable)) throw error;
      if (this.outage === null) {
        this.outage = this.secrets.redact(error.message);
        env.warnings.push({
          code: 'remote-cache-unavailable',
          message: `Remote cache unavailable (${this.outage}); building locally without it for the rest of this build.`,
        });
      }
      return null;
    }
  }
}
