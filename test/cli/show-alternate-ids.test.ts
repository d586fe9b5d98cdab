import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, Rig } from '../helpers/rig.js';

/**
 * A link from another document names a section by one of its other ids (an old anchor kept before the
 * heading, rfc2629.xslt's `rfc.section.5.5`): `show` opens that section, read from the workspace's
 * evidence of the snapshot the index was built from; where that evidence is not at hand (an index copied
 * out of its workspace, a damaged evidence file) the citation is not found, as before.
 */
const URL = 'https://example.test/spec.html';
const PAGE =
  '<!DOCTYPE html><html><head><title>Spec</title></head><body>' +
  '<a name="old-intro"></a><h2 id="intro">Introduction</h2><p>Welcome to the zebra spec.</p>' +
  '<h2 id="terms">Terms</h2><p>A zebra is striped.</p></body></html>';

test('show opens a section by an id its source also gives it (an old anchor before the heading), by URL and by document id', async () => {
  const rig = new Rig();
  try {
    rig.write({ 'spec.html': PAGE, 'map.json': JSON.stringify([{ sourceUrl: URL, localPath: 'spec.html', contentType: 'text/html' }]) });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);

    const byUrl = await rig.exec(['show', `${URL}#old-intro`]);
    assert.equal(byUrl.code, 0, byUrl.stderr);
    assert.equal(byUrl.stdout.split('\n')[0], `${URL}#intro`, 'the section is shown at its own id');
    assert.match(byUrl.stdout, /\| Welcome to the zebra spec\./);
    assert.doesNotMatch(byUrl.stdout, /striped/);
    const byId = await rig.exec(['show', 'example-test-spec-html#old-intro', '--json']);
    assert.equal(byId.code, 0, byId.stderr);
    assert.equal((byId.json!.data as { citation: { sectionId: string } }).citation.sectionId, 'intro');

    // The MCP read tool, as an agent calls it: the same section.
    const client = new Client({ name: 'episteme-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve'], cwd: rig.dir, stderr: 'pipe' }));
    try {
      const read = await client.callTool({ name: 'read', arguments: { citation: `${URL}#old-intro` } });
      assert.equal((read.structuredContent as { data: { citation: { sectionId: string } } }).data.citation.sectionId, 'intro');
    } finally {
      await client.close();
    }

    const unknown = await rig.exec(['show', `${URL}#no-such-id`, '--json']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.json!.error!.code, 'citation-not-found');

    // The index outside its workspace: no evidence to read the other ids from.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-index-copy-'));
    try {
      fs.copyFileSync(rig.path('chunks/search-index.json'), path.join(elsewhere, 'search-index.json'));
      const copied = await rig.exec(['show', `${URL}#old-intro`, '--index', path.join(elsewhere, 'search-index.json'), '--json']);
      assert.equal(copied.json?.error?.code, 'citation-not-found', copied.stdout + copied.stderr);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }

    // Evidence that is not the file specs/index.json names (its hash differs): not read.
    const evidence = fs.readdirSync(rig.path('specs')).find((file) => file.startsWith('example-test-spec-html'))!;
    const file = rig.path(`specs/${evidence}`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"old-intro"', '"old-intrX"'));
    const damaged = await rig.exec(['show', `${URL}#old-intro`, '--json']);
    assert.equal(damaged.json?.error?.code, 'citation-not-found', damaged.stdout + damaged.stderr);
  } finally {
    rig.cleanup();
  }
});

test("show opens a section by an id inside its heading beside the heading's own, but not by a generated back-reference there", async () => {
  // Apache's manual: `<h2 id="rewritebase"><span id="RewriteBase">`, both linked to. Bikeshed keeps a
  // renamed section's old ids as empty spans in its heading, beside the back-references of its links.
  const page =
    '<!DOCTYPE html><html><head><title>mod_rewrite</title></head><body>' +
    '<h2 id="rewritebase"><span id="RewriteBase">RewriteBase</span> Directive <a class="permalink" href="#rewritebase">&para;</a></h2>' +
    '<p>Sets the base URL for per-directory rewrites.</p>' +
    '<h2 id="infrastructure"><span class="content">Infrastructure</span><span id="terminology"></span>' +
    ' of <a href="#zebra" id="ref-for-zebra①">zebras</a></h2><p>A zebra is striped.</p></body></html>';
  const rig = new Rig();
  try {
    rig.write({ 'mod.html': page, 'map.json': JSON.stringify([{ sourceUrl: URL, localPath: 'mod.html', contentType: 'text/html' }]) });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const camel = await rig.exec(['show', `${URL}#RewriteBase`]);
    assert.equal(camel.code, 0, camel.stderr);
    assert.equal(camel.stdout.split('\n')[0], `${URL}#rewritebase`);
    assert.match(camel.stdout, /\| Sets the base URL/);
    const old = await rig.exec(['show', `${URL}#terminology`]);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(old.stdout.split('\n')[0], `${URL}#infrastructure`);
    const backReference = await rig.exec(['show', `${URL}#ref-for-zebra①`, '--json']);
    assert.equal(backReference.json?.error?.code, 'citation-not-found', backReference.stdout);
  } finally {
    rig.cleanup();
  }
});
