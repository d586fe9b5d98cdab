import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { runStageTask, type ChunkResult, type MissingDocument } from '../../src/graph/stage-tasks.js';
import { WorkerMemory } from '../../src/graph/worker-memory.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../../src/extract/extract.js';
import { DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { buildDocumentPart, partMemoryOf, type PartBuildMemory } from '../../src/index/search-index.js';
import type { Chunk } from '../../src/document/types.js';
import { sha256Hex } from '../../src/store/hash.js';
import { indexTerms } from '../../src/index/tokenizer.js';
import { encodeVlq } from '../../src/index/vlq.js';
import { REPO_ROOT, sharedDir } from '../helpers/rig.js';
import { seededRandom } from '../helpers/random.js';

/**
 * A stage worker's memory (worker-memory.ts) only saves work: a chunk task that takes the document
 * its worker extracted, the last round's text JSON and terms, and patches the document's last index
 * part gives the bytes a fresh worker gives. Checked over sequences of edits of real documents (the
 * extraction fixtures, and the dev corpus's largest specs when ../shared is there): words added in
 * paragraphs (same chunk ids: the patch path), new and vanished terms, text removed (chunk ids
 * change), reverts.
 */
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'extract');
const DEV_FILES = [
  { file: 'whatwg/dom.html', url: 'https://dom.spec.whatwg.org/', contentType: 'text/html' },
  { file: 'w3c/Overview.html', url: 'https://www.w3.org/TR/css-flexbox-1/', contentType: 'text/html' },
  { file: 'rfc/rfc6635.txt', url: 'https://www.rfc-editor.org/rfc/rfc6635.txt', contentType: 'text/plain' },
];

interface Source {
  name: string;
  url: string;
  contentType: string;
  text: string;
  /** The file's bytes, when it is not edited (PDFs among them). */
  bytes?: Buffer;
}

/** Every document of the dev corpus's map (one round each: the document held in memory against the one parsed from its file). */
function devCorpus(): Source[] {
  const shared = sharedDir();
  const dir = shared === null ? null : path.join(shared, 'corpus', 'dev');
  if (dir === null || !fs.existsSync(path.join(dir, 'manual-ingest.json'))) return [];
  const map = JSON.parse(fs.readFileSync(path.join(dir, 'manual-ingest.json'), 'utf8')) as {
    sourceUrl: string;
    localPath: string;
    contentType: string;
  }[];
  return map.map((e) => ({
    name: e.localPath,
    url: e.sourceUrl,
    contentType: e.contentType,
    text: '',
    bytes: fs.readFileSync(path.join(dir, e.localPath)),
  }));
}

function sources(): Source[] {
  const out: Source[] = fs
    .readdirSync(FIXTURES)
    .filter((name) => !name.endsWith('.json'))
    .sort()
    .map((name) => ({
      name,
      url: `https://example.org/${name}`,
      contentType: name.endsWith('.xml') ? 'application/xml' : name.endsWith('.txt') ? 'text/plain' : 'text/html',
      text: fs.readFileSync(path.join(FIXTURES, name), 'utf8'),
    }));
  const shared = sharedDir();
  for (const dev of DEV_FILES) {
    const file = shared === null ? null : path.join(shared, 'corpus', 'dev', dev.file);
    if (file !== null && fs.existsSync(file))
      out.push({ name: dev.file, url: dev.url, contentType: dev.contentType, text: fs.readFileSync(file, 'utf8') });
  }
  return out;
}

/** The round's text: a word put at the start of some element's text, a run of text taken out, or the original. */
function edited(original: string, current: string, round: number, random: () => number): string {
  if (round % 6 === 5) return original;
  const starts: number[] = [];
  for (let at = current.indexOf('>'); at >= 0 && starts.length < 5000; at = current.indexOf('>', at + 1)) {
    if (/[A-Za-z]/.test(current[at + 1] ?? '')) starts.push(at + 1);
  }
  if (starts.length === 0)
    for (let at = current.indexOf(' '); at >= 0 && starts.length < 5000; at = current.indexOf(' ', at + 200)) starts.push(at + 1);
  const at = starts[Math.floor(random() * starts.length)]!;
  if (round % 4 === 3) {
    const end = current.indexOf('<', at);
    return current.slice(0, at) + current.slice(end > at ? end : Math.min(current.length, at + 40));
  }
  // A word no document has (a new term), or one every document has (a changed count).
  const word = round % 2 === 0 ? `zqxword${round}` : 'the';
  return `${current.slice(0, at)}${word} ${current.slice(at)}`;
}

