import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Rig, REPO_ROOT, assertNoStackTrace } from '../helpers/rig.js';

/**
 * A workspace's own extraction families (episteme.json "rules": a folder of <id>.json files), through
 * the CLI: they resolve by host and by explicit id, are hashed into the extraction config like built-in
 * rules (editing one re-extracts exactly that family's documents), and bad ones are config-invalid
 * errors naming the file and the field. The folder obeys the workspace boundary.
 */

function acmeRules(extra: Record<string, unknown> = {}): string {
  const generic = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'rules/generic.json'), 'utf8')) as Record<string, any>;
  generic['id'] = 'acme';
  generic['description'] = 'Acme product manuals';
  generic['match'] = { hosts: ['docs.acme.test'], hostSuffixes: [] };
  generic['defaults'] = { ...generic['defaults'], authority: 'normative', documentType: 'manual' };
  generic['html'] = { ...generic['html'], informativeHeadings: ['background'] };
  return JSON.stringify({ ...generic, ...extra }, null, 1);
}

const page = (name: string): string =>
  `<html><body><h1>${name}</h1><h2 id="bg">Background</h2><p>Why.</p><h2 id="req">Requirements</h2><p>Do it.</p></body></html>`;

function writeWorkspace(
  rig: Rig,
  config: Record<string, unknown> = { manualIngest: 'map.json', rules: 'my-rules' },
  mapExtra: Record<string, unknown>[] = [],
): void {
  rig.write({
    'my-rules/acme.json': acmeRules(),
    'src/a.html': page('A'),
    'src/b.html': page('B'),
    'src/c.html': page('C'),
    'map.json': JSON.stringify([
      { sourceUrl: 'https://docs.acme.test/a', localPath: 'src/a.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/b', localPath: 'src/b.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/c', localPath: 'src/c.html', contentType: 'text/html', family: 'acme' },
      ...mapExtra,
    ]),
    'episteme.json': JSON.stringify(config),
  });
}

function documentsByUrl(rig: Rig): Map<string, any> {
  const out = new Map<string, any>();
  for (const name of fs.readdirSync(rig.path('specs'))) {
    if (name === 'index.json' || !name.endsWith('.json')) continue;
    const doc = JSON.parse(rig.read(`specs/${name}`)).payload;
    out.set(doc.sourceUrl, doc);
  }
  return out;
}

