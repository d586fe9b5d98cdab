import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from '../../src/chunk/chunker.js';
import { encodeChunks } from '../../src/chunk/chunk-file.js';
import { SectionChunks } from '../../src/chunk/section-chunks.js';
import type { Block, Chunk, EvidenceDocument } from '../../src/document/types.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../../src/extract/extract.js';
import { buildDocumentPart } from '../../src/index/search-index.js';
import { indexTerms } from '../../src/index/tokenizer.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { sha256Hex } from '../../src/store/hash.js';
import { REPO_ROOT, sharedDir } from '../helpers/rig.js';
import { ALL_DOCS } from './fixtures.js';

/**
 * The chunker's memory of a document's last round (section-chunks.ts) reuses a run of a section's
 * blocks when what the chunker reads of them (chunker.ts sameChunkInput) is unchanged. Two things make
 * that sound, both checked here on real documents: the chunker reads nothing of a block that the
 * comparison leaves out, and every kind of change (text, spans, headings, apparatus, anchors, steps,
 * pages, snapshot, source, options, blocks taken out) gives the chunks, chunk file and index part a
 * fresh chunking gives.
 */
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'extract');
const DEV_FILES = [
  { file: 'whatwg/dom.html', url: 'https://dom.spec.whatwg.org/', contentType: 'text/html' },
  { file: 'rfc/rfc6635.txt', url: 'https://www.rfc-editor.org/rfc/rfc6635.txt', contentType: 'text/plain' },
  { file: 'rfc/rfc9111.xml', url: 'https://www.rfc-editor.org/rfc/rfc9111.xml', contentType: 'application/xml' },
];

async function documents(): Promise<{ name: string; doc: EvidenceDocument }[]> {
  const out = fs
    .readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.golden.json'))
    .sort()
    .map((name) => ({ name, doc: JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as EvidenceDocument }));
  for (const [i, doc] of ALL_DOCS.entries()) out.push({ name: `fixture ${i}`, doc });
  const shared = sharedDir();
  for (const dev of DEV_FILES) {
    const file = shared === null ? null : path.join(shared, 'corpus', 'dev', dev.file);
    if (file === null || !fs.existsSync(file)) continue;
    const body = fs.readFileSync(file);
    const sha256 = sha256Hex(body);
    const doc = await extractDocument({
      documentId: 'doc',
      source: { url: dev.url },
      snapshot: {
        snapshotId: `snap-${sha256.slice(0, 16)}`,
        sourceUrl: dev.url,
        captureMethod: 'manual-ingest',
        contentType: dev.contentType,
        charset: null,
        sha256,
        byteLength: body.length,
      },
      body: new Uint8Array(body),
      options: DEFAULT_EXTRACT_OPTIONS,
    });
    out.push({ name: dev.file, doc });
  }
  return out;
}

/**
 * What the chunker may read of a block, an anchor and a step node: what sameChunkInput compares (and the
 * span, restamped), and a block's links, which only decide whether its section is a summary of the others
 * (summary-sections.ts): that flag, the section's apparatus, is compared for the whole run.
 */
const READABLE = {
  block: new Set([
    'id',
    'kind',
    'text',
    'sectionId',
    'normativity',
    'fragment',
    'page',
    'pageStarts',
    'anchors',
    'steps',
    'entries',
    'span',
    'links',
  ]),
  anchor: new Set(['id', 'start']),
  step: new Set(['path', 'id', 'steps']),
};

/** `value` behind proxies that record each member read of a block, an anchor or a step node (arrays are walked freely). */
function recording(value: unknown, kind: keyof typeof READABLE, reads: Set<string>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => recording(item, kind, reads));
  const inner: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (kind === 'block') {
    if (inner['anchors'] !== undefined) inner['anchors'] = recording(inner['anchors'], 'anchor', reads);
    if (inner['steps'] !== undefined) inner['steps'] = recording(inner['steps'], 'step', reads);
  }
  if (kind === 'step' && inner['steps'] !== undefined) inner['steps'] = recording(inner['steps'], 'step', reads);
  return new Proxy(inner, {
    get(target, key, receiver) {
      if (typeof key === 'string') reads.add(`${kind}.${key}`);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      if (typeof key === 'string') reads.add(`${kind}.${key}`);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      reads.add(`${kind}.*`);
      return Reflect.ownKeys(target);
    },
  });
}

