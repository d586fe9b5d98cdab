import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, Rig } from '../helpers/rig.js';
import {
  DOMINTRO,
  DRAFT_TEXT_HEADER,
  RFC_TEXT_HEADER,
  bikeshed,
  ecmarkup,
  respecSource,
  rfcText,
  rfcXml,
  xml2rfcHtml,
} from '../helpers/declared-generators.js';

/**
 * Documents on hosts no family names (a community group's github.io, a working group's draft site, a
 * mirror, a company's docs host) take the family of the tool their bytes declare, through the CLI:
 * the family's rules apply (authority, notes, apparatus, document type), the document, its chunks and
 * query hits report the family, and the key covers exactly the rules the content may select: editing
 * w3c.json re-extracts a Bikeshed document on an unknown host, editing rfc.json does not re-extract a
 * document on www.w3.org. The built-in rules are edited in a copy of the package (package.json, bin,
 * dist/bundle, rules, schema; node_modules linked), never in the checkout.
 */

const W3C_META = '<meta content="Bikeshed version 3f1e0c" name="generator">';
const PLAIN = '<html><head><title>Plain</title></head><body><h2 id="a">Setup</h2><p>Users must log in to spin widgets.</p></body></html>';

interface Doc {
  documentId: string;
  sourceUrl: string;
  family: string;
  authority: string;
  documentType: string;
  sections: { heading: string; normativity: string; number: string | null }[];
  blocks: { text: string; kind: string; normativity: string }[];
  diagnostics: { code: string; severity: string; message: string }[];
}

function documentsByUrl(rig: Rig): Map<string, Doc> {
  const index = JSON.parse(rig.read('specs/index.json')) as { payload: { entries: { sourceUrl: string; file: string }[] } };
  return new Map(index.payload.entries.map((e) => [e.sourceUrl, (JSON.parse(rig.read(`specs/${e.file}`)) as { payload: Doc }).payload]));
}

function rebuiltDocuments(result: { json: { data?: { targets: { target: string; status: string }[] } } | null }): string[] {
  return result
    .json!.data!.targets.filter((t) => /^specs\/.*\.json$/.test(t.target) && t.target !== 'specs/index.json' && t.status !== 'up-to-date')
    .map((t) => t.target)
    .sort();
}

function blockOf(doc: Doc, text: string): Doc['blocks'][number] {
  const found = doc.blocks.find((b) => b.text.includes(text));
  assert.ok(found, `${doc.sourceUrl}: block "${text}"`);
  return found;
}

