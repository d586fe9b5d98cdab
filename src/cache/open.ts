import type { CacheLocation } from '../config/cache-url.js';
import { DiskStore } from './disk-store.js';
import { HttpStore } from './http-store.js';
import { RemoteCache, type RemoteCacheOptions } from './remote-cache.js';
import { loadHeaders, Secrets } from './secrets.js';
import type { CacheStore } from './store.js';

export interface OpenCacheRequest extends RemoteCacheOptions {
  /** The cache, as checked where its URL was given (config/cache-url.ts checkedCacheUrl). */
  location: CacheLocation;
  timeoutMs: number;
  /** Wall time the cache may take in one build before it is abandoned (see HttpStoreOptions). */
  budgetMs: number;
  env: NodeJS.ProcessEnv;
}

/** The cache a checked URL names: http(s) for a Bazel HTTP cache, file for a local folder. */
export function openRemoteCache(request: OpenCacheRequest): RemoteCache {
  const secrets = new Secrets();
  const { location } = request;
  let store: CacheStore;
  if (location.kind === 'http') {
    // The user info, decoded once when the URL was checked, is sent as a header; the URL requests go
    // to holds none, so nothing downstream (node:http included) decodes it again.
    const url = new URL(location.url.href);
    url.username = '';
    url.password = '';
    for (const secret of [location.password, location.url.password]) if (secret !== '') secrets.add(secret);
    for (const [, value] of url.searchParams) secrets.add(value);
    const headers = loadHeaders(request.env, secrets);
    if (location.username !== '' || location.password !== '')
      headers['authorization'] ??= `Basic ${Buffer.from(`${location.username}:${location.password}`).toString('base64')}`;
    store = new HttpStore(url, { headers, secrets, timeoutMs: request.timeoutMs, budgetMs: request.budgetMs });
  } else {
    store = new DiskStore(location.folder);
  }
  return new RemoteCache(store, request, secrets);
}
