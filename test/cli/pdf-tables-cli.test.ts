import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../hostile/harness.js';
import { tableCases } from '../helpers/table-cases.js';

/**
 * Through the CLI as a user runs it: a PDF with a table continued over three pages extracts into one
 * table block whose rows keep their cells and say which page each came from.
 */

function documents(dir: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json')) {
        // Document artifacts wrap the evidence document in an envelope: { artifact, payload, ... }.
        const json = JSON.parse(fs.readFileSync(full, 'utf8')) as { artifact?: string; payload?: Record<string, unknown> };
        if (json.artifact === 'document' && json.payload) out.push(json.payload);
      }
    }
  };
  walk(dir);
  return out;
}

test('episteme extract: a table over three pages is one table block with rowPages', async () => {
  const c = tableCases().find((x) => x.name.startsWith('unruled table over three pages'))!;
  const box = new Sandbox();
  try {
    const map = JSON.stringify([
      { sourceUrl: 'https://example.test/regions.pdf', localPath: 'regions.pdf', contentType: 'application/pdf' },
    ]);
    box.write({ 'map.json': map, 'regions.pdf': c.pdf });
    const result = await box.run(['extract', '--map', 'map.json', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const [doc] = documents(path.join(box.ws, 'specs'));
    assert.ok(doc, 'no document written under specs/');
    const tables = (
      doc['blocks'] as {
        kind: string;
        header: string[][];
        rows: string[][];
        rowPages: number[];
        span: { page: number; endPage?: number };
      }[]
    ).filter((b) => b.kind === 'table');
    assert.equal(tables.length, 1);
    assert.deepEqual([...tables[0]!.header, ...tables[0]!.rows], c.tables[0]);
    assert.deepEqual(tables[0]!.rowPages, c.rowPages![0]);
    assert.deepEqual([tables[0]!.span.page, tables[0]!.span.endPage], [1, 3]);
    assert.ok((doc['limits'] as string[]).includes('pdf-headings-guessed-from-font-size'));
  } finally {
    box.cleanup();
  }
});