test('documents on hosts no family names are read with the family of the tool they declare, and report it', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/patcg.html': bikeshed(W3C_META, 'Draft Community Group Report, 1 January 2030'),
      'src/explainer.html': bikeshed('', 'Living Standard — Last Updated 1 January 2030', DOMINTRO),
      'src/gizmo.html': respecSource,
      'src/draft.html': xml2rfcHtml('<meta content="draft-example-protocol-00" name="ietf.draft">'),
      'src/rfc9999.xml': rfcXml('number="9999"'),
      'src/rfc9999.txt': rfcText(RFC_TEXT_HEADER),
      'src/draft.txt': rfcText(DRAFT_TEXT_HEADER),
      'src/proposal.html': ecmarkup,
      'src/plain.html': PLAIN,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://patcg.github.io/widget/', localPath: 'src/patcg.html', contentType: 'text/html' },
        { sourceUrl: 'https://explainers-by-googlers.github.io/widget/', localPath: 'src/explainer.html', contentType: 'text/html' },
        { sourceUrl: 'https://docs.example.com/gizmo/', localPath: 'src/gizmo.html', contentType: 'text/html' },
        {
          sourceUrl: 'https://ietf-wg-example.github.io/draft-example-protocol/draft.html',
          localPath: 'src/draft.html',
          contentType: 'text/html',
        },
        { sourceUrl: 'https://mirror.example.net/rfc9999.xml', localPath: 'src/rfc9999.xml', contentType: 'application/rfc+xml' },
        { sourceUrl: 'https://mirror.example.net/rfc9999.txt', localPath: 'src/rfc9999.txt', contentType: 'text/plain' },
        { sourceUrl: 'https://mirror.example.net/draft-example-00.txt', localPath: 'src/draft.txt', contentType: 'text/plain' },
        { sourceUrl: 'https://proposals.example.org/widgets/', localPath: 'src/proposal.html', contentType: 'text/html' },
        { sourceUrl: 'https://docs.example.com/plain.html', localPath: 'src/plain.html', contentType: 'text/html' },
        // Named by the entry: generic, whatever the bytes declare.
        { sourceUrl: 'https://docs.example.com/named.html', localPath: 'src/patcg.html', contentType: 'text/html', family: 'generic' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const built = await rig.exec(['build', '--json']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const docs = documentsByUrl(rig);
    const expected: [string, string, string][] = [
      ['https://patcg.github.io/widget/', 'w3c', 'specification'],
      ['https://explainers-by-googlers.github.io/widget/', 'whatwg', 'living-standard'],
      ['https://docs.example.com/gizmo/', 'w3c', 'specification'],
      ['https://ietf-wg-example.github.io/draft-example-protocol/draft.html', 'ietf-draft', 'internet-draft'],
      ['https://mirror.example.net/rfc9999.xml', 'rfc', 'rfc'],
      ['https://mirror.example.net/rfc9999.txt', 'rfc', 'rfc'],
      ['https://mirror.example.net/draft-example-00.txt', 'ietf-draft', 'internet-draft'],
      ['https://proposals.example.org/widgets/', 'tc39', 'specification'],
      ['https://docs.example.com/plain.html', 'generic', 'document'],
      ['https://docs.example.com/named.html', 'generic', 'document'],
    ];
    for (const [url, family, documentType] of expected) {
      const doc = docs.get(url)!;
      assert.deepEqual([doc.family, doc.documentType], [family, documentType], url);
      assert.equal(doc.authority, family === 'generic' ? 'informative' : 'normative', url);
      const said = doc.diagnostics.find((d) => d.code === 'family-from-content');
      if (family === 'generic') assert.equal(said, undefined, url);
      else assert.match(said?.message ?? '', new RegExp(`read with the ${family} family's rules`), url);
    }
    const patcg = docs.get('https://patcg.github.io/widget/')!;
    assert.equal(blockOf(patcg, 'User agents must').normativity, 'normative');
    assert.equal(blockOf(patcg, 'Widgets are small').kind, 'note');
    assert.equal(patcg.sections.find((s) => s.heading === 'Introduction')!.number, '1');
    assert.equal(patcg.sections.find((s) => s.heading === 'Status of this document')!.normativity, 'informative');
    assert.equal(blockOf(docs.get('https://explainers-by-googlers.github.io/widget/')!, 'Spins the widget').normativity, 'informative');
    assert.equal(blockOf(docs.get('https://mirror.example.net/rfc9999.txt')!, 'Senders MUST send').normativity, 'normative');
    assert.equal(blockOf(docs.get('https://proposals.example.org/widgets/')!, 'Spinning is fun').normativity, 'informative');
    assert.equal(blockOf(docs.get('https://docs.example.com/named.html')!, 'User agents must').normativity, 'informative');

    // Query hits report the family chosen, and filter by it.
    const w3c = await rig.exec(['query', '--term', 'widgets', '--family', 'w3c', '--json']);
    assert.equal(w3c.code, 0, w3c.stdout + w3c.stderr);
    const hits = w3c.json!.data.hits as { family: string; documentType: string; citation: { sourceUrl: string } }[];
    assert.ok(hits.length > 0);
    assert.deepEqual([...new Set(hits.map((h) => h.citation.sourceUrl))], ['https://patcg.github.io/widget/']);
    assert.ok(hits.every((h) => h.family === 'w3c' && h.documentType === 'specification'));

    // Nothing changed: a no-op build.
    const again = await rig.exec(['build', '--json']);
    assert.equal(again.json!.data.actions, 0, again.stdout);
  } finally {
    rig.cleanup();
  }
});

