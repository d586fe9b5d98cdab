import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSpecQuestions } from '../../bench/retrieval/spec-questions.js';

test('a judged fragment written percent-encoded also names the id it decodes to; a malformed one stays as written', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'episteme-qrels-'));
  try {
    writeFileSync(path.join(dir, 'queries.jsonl'), '{"id": "q1", "type": "keywords", "text": "less key bindings"}\n');
    writeFileSync(
      path.join(dir, 'qrels.tsv'),
      'q1 0 https://man.example.test/less.1.html#KEY%20BINDINGS 2\nq1 0 https://man.example.test/less.1.html#bad%zz 1\n',
    );
    const loaded = loadSpecQuestions(dir)!;
    const [bindings, bad] = loaded.judgements.get('q1')!;
    assert.deepEqual([...bindings!.places].sort(), [
      'https://man.example.test/less.1.html#KEY BINDINGS',
      'https://man.example.test/less.1.html#KEY%20BINDINGS',
    ]);
    assert.deepEqual([...bad!.places], ['https://man.example.test/less.1.html#bad%zz']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
