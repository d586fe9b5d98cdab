/**
 * Canonical JSON: object keys sorted by UTF-16 code unit (never localeCompare), no whitespace,
 * no undefined, no non-finite numbers. Equal values always give equal bytes, on every runtime.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, '$');
}

/** Canonical JSON plus a trailing newline, as written to disk. */
export function canonicalJsonFile(value: unknown): string {
  return canonicalJson(value) + '\n';
}

function serialize(value: unknown, where: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: non-finite number at ${where}`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return '[' + value.map((item, i) => serialize(item === undefined ? null : item, `${where}[${i}]`)).join(',') + ']';
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort(compareCodeUnits);
      return '{' + keys.map((k) => JSON.stringify(k) + ':' + serialize(record[k], `${where}.${k}`)).join(',') + '}';
    }
    default:
      throw new TypeError(`canonical JSON: unsupported ${typeof value} at ${where}`);
  }
}

/** Sort comparator by UTF-16 code unit; the only string order used for derived artifacts. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
