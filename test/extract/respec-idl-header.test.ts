import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * ReSpec prepends a permalink to every WebIDL block it renders (`<span class="idlHeader"><a
 * class="self-link">WebIDL</a></span>`, respec's addIDLHeader): decoration, not IDL. Kept, it fused
 * with the first token ("WebIDLdictionary MidiPermissionDescriptor ...").
 */

// As ReSpec 35 renders an IDL block (the Web MIDI API's permission descriptor).
const respec = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="generator" content="ReSpec 35.1.0">
<title>Gadget API</title></head><body>
<section id="permissions"><div class="header-wrapper"><h2 id="x4-permissions"><bdi class="secno">4.</bdi> Permissions</h2><a
 class="self-link" href="#permissions" aria-label="Permalink for Section 4."></a></div>
<p>The API is a powerful feature.</p>
<pre class="idl def"
 id="webidl-1632041439"><span class="idlHeader"><a class="self-link" href="#webidl-1632041439">WebIDL</a></span><code><span
 data-idl="" class="idlDictionary" id="idl-def-gadgetdescriptor">dictionary <dfn data-dfn-type="dictionary"
 id="dom-gadgetdescriptor">GadgetDescriptor</dfn> : <a
 href="https://w3c.github.io/permissions/#dom-permissiondescriptor">PermissionDescriptor</a> {
  <span class="idlMember">boolean <span class="idlMemberName"><a href="#dom-gadgetdescriptor-sysex">sysex</a></span> = false;</span>
};</span></code></pre>
</section></body></html>`;

// On a host no family names, the page's generator (ReSpec) would select w3c: generic is named in its entry.
for (const [family, url, named] of [
  ['w3c', 'https://www.w3.org/TR/gadget/', undefined],
  ['whatwg', 'https://gadget.spec.whatwg.org/', undefined],
  ['generic', 'https://example.test/gadget/', 'generic'],
]) {
  test(`${family}: a ReSpec IDL block is its IDL, without the "WebIDL" permalink`, async () => {
    const doc = await extractBytes(respec, url!, 'text/html', named === undefined ? {} : { family: named });
    assert.equal(doc.family, family);
    const idl = doc.blocks.find((b) => b.kind === 'idl')!;
    assert.equal(idl.text, 'dictionary GadgetDescriptor : PermissionDescriptor {\n  boolean sysex = false;\n};');
    assert.equal(idl.fragment, 'webidl-1632041439');
  });
}