test('workspace families: resolved by host and by id, applied, and hashed like built-in rules', async () => {
  const rig = new Rig();
  try {
    writeWorkspace(rig);
    const first = await rig.exec(['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const docs = documentsByUrl(rig);
    const a = docs.get('https://docs.acme.test/a');
    const b = docs.get('https://example.test/b');
    const c = docs.get('https://example.test/c');
    assert.equal(a.family, 'acme', 'host match');
    assert.equal(c.family, 'acme', 'explicit family');
    assert.equal(b.family, 'generic');
    assert.equal(a.documentType, 'manual');
    const normativity = (doc: any, heading: string): string => doc.sections.find((s: any) => s.heading === heading).normativity;
    assert.equal(normativity(a, 'Requirements'), 'normative');
    assert.equal(normativity(a, 'Background'), 'informative', 'the workspace rules apply');

    // Editing the rules file re-extracts exactly the acme documents.
    rig.write({ 'my-rules/acme.json': acmeRules({ description: 'Acme manuals, edited' }) });
    const second = await rig.exec(['build', '--json']);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    const rebuilt = (second.json!.data.targets as { target: string; status: string }[])
      .filter((t) => t.target.startsWith('specs/') && t.target !== 'specs/index.json' && t.status !== 'up-to-date')
      .map((t) => t.target)
      .sort();
    assert.deepEqual(rebuilt, ['specs/docs-acme-test-a.json', 'specs/example-test-c.json']);
    const after = documentsByUrl(rig);
    assert.notEqual(after.get('https://docs.acme.test/a').provenance.extractionConfigSha256, a.provenance.extractionConfigSha256);
    assert.equal(after.get('https://example.test/b').provenance.extractionConfigSha256, b.provenance.extractionConfigSha256);

    // Unchanged rules: a no-op build.
    const third = await rig.exec(['build', '--json']);
    assert.ok((third.json!.data.targets as { status: string }[]).every((t) => t.status === 'up-to-date'));
    // A new rules file is seen even by the fast no-op path.
    rig.write({ 'my-rules/beta.json': acmeRules({ id: 'beta', match: { hosts: ['example.test'], hostSuffixes: [] } }) });
    const fourth = await rig.exec(['build', '--json']);
    assert.equal(fourth.code, 0, fourth.stdout);
    assert.equal(documentsByUrl(rig).get('https://example.test/b').family, 'beta');
  } finally {
    rig.cleanup();
  }
});

test('workspace families: bad rules are config-invalid errors naming the file and field', async () => {
  const cases: { name: string; setup: (rig: Rig) => void; message: RegExp; code?: string }[] = [
    {
      name: 'host not a host name',
      setup: (rig) => rig.write({ 'my-rules/acme.json': acmeRules({ match: { hosts: ['Not A Host'], hostSuffixes: [] } }) }),
      message: /my-rules\/acme\.json.*field match\.hosts\.0: must be a lower-case host name/,
    },
    {
      name: 'generator not a name',
      setup: (rig) =>
        rig.write({
          'my-rules/acme.json': acmeRules({ match: { hosts: ['docs.acme.test'], hostSuffixes: [], generators: ['/docusaurus/i'] } }),
        }),
      message: /my-rules\/acme\.json.*field match\.generators\.0: must be a tool name such as "Bikeshed"/,
    },
    {
      name: 'unknown field',
      setup: (rig) => rig.write({ 'my-rules/acme.json': acmeRules({ colour: 'red' }) }),
      message: /my-rules\/acme\.json.*unknown field "colour"/,
    },
    { name: 'not JSON', setup: (rig) => rig.write({ 'my-rules/acme.json': '{"id": ' }), message: /my-rules\/acme\.json is not valid JSON/ },
    {
      name: 'file named after another id',
      setup: (rig) => rig.write({ 'my-rules/other.json': acmeRules() }),
      message: /my-rules\/other\.json declares id "acme"/,
    },
    {
      name: 'built-in id',
      setup: (rig) => rig.write({ 'my-rules/rfc.json': acmeRules({ id: 'rfc' }) }),
      message: /my-rules\/rfc\.json declares family "rfc", which is built in/,
    },
    {
      name: 'unknown family in the map',
      setup: (rig) =>
        rig.write({
          'map.json': JSON.stringify([
            { sourceUrl: 'https://x.test/', localPath: 'src/a.html', contentType: 'text/html', family: 'acmee' },
          ]),
        }),
      message: /"acmee" is not a registered family \(known: acme, asciidoc, docbook, doxygen, erlang, generic/,
      code: 'map-invalid',
    },
    {
      name: 'folder outside the workspace',
      setup: (rig) => rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: '../elsewhere' }) }),
      message: /rules folder must be a folder inside the workspace/,
    },
    {
      name: 'folder missing',
      setup: (rig) => rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'nope' }) }),
      message: /rules folder names a folder that does not exist/,
    },
    {
      name: 'folder is a symbolic link',
      setup: (rig) => {
        fs.mkdirSync(rig.path('real-rules'));
        fs.symlinkSync(rig.path('real-rules'), rig.path('linked-rules'));
        rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'linked-rules' }) });
      },
      message: /goes through a symbolic link/,
    },
    {
      name: 'rules file is a symbolic link out of the workspace',
      setup: (rig) => {
        const outside = fs.mkdtempSync(path.join(path.dirname(rig.dir), 'episteme-outside-'));
        fs.writeFileSync(path.join(outside, 'evil.json'), acmeRules({ id: 'evil' }));
        fs.symlinkSync(path.join(outside, 'evil.json'), rig.path('my-rules/evil.json'));
      },
      message: /my-rules\/evil\.json is a symbolic link/,
    },
    {
      name: 'rules file is a FIFO',
      setup: (rig) => {
        execFileSync('mkfifo', [rig.path('my-rules/pipe.json')]);
      },
      message: /my-rules\/pipe\.json is a FIFO/,
    },
  ];
  for (const c of cases) {
    const rig = new Rig();
    try {
      writeWorkspace(rig);
      c.setup(rig);
      const result = await rig.exec(['build', '--json']);
      assertNoStackTrace(result);
      assert.equal(result.json!.ok, false, c.name);
      assert.equal(result.json!.error!.code, c.code ?? 'config-invalid', `${c.name}: ${result.stdout}`);
      assert.match(result.json!.error!.message, c.message, c.name);
    } finally {
      rig.cleanup();
    }
  }
});

test('workspace families: a rules folder that is an output folder or .episteme, or inside one, is config-invalid naming both', async () => {
  const cases: [string, string][] = [
    ['specs', 'outputs.specs'],
    ['snapshots', 'outputs.snapshots'],
    ['.episteme', '.episteme'],
    ['chunks/rules', 'outputs.chunks'],
  ];
  const rig = new Rig();
  try {
    writeWorkspace(rig);
    const first = await rig.exec(['build', '--json']);
    assert.equal(first.code, 0, first.stdout);
    for (const [folder, owner] of cases) {
      // As a user would: the family file copied into the folder the config then names.
      rig.write({ [`${folder}/acme.json`]: acmeRules(), 'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: folder }) });
      for (const run of [1, 2]) {
        const result = await rig.exec(['build', '--json']);
        assertNoStackTrace(result);
        assert.equal(result.json!.error?.code, 'config-invalid', `${folder}, build ${run}: ${result.stdout}`);
        assert.deepEqual(result.json!.error!.details.fields, ['rules', owner], folder);
        assert.match(result.json!.error!.message, new RegExp(`The rules folder ${folder} is (inside )?${owner.replace('.', '\\.')}`));
        assert.match(result.json!.error!.hint ?? '', /a folder of its own/);
      }
      fs.rmSync(rig.path(folder, 'acme.json'));
    }
  } finally {
    rig.cleanup();
  }
});
