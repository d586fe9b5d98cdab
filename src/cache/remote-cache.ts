import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { keyText, type KeyComponents } from '../graph/key.js';
import type {
  CacheAdapter,
  RestoreContext,
  RestoredBlobs,
  RuleEnv,
  RuleOutput,
  TargetCache,
  TargetCacheRequest,
  VerifiedBlob,
} from '../graph/rules/types.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { decodeActionResult, encodeActionResult, OUTPUT_PATH, type Digest, type OutputFile } from './action-result.js';
import { blobMismatch, inspectRestored, type InspectedFile, type Inspection, type InspectTask } from '../inspect/inspect.js';
import type { Secrets } from './secrets.js';
import { takeBlobFile } from './blob-file.js';
import { CacheUnavailable, type CacheStore } from './store.js';

/** Bump to disown every entry written so far (a key-format change, a bad producer release). */
const ACTION_KEY_SALT = 'episteme-action-key/2';
/** An action result is a few hundred bytes; anything much larger is not ours. */
const MAX_ACTION_RESULT_BYTES = 64 * 1024;
/** Entries whose blobs are downloaded or being checked at once: keeps the pipeline full, bounds memory. */
const MAX_ENTRIES_IN_HAND = 64;
/**
 * Blobs larger than this are streamed to a file in the workspace's cache folder and checked as they
 * arrive (blob-file.ts), not gathered in memory by the HTTP client (which costs up to three times the
 * blob while a body grows and is copied out).
 */
export const STREAM_TO_FILE_ABOVE_BYTES = 8 * 1024 * 1024;
/** Downloaded bytes in hand at once when entries are smaller than this: many small entries in flight together. */
const BYTES_IN_HAND = 128 * 1024 * 1024;
/** The largest file Node reads into one buffer (2 GiB - 1), also limits.maxFileBytes' own bound. */
const MAX_BUFFER_READ_BYTES = 2 ** 31 - 1;
/**
 * The most bytes the files of one entry may add up to, for a workspace whose sources are at most
 * `maxFileBytes` (limits.maxFileBytes): an entry naming more is refused before anything is read, and
 * the uploader never stores one (a reader would refuse it). A build makes more of a source than its
 * bytes: a spec's document is 0.9-1.6x its HTML, its chunks and index part about as much again
 * (whatwg/dom.html, rfc9110, the W3C Overview), the bench's synthetic sources 3x; a source of tiny
 * blocks pays about 240 bytes of JSON per block (180 KB of empty paragraphs make a 14 MB document).
 * So 8x covers what specs make, and the 16 MiB beside it whole documents of tiny blocks up to about
 * 200 KB, and small limits (a 2 KiB bound still takes a 16 MiB entry). An entry past it is only built
 * locally. At most what Node reads into one buffer (a large blob is read back whole once checked).
 */
export function maxEntryBytes(maxFileBytes: number): number {
  return Math.min(8 * maxFileBytes + 16 * 1024 * 1024, MAX_BUFFER_READ_BYTES);
}

export interface RemoteCacheOptions {
  upload: boolean;
  /** The workspace's limits.maxFileBytes, from which the largest entry taken or stored follows (maxEntryBytes). */
  maxFileBytes: number;
  /** Fraction of hits (0..1) recomputed locally and compared; chosen by key, so the same on every run. */
  verifyFraction: number;
  /** How to build without this cache, for the hint of a mismatch (it depends on where its URL came from). */
  withoutCache: string;
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
  /**
   * Targets built locally that --remote-cache-upload would have uploaded but did not (the cache failed
   * or became unavailable): a later --remote-cache-upload build uploads them.
   */
  notUploaded: number;
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
  // keyText is canonical JSON built without the generic serializer (which cost ~0.2 ms per hit).
  return sha256Hex(`${ACTION_KEY_SALT}\n${keyText(components)}`);
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
  private readonly stats = { hits: 0, misses: 0, uploaded: 0, notUploaded: 0, rejected: 0, verified: 0 };
  private outage: string | null = null;
  private readonly context: RestoreContext = { documents: new Map() };
  private readonly slots = new Slots(MAX_ENTRIES_IN_HAND);
  /** maxEntryBytes of the workspace: what one entry's files may add up to, downloaded or uploaded. */
  private readonly maxEntryBytes: number;
  readonly uploads: boolean;
  /** Bytes of downloaded blobs in hand at once: at most BYTES_IN_HAND, or one largest entry (one always fits). */
  private readonly bytesInHand: ByteBudget;
  private readonly inspector = new Inspector();
  /** Large blobs streamed to files so far (names each download's file). */
  private blobFiles = 0;