async function extracted(source: Source, text: string, memory: WorkerMemory): Promise<{ bytes: Buffer; sha256: string }> {
  const body = source.bytes ?? Buffer.from(text, 'utf8');
  const sha = sha256Hex(body);
  const result = await runStageTask(
    {
      stage: 'extract',
      input: {
        documentId: 'doc',
        source: { url: source.url },
        snapshot: {
          snapshotId: `snap-${sha.slice(0, 16)}`,
          sourceUrl: source.url,
          captureMethod: 'manual-ingest',
          contentType: source.contentType,
          charset: null,
          sha256: sha,
          byteLength: body.length,
        },
        body: new Uint8Array(body),
        options: DEFAULT_EXTRACT_OPTIONS,
      },
    },
    memory,
  );
  const bytes = Buffer.from(result.bytes);
  assert.equal(result.sha256, sha256Hex(bytes), `${source.name}: the extract task's hash is of its bytes`);
  return { bytes, sha256: result.sha256 };
}

test('a worker that remembers its last rounds chunks every edit of a document as a fresh worker does', async () => {
  const all = sources();
  assert.ok(all.length >= 10, 'the extraction fixtures are there');
  for (const source of all) {
    const random = seededRandom(all.indexOf(source) + 1);
    const memory = new WorkerMemory();
    let text = source.text;
    let previousPart: string | undefined;
    const rounds = source.text.length > 500_000 ? 4 : 7;
    for (let round = 0; round < rounds; round++) {
      if (round > 0) text = edited(source.text, text, round, random);
      const document = await extracted(source, text, memory);
      const task = { stage: 'chunk' as const, documentId: 'doc', documentSha256: document.sha256, options: DEFAULT_CHUNK_OPTIONS };
      // As the chunk rule sends it to the worker that extracted the document: without the bytes.
      const remembered = done(await runStageTask({ ...task, ...(previousPart === undefined ? {} : { previousPart }) }, memory));
      assert.equal(memory.documents.get(document.sha256), undefined, 'the chunk task took the document its worker extracted');
      assert.deepEqual(await runStageTask(task, memory), { missing: 'document' }, 'a worker without the document asks for it');
      const fresh = done(await runStageTask({ ...task, documentBytes: document.bytes }));
      const label = `${source.name}, round ${round}`;
      assert.deepEqual(remembered.bytes, fresh.bytes, `${label}: chunk file`);
      assert.equal(remembered.sha256, fresh.sha256, `${label}: chunk file hash`);
      assert.equal(remembered.chunksContentHash, fresh.chunksContentHash, `${label}: content hash`);
      assert.equal(remembered.snapshotId, fresh.snapshotId, `${label}: snapshot`);
      assert.equal(remembered.part, fresh.part, `${label}: index part`);
      previousPart = remembered.part;
    }
  }
});

test("a worker that did not make a document's last part reads it back and patches it as the worker that made it would", async () => {
  const all = sources();
  for (const source of all) {
    const random = seededRandom(all.indexOf(source) + 101);
    let text = source.text;
    let previousPart: string | undefined;
    const rounds = source.text.length > 500_000 ? 3 : 5;
    for (let round = 0; round < rounds; round++) {
      if (round > 0) text = edited(source.text, text, round, random);
      // A fresh worker every round (a one-shot build's), given the last round's part as the chunk rule sends it.
      const memory = new WorkerMemory();
      const document = await extracted(source, text, memory);
      const task = { stage: 'chunk' as const, documentId: 'doc', documentSha256: document.sha256, options: DEFAULT_CHUNK_OPTIONS };
      const fromPart = done(await runStageTask({ ...task, ...(previousPart === undefined ? {} : { previousPart }) }, memory));
      const fresh = done(await runStageTask({ ...task, documentBytes: document.bytes }));
      const label = `${source.name}, round ${round}`;
      assert.equal(fromPart.part, fresh.part, `${label}: index part`);
      assert.deepEqual(fromPart.bytes, fresh.bytes, `${label}: chunk file`);
      // What the part reads back as is what the worker that made it kept.
      const kept = memory.chunkingOf('doc').part!;
      const read = partMemoryOf(fresh.part)!;
      assert.ok(read !== null, `${label}: the part reads back`);
      for (const key of ['chunkIds', 'texts', 'headingKeys', 'lengths', 'passageKeys', 'terms'] as const)
        assert.deepEqual(read[key], kept[key], `${label}: ${key}`);
      assert.deepEqual(read.runs, kept.runs, `${label}: runs`);
      assert.equal(read.byTerm.size, 0, `${label}: entries are decoded only when a patch touches them`);
      assert.deepEqual(read.rowBlocks, kept.rowBlocks, `${label}: row blocks`);
      previousPart = fresh.part;
    }
  }
});