/** A copy of the package whose rules a test may edit: its files, with the checkout's node_modules linked. */
function packageCopy(): { dir: string; cli: string; editRules: (id: string, edit: (rules: Record<string, any>) => void) => void } {
  // Nested one level, so that the folder above the copy's root is no package root either.
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-package-')), 'episteme');
  for (const part of ['package.json', 'bin', 'dist/bundle', 'rules', 'schema']) {
    fs.cpSync(path.join(REPO_ROOT, part), path.join(dir, part), { recursive: true });
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const editRules = (id: string, edit: (rules: Record<string, any>) => void): void => {
    const file = path.join(dir, 'rules', `${id}.json`);
    const rules = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
    edit(rules);
    fs.writeFileSync(file, JSON.stringify(rules, null, 2) + '\n');
  };
  return { dir, cli: path.join(dir, 'bin', 'episteme.cjs'), editRules };
}

function keyWorkspace(rig: Rig): void {
  rig.write({
    'src/widget.html': bikeshed(W3C_META, 'Editor’s Draft, 1 January 2030'),
    'src/rfc.txt': rfcText(RFC_TEXT_HEADER),
    'src/plain.html': PLAIN,
    'map.json': JSON.stringify([
      { sourceUrl: 'https://patcg.github.io/widget/', localPath: 'src/widget.html', contentType: 'text/html' },
      { sourceUrl: 'https://www.w3.org/TR/widget/', localPath: 'src/widget.html', contentType: 'text/html' },
      { sourceUrl: 'https://mirror.example.net/rfc9999.txt', localPath: 'src/rfc.txt', contentType: 'text/plain' },
      { sourceUrl: 'https://docs.example.com/plain.html', localPath: 'src/plain.html', contentType: 'text/html', family: 'generic' },
    ]),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
  });
}

test("keys: a family's rules rebuild the unknown-host documents it may be chosen for, and no document another URL assigns", async () => {
  const pkg = packageCopy();
  const rig = new Rig();
  const clean = new Rig();
  try {
    keyWorkspace(rig);
    const run = (args: string[], on = rig) => on.exec(args, { cli: pkg.cli });
    const first = await run(['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const ids = new Map([...documentsByUrl(rig)].map(([url, doc]) => [url, `specs/${doc.documentId}.json`]));
    const unknown = ids.get('https://patcg.github.io/widget/')!;
    const onW3c = ids.get('https://www.w3.org/TR/widget/')!;
    const rfcText = ids.get('https://mirror.example.net/rfc9999.txt')!;
    assert.equal(documentsByUrl(rig).get('https://patcg.github.io/widget/')!.family, 'w3c');
    // explain shows the family each document was read with, and what in its content chose it.
    const shown = await run(['explain', unknown, onW3c, '--json']);
    const families = new Map(
      (shown.json!.data.targets as { target: string; family?: string; familyFromContent?: string }[]).map((t) => [
        t.target,
        [t.family, t.familyFromContent],
      ]),
    );
    assert.equal(families.get(onW3c)![0], 'w3c');
    assert.equal(families.get(onW3c)![1], undefined, 'its URL names w3c');
    assert.equal(families.get(unknown)![0], 'w3c');
    assert.match(families.get(unknown)![1]!, /made by Bikeshed \(<meta name="generator" content="Bikeshed version 3f1e0c">\)/);
    const human = await run(['explain', unknown]);
    assert.match(human.stdout, /^ {2}family: w3c \(No family names this URL; .* read with the w3c family's rules/m);

    // w3c.json: its own host's document and every document whose content may select it.
    pkg.editRules('w3c', (rules) => rules['html'].informativeHeadings.push('introduction'));
    const explained = await run(['explain', unknown, onW3c, '--json']);
    const reasons = new Map(
      (explained.json!.data.targets as { target: string; reasons: { reason: string; name?: string }[] }[]).map((t) => [
        t.target,
        t.reasons.map((r) => r.name ?? r.reason),
      ]),
    );
    assert.deepEqual(reasons.get(unknown), ['extract.familiesByContent'], 'explain names the families its content may select');
    assert.deepEqual(reasons.get(onW3c), ['extract.family']);
    const second = await run(['build', '--json']);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(rebuiltDocuments(second), [unknown, rfcText, onW3c].sort());
    const intro = (url: string) =>
      documentsByUrl(rig)
        .get(url)!
        .sections.find((s) => s.heading === 'Introduction')!.normativity;
    assert.equal(intro('https://patcg.github.io/widget/'), 'informative', 'the edited rules apply');
    assert.equal(intro('https://www.w3.org/TR/widget/'), 'informative');

    // rfc.json: the documents on unknown hosts (their content may select rfc), never the w3c host's.
    pkg.editRules('rfc', (rules) => {
      rules['description'] += ' Edited.';
    });
    const third = await run(['build', '--json']);
    assert.equal(third.code, 0, third.stdout + third.stderr);
    assert.deepEqual(rebuiltDocuments(third), [unknown, rfcText].sort());

    // unicode.json lists no generators: no document rebuilds.
    pkg.editRules('unicode', (rules) => {
      rules['description'] += ' Edited.';
    });
    const fourth = await run(['build', '--json']);
    assert.deepEqual(rebuiltDocuments(fourth), []);
    const fifth = await run(['build', '--json']);
    assert.equal(fifth.json!.data.actions, 0, 'no-op');

    // The incremental builds end where a clean build of the same inputs does, byte for byte.
    keyWorkspace(clean);
    const scratch = await run(['build', '--json'], clean);
    assert.equal(scratch.code, 0, scratch.stdout + scratch.stderr);
    assert.deepEqual(rig.artifacts(), clean.artifacts());
  } finally {
    rig.cleanup();
    clean.cleanup();
    fs.rmSync(path.dirname(pkg.dir), { recursive: true, force: true });
  }
});

test('workspace families list generators too: they win over built-in ones, and their edits rebuild what they may select', async () => {
  const rig = new Rig();
  try {
    const generic = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'rules/generic.json'), 'utf8')) as Record<string, any>;
    const family = (id: string, generators: string[], extra: Record<string, unknown> = {}): string =>
      JSON.stringify({
        ...generic,
        id,
        description: `${id} documents`,
        match: { hosts: [], hostSuffixes: [], generators },
        defaults: { ...generic['defaults'], authority: 'normative', documentType: 'manual' },
        ...extra,
      });
    rig.write({
      'my-rules/acme.json': family('acme', ['Docusaurus']),
      'my-rules/forge.json': family('forge', ['Bikeshed']),
      'src/guide.html':
        '<html><head><meta name="generator" content="Docusaurus v3.1.0"><title>Guide</title></head>' +
        '<body><h2 id="install">Install</h2><p>Operators must install the widget.</p></body></html>',
      'src/widget.html': bikeshed(W3C_META, 'Editor’s Draft'),
      'map.json': JSON.stringify([
        { sourceUrl: 'https://docs.acme.example/guide', localPath: 'src/guide.html', contentType: 'text/html' },
        { sourceUrl: 'https://forge.example/widget/', localPath: 'src/widget.html', contentType: 'text/html' },
        { sourceUrl: 'https://www.w3.org/TR/widget/', localPath: 'src/widget.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'my-rules' }),
    });
    const first = await rig.exec(['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    let docs = documentsByUrl(rig);
    assert.deepEqual([...docs.values()].map((d) => [d.sourceUrl, d.family]).sort(), [
      ['https://docs.acme.example/guide', 'acme'],
      ['https://forge.example/widget/', 'forge'],
      ['https://www.w3.org/TR/widget/', 'w3c'],
    ]);
    assert.equal(docs.get('https://docs.acme.example/guide')!.documentType, 'manual');
    assert.equal(blockOf(docs.get('https://docs.acme.example/guide')!, 'Operators must').normativity, 'normative');

    rig.write({ 'my-rules/acme.json': family('acme', ['Docusaurus'], { description: 'acme, edited' }) });
    const second = await rig.exec(['build', '--json']);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    docs = documentsByUrl(rig);
    const id = (url: string) => `specs/${docs.get(url)!.documentId}.json`;
    assert.deepEqual(rebuiltDocuments(second), [id('https://docs.acme.example/guide'), id('https://forge.example/widget/')].sort());
  } finally {
    rig.cleanup();
  }
});
