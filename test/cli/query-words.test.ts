import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * `episteme query how do cookies expire`: the words after the options are the query as typed, one
 * --term value: the same answer as `--term "how do cookies expire"` (its words are neighbours, which
 * proximity rewards; separate --term values are not), quoted or not, in human and JSON output, with
 * --term values beside them; --batch refuses them as it refuses --term.
 */
test('query words after the options are the query as typed', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig, 4);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const asTyped = await rig.exec(['query', '--term', 'topic1 document', '--json']);
    assert.equal(asTyped.code, 0, asTyped.stdout);
    assert.ok(asTyped.json!.data!.hits.length > 0, 'the query finds something');
    const separate = await rig.exec(['query', '--term', 'topic1', '--term', 'document', '--json']);
    assert.notEqual(separate.stdout, asTyped.stdout, 'neighbouring words score a proximity that separate terms do not');
    const byWords = await rig.exec(['query', 'topic1', 'document', '--json']);
    assert.equal(byWords.code, 0, byWords.stderr);
    assert.equal(byWords.stdout, asTyped.stdout);
    const quoted = await rig.exec(['query', '--json', 'topic1 document']);
    assert.equal(quoted.stdout, asTyped.stdout);
    const withTerm = await rig.exec(['query', '--term', 'zebra1', 'topic1', 'document', '--json']);
    assert.equal(withTerm.stdout, (await rig.exec(['query', '--term', 'zebra1', '--term', 'topic1 document', '--json'])).stdout);
    const human = await rig.exec(['query', 'topic1', 'document']);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, (await rig.exec(['query', '--term', 'topic1 document'])).stdout);

    const batch = await rig.exec(['query', '--batch', 'topic1', '--json'], { input: '{"terms":["topic1"]}\n' });
    assert.equal(batch.code, 2);
    assert.equal(batch.json!.error!.code, 'usage-error');
    assert.match(batch.json!.error!.message, /not from --term or the command line/);
    assert.match(batch.json!.error!.hint!, /Drop the query words/);

    const long = await rig.exec(['query', ...Array.from({ length: 1000 }, () => 'word'), '--json']);
    assert.equal(long.code, 2);
    assert.match(long.json!.error!.message, /^The query words take at most 4096 characters \(got 4999\)\.$/);
    assert.equal(long.json!.error!.hint, 'Shorten the query to its key words.');

    const none = await rig.exec(['query', '--json']);
    assert.equal(none.code, 2);
    assert.match(none.json!.error!.message, /Missing the query/);
  } finally {
    rig.cleanup();
  }
});

/**
 * The index holds words, numbers and operators, not single punctuation marks: a query of those alone
 * (`?`, `#`) or a blank term matched nothing and said nothing. It is a usage error naming the terms,
 * with a hint that works, on the command line, in a --batch line and the same for a query with words
 * around the symbol.
 */
test('a query with no word to search for is a usage error, not a silent empty answer', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig, 4);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    for (const terms of [['?'], ['   '], ['# ?', '>']]) {
      const symbols = await rig.exec(['query', ...terms.flatMap((term) => ['--term', term]), '--json']);
      assert.equal(symbols.code, 2, symbols.stdout);
      assert.equal(symbols.json!.error!.code, 'usage-error');
      assert.match(
        symbols.json!.error!.message,
        /^The query has no word to search for \(.*\): the index holds words, numbers and operators/,
      );
      assert.equal(symbols.json!.error!.details!.field, 'terms');
    }
    const human = await rig.exec(['query', '--term', '?']);
    assert.equal(human.code, 2);
    assert.match(human.stderr, /no word to search for \("\?"\)/);
    assert.match(human.stderr, /hint: Add the words around it or name it in words/);
    const batch = await rig.exec(['query', '--batch'], { input: '{"terms":["?"]}\n{"terms":["topic1 ?"]}\n' });
    const lines = batch.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ok: boolean; error?: { message: string } });
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.ok, false);
    assert.match(lines[0]!.error!.message, /^Line 1 has no word to search for/);
    assert.equal(lines[1]!.ok, true);
    // The hint's own advice works: words around the symbol are a query.
    const words = await rig.exec(['query', 'topic1 ?', '--json']);
    assert.equal(words.code, 0, words.stderr);
    assert.ok(words.json!.data!.hits.length > 0);
  } finally {
    rig.cleanup();
  }
});
