import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * An agent asks about an API documented by Sphinx, where each class, method and constant is a `dl.py`
 * entry rather than a heading, and about SQLite's pragma page, where each pragma is an `<a name>` and
 * a hidden title. The entry that defines what the question names is the first hit, cited at its id,
 * and `show` opens a method by its id.
 */
function methodEntry(name: string, doc: string): string {
  return (
    `<dl class="py method"><dt class="sig sig-object py" id="http.cookies.Morsel.${name}">` +
    `<span class="sig-prename descclassname">Morsel.</span><span class="sig-name descname">${name}</span>` +
    '<span class="sig-paren">(</span><em class="sig-param">key</em><span class="sig-paren">)</span>' +
    `<a class="headerlink" href="#http.cookies.Morsel.${name}">¶</a></dt><dd><p>${doc}</p></dd></dl>`
  );
}

const SPHINX =
  '<!DOCTYPE html><html><head><meta charset="utf-8"><title>http.cookies — HTTP state management</title></head><body>' +
  '<div class="body" role="main"><section id="module-http.cookies"><h1>http.cookies — HTTP state management' +
  '<a class="headerlink" href="#module-http.cookies">¶</a></h1><p>The module defines classes for abstracting cookies.</p>' +
  '<dl class="py class"><dt class="sig sig-object py" id="http.cookies.Morsel"><em class="property">class </em>' +
  '<span class="sig-prename descclassname">http.cookies.</span><span class="sig-name descname">Morsel</span>' +
  '<a class="headerlink" href="#http.cookies.Morsel">¶</a></dt><dd><p>Abstract a key/value pair, which has some RFC 2109 ' +
  'attributes. Morsels are dictionary-like objects, whose set of keys is constant: the valid RFC 2109 attributes, which are ' +
  'expires, path, comment, domain, max-age, secure, version, httponly and samesite. The attribute httponly specifies that ' +
  'the cookie is only transferred in HTTP requests, and is not accessible through JavaScript. The keys are case-insensitive ' +
  'and their default value is the empty string.</p></dd></dl>' +
  '<section id="morsel-objects"><h2>Morsel Objects<a class="headerlink" href="#morsel-objects">¶</a></h2>' +
  methodEntry('set', 'Set the key, value and coded_value attributes of the Morsel.') +
  methodEntry('isReservedKey', 'Whether K is a member of the set of keys of a Morsel.') +
  methodEntry('output', 'Return a string representation of this Morsel, suitable to be sent as an HTTP header.') +
  methodEntry('js_output', 'Return an embeddable JavaScript snippet of this Morsel.') +
  methodEntry('OutputString', 'Return a string representing this Morsel, without any surrounding HTTP or JavaScript.') +
  methodEntry('copy', 'Return a shallow copy of the Morsel object.') +
  methodEntry('setdefault', 'Raise an error if key is not a valid RFC 2109 attribute of the Morsel.') +
  '</section></section></div></body></html>';

test('Sphinx entries: "what is X" finds the class entry before its methods, and show opens a method by its id', async () => {
  const rig = new Rig();
  try {
    const url = 'https://docs.python.org/3.11/library/http.cookies.html';
    rig.write({
      'cookies.html': SPHINX,
      'map.json': JSON.stringify([{ sourceUrl: url, localPath: 'cookies.html', contentType: 'text/html' }]),
    });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);

    const query = await rig.exec(['query', 'What is http.cookies.Morsel?', '--limit', '3', '--json']);
    assert.equal(query.code, 0, query.stderr);
    const hits = query.json!.data!.hits as { citation: { fragment: string; headingPath: string[] } }[];
    assert.equal(hits[0]!.citation.fragment, 'http.cookies.Morsel', JSON.stringify(hits.map((h) => h.citation.fragment)));
    assert.equal(hits[0]!.citation.headingPath.at(-1), 'http.cookies.Morsel');

    const method = await rig.exec(['show', `${url}#http.cookies.Morsel.copy`]);
    assert.equal(method.code, 0, method.stderr);
    assert.match(method.stdout, /§ .*> Morsel Objects > Morsel\.copy\n/);
    assert.match(method.stdout, /\| Return a shallow copy of the Morsel object\./);
    assert.doesNotMatch(method.stdout, /shallow copy[\s\S]*setdefault|Raise an error/, 'the next method is a section of its own');
  } finally {
    rig.cleanup();
  }
});

test('SQLite pragmas: a question about one pragma cites its anchor, not the page-long section of all pragmas', async () => {
  const rig = new Rig();
  try {
    const url = 'https://www.sqlite.org/pragma.html';
    const pragma = (name: string, syntax: string, text: string): string =>
      `<a name="pragma_${name}"></a>\n<h _id=pragma_${name} style="display:none"> PRAGMA ${name}</h><hr>` +
      `<p><b>PRAGMA ${name} = </b><i>${syntax}</i><b>;</b></p><p>${text}`;
    const html =
      '<!DOCTYPE html><html><head><title>Pragma statements supported by SQLite</title></head><body>' +
      '<h1>PRAGMA Statements</h1><p>The PRAGMA statement is an SQL extension specific to SQLite.</p>' +
      '<h2 id="pragmalist">List Of PRAGMAs</h2>' +
      pragma('auto_vacuum', 'mode', 'Query or set the auto-vacuum status in the database.') +
      pragma('busy_timeout', 'milliseconds', 'Query or change the setting of the busy timeout, the time a connection waits for a lock.') +
      pragma('cache_size', 'pages', 'Query or change the suggested maximum number of database disk pages held in memory.') +
      pragma('locking_mode', 'mode', 'Query or set the database connection locking-mode, NORMAL or EXCLUSIVE.') +
      '</body></html>';
    rig.write({
      'pragma.html': html,
      'map.json': JSON.stringify([{ sourceUrl: url, localPath: 'pragma.html', contentType: 'text/html' }]),
    });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const query = await rig.exec(['query', 'how long does a connection wait for a lock busy timeout', '--limit', '1', '--json']);
    assert.equal(query.code, 0, query.stderr);
    const hit = query.json!.data!.hits[0] as { citation: { fragment: string }; snippet: { text: string } };
    assert.match(hit.snippet.text, /busy timeout/);
    assert.equal(hit.citation.fragment, 'pragma_busy_timeout');
  } finally {
    rig.cleanup();
  }
});
