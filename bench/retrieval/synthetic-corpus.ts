import type { EvidenceDocument } from '../../src/document/types.js';
import { seededRandom } from '../../test/helpers/random.js';

/**
 * Deterministic synthetic evidence documents for scale benches: Zipf-distributed pseudo-words
 * (so term statistics look like natural text), sentences, blocks and sections.
 */
export function syntheticCorpus(documents: number, blocksPerDocument: number, seed = 1): EvidenceDocument[] {
  const rand = seededRandom(seed);
  const syllables = [
    'ka',
    're',
    'mi',
    'to',
    'su',
    'la',
    'ne',
    'po',
    'di',
    'ga',
    'ro',
    've',
    'shi',
    'tan',
    'mor',
    'ex',
    'in',
    'con',
    'pre',
    'al',
  ];
  const vocabulary = Array.from({ length: 8000 }, () => {
    let word = '';
    for (let n = 1 + Math.floor(rand() * 3); n >= 0; n--) word += syllables[Math.floor(rand() * syllables.length)];
    return word;
  });
  // Zipf: rank r with weight 1/r, sampled through a cumulative table.
  const cumulative = new Float64Array(vocabulary.length);
  let sum = 0;
  for (let r = 0; r < vocabulary.length; r++) cumulative[r] = sum += 1 / (r + 1);
  const word = (): string => {
    const target = rand() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo]!;
  };
  const sentence = (): string => {
    const words = Array.from({ length: 6 + Math.floor(rand() * 16) }, word);
    return words.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.';
  };
  return Array.from({ length: documents }, (_, d) => {
    const documentId = `synthetic-${String(d).padStart(5, '0')}`;
    const sections = Array.from({ length: Math.max(1, Math.floor(blocksPerDocument / 5)) }, (_, s) => ({
      id: `s${s}`,
      fragment: `s${s}`,
      heading: sentence().slice(0, 40),
      level: 2,
      number: String(s + 1),
      parentId: null,
    }));
    const blocks = Array.from({ length: blocksPerDocument }, (_, b) => ({
      id: `s${Math.floor(b / 5)}~b${b % 5}`,
      kind: 'paragraph',
      sectionId: `s${Math.min(sections.length - 1, Math.floor(b / 5))}`,
      fragment: `s${Math.floor(b / 5)}`,
      text: Array.from({ length: 1 + Math.floor(rand() * 6) }, sentence).join(' '),
      normativity: (rand() < 0.8 ? 'normative' : 'informative') as 'normative' | 'informative',
    }));
    return {
      documentId,
      sourceUrl: `https://example.org/synthetic/${d}`,
      fragment: null,
      title: documentId,
      family: 'generic',
      authority: 'normative',
      documentType: 'html',
      contentTrust: 'untrusted-source',
      provenance: {
        producer: { name: 'episteme', version: '0' },
        extractor: { id: 'html', version: 1 },
        sourceSha256: '',
        extractionConfigSha256: '',
        snapshotId: `snap-${d}`,
        captureMethod: 'manual-ingest',
        contentType: 'text/html',
      },
      sections,
      blocks,
      diagnostics: [],
      limits: [],
    } satisfies EvidenceDocument;
  });
}