  constructor(
    private readonly store: CacheStore,
    private readonly options: RemoteCacheOptions,
    private readonly secrets: Secrets,
  ) {
    this.uploads = options.upload;
    this.maxEntryBytes = maxEntryBytes(options.maxFileBytes);
    // One largest entry always fits; past 128 MiB no more than one: a cache that names entries of
    // 500 MB (8 x the default maxFileBytes) holds one such in memory at a time, not two.
    this.bytesInHand = new ByteBudget(Math.max(this.maxEntryBytes, BYTES_IN_HAND));
  }

  async produce(env: RuleEnv, request: TargetCacheRequest): Promise<{ output: RuleOutput; restored: boolean }> {
    const rule = request.adapter;
    if (rule === undefined) return { output: await request.run(), restored: false };
    const key = actionKey(request.components);
    const restored = await this.guard(env, () => this.fetch(env, request, rule, key));
    if (restored) {
      this.stats.hits += 1;
      if (sampledForVerify(key, this.options.verifyFraction)) await this.verify(request, key, restored);
      return { output: restored, restored: true };
    }
    this.stats.misses += 1;
    const output = await request.run();
    // Only a success reaches this line (a failed rule threw). Inputs edited while the rule ran would put
    // the new output under the old key: re-check them first.
    if (this.options.upload && request.inputsUnchanged())
      await this.upload(env, request, rule, key, this.outage === null ? this.entryFiles(env, request, rule, output) : null);
    return { output, restored: false };
  }

  async backfill(env: RuleEnv, request: TargetCacheRequest, output: () => RuleOutput): Promise<void> {
    const rule = request.adapter;
    if (!this.options.upload || rule === undefined) return;
    if (this.outage !== null) {
      this.stats.notUploaded += 1;
      return;
    }
    const key = actionKey(request.components);
    // Null: the cache became unavailable; otherwise the entry it holds, if any.
    const held = await this.guard(env, async () => ({ entry: await this.store.get('ac', key, MAX_ACTION_RESULT_BYTES) }));
    if (held === null) {
      this.stats.notUploaded += 1;
      return;
    }
    let recorded: RuleOutput;
    try {
      recorded = output();
    } catch {
      return; // the recorded output is gone or damaged: the next build rebuilds it, and uploads then
    }
    const files = this.entryFiles(env, request, rule, recorded);
    // An entry alone proves little: its blobs may have been evicted since, or it may be damaged or
    // another output's. Only an entry naming these very files, all still held, is left as it is.
    const { entry } = held;
    if (entry !== null && files !== null && (await this.guard(env, () => this.holds(entry, files))) === true) return;
    await this.upload(env, request, rule, key, files);
  }

  /**
   * Whether an action-cache entry names these files with their digests, and the store still holds every
   * one of their blobs (asked without reading them: HEAD, stat). Other files it names are ignored, as a
   * reader ignores them.
   */
  private async holds(entry: Buffer, files: EntryFile[]): Promise<boolean> {
    let named: Map<string, Digest>;
    try {
      named = decodeActionResult(entry);
    } catch {
      return false;
    }
    const same = files.every((file) => {
      const digest = named.get(file.path);
      return digest !== undefined && digest.hash === file.sha256 && digest.sizeBytes === file.bytes.length;
    });
    if (!same) return false;
    const present = await Promise.all(files.map((file) => this.store.has('cas', file.sha256)));
    return present.every(Boolean);
  }

  /**
   * The files an entry for this output holds (the output first, then the rule's other files in path
   * order), or null when they cannot be stored (the other files are not as the rule made them).
   */
  private entryFiles(env: RuleEnv, request: TargetCacheRequest, rule: CacheAdapter, output: RuleOutput): EntryFile[] | null {
    const bytes = typeof output.bytes === 'string' ? Buffer.from(output.bytes, 'utf8') : output.bytes;
    // Null: the other files are not as the rule made them (e.g. edited since): nothing is uploaded.
    const others = rule.others ? rule.others(env, request.node, output) : new Map<string, Buffer>();
    if (others === null || others.has(OUTPUT_PATH)) return null;
    const files: [string, Buffer][] = [[OUTPUT_PATH, bytes], ...[...others].sort(([a], [b]) => compareCodeUnits(a, b))];
    return files.map(([path, fileBytes]) => ({ path, bytes: fileBytes, sha256: sha256Hex(fileBytes) }));
  }

