import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * Manual pages as mandoc renders them (mandoc -Thtml; manpages.debian.org, man.openbsd.org), in its
 * markup patterns, on a host no family names: the family comes from the markup (extract rule 53).
 */
const URL = 'https://man.example.test/ssh_config.5.html';

const page = (manualText: string): string =>
  '<!DOCTYPE html>\n<html>\n<head>\n  <meta charset="utf-8"/>\n  <title>SSH_CONFIG(5)</title>\n</head>\n<body>\n' +
  '<table class="head">\n  <tr>\n    <td class="head-ltitle">SSH_CONFIG(5)</td>\n' +
  '    <td class="head-vol">File Formats Manual</td>\n    <td class="head-rtitle">SSH_CONFIG(5)</td>\n  </tr>\n</table>\n' +
  `<div class="manual-text">\n${manualText}</div>\n` +
  '<table class="foot">\n  <tr>\n    <td class="foot-date">January 13, 2023</td>\n' +
  '    <td class="foot-os">Debian</td>\n  </tr>\n</table>\n' +
  '</body>\n</html>\n';

const KEYWORDS =
  '<section class="Sh">\n<h1 class="Sh" id="NAME"><a class="permalink" href="#NAME">NAME</a></h1>\n' +
  '<p class="Pp"><code class="Nm">ssh_config</code> &#x2014; <span class="Nd">OpenSSH client configuration file</span></p>\n' +
  '</section>\n<section class="Sh">\n<h1 class="Sh" id="DESCRIPTION"><a class="permalink" href="#DESCRIPTION">DESCRIPTION</a></h1>\n' +
  '<p class="Pp">The possible keywords and their meanings are as follows:</p>\n<dl class="Bl-tag">\n' +
  '  <dt id="Host"><a class="permalink" href="#Host"><code class="Cm">Host</code></a></dt>\n' +
  '  <dd>Restricts the following declarations to the hosts that match one of the patterns.\n' +
  '    <p class="Pp">A pattern entry may be negated by prefixing it with an exclamation mark.</p>\n  </dd>\n' +
  '  <dt id="ServerAliveCountMax"><a class="permalink" href="#ServerAliveCountMax"><code class="Cm">ServerAliveCountMax</code></a></dt>\n' +
  '  <dd>Sets the number of server alive messages which may be sent without a reply. The default value is 3.</dd>\n' +
  '</dl>\n<p class="Pp">Keywords are case-insensitive.</p>\n</section>\n';

test('mandoc: chosen by its markup; the title lines are chrome; each tagged keyword is an entry headed by it', async () => {
  const doc = await extractBytes(page(KEYWORDS), URL, 'text/html');
  assert.equal(doc.family, 'mandoc');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [1, 'NAME', 'NAME'],
      [1, 'DESCRIPTION', 'DESCRIPTION'],
      [2, 'Host', 'Host'],
      [2, 'ServerAliveCountMax', 'ServerAliveCountMax'],
    ],
  );
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.doesNotMatch(text, /File Formats Manual|January 13, 2023/, 'the head and foot title lines are not text');
  const sectionOf = (start: string): string | null =>
    doc.sections.find((s) => s.id === doc.blocks.find((b) => b.text.startsWith(start))!.sectionId)?.fragment ?? null;
  assert.equal(sectionOf('A pattern entry may be negated'), 'Host');
  assert.equal(sectionOf('Sets the number of server alive'), 'ServerAliveCountMax');
  assert.equal(sectionOf('Keywords are case-insensitive.'), 'DESCRIPTION', 'after the list, its section goes on');
});

