import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type BaseContext, Cli } from 'clipanion';
import { QueryCommand } from '../../src/cli/query.js';

/**
 * Long options as agents send them, parsed by clipanion for the query command: `--x v`, `--x=v`,
 * repeats, `--no-x` negation and `-` (stdin) as a value; a value that looks like an option, a
 * missing required option and a value its validator refuses are usage errors.
 */
function queryCli(): Cli {
  const cli = new Cli({ binaryName: 'episteme', enableColors: false });
  cli.register(QueryCommand);
  return cli;
}

const context = { env: {}, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, colorDepth: 1 } as BaseContext;

test("an agent's usual query line gives the query command its values", () => {
  const line = [
    'query',
    '--index',
    'chunks/search-index.json',
    '--term',
    'conditional request',
    '--term=etag',
    '--limit',
    '5',
    '--json',
    '--no-collapse',
  ];
  const command = queryCli().process(line, context) as QueryCommand;
  assert.ok(command instanceof QueryCommand);
  assert.equal(command.index, 'chunks/search-index.json');
  assert.deepEqual(command.terms, ['conditional request', 'etag']);
  assert.equal(command.limit, 5);
  assert.equal(command.collapse, false);
  const stdin = queryCli().process(['query', '--index', '-', '--term', 'y'], context) as QueryCommand;
  assert.equal(stdin.index, '-', 'stdin ("-") is a value');
  for (const refused of [
    ['query', '--index', 'x', '--term', 'y', '--limit', '0'],
    ['query', '--index', 'x', '--term', '-y'],
    // (`query --index x` without --term parses, since `--batch` takes its terms from stdin; the command
    // refuses it with the same usage error: usage-errors.test.ts, "a missing required option is named".)
    ['query', '--index', 'x', '--term', 'y', '--explain=true'],
  ]) {
    assert.throws(() => queryCli().process(refused, context), Error, JSON.stringify(refused));
  }
  // Words after the options are the query as typed (query-words.test.ts), not a stray argument.
  const words = queryCli().process([...line, 'more', 'words'], context) as QueryCommand;
  assert.deepEqual(words.terms, ['conditional request', 'etag']);
  assert.deepEqual(words.words, ['more', 'words']);
});