  /** Stores a target's files (blobs first, then the entry), counting it as uploaded or not. */
  private async upload(
    env: RuleEnv,
    request: TargetCacheRequest,
    rule: CacheAdapter,
    key: string,
    files: EntryFile[] | null,
  ): Promise<void> {
    if (this.outage !== null) {
      this.stats.notUploaded += 1;
      return;
    }
    if (files === null || !this.acceptable(env, request, rule, files)) return;
    const done = await this.guard(env, async () => {
      const outputs: OutputFile[] = files.map((file) => ({
        path: file.path,
        digest: { hash: file.sha256, sizeBytes: file.bytes.length },
      }));
      // Blobs first: an action result never names a blob that is not there yet.
      await Promise.all(files.map((file) => this.store.put('cas', file.sha256, file.bytes)));
      await this.store.put('ac', key, encodeActionResult(outputs));
      this.stats.uploaded += 1;
      return true;
    });
    if (done === null) this.stats.notUploaded += 1;
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

  private async fetch(env: RuleEnv, request: TargetCacheRequest, rule: CacheAdapter, key: string): Promise<RuleOutput | null> {
    const entry = await this.store.get('ac', key, MAX_ACTION_RESULT_BYTES);
    if (entry === null) return null;
    let outputs: Map<string, Digest>;
    try {
      outputs = decodeActionResult(entry);
    } catch (error) {
      return this.reject(env, request, `its action-cache entry ac/${key} is malformed (${(error as Error).message})`);
    }
    // The output and the other files this reader takes. Held while downloaded and checked: a slot bounds
    // the blobs in memory when they arrive faster than they are checked.
    const wanted = [...outputs].filter(([path]) => path === OUTPUT_PATH || rule.takes?.(env, path));
    const claimed = wanted.reduce((sum, [, digest]) => sum + digest.sizeBytes, 0);
    if (claimed > this.maxEntryBytes)
      return this.reject(
        env,
        request,
        `its action-cache entry ac/${key} names ${claimed} bytes of files, more than the largest entry this build ` +
          `would write (${this.maxEntryBytes} bytes: 8 x limits.maxFileBytes + 16 MiB)`,
      );
    await this.slots.acquire();
    await this.bytesInHand.acquire(claimed);
    try {
      // In flight together: one round trip, not one per file.
      const files = await Promise.all(wanted.map(([, digest]) => this.download(env, digest)));
      if (files.some((file) => file === null)) return null; // named but gone (evicted): a miss
      const mismatch = files.find((file): file is string => typeof file === 'string');
      if (mismatch !== undefined) return this.reject(env, request, mismatch);
      const blobs = await this.check(env, rule, wanted, files as InspectedFile[]);
      if (typeof blobs === 'string') return this.reject(env, request, blobs);
      let restored: RuleOutput;
      try {
        restored = rule.restore(env, request.node, request.deps, blobs, this.context);
        rule.install?.(env, request.node, restored, blobs);
      } catch (error) {
        return this.reject(env, request, `the output named by ac/${key} is not this target's artifact (${(error as Error).message})`);
      }
      return restored;
    } finally {
      this.bytesInHand.release(claimed);
      this.slots.release();
    }
  }

  /**
   * Downloaded files checked against their digests, as the blobs restore takes, or why they are not
   * what the entry names. For a rule that inspects, a stage worker checks them (inspect.ts) while this
   * thread goes on receiving and writing; should the worker fail, the same check runs here.
   */
  private async check(
    env: RuleEnv,
    rule: CacheAdapter,
    wanted: [string, Digest][],
    files: InspectedFile[],
  ): Promise<RestoredBlobs | string> {
    const verified = (file: InspectedFile): VerifiedBlob => ({ bytes: file.bytes as Buffer, sha256: file.sha256 });
    const others = new Map<string, VerifiedBlob>();
    let output: InspectedFile | undefined;
    let part: InspectedFile | undefined;
    wanted.forEach(([path], i) => {
      if (path === OUTPUT_PATH) output = files[i]!;
      else {
        others.set(path, verified(files[i]!));
        part = files[i]!;
      }
    });
    if (rule.inspects === undefined) {
      for (const file of files) {
        const why = file.checked ? null : blobMismatch(file);
        if (why !== null) return why;
      }
      return { output: verified(output!), others };
    }
    if (others.size > 1) return 'the entry names more than one other file';
    const task: InspectTask = { kind: rule.inspects, output: output!, ...(part ? { part } : {}), ...inspectOptions(env, rule) };
    const inspection = await this.inspector.inspect(env, task);
    if (!inspection.ok) return inspection.why;
    return { output: verified(output!), others, inspection };
  }

  /**
   * The bytes of a blob, null when absent (or larger than named), or why they are not the blob. A small
   * one is checked by `check`; a large one streams to a file, checked as it arrives, and is read once.
   */
  private async download(env: RuleEnv, digest: Digest): Promise<InspectedFile | string | null> {
    if (digest.sizeBytes <= STREAM_TO_FILE_ABOVE_BYTES) {
      const bytes = await this.store.get('cas', digest.hash, digest.sizeBytes);
      return bytes === null ? null : { bytes, sha256: digest.hash, sizeBytes: digest.sizeBytes };
    }
    // Numbered: two entries may name the same blob, and each download reads and removes its own file.
    this.blobFiles += 1;
    const file = path.join(env.ws.stateDir, 'cache', 'remote-blobs', `${digest.hash}.${this.blobFiles}`);
    const stored = await this.store.getFile(digest.hash, digest.sizeBytes, file);
    if (stored === 'absent') return null;
    if (stored !== 'stored') return stored.mismatch;
    let bytes: Buffer;
    try {
      bytes = takeBlobFile(file, digest.sizeBytes);
    } catch {
      return null; // gone or unreadable since it was checked (a local problem): a miss, built locally
    }
    return { bytes, sha256: digest.hash, sizeBytes: digest.sizeBytes, checked: true };
  }

  /** Never upload what a reader would reject (e.g. a search index built from a partial chunk set). */
  private acceptable(env: RuleEnv, request: TargetCacheRequest, rule: CacheAdapter, files: EntryFile[]): boolean {
    const [output, ...rest] = files;
    const taken = rest.filter((file) => rule.takes?.(env, file.path));
    // The files a reader takes, bounded as it bounds them (fetch).
    if (output!.bytes.length + taken.reduce((sum, file) => sum + file.bytes.length, 0) > this.maxEntryBytes) return false;
    const others = new Map(taken.map((file) => [file.path, { bytes: file.bytes, sha256: file.sha256 }]));
    const blobs: RestoredBlobs = { output: output!, others };
    if (rule.inspects !== undefined) {
      const asFile = (file: { bytes: Buffer; sha256: string }): InspectedFile => ({ ...file, sizeBytes: file.bytes.length });
      const inspection = inspectRestored({
        kind: rule.inspects,
        output: asFile(output!),
        ...(taken.length === 1 ? { part: asFile(taken[0]!) } : {}),
        ...inspectOptions(env, rule),
      });
      if (!inspection.ok) return false;
      blobs.inspection = inspection;
    }
    try {
      rule.restore(env, request.node, request.deps, blobs, this.context);
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
        `The remote cache's output for ${request.node.name} differs from a local rebuild (action key ${key}): ` +
          'the cache holds a wrong result.',
        {
          hint:
            'Do not trust this cache: find who writes to it (only trusted CI should upload), then clear it. ' + this.options.withoutCache,
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

/** One file of an action-cache entry as uploaded: its path in the entry, its bytes and their SHA-256. */
interface EntryFile {
  path: string;
  bytes: Buffer;
  sha256: string;
}

/** What an inspection checks against this workspace's options: chunks, the options they were cut with. */
function inspectOptions(env: RuleEnv, rule: CacheAdapter): Partial<InspectTask> {
  if (rule.inspects !== 'document-chunks') return {};
  const { maxChars, overlapChars } = env.stages.chunkOptions(env.ws.options.chunk);
  return { chunkOptions: { maxChars, overlapChars } };
}

/** A counting semaphore: at most `size` holders at once, the others wait in order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

/** A budget of bytes: a holder waits until its bytes fit beside the others' (alone, it always fits). */
class ByteBudget {
  private used = 0;
  private readonly waiting: { bytes: number; resolve: () => void }[] = [];

  constructor(private readonly capacity: number) {}

  acquire(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && (this.used === 0 || this.used + bytes <= this.capacity)) {
      this.used += bytes;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ bytes, resolve }));
  }

  release(bytes: number): void {
    this.used -= bytes;
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.used !== 0 && this.used + next.bytes > this.capacity) break;
      this.waiting.shift();
      this.used += next.bytes;
      next.resolve();
    }
  }
}