test('a term that is a lone list mark (man(7) .IP o, tagged by mandoc) is a bullet, not an entry, beside real entries', async () => {
  const options =
    '<section class="Sh">\n<h1 class="Sh" id="DESCRIPTION"><a class="permalink" href="#DESCRIPTION">DESCRIPTION</a></h1>\n' +
    '<p class="Pp">Some of the additional features of rsync are:</p>\n<dl class="Bl-tag">\n' +
    '  <dt id="o"><a class="permalink" href="#o">o</a></dt>\n  <dd>support for copying links, devices and owners</dd>\n' +
    '  <dt id="o~2"><a class="permalink" href="#o~2">o</a></dt>\n  <dd>exclude and exclude-from options</dd>\n</dl>\n' +
    '<dl class="Bl-tag">\n' +
    '  <dt id="delete"><a class="permalink" href="#delete"><b>--delete</b></a></dt>\n' +
    '  <dd>delete extraneous files from the receiver</dd>\n' +
    '  <dt id="o~3"><a class="permalink" href="#o~3">*</a></dt>\n  <dd>a bullet among the options</dd>\n' +
    '  <dt id="o~4"><a class="permalink" href="#o~4">*</a></dt>\n  <dd>another bullet</dd>\n' +
    '</dl>\n</section>\n';
  const doc = await extractBytes(page(options), URL, 'text/html');
  assert.equal(doc.family, 'mandoc');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['DESCRIPTION', '--delete'],
  );
  const bullets = doc.blocks.find((b) => b.text.includes('support for copying links'))!;
  assert.equal(bullets.kind, 'definition-list', 'a list of bullets stays one list');
  const stray = doc.blocks.find((b) => b.text.includes('a bullet among the options'))!;
  assert.equal(
    doc.sections.find((s) => s.id === stray.sectionId)?.heading,
    'DESCRIPTION',
    'a bullet item is in the section around the list',
  );
});

test('a page with a manual-text div but no mandoc title line is not claimed', async () => {
  const doc = await extractBytes(
    '<!DOCTYPE html><html><head><title>t</title></head><body><div class="manual-text"><h1 id="a">A</h1><p>Text.</p></div></body></html>',
    URL,
    'text/html',
  );
  assert.equal(doc.family, 'generic');
});

test("a mark set as a name (ar's modifier <b>o</b>, dash's flag <code>-</code>) is an entry", async () => {
  const options =
    '<section class="Sh">\n<h1 class="Sh" id="OPTIONS"><a class="permalink" href="#OPTIONS">OPTIONS</a></h1>\n<dl class="Bl-tag">\n' +
    '  <dt id="N"><a class="permalink" href="#N"><b>N</b></a></dt>\n  <dd>Uses the count parameter.</dd>\n' +
    '  <dt id="o"><a class="permalink" href="#o"><b>o</b></a></dt>\n  <dd>Preserve the original dates of members.</dd>\n' +
    '  <dt id="left"><code class="Cm">-</code></dt>\n  <dd>A minus sign specifies left adjustment.</dd>\n' +
    '  <dt id="q"><a class="permalink" href="#q">q</a></dt>\n  <dd>Quick append.</dd>\n' +
    '</dl>\n</section>\n';
  const doc = await extractBytes(page(options), URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => s.fragment),
    ['OPTIONS', 'N', 'o', 'left', 'q'],
  );
  const cited = (start: string): string | null => doc.blocks.find((b) => b.text.startsWith(start))!.fragment;
  assert.equal(cited('Preserve the original dates'), 'o');
  assert.equal(cited('A minus sign'), 'left');
});

test("tags sharing one body (<dd>&nbsp;</dd> between them: ssh's -L forms) are one entry, the others its alternate ids", async () => {
  const options =
    '<section class="Sh">\n<h1 class="Sh" id="DESCRIPTION"><a class="permalink" href="#DESCRIPTION">DESCRIPTION</a></h1>\n' +
    '<dl class="Bl-tag">\n' +
    '  <dt id="L"><a class="permalink" href="#L"><code class="Fl">-L</code></a> <var class="Ar">port:host:hostport</var></dt>\n' +
    '  <dd style="width: auto;">&#x00A0;</dd>\n' +
    '  <dt id="L~2"><a class="permalink" href="#L~2"><code class="Fl">-L</code></a> <var class="Ar">local_socket</var></dt>\n' +
    '  <dd>Specifies that connections to the given TCP port are forwarded.</dd>\n' +
    '  <dt id="N"><a class="permalink" href="#N"><code class="Fl">-N</code></a></dt>\n  <dd>Do not execute a remote command.</dd>\n' +
    '</dl>\n</section>\n';
  const doc = await extractBytes(page(options), URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.alternateIds ?? []]),
    [
      ['DESCRIPTION', []],
      ['L', ['L~2']],
      ['N', []],
    ],
  );
  assert.equal(doc.blocks.find((b) => b.text.startsWith('Specifies that connections'))!.fragment, 'L');
});

