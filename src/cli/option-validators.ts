import type { StrictValidator } from 'typanion';

/**
 * Option validators in clipanion's validator protocol (the one typanion implements), written out
 * because typanion's runtime costs ~20 ms of import on every CLI start for four checks.
 */
interface ValidationState {
  errors?: string[];
  coercions?: [string, () => void][];
  coercion?: (value: unknown) => () => void;
}

export function integerBetween(min: number, max = Number.MAX_SAFE_INTEGER): StrictValidator<unknown, number> {
  const check = (value: unknown, state?: ValidationState): boolean => {
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      state?.errors?.push(
        `.: Expected an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`} (got ${JSON.stringify(value)})`,
      );
      return false;
    }
    if (typeof value === 'string' && state?.coercions && state.coercion) {
      const coerce = state.coercion;
      state.coercions.push(['.', () => coerce(parsed)]);
    }
    return true;
  };
  return check as unknown as StrictValidator<unknown, number>;
}

export function oneOf<T extends string>(values: readonly T[]): StrictValidator<unknown, T> {
  const check = (value: unknown, state?: ValidationState): boolean => {
    if (typeof value === 'string' && (values as readonly string[]).includes(value)) return true;
    state?.errors?.push(`.: Expected one of ${values.join(', ')} (got ${JSON.stringify(value)})`);
    return false;
  };
  return check as unknown as StrictValidator<unknown, T>;
}

export const isPositiveInteger = integerBetween(1);
/**
 * Ranges of the flags that set a bound, shown in --help and enforced by the validators. Upper ends are
 * what the runtime honours (a Buffer read whole by Node holds at most 2^31-1 bytes) or what no run needs.
 */
export const MAX_INPUT_BYTES_RANGE = { min: 1, max: 2 ** 31 - 1 } as const;
export const JOBS_RANGE = { min: 1, max: 256 } as const;
export const WAIT_LOCK_SECONDS_RANGE = { min: 0, max: 86_400 } as const;
export const MAX_AGE_SECONDS_RANGE = { min: 0, max: 2 ** 31 - 1 } as const;

/** The validator of a range, and the words --help shows for it. */
export function inRange(range: { min: number; max: number }): StrictValidator<unknown, number> {
  return integerBetween(range.min, range.max);
}
export function rangeText(range: { min: number; max: number }): string {
  return `from ${range.min} to ${range.max}`;
}
export const isNonNegativeInteger = integerBetween(0);

/** Each value of a repeatable option is one of `values`. */
export function arrayOf<T extends string>(values: readonly T[]): StrictValidator<unknown, T[]> {
  const one = oneOf(values) as unknown as (value: unknown, state?: ValidationState) => boolean;
  const check = (value: unknown, state?: ValidationState): boolean => Array.isArray(value) && value.every((item) => one(item, state));
  return check as unknown as StrictValidator<unknown, T[]>;
}