/** Inspections sent to a stage worker in one message: blobs arrive in bursts, and each message costs a wake-up of both threads. */
const INSPECTIONS_PER_MESSAGE = 16;

/**
 * Runs inspections (inspect.ts) on the build's stage workers, batching those queued in the same turn of
 * the event loop; should a worker fail, the same checks run on this thread.
 */
class Inspector {
  private queue: { task: InspectTask; resolve: (inspection: Inspection) => void }[] = [];

  inspect(env: RuleEnv, task: InspectTask): Promise<Inspection> {
    return new Promise((resolve) => {
      if (this.queue.length === 0) setImmediate(() => this.flush(env));
      this.queue.push({ task, resolve });
    });
  }

  private flush(env: RuleEnv): void {
    const queued = this.queue;
    this.queue = [];
    for (let start = 0; start < queued.length; start += INSPECTIONS_PER_MESSAGE) {
      const batch = queued.slice(start, start + INSPECTIONS_PER_MESSAGE);
      const tasks = batch.map((item) => item.task);
      env.pool.run({ stage: 'inspect-restored', tasks }).then(
        (text) => {
          const inspections = JSON.parse(text) as Inspection[];
          for (const [i, item] of batch.entries()) item.resolve(inspections[i] ?? inspectRestored(item.task));
        },
        () => {
          for (const item of batch) item.resolve(inspectRestored(item.task));
        },
      );
    }
  }
}
