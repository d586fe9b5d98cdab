/**
 * Loops over lists whose length the input sets (a document's lines, blocks or text runs), where a
 * spread into a call (`Math.min(...xs)`, `a.push(...xs)`) passes each element as an argument on the
 * stack: past about a hundred thousand elements (fewer on the main thread than in a stage worker) it
 * throws RangeError "Maximum call stack size exceeded", which reached the user as an internal error.
 */

/** The least of `values`; Infinity for none, as Math.min() is. */
export function minOf(values: Iterable<number>): number {
  let least = Infinity;
  for (const v of values) least = Math.min(least, v);
  return least;
}

/** The greatest of `values`; -Infinity for none, as Math.max() is. */
export function maxOf(values: Iterable<number>): number {
  let greatest = -Infinity;
  for (const v of values) greatest = Math.max(greatest, v);
  return greatest;
}

/** Appends `items` to `target` in order (what `target.push(...items)` does, for any length). */
export function appendAll<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}
