import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, Rig } from '../helpers/rig.js';
import { editDistance, nearest } from '../../src/cli/usage-errors.js';

/** Each usage error names the problem and the fix, with exit 2; never an empty "did you mean" list. */

async function usage(rig: Rig, args: string[]): Promise<{ message: string; hint: string; stderr: string }> {
  const json = await rig.exec([...args, '--json']);
  assert.equal(json.code, 2, `${args.join(' ')}: ${json.stdout}`);
  assert.equal(json.json!.error!.code, 'usage-error');
  const human = await rig.exec(args);
  assert.equal(human.code, 2);
  assert.doesNotMatch(human.stderr, /did you mean:?\s*(\n|$)/i, 'never an empty suggestion list');
  return { message: json.json!.error!.message, hint: json.json!.error!.hint ?? '', stderr: human.stderr };
}

test('a missing required option is named', async () => {
  const rig = new Rig();
  try {
    const e = await usage(rig, ['diff', '--out', '-']);
    assert.match(e.message, /Missing required option --before/);
    assert.match(e.hint, /Add --before/);
    const t = await usage(rig, ['query', '--index', 'i.json']);
    assert.match(t.message, /Missing the query/);
    assert.match(t.hint, /episteme query "conditional request"/);
  } finally {
    rig.cleanup();
  }
});

test('an unknown command suggests the nearest commands, or none', async () => {
  const rig = new Rig();
  try {
    const typo = await usage(rig, ['extrct']);
    assert.match(typo.message, /Unknown command "extrct"/);
    assert.match(typo.hint, /Did you mean `episteme extract`\?/);
    assert.match(typo.hint, /episteme --help/);
    const far = await usage(rig, ['zzzzzzzz']);
    assert.doesNotMatch(far.hint, /Did you mean/);
    assert.match(far.hint, /episteme --help/);
  } finally {
    rig.cleanup();
  }
});

test('an unknown option suggests the nearest options of that command, or none', async () => {
  const rig = new Rig();
  try {
    const typo = await usage(rig, ['build', '--jbos', '2']);
    assert.match(typo.message, /Unknown option --jbos for `episteme build`/);
    assert.match(typo.hint, /Did you mean `--jobs`\?/);
    const query = await usage(rig, ['query', '--index', 'i.json', '--term', 'x', '--limt', '3']);
    assert.match(query.hint, /`--limit`/);
    const far = await usage(rig, ['chunk', '--qqqqqqqqqq']);
    assert.doesNotMatch(far.hint, /Did you mean/);
    assert.match(far.hint, /episteme chunk --help/);
    // An option value that looks like an option is a value, not an unknown option.
    const value = await usage(rig, ['diff', '--out', '-x']);
    assert.match(value.message, /--before/);
  } finally {
    rig.cleanup();
  }
});

test('a bad URL in a manifest is described in words, not as a regular expression', async () => {
  const rig = new Rig();
  try {
    rig.write({ 'm.json': JSON.stringify([{ url: 'ftp://example.test/x' }]) });
    const result = await rig.exec(['snapshot', '--manifest', 'm.json', '--json']);
    assert.equal(result.code, 2);
    assert.equal(result.json!.error!.code, 'manifest-invalid');
    assert.match(result.json!.error!.message, /must be an http:\/\/ or https:\/\/ URL/);
    assert.doesNotMatch(result.json!.error!.message, /pattern|\^|\[Hh\]/);
    rig.write({
      'map.json': JSON.stringify([{ sourceUrl: 'https://e.test/a', localPath: 'a.html', contentType: 'text html' }]),
      'a.html': 'x',
    });
    const map = await rig.exec(['manual-ingest', '--map', 'map.json', '--json']);
    assert.equal(map.code, 2);
    assert.match(map.json!.error!.message, /media type/);
    assert.doesNotMatch(map.json!.error!.message, /pattern|\^/);
  } finally {
    rig.cleanup();
  }
});