/** A man(7) page's options as mandoc writes them (no mdoc `.Nd`): .TP items, a .RS block, untagged .IP paragraphs. */
const MAN_OPTIONS =
  '<section class="Sh">\n<h1 class="Sh" id="NAME"><a class="permalink" href="#NAME">NAME</a></h1>\n' +
  '<p class="Pp">frob - frobnicate files</p>\n</section>\n' +
  '<section class="Sh">\n<h1 class="Sh" id="OPTIONS"><a class="permalink" href="#OPTIONS">OPTIONS</a></h1>\n' +
  '<dl class="Bl-tag">\n  <dt id="info"><a class="permalink" href="#info"><b>--info=FLAGS</b></a></dt>\n' +
  '  <dd>Chooses the informational output. Some examples:</dd>\n</dl>\n' +
  '<div class="Bd-indent">\n<p class="Pp"></p>\n<pre>frob --info=progress2 src/ dest/</pre>\n</div>\n' +
  '<dl class="Bl-tag">\n  <dt></dt>\n  <dd>Flag names may be abbreviated to their first letters.</dd>\n</dl>\n' +
  '<dl class="Bl-tag">\n  <dt id="L"><a class="permalink" href="#L"><b>-L</b></a></dt>\n' +
  '  <dd>Follow symbolic links.</dd>\n  <dt></dt>\n  <dd>With this option the type test matches the target of a link.</dd>\n</dl>\n' +
  '<p class="Pp">Options may be given in any order.</p>\n</section>\n';

test('man(7) pages: a .RS block and untagged .IP paragraphs that mandoc writes after a tagged item go on with its entry', async () => {
  const doc = await extractBytes(page(MAN_OPTIONS), URL, 'text/html');
  assert.equal(doc.family, 'mandoc');
  const blockOf = (start: string) => doc.blocks.find((b) => b.text.startsWith(start))!;
  const sectionOf = (start: string): string | null => doc.sections.find((s) => s.id === blockOf(start).sectionId)?.fragment ?? null;
  assert.equal(sectionOf('frob --info=progress2'), 'info', 'the .RS display after the list');
  assert.equal(blockOf('frob --info=progress2').fragment, 'info', 'and it cites the entry');
  assert.equal(sectionOf('Flag names may be abbreviated'), 'info', 'an untagged .IP list after the display');
  assert.equal(sectionOf('With this option the type test'), 'L', 'an untagged term inside the list');
  assert.equal(sectionOf('Options may be given in any order.'), 'OPTIONS', 'a paragraph after the list is the section’s');
});

test('mdoc pages (with .Nd): a display after a tagged list is the section’s, not its last entry’s', async () => {
  const mdoc =
    '<section class="Sh">\n<h1 class="Sh" id="NAME"><a class="permalink" href="#NAME">NAME</a></h1>\n' +
    '<p class="Pp"><code class="Nm">frob</code> &#x2014; <span class="Nd">frobnicate files</span></p>\n</section>\n' +
    '<section class="Sh">\n<h1 class="Sh" id="OPTIONS"><a class="permalink" href="#OPTIONS">OPTIONS</a></h1>\n' +
    '<dl class="Bl-tag">\n  <dt id="v"><a class="permalink" href="#v"><code class="Fl">-v</code></a></dt>\n' +
    '  <dd>Verbose.</dd>\n</dl>\n<div class="Bd-indent">\n<pre>frob -v a b</pre>\n</div>\n</section>\n';
  const doc = await extractBytes(page(mdoc), URL, 'text/html');
  const block = doc.blocks.find((b) => b.text.startsWith('frob -v a b'))!;
  assert.equal(doc.sections.find((s) => s.id === block.sectionId)?.fragment, 'OPTIONS');
});
