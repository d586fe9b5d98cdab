import type { Authority, ExtractorId, SourceSpec } from '../document/types.js';
import { canonicalSourceUrl } from './source-url.js';

/** The fields a manifest entry and a manual-ingest entry share, besides the URL. */
export interface SourceEntryFields {
  family?: string;
  authority?: Authority;
  extractor?: ExtractorId;
}

/**
 * The checks both input lists share: each URL is a canonical http(s) URL, no URL appears twice
 * (after canonicalisation), and a named family is registered. Returns one spec per entry (null where
 * the entry has a problem) and the problems, each naming its entry and field.
 */
export function resolveSourceSpecs<E extends SourceEntryFields>(
  entries: E[],
  url: { field: string; of: (entry: E) => string },
  familyIds: () => ReadonlySet<string>,
): { specs: (SourceSpec | null)[]; problems: string[] } {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const specs = entries.map((entry, index): SourceSpec | null => {
    const canonical = canonicalSourceUrl(url.of(entry));
    if ('error' in canonical) {
      problems.push(`entry ${index}, field ${url.field}: ${canonical.error}`);
      return null;
    }
    const earlier = seen.get(canonical.url);
    if (earlier !== undefined) {
      problems.push(`entry ${index}, field ${url.field}: duplicate of entry ${earlier} (both are ${canonical.url})`);
      return null;
    }
    seen.set(canonical.url, index);
    if (entry.family !== undefined && !familyIds().has(entry.family)) {
      problems.push(
        `entry ${index}, field family: "${entry.family}" is not a registered family (known: ${[...familyIds()].sort().join(', ')})`,
      );
      return null;
    }
    const spec: SourceSpec = { url: canonical.url };
    if (entry.family !== undefined) spec.family = entry.family;
    if (entry.authority !== undefined) spec.authority = entry.authority;
    if (entry.extractor !== undefined) spec.extractor = entry.extractor;
    return spec;
  });
  return { specs, problems };
}
