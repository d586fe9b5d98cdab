/**
 * Natural logarithm from IEEE-754 basic operations only (+, -, *, /), which every JS engine rounds
 * identically. Math.log may differ by one ulp between Node, Deno and Bun, and scores feed the
 * ranking, so BM25 uses this instead: the same inputs give bit-identical scores everywhere.
 */
const LN2 = Math.LN2; // a constant of the language (the double nearest ln 2), not a computation

export function deterministicLn(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError(`deterministicLn: ${x}`);
  let mantissa = x;
  let exponent = 0;
  while (mantissa >= 2) {
    mantissa /= 2;
    exponent++;
  }
  while (mantissa < 1) {
    mantissa *= 2;
    exponent--;
  }
  // Centre the mantissa on 1 (range [sqrt(1/2), sqrt(2))) so the series converges fast.
  if (mantissa > Math.SQRT2) {
    mantissa /= 2;
    exponent++;
  }
  // ln(m) = 2 * atanh(z), z = (m - 1) / (m + 1), |z| < 0.172
  const z = (mantissa - 1) / (mantissa + 1);
  const z2 = z * z;
  let term = z;
  let sum = 0;
  for (let k = 1; k < 60; k += 2) {
    const next = sum + term / k;
    if (next === sum) break;
    sum = next;
    term *= z2;
  }
  return 2 * sum + exponent * LN2;
}
