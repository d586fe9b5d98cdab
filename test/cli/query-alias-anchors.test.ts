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

test('query: an anchor written as one of a list of names cites the first name', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'doc/options.html': HELP,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://vimdoc.example.org/options.html', localPath: 'doc/options.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const first = async (...args: string[]): Promise<string | null | undefined> => {
      const answer = await rig.exec(['query', '--json', ...args]);
      assert.equal(answer.code, 0, answer.stdout + answer.stderr);
      return (JSON.parse(answer.stdout).data.hits as Hit[])[0]?.citation.fragment;
    };
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