test('the chunker reads nothing of a block that its memory of a section does not compare', async () => {
  const reads = new Set<string>();
  for (const { doc } of await documents()) {
    const blocks = doc.blocks.map((block) => recording(block, 'block', reads) as Block);
    for (const options of [DEFAULT_CHUNK_OPTIONS, { maxChars: 200, overlapChars: 40 }]) chunkDocument({ ...doc, blocks }, options);
  }
  for (const read of reads) {
    const [kind, key] = read.split('.') as [keyof typeof READABLE, string];
    assert.ok(READABLE[kind].has(key), `the chunker reads ${read}, which sameChunkInput does not compare`);
  }
  // The recording works: what the chunker surely reads is recorded.
  for (const read of ['block.text', 'block.anchors', 'block.steps', 'anchor.id', 'step.path']) assert.ok(reads.has(read), read);
});

/** A copy of `doc` with `change` applied to it (the copy is a fresh one: nothing is shared with `doc`). */
function changed(doc: EvidenceDocument, change: (copy: EvidenceDocument) => void): EvidenceDocument {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
}

/** The index of a block with text in the middle of the document, of the given kind when there is one. */
function middleBlock(doc: EvidenceDocument, test: (block: Block) => boolean = () => true): number {
  const candidates = doc.blocks.map((_block, i) => i).filter((i) => doc.blocks[i]!.text.trim() !== '' && test(doc.blocks[i]!));
  return candidates[Math.floor(candidates.length / 2)] ?? -1;
}

/** Every span from block `from` on moved by `delta` (as an edit before them moves them). */
function shiftSpans(doc: EvidenceDocument, from: number, delta: number): void {
  for (const block of doc.blocks.slice(from)) {
    const span = block.span;
    if (span !== undefined && typeof span['start'] === 'number' && typeof span['end'] === 'number')
      block.span = { ...span, start: span['start'] + delta, end: span['end'] + delta };
  }
}

