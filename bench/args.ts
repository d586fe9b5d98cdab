/** The value after `name` on the command line (`--runs 5`), or `fallback` when it is absent. */
export function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1]! : fallback;
}