/** A chunk of document "doc" for the index-part tests: its ordinal, text, heading path and section. */
function testChunk(i: number, text: string, headingPath: string[], sectionId: string): Chunk {
  return {
    chunkId: `doc#c${String(i).padStart(3, '0')}`,
    documentId: 'doc',
    text,
    contentTrust: 'untrusted-source',
    citation: {
      sourceUrl: 'https://example.org/',
      fragment: `c${i}`,
      snapshotId: 'snap',
      documentId: 'doc',
      sectionId,
      headingPath,
      blockIds: [`c${i}`],
    },
    normativity: 'informative',
    family: 'generic',
    authority: 'informative',
    documentType: 'spec',
  };
}

test('a part read back is patched in place when one chunk changed, and a damaged part is not read back', () => {
  const chunk = (i: number, text: string): Chunk => testChunk(i, text, ['Doc', `Section ${i}`], `s${i}`);
  const chunks = Array.from({ length: 24 }, (_, i) => chunk(i, `A fetch request ${i} sends header ${i % 5} with textContent and MRCPv2.`));
  const part = buildDocumentPart('doc', chunks);
  const read = partMemoryOf(part)!;
  const memory: PartBuildMemory = { terms: { get: indexTerms }, part: read };
  const edited = chunks.map((c, i) => (i === 7 ? chunk(i, `${c.text} A novel word.`) : c));
  assert.equal(buildDocumentPart('doc', edited, undefined, undefined, memory), buildDocumentPart('doc', edited));
  assert.equal(memory.part!.byTerm, read.byTerm, 'patched, not built afresh');
  assert.ok(read.byTerm.size > 0 && read.byTerm.size < read.terms.length, 'only the touched terms were decoded');
  // A run that reads as digits but names a chunk past the part's (decoded only as the patch touches
  // it): the part is built afresh, the same bytes.
  const runsOf = partMemoryOf(part)!;
  const runs = runsOf.terms.map((term) =>
    term === 'fetch'
      ? (() => {
          const out: string[] = [];
          encodeVlq(500 * 2, out);
          return out.join('');
        })()
      : runsOf.runs.get(term)!,
  );
  const runLengths: string[] = [];
  for (const run of runs) encodeVlq(run.length, runLengths);
  const partLines = part.split('\n');
  const badRun = [partLines[0], partLines[1], runs.join(''), runLengths.join(''), partLines[4]].join('\n');
  const fromBad: PartBuildMemory = { terms: { get: indexTerms }, part: partMemoryOf(badRun)! };
  assert.ok(fromBad.part !== null, 'its digits read back');
  assert.equal(buildDocumentPart('doc', edited, undefined, undefined, fromBad), buildDocumentPart('doc', edited));
  // A changed character in a row block (its key no longer matches) or in a posting run (a bad digit),
  // or a part of another format: not read back.
  const lines = part.split('\n');
  const damagedBlock = [
    ...lines.slice(0, 4),
    lines[4]!.replace(/"[A-Za-z0-9+/]{8}/, (m) => `"${m.slice(1, 5) === 'AAAA' ? 'BBBB' : 'AAAA'}${m.slice(5)}`),
  ];
  assert.notEqual(damagedBlock.join('\n'), part);
  assert.equal(partMemoryOf(damagedBlock.join('\n')), null);
  assert.equal(partMemoryOf([lines[0], lines[1], `${lines[2]!.slice(0, -1)}~`, ...lines.slice(3)].join('\n')), null);
  assert.equal(partMemoryOf(part.replace(/"partFormat":\d+/, '"partFormat":1')), null);
  // A block whose key matches but whose rows are not chunk rows (a text that is a number): not read back.
  const header = JSON.parse(lines[0]!) as { rowBlockKeys: string[] };
  const raw = zlib.inflateRawSync(Buffer.from(lines[4]!.split(',')[0]!.slice(1, -1), 'base64'), {
    finishFlush: zlib.constants.Z_SYNC_FLUSH,
  });
  const rows = raw.toString('utf8').slice(0, -1).split('\n');
  const row = JSON.parse(rows[0]!) as unknown[];
  row[9] = 42;
  const forgedRaw = Buffer.from(`${[JSON.stringify(row), ...rows.slice(1)].join('\n')}\n`, 'utf8');
  const forgedBlock = zlib.deflateRawSync(forgedRaw, { flush: zlib.constants.Z_SYNC_FLUSH }).toString('base64');
  header.rowBlockKeys[0] = sha256Hex(forgedRaw);
  const blocks = lines[4]!.split(',');
  blocks[0] = `"${forgedBlock}"`;
  assert.equal(partMemoryOf([JSON.stringify(header), lines[1], lines[2], lines[3], blocks.join(',')].join('\n')), null);
  assert.equal(partMemoryOf('not a part'), null);
});

function done(result: ChunkResult | MissingDocument): ChunkResult {
  assert.ok(!('missing' in result), 'the worker held the document');
  return result;
}

test("every dev-corpus document chunked from its worker's memory equals one chunked from its file", {
  skip: devCorpus().length === 0 ? '../shared is absent: dev corpus part skipped' : false,
}, async () => {
  for (const source of devCorpus()) {
    const memory = new WorkerMemory();
    const document = await extracted(source, '', memory);
    const task = { stage: 'chunk' as const, documentId: 'doc', documentSha256: document.sha256, options: DEFAULT_CHUNK_OPTIONS };
    const remembered = done(await runStageTask(task, memory));
    const fresh = done(await runStageTask({ ...task, documentBytes: document.bytes }));
    assert.deepEqual(remembered.bytes, fresh.bytes, `${source.name}: chunk file`);
    assert.equal(remembered.part, fresh.part, `${source.name}: index part`);
  }
});

test('an index part patched for changed chunk texts and headings equals a fresh one, and is patched', () => {
  const random = seededRandom(7);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'fetch', 'header', 'zeta', 'request'];
  const sentence = (n: number): string => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
  const headings = [['Doc', 'One'], ['Doc', 'Two'], ['Doc']];
  const chunk = (i: number, text: string, heading: string[]): Chunk => testChunk(i, text, heading, `s${i % 3}`);
  let chunks = Array.from({ length: 40 }, (_, i) => chunk(i, sentence(12), headings[i % 3]!));
  const memory: PartBuildMemory = { terms: { get: indexTerms }, part: undefined };
  buildDocumentPart('doc', chunks, undefined, undefined, memory);
  let patched = 0;
  for (let round = 0; round < 60; round++) {
    const before = memory.part!.byTerm;
    const i = Math.floor(random() * chunks.length);
    const kind = round % 5;
    chunks = chunks.map((c, k) => {
      if (k !== i) return c;
      if (kind === 0) return chunk(k, `${c.text} novel${round}`, c.citation.headingPath);
      if (kind === 1) return chunk(k, c.text.replace(/novel\d+/g, ''), c.citation.headingPath);
      if (kind === 2) return chunk(k, c.text, ['Doc', `Renamed ${round}`]);
      if (kind === 3) return chunk(k, sentence(3), c.citation.headingPath);
      return chunk(k, '', c.citation.headingPath);
    });
    const part = buildDocumentPart('doc', chunks, undefined, undefined, memory);
    assert.equal(part, buildDocumentPart('doc', chunks), `round ${round}`);
    if (memory.part!.byTerm === before) patched++;
  }
  assert.ok(patched >= 55, `one changed chunk of forty is patched, not rebuilt (${patched} of 60)`);
  // Another set of chunk ids: built afresh, still equal.
  const renumbered = chunks.slice(1);
  assert.equal(buildDocumentPart('doc', renumbered, undefined, undefined, memory), buildDocumentPart('doc', renumbered));
});
