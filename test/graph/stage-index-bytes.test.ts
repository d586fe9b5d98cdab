import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stageIndexBytes, stageManifestBytes, stageSegmentBytes } from '../../src/store/stage-index.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../../src/rule-versions.js';

test('a stage index assembled from its entries is byte for byte the artifact serialised whole', () => {
  // Awkward strings: quotes, backslashes, control characters, non-BMP, keys that sort before "entries".
  const odd = ['a"b', 'c\\d', 'e\u0001f', 'g\u2028h', '\u{1F600}', '', 'z'];
  for (const kind of ['snapshot-index', 'document-index', 'chunk-index'] as const) {
    for (let n = 0; n < 40; n += 7) {
      const entries = Array.from({ length: n }, (_, i) => {
        const entry: Record<string, string> = {
          documentId: `doc-${String(i).padStart(3, '0')}`,
          sourceUrl: `https://example.com/${odd[i % odd.length]}`,
          file: `doc-${i}.${'0123456789abcdef'}.json`,
          sha256: `${i}`.repeat(64).slice(0, 64),
        };
        if (kind === 'snapshot-index') {
          entry.snapshotId = `snap-${odd[(i + 1) % odd.length]}`;
          entry.body = `bodies/${i}`;
          entry.captureMethod = i % 2 ? 'http' : 'manual-ingest';
        }
        return entry;
      });
      const missing = odd.slice(0, n % odd.length);
      const whole = artifactBytes(makeArtifact(kind, STAGE_INDEX_FORMAT_VERSION, { entries, missingSources: missing }));
      assert.equal(
        stageIndexBytes(
          kind,
          entries.map((e) => canonicalJson(e)),
          missing,
        ),
        whole,
      );
    }
  }
});

test('a segment and a manifest assembled by the writer are byte for byte their artifacts serialised whole', () => {
  for (const kind of ['snapshot-index', 'document-index', 'chunk-index'] as const) {
    const entries = Array.from({ length: 5 }, (_, i) => ({
      documentId: `doc-${i}`,
      file: `doc-${i}.0123456789abcdef.json`,
      sha256: `${i}`.repeat(64),
      sourceUrl: `https://example.com/"${i}"\u2028`,
    }));
    assert.equal(
      stageSegmentBytes(
        kind,
        entries.map((e) => canonicalJson(e)),
      ),
      artifactBytes(makeArtifact(`${kind}-segment`, STAGE_INDEX_FORMAT_VERSION, { entries })),
    );
    const segments = [
      { entries: 3, file: 'index.seg-0123456789abcdef.json', firstDocumentId: 'a', lastDocumentId: 'c', sha256: 'f'.repeat(64) },
      { entries: 2, file: 'index.seg-fedcba9876543210.json', firstDocumentId: 'd', lastDocumentId: 'e', sha256: 'e'.repeat(64) },
    ];
    const missingSources = ['z'];
    assert.equal(
      stageManifestBytes(kind, segments, missingSources),
      artifactBytes(makeArtifact(kind, STAGE_INDEX_FORMAT_VERSION, { missingSources, segments })),
    );
  }
});
