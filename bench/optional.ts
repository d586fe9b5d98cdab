/**
 * Baselines that are dev dependencies (MiniSearch, lunr, better-sqlite3) are loaded optionally: when
 * one is missing (an install without dev dependencies, a better-sqlite3 build that failed) the bench
 * skips that comparison and says so, instead of failing.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const reported = new Set<string>();

/** The package's CommonJS export, or undefined (with one SKIP line) when it cannot be loaded. */
export function optionalPackage<T>(name: string, what: string): T | undefined {
  try {
    return require(name) as T;
  } catch (error) {
    if (!reported.has(name)) {
      reported.add(name);
      const reason = (error as Error).message.split('\n')[0];
      console.log(`SKIP: ${what}: ${name} cannot be loaded (${reason}).`);
    }
    return undefined;
  }
}
