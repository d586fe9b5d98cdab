import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * A user maps API documentation built by common generators, as it is written: a rustdoc page (its
 * methods folded in <details>, its chrome of version and source links, Run buttons and toggles) and a
 * Sphinx page (API entries as `dl.py` with a "¶" permalink). Queries cite the method and the entry,
 * and what `show` prints holds the documentation, not the page's chrome.
 */
const RUSTDOC =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="generator" content="rustdoc">' +
  '<title>Option in std::option - Rust</title></head><body class="rustdoc enum">' +
  '<nav class="sidebar"><h2 class="location">Option</h2></nav>' +
  '<main><div class="width-limiter"><div class="sub-container"><nav class="sub"><form class="search-form"><div class="search-container">' +
  '<input class="search-input" placeholder="Click or press ‘S’ to search" type="search"><button id="help-button">?</button>' +
  '</div></form></nav></div><section id="main-content" class="content"><div class="main-heading"><h1 class="fqn"><span class="in-band">' +
  'Enum <a href="../index.html">std</a>::<a class="enum" href="#">Option</a><button id="copy-path" title="Copy item path">' +
  '<img alt="Copy item path"></button></span></h1><span class="out-of-band"><span class="since">1.0.0</span> · ' +
  '<a class="srclink" href="../../src/core/option.rs.html#518">source</a> · <a id="toggle-all-docs" href="javascript:void(0)">[' +
  '<span class="inner">−</span>]</a>' +
  '</span></div><details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand description</span></summary>' +
  '<div class="docblock"><p>The optional value type.</p></div></details>' +
  '<h2 id="implementations" class="small-section-header">Implementations<a href="#implementations" class="anchor"></a></h2>' +
  '<div id="implementations-list"><details class="rustdoc-toggle method-toggle" open>' +
  '<summary><section id="method.unwrap_or_default" class="method">' +
  '<span class="rightside"><span class="since">1.0.0</span> · <a class="srclink" href="../../src/core/option.rs.html#839">source' +
  '</a></span>' +
  '<a href="#method.unwrap_or_default" class="anchor"></a><h4 class="code-header">pub fn ' +
  '<a href="#method.unwrap_or_default" class="fnname">' +
  'unwrap_or_default</a>(self) -&gt; T<span class="notable-traits"><span class="notable-traits-tooltip">ⓘ' +
  '<span class="notable-traits-tooltiptext">' +
  'Notable traits for T</span></span></span></h4></section></summary><div class="docblock"><p>Returns the contained Some value or a ' +
  'zeroed fallback from the Default trait of the payload type.</p><h5 id="examples">Examples</h5><div class="example-wrap">' +
  '<pre class="rust rust-example-rendered"><code>let good_year = Some(1909).unwrap_or_default();</code></pre>' +
  '<a class="test-arrow" target="_blank" href="https://play.rust-lang.org/?code=x">Run</a></div></div></details></div>' +
  '</section></main></body></html>';

const SPHINX =
  '<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/">' +
  '<title>http.cookies — HTTP state management</title></head><body><div class="related" role="navigation"><h3>Navigation</h3>' +
  '<ul><li class="right"><a href="genindex.html">index</a></li><li><a href="http.server.html">next</a> |</li></ul></div>' +
  '<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">' +
  '<section id="module-http.cookies"><h1>http.cookies — HTTP state management<a class="headerlink" href="#module-http.cookies" ' +
  'title="Permalink to this heading">¶</a></h1><p>The module defines classes for abstracting the concept of cookies.</p>' +
  '<dl class="py class"><dt class="sig sig-object py" id="http.cookies.SimpleCookie"><em class="property">class </em>' +
  '<span class="sig-prename descclassname">http.cookies.</span><span class="sig-name descname">SimpleCookie</span>([<em>input</em>])' +
  '<a class="headerlink" href="#http.cookies.SimpleCookie" title="Permalink to this definition">¶</a></dt>' +
  '<dd><p>This class derives from BaseCookie and keeps received cookie values as strings.</p></dd></dl>' +
  '<section id="example"><h2>A simple example<a class="headerlink" href="#example" title="Permalink to this heading">¶</a></h2>' +
  '<div class="highlight-pycon notranslate"><div class="highlight"><pre>' +
  '<span></span>&gt;&gt;&gt; from http import cookies</pre></div></div>' +
  '</section></section></div></div></div><div class="sphinxsidebar" role="navigation"><h3>Quick search</h3></div></div></body></html>';

test('rustdoc and Sphinx pages: queries cite the method and the API entry, show prints no chrome', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'option.html': RUSTDOC,
      'cookies.html': SPHINX,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://doc.rust-lang.org/std/option/enum.Option.html', localPath: 'option.html', contentType: 'text/html' },
        { sourceUrl: 'https://docs.python.org/3.11/library/http.cookies.html', localPath: 'cookies.html', contentType: 'text/html' },
      ]),
    });
    const build = await rig.exec(['build', '--map', 'map.json', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);

    const cited = async (query: string): Promise<string> => {
      const result = await rig.exec(['query', query, '--limit', '1', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const { sourceUrl, fragment } = (result.json!.data!.hits[0] as { citation: { sourceUrl: string; fragment: string } }).citation;
      return `${sourceUrl}#${fragment}`;
    };
    assert.equal(
      await cited('zeroed fallback default payload'),
      'https://doc.rust-lang.org/std/option/enum.Option.html#method.unwrap_or_default',
      "a folded method's docs are cited at the method",
    );
    assert.equal(
      await cited('derives from BaseCookie, received values kept'),
      'https://docs.python.org/3.11/library/http.cookies.html#http.cookies.SimpleCookie',
      'an API entry is cited at its id',
    );

    const method = await rig.exec(['show', 'https://doc.rust-lang.org/std/option/enum.Option.html#method.unwrap_or_default']);
    assert.equal(method.code, 0, method.stderr);
    assert.match(method.stdout, /§ .*> pub fn unwrap_or_default\(self\) -> T\n/, 'the signature is the heading, without the tooltip');
    assert.match(method.stdout, /Returns the contained Some value/);
    const page = await rig.exec(['show', 'https://doc.rust-lang.org/std/option/enum.Option.html#main-content']);
    const sphinx = await rig.exec(['show', 'https://docs.python.org/3.11/library/http.cookies.html#http.cookies.SimpleCookie']);
    // The source's text: the lines show quotes (its own notes aside).
    const quoted = (stdout: string): string =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith('   |'))
        .join('\n');
    const shown = [method.stdout, page.stdout, sphinx.stdout].map(quoted).join('\n');
    for (const chrome of [
      'source',
      'Run',
      '[−]',
      'Expand description',
      'ⓘ',
      'Notable traits',
      'Copy item path',
      'search',
      '¶',
      'Quick search',
    ])
      assert.ok(!shown.includes(chrome), `no ${JSON.stringify(chrome)} in what show prints: ${shown.slice(shown.indexOf(chrome) - 80)}`);
    // An API entry is a section headed by its name, its signature its first block.
    assert.match(sphinx.stdout, /§ .*> http\.cookies\.SimpleCookie\n/);
    assert.match(sphinx.stdout, /\| class http\.cookies\.SimpleCookie\(\[input\]\)\n {3}\| \n {3}\| This class derives/);

    const example = await rig.exec(['show', 'https://docs.python.org/3.11/library/http.cookies.html#example']);
    assert.match(example.stdout, /> A simple example\n/, 'the heading keeps its first word');
  } finally {
    rig.cleanup();
  }
});