test('a config error hint names a docs section that exists', async () => {
  // A message names a section as `README, "Heading"` or `docs/<file>.md, "Heading"` (a comma or not).
  const pointer = /\b(README|docs\/[a-z-]+\.md),? "([^"]+)"/g;
  const headingsOf = new Map<string, Set<string>>();
  const headings = (name: string): Set<string> => {
    let found = headingsOf.get(name);
    if (found === undefined) {
      const file = path.join(REPO_ROOT, name === 'README' ? 'README.md' : name);
      const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      found = new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim()));
      headingsOf.set(name, found);
    }
    return found;
  };
  const rig = new Rig();
  try {
    rig.write({ 'episteme.json': JSON.stringify({ bogus: 1 }) });
    const result = await rig.exec(['build', '--json']);
    assert.equal(result.code, 2);
    assert.equal(result.json!.error!.code, 'config-invalid');
    const named = [...result.json!.error!.hint!.matchAll(pointer)];
    assert.ok(named.length > 0, result.json!.error!.hint);
    for (const [, file, section] of named) assert.ok(headings(file!).has(section!), `${file} has no section "${section}"`);
  } finally {
    rig.cleanup();
  }
  // Every docs section any message names, anywhere in the source, exists.
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  for (const file of walk(path.join(REPO_ROOT, 'src'))) {
    for (const [, named, section] of fs.readFileSync(file, 'utf8').matchAll(pointer))
      assert.ok(
        headings(named!).has(section!),
        `${path.relative(REPO_ROOT, file)} names ${named} section "${section}", which does not exist`,
      );
  }
});

test('edit distance and nearest names', () => {
  assert.equal(editDistance('jbos', 'jobs'), 1);
  assert.equal(editDistance('extrct', 'extract'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.deepEqual(nearest('--jbos', ['--jobs', '--json', '--debug']), ['--jobs']);
  assert.deepEqual(nearest('zzzz', ['build', 'chunk']), []);
});

test('paths in messages are relative to the current folder', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'ws/episteme.json': JSON.stringify({ manualIngest: 'map.json', bogus: 1 }),
      'ws/map.json': JSON.stringify([{ sourceUrl: 'https://e.test/a', localPath: 'a.html' }]),
    });
    const config = await rig.exec(['build', '--config', 'ws/episteme.json', '--json']);
    assert.equal(config.code, 2);
    assert.match(config.json!.error!.message, /^ws\/episteme\.json is invalid/);
    rig.write({ 'ws/episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
    const map = await rig.exec(['build', '--config', 'ws/episteme.json', '--json']);
    assert.equal(map.code, 2);
    assert.match(map.json!.error!.message, /^ws\/map\.json is invalid: entry 0, field localPath: a\.html \(ws\/a\.html\) does not exist/);
    assert.doesNotMatch(map.json!.error!.message, new RegExp(rig.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no absolute path');
  } finally {
    rig.cleanup();
  }
});

test('a command line of thousands of words is refused at once, before it is parsed', async () => {
  // clipanion's parse time grows with the square of the words: 8,000 query words took 15 s and 600 MB
  // before the query's own bound (4,096 characters) was checked, and `build` with 8,000 targets as long
  // before it said `unknown-target`.
  const rig = new Rig();
  try {
    const words = Array.from({ length: 5000 }, () => 'a');
    for (const args of [
      ['query', ...words],
      ['build', ...words],
    ]) {
      const e = await usage(rig, args);
      assert.match(e.message, /The command line holds 500[12] arguments; Episteme reads at most 1024\./);
      assert.match(e.hint, /--shard I\/N/);
    }
    // A thousand is still read: the query's own bound speaks.
    const q = await usage(rig, ['query', ...words.slice(0, 1000).map(() => 'abcde')]);
    assert.match(q.message, /query words take at most 4096 characters/);
  } finally {
    rig.cleanup();
  }
});
