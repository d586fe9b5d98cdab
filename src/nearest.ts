/**
 * The names nearest a mistyped one, by edit distance: for "did you mean" in usage errors (commands,
 * options), unknown build targets and unknown fields of the config, map and manifest.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates closest to `word` (at most three), nearest first then by code unit; only those within
 * a distance that still reads as a typo: a third of the word's length, at least 1 and at most 3.
 */
export function nearest(word: string, candidates: readonly string[]): string[] {
  const bare = (s: string) => s.replace(/^-+/, '');
  const limit = Math.min(3, Math.max(1, Math.floor(bare(word).length / 3)));
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(bare(word), bare(candidate)) }))
    .filter((c) => c.distance <= limit)
    .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0))
    .slice(0, 3)
    .map((c) => c.candidate);
}
