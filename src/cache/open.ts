import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EpistemeError } from '../failure.js';
import { DiskStore } from './disk-store.js';
import { HttpStore } from './http-store.js';
import { RemoteCache, type RemoteCacheOptions } from './remote-cache.js';
import { loadHeaders, Secrets } from './secrets.js';
import type { CacheStore } from './store.js';

export interface OpenCacheRequest extends RemoteCacheOptions {
  url: string;
  timeoutMs: number;
  /** Wall time the cache may take in one build before it is abandoned (see HttpStoreOptions). */
  budgetMs: number;
  env: NodeJS.ProcessEnv;
}

/** The cache a URL names: http(s) for a Bazel HTTP cache, file for a local folder. */
export function openRemoteCache(request: OpenCacheRequest): RemoteCache {
  const secrets = new Secrets();
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    url = new URL('invalid:');
  }
  if (url.password) secrets.add(decodeURIComponent(url.password));
  for (const [, value] of url.searchParams) secrets.add(value);
  let store: CacheStore;
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    store = new HttpStore(url, {
      headers: loadHeaders(request.env, secrets),
      secrets,
      timeoutMs: request.timeoutMs,
      budgetMs: request.budgetMs,
    });
  } else if (url.protocol === 'file:' && url.host === '') {
    store = new DiskStore(path.resolve(fileURLToPath(url)));
  } else {
    throw new EpistemeError('usage-error', 'The remote cache must be an http://, https:// or file:// URL.', {
      hint:
        'E.g. --remote-cache https://cache.example.com/episteme (a Bazel HTTP cache) ' +
        'or --remote-cache file:///var/cache/episteme (a local folder).',
    });
  }
  return new RemoteCache(store, request, secrets);
}
