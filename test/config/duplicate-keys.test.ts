import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, REPO_ROOT, assertNoStackTrace, sampleHtml } from '../helpers/rig.js';

/**
 * A key given twice in one object of a config, map, manifest or workspace rules file: JSON.parse
 * would keep the last one and drop the other without a word, so each is refused naming the file,
 * the entry or field, and the line.
 */
test('a key given twice in the config, a map entry, a manifest entry or a rules file is refused naming where', async () => {
  const rules = JSON.parse(fs.readFileSync(`${REPO_ROOT}/rules/generic.json`, 'utf8')) as Record<string, unknown>;
  delete rules['$schema'];
  const acme = JSON.stringify({ ...rules, id: 'acme', description: 'Acme' }, null, 1);
  const cases: { name: string; files: Record<string, string>; args?: string[]; code: string; problem: string }[] = [
    {
      name: 'config',
      files: { 'episteme.json': '{\n  "manualIngest": "nonexist.json",\n  "manualIngest": "map.json"\n}' },
      code: 'config-invalid',
      problem: 'field manualIngest: given twice in one object (line 3)',
    },
    {
      name: 'config, nested',
      files: { 'episteme.json': '{"manualIngest": "map.json", "options": {"chunk": {"maxChars": 900, "maxChars": 1200}}}' },
      code: 'config-invalid',
      problem: 'field options.chunk.maxChars: given twice in one object (line 1)',
    },
    {
      name: 'map entry',
      files: {
        'map.json':
          '[\n {"sourceUrl": "https://example.test/a/", "localPath": "src/a.html"},\n' +
          ' {"sourceUrl": "https://example.test/b/", "localPath": "src/a.html", "sourceUrl": "https://example.test/c/"}\n]',
      },
      code: 'map-invalid',
      problem: 'entry 1, field sourceUrl: given twice in one object (line 3)',
    },
    {
      name: 'manifest entry',
      files: { 'manifest.json': '[{"url": "https://example.test/m/", "family": "generic", "url": "https://example.test/n/"}]' },
      args: ['--manifest', 'manifest.json'],
      code: 'manifest-invalid',
      problem: 'entry 0, field url: given twice in one object (line 1)',
    },
    {
      name: 'workspace rules file',
      files: {
        'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'my-rules' }),
        'my-rules/acme.json': acme.replace('"id": "acme",', '"id": "acme",\n "id": "acme",'),
      },
      code: 'config-invalid',
      problem: 'field id: given twice in one object (line 3)',
    },
  ];
  for (const c of cases) {
    const rig = new Rig();
    try {
      rig.write({
        'src/a.html': sampleHtml(0),
        'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/a/', localPath: 'src/a.html' }]),
        'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
        ...c.files,
      });
      const result = await rig.exec(['build', ...(c.args ?? []), '--dry-run', '--json']);
      assertNoStackTrace(result);
      assert.equal(result.json!.error?.code, c.code, `${c.name}: ${result.stdout}`);
      assert.ok(result.json!.error!.message.endsWith(`is invalid: ${c.problem}`), `${c.name}: ${result.json!.error!.message}`);
      assert.match(result.json!.error!.hint ?? '', /Keep one "\w+" in that object/, c.name);
    } finally {
      rig.cleanup();
    }
  }
});