/** The edits each document goes through, in order, each applied to the document the last one left. */
const EDITS: { name: string; edit: (doc: EvidenceDocument) => EvidenceDocument; options?: ChunkOptions }[] = [
  { name: 'as it was', edit: (doc) => changed(doc, () => {}) },
  {
    name: 'a word added to a paragraph, later spans moved',
    edit: (doc) =>
      changed(doc, (copy) => {
        const at = middleBlock(copy);
        copy.blocks[at]!.text = `zqxword ${copy.blocks[at]!.text}`;
        shiftSpans(copy, at + 1, 8);
      }),
  },
  { name: 'a new snapshot', edit: (doc) => changed(doc, (copy) => (copy.provenance.snapshotId = `${copy.provenance.snapshotId}-2`)) },
  {
    name: 'a heading renamed',
    edit: (doc) =>
      changed(doc, (copy) => {
        const section = copy.sections[Math.floor(copy.sections.length / 2)];
        if (section !== undefined) section.heading = `${section.heading} (renamed)`;
      }),
  },
  {
    name: 'a section made apparatus',
    edit: (doc) =>
      changed(doc, (copy) => {
        const section = copy.sections[Math.floor(copy.sections.length / 3)];
        if (section !== undefined) section.normativityReason = `section:${section.id}`;
      }),
  },
  {
    // A section that summarised the others (its lines named by links to them) no longer does.
    name: 'every link dropped',
    edit: (doc) =>
      changed(doc, (copy) => {
        for (const block of copy.blocks) delete block['links'];
      }),
  },
  {
    name: "a block's fragment changed",
    edit: (doc) =>
      changed(doc, (copy) => {
        const at = middleBlock(copy);
        if (at >= 0) copy.blocks[at]!.fragment = 'zqx-fragment';
      }),
  },
  {
    name: 'an anchor moved',
    edit: (doc) =>
      changed(doc, (copy) => {
        const at = middleBlock(copy, (block) => (block.anchors?.length ?? 0) > 0);
        if (at >= 0) copy.blocks[at]!.anchors![0]!.start += 1;
      }),
  },
  {
    name: "a step's id changed",
    edit: (doc) =>
      changed(doc, (copy) => {
        const at = middleBlock(copy, (block) => Array.isArray(block['steps']) && (block['steps'] as unknown[]).length > 0);
        if (at >= 0) (copy.blocks[at]!['steps'] as { id?: string }[])[0]!.id = 'zqx-step';
      }),
  },
  {
    name: 'a page changed',
    edit: (doc) =>
      changed(doc, (copy) => {
        const at = middleBlock(copy, (block) => block.page !== undefined);
        if (at >= 0) copy.blocks[at]!.page = copy.blocks[at]!.page! + 1;
      }),
  },
  {
    name: 'a block taken out',
    edit: (doc) =>
      changed(doc, (copy) => {
        const at = middleBlock(copy);
        if (at >= 0) copy.blocks.splice(at, 1);
      }),
  },
  { name: 'smaller chunks', edit: (doc) => changed(doc, () => {}), options: { maxChars: 300, overlapChars: 60 } },
  {
    name: 'another source URL',
    edit: (doc) => changed(doc, (copy) => (copy.sourceUrl = `${copy.sourceUrl}?v=2`)),
    options: { maxChars: 300, overlapChars: 60 },
  },
  { name: 'the usual chunks again', edit: (doc) => changed(doc, () => {}) },
];

/** The chunk stage's products as a fresh worker makes them. */
function freshly(doc: EvidenceDocument, options: ChunkOptions): { chunks: Chunk[]; file: Buffer; part: string } {
  const chunks = chunkDocument(doc, options);
  const encoded = encodeChunks({ chunkOptions: options, chunks, documentId: doc.documentId })!;
  return { chunks, file: encoded.bytes, part: buildDocumentPart(doc.documentId, chunks, undefined, encoded.members) };
}

test("a section's chunks taken from the last round are the chunks, chunk file and index part a fresh chunking gives", async () => {
  for (const { name, doc: original } of await documents()) {
    const sections = new SectionChunks();
    const textJson = new Map<string, string>();
    const memory = {
      textJson: (text: string) => textJson.get(text) ?? textJson.set(text, canonicalJson(text)).get(text)!,
      recordOf: (chunk: Chunk) => sections.recordOf(chunk),
    };
    const partMemory = { terms: { get: indexTerms }, part: undefined, recordOf: memory.recordOf };
    let doc = original;
    let reusedOnce = false;
    for (const { name: edit, edit: apply, options = DEFAULT_CHUNK_OPTIONS } of EDITS) {
      doc = apply(doc);
      const label = `${name}, ${edit}`;
      const chunks = chunkDocument(doc, options, sections);
      const fresh = freshly(doc, options);
      assert.deepEqual(chunks, fresh.chunks, `${label}: chunks`);
      const encoded = encodeChunks({ chunkOptions: options, chunks, documentId: doc.documentId }, memory)!;
      assert.ok(encoded.bytes.equals(fresh.file), `${label}: chunk file`);
      assert.equal(buildDocumentPart(doc.documentId, chunks, undefined, encoded.members, partMemory), fresh.part, `${label}: index part`);
      // A restamped chunk is a new object with its record's values: reuse did happen.
      if (chunks.some((chunk) => sections.recordOf(chunk)?.chunk !== chunk)) reusedOnce = true;
    }
    if (original.blocks.length > 1) assert.ok(reusedOnce, `${name}: some run was taken from the last round`);
  }
});
