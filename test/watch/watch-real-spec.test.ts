import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rig, SHARED_SKIP, sharedDir } from '../helpers/rig.js';
import { WatchProcess } from '../helpers/watch-process.js';
import { scaled } from '../helpers/scale.js';

/**
 * A spec author's session on real specs: watch over three dev-corpus documents (the W3C spec an
 * author would edit, a WHATWG spec and an RFC), eight saves of the W3C spec (times
 * EPISTEME_TEST_SCALE), each a word added to some paragraph, a paragraph removed (save 4) or the
 * original restored (save 6), and after every cycle the derived files equal a clean build of the
 * same inputs. Real documents have what the generated ones lack: thousands of
 * links, definitions, algorithms and cross-references, so this checks the paths a save takes through
 * the worker's facts, the index part made beside the chunks and the merge on material as it comes.
 */
const SOURCES = [
  { sourceUrl: 'https://www.w3.org/TR/css-flexbox-1/', file: 'w3c/Overview.html', contentType: 'text/html' },
  { sourceUrl: 'https://infra.spec.whatwg.org/', file: 'whatwg/infra.html', contentType: 'text/html' },
  { sourceUrl: 'https://www.rfc-editor.org/rfc/rfc6635.txt', file: 'rfc/rfc6635.txt', contentType: 'text/plain' },
];
/** Eight: every kind of save (word added, paragraph removed, revert, an edit after the revert) at least once. */
const SAVES = scaled(8);

function mapOf(): string {
  return JSON.stringify(SOURCES.map((s) => ({ sourceUrl: s.sourceUrl, localPath: `src/${s.file}`, contentType: s.contentType })));
}

/** The n-th save's text: a word added after some paragraph's start tag, or (every fifth) that paragraph's text removed. */
function edited(original: string, n: number): string {
  let at = Math.floor(original.length / 5);
  for (let k = 0; k <= (n * 37) % 300; k++) {
    const next = original.indexOf('<p>', at + 1);
    if (next < 0) break;
    at = next;
  }
  const start = at + 3;
  if (n % 5 === 4) return original.slice(0, start) + original.slice(original.indexOf('</p>', start));
  return `${original.slice(0, start)}authorword${n} ${original.slice(start)}`;
}

test(`watch over ${SAVES} saves of a real spec equals a clean build after every cycle`, {
  skip: SHARED_SKIP,
  timeout: 1_800_000,
}, async (t) => {
  const dev = path.join(sharedDir()!, 'corpus', 'dev');
  const missing = SOURCES.filter((s) => !fs.existsSync(path.join(dev, s.file)));
  if (missing.length > 0) {
    t.skip(`the dev corpus lacks ${missing.map((s) => s.file).join(', ')}`);
    return;
  }
  const rig = new Rig('episteme-watch-real-');
  const originals = new Map(SOURCES.map((s) => [s.file, fs.readFileSync(path.join(dev, s.file), 'utf8')]));
  rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }), 'map.json': mapOf() });
  for (const s of SOURCES) rig.write({ [`src/${s.file}`]: originals.get(s.file)! });
  const watch = new WatchProcess(rig.dir);
  t.after(async () => {
    await watch.stop('SIGKILL');
    rig.cleanup();
  });
  assert.equal((await watch.nextCycle(0)).ok, true, watch.dump());
  const author = SOURCES[0]!.file;
  let current = originals.get(author)!;
  for (let n = 0; n < SAVES; n++) {
    // Every seventh save restores the original bytes: a revert, whose outputs are ones built before.
    current = n % 7 === 6 ? originals.get(author)! : edited(current, n);
    const mark = watch.lines.length;
    rig.write({ [`src/${author}`]: current });
    const cycle = await watch.nextCycle(mark);
    assert.equal(cycle.ok, true, watch.dump());
    await assertEqualsCleanBuild(rig, n);
  }
});

async function assertEqualsCleanBuild(rig: Rig, n: number): Promise<void> {
  const clean = new Rig('episteme-watch-real-clean-');
  try {
    clean.write({ 'episteme.json': rig.read('episteme.json'), 'map.json': rig.read('map.json') });
    for (const s of SOURCES) clean.write({ [`src/${s.file}`]: fs.readFileSync(rig.path('src', s.file)) });
    const built = await clean.exec(['build']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    // Snapshot records of earlier saves are kept by design (a capture cannot be recomputed): compare
    // the derived files and the snapshot index, which names the current snapshots only.
    const derived = (r: Rig) =>
      new Map([...r.artifacts(['specs', 'chunks']), ...[...r.artifacts(['snapshots'])].filter(([f]) => f === 'snapshots/index.json')]);
    assert.deepEqual(derived(rig), derived(clean), `after save ${n}`);
  } finally {
    clean.cleanup();
  }
}
