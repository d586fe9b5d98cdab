import { QueryCommand } from './query.js';
import { runCli } from './run-cli.js';

/**
 * Entry point of `episteme query` alone. The launcher uses it when the first argument is `query`:
 * it is bundled into one self-contained file (dist/bundle/query-main.cjs), because agents run
 * queries from cold processes and every extra ES module file costs about a millisecond to resolve,
 * read and link. It parses with the same CLI as main.ts, restricted to this command.
 */
export function main(argv: string[]): Promise<number> {
  return runCli(argv, { query: async () => QueryCommand });
}
