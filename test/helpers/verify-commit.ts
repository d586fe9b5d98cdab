import * as fs from 'node:fs';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { readStageIndex } from '../../src/store/stage-index.js';
import { sha256 } from './rig.js';

/**
 * Asserts that the committed generation of a workspace is readable and hash-valid: each stage's
 * index.json verifies its fingerprint (a manifest: each segment it names against its SHA-256) and
 * every file it names exists with the recorded SHA-256. Returns how many files were checked.
 */
export function verifyCommittedGeneration(root: string): number {
  let checked = 0;
  const stages: [string, 'snapshot-index' | 'document-index' | 'chunk-index'][] = [
    ['snapshots', 'snapshot-index'],
    ['specs', 'document-index'],
    ['chunks', 'chunk-index'],
  ];
  for (const [dir, kind] of stages) {
    const indexPath = path.join(root, dir, 'index.json');
    if (!fs.existsSync(indexPath)) continue;
    const index = readStageIndex(path.join(root, dir), kind, { dirLabel: dir });
    for (const entry of index.entries) {
      const file = path.join(root, dir, entry.file);
      assert.ok(fs.existsSync(file), `${dir}/index.json names missing ${entry.file}`);
      assert.equal(sha256(fs.readFileSync(file)), entry.sha256, `${dir}/${entry.file} hash`);
      checked += 1;
    }
  }
  return checked;
}
