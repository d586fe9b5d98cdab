import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * A source can give one place several names, each written out after its anchor: Vim's help writes
 * `*'scrolloff'* *'so'*` before the option's text (vimdoc's HTML: `*<A NAME="'scrolloff'"></A><B>'scrolloff'</B>*`).
 * Through the CLI: a hit in that text cites the first name, the author's primary one, not the
 * abbreviation written last, also in a later chunk of a long entry; an anchor followed by more than its own name (a term, then its
 * paragraph) still marks a place of its own.
 */
const HELP = `<!DOCTYPE html><html><head><title>Vim documentation: options</title></head><body>
<h1>Vim documentation: options</h1>
<pre>
						*<A NAME="'scrolloff'"></A><B>'scrolloff'</B>* *<A NAME="'so'"></A><B>'so'</B>*
'scrolloff' 'so'	number	(default 0)
			global or local to window
	Minimal number of screen lines to keep above and below the cursor.
	This will make some context visible around where you are working.

						*<A NAME="modeline"></A><B>modeline</B>* *<A NAME="vim:"></A><B>vim:</B>* *<A NAME="E520"></A><B>E520</B>*
	Settings written in the first or last lines of a file are read when the
	file is edited: a modeline.

						*<A NAME="'backupdir'"></A><B>'backupdir'</B>* *<A NAME="'bdir'"></A><B>'bdir'</B>*
'backupdir' 'bdir'	string	(default ".,~/tmp,~/")
			global
${Array.from({ length: 40 }, (_, i) => `\tRule ${i + 1} of this list tells how one comma separated entry is read.`).join('\n')}
	A directory starting with "./" means to put the backup file relative to where the edited file is.

						*<A NAME="'wrap'"></A><B>'wrap'</B>*
'wrap'			boolean	(default on)
			local to window
	When on, lines longer than the width of the window will wrap.
</pre>
<dl>
  <dt id="textwidth">textwidth</dt>
  <dd><p>Maximum width of text that is being inserted.</p>
      <p id="tw-zero">When zero, the width of the screen is used for inserted text.</p></dd>
</dl>
</body></html>`;

interface Hit {
  citation: { fragment: string | null };
}

/** Builds a workspace of one page and returns a query's rank-1 citation fragment, asked through the CLI. */
async function onePage(rig: Rig, url: string, html: string): Promise<(...args: string[]) => Promise<string | null | undefined>> {
  rig.write({
    'doc/page.html': html,
    'map.json': JSON.stringify([{ sourceUrl: url, localPath: 'doc/page.html', contentType: 'text/html' }]),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
  });
  const build = await rig.exec(['build', '--json']);
  assert.equal(build.code, 0, build.stdout + build.stderr);
  return async (...args) => {
    const answer = await rig.exec(['query', '--json', ...args]);
    assert.equal(answer.code, 0, answer.stdout + answer.stderr);
    return (JSON.parse(answer.stdout).data.hits as Hit[])[0]?.citation.fragment;
  };
}

test('query: an anchor written as one of a list of names cites the first name', async () => {
  const rig = new Rig();
  try {
    const first = await onePage(rig, 'https://vimdoc.example.org/options.html', HELP);
    assert.equal(await first('screen lines above and below the cursor'), "'scrolloff'");
    assert.equal(await first('settings in the first or last lines of a file'), 'modeline');
    assert.equal(await first('lines longer than the window wrap'), "'wrap'");
    // An entry longer than a chunk: its later piece starts with the name in force there, the first one.
    assert.equal(await first('backup file relative to the edited file'), "'backupdir'");
    // The same under every snippet bound.
    assert.equal(await first('--max-snippet-chars', '40', 'screen lines above and below the cursor'), "'scrolloff'");
    // A paragraph after a term is a place of its own: the term's text is more than its id.
    assert.equal(await first('width of the screen is used when zero'), 'tw-zero');
  } finally {
    rig.cleanup();
  }
});

/**
 * A generator can also write all of an entry's ids at one place and print the entry's name as a link
 * to the one it gives as the entry's address: HAProxy's manual writes `retries`, `4-retries`,
 * `4.2-retries` and `retries (Proxies)` before `<a href="#4.2-retries">retries</a>`. A chunk keeps one
 * id per place: the linked one, as a heading is cited by its self-link's id.
 */
const KEYWORDS = `<!DOCTYPE html><html><head><title>HAProxy Configuration Manual</title></head><body>
<h1>HAProxy Configuration Manual</h1>
<h2 id="chapter-4.2">4.2. Alphabetically sorted keywords reference</h2>
<a class="anchor" name="redispatch"></a><a class="anchor" name="4-redispatch"></a><a class="anchor" name="4.2-redispatch"></a>
<div class="keyword"><b><a class="anchor" name="redispatch"></a><a href="#4.2-redispatch">redispatch</a></b> (deprecated)</div>
<pre class="text">Enable or disable session redistribution in case of a lost server.</pre>
<a class="anchor" name="retries"></a><a class="anchor" name="4-retries"></a><a class="anchor" name="4.2-retries"></a>
<a class="anchor" name="retries (Proxies)"></a>
<div class="keyword"><b><a class="anchor" name="retries"></a><a href="#4.2-retries">retries</a></b> &lt;value&gt;</div>
<pre class="text">Set the number of attempts to perform on a server after a connection failure.
See also: <a href="#retries">retries</a>, <a href="#4.2-redispatch">redispatch</a></pre>
</body></html>`;

test('query: of the ids a generator writes at one entry, the one its name links to is cited', async () => {
  const rig = new Rig();
  try {
    const first = await onePage(rig, 'https://docs.example.org/configuration.html', KEYWORDS);
    assert.equal(await first('attempts on a server after a connection failure'), '4.2-retries');
    assert.equal(await first('session redistribution lost server'), '4.2-redispatch');
  } finally {
    rig.cleanup();
  }
});
