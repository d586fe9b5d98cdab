/**
 * Splitting a build's wall time by what ran, from `episteme build --trace`: each target's interval
 * (start and finish, ms since its process started). Targets run concurrently (a worker extracts while
 * the main thread builds a stage index), so their times are not summed: the split is by the time in
 * which at least one target of a kind ran, and the rest is the graph's own overhead.
 */
export interface TracedTarget {
  target: string;
  ms: number;
  startMs: number;
  endMs: number;
}

/** The index a target stands for: itself, or for a segment (`<index>#<first document id>`) its index. */
export const indexName = (target: string): string => (target.includes('#') ? target.slice(0, target.indexOf('#')) : target);

/** An index or one of its segments. */
export const isIndexTarget = (target: string): boolean => {
  const name = indexName(target);
  return name.endsWith('/index.json') || name.endsWith('/search-index.json');
};

/** The time covered by at least one of the intervals (the length of their union). */
export function coveredMs(targets: readonly TracedTarget[]): number {
  // A trace from a build before intervals were traced (a --cli baseline): the sum, as measured then.
  if (targets.some((t) => t.startMs === undefined)) return targets.reduce((sum, t) => sum + t.ms, 0);
  const sorted = [...targets].sort((a, b) => a.startMs - b.startMs);
  let covered = 0;
  let end = -Infinity;
  for (const { startMs, endMs } of sorted) {
    if (startMs > end) {
      covered += endMs - startMs;
      end = endMs;
    } else if (endMs > end) {
      covered += endMs - end;
      end = endMs;
    }
  }
  return covered;
}

/**
 * A one-source edit's wall time as chain (a target of the edited source's chain ran), indexes (only
 * index targets ran) and graph overhead (no target ran): the three add up to the wall time.
 */
export function editSplit(wallMs: number, targets: readonly TracedTarget[]): { chain: number; indexes: number; graph: number } {
  const everything = coveredMs(targets);
  const chain = coveredMs(targets.filter((t) => !isIndexTarget(t.target)));
  return { chain, indexes: everything - chain, graph: wallMs - everything };
}
