/**
 * How many iterations the repeated-trial tests run (fuzz cases, random queries, kill trials, edit and
 * save sequences): their default count times EPISTEME_TEST_SCALE (a positive integer, default 1).
 * The default keeps every distinct case and `npm test` within CI's time budget; a nightly or
 * exploratory run sets e.g. EPISTEME_TEST_SCALE=3 (docs/testing.md).
 */
export function scaled(count: number): number {
  const raw = process.env['EPISTEME_TEST_SCALE'];
  if (raw === undefined || raw === '') return count;
  const factor = Number(raw);
  if (!Number.isInteger(factor) || factor < 1)
    throw new Error(`EPISTEME_TEST_SCALE must be a positive integer, got ${JSON.stringify(raw)}; unset it for the default counts`);
  return count * factor;
}
