import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * `<a name>` is a fragment target as an element's `id` is: browsers scroll to it, and older documents
 * mark their citable places with it (each rule of a Unicode report's rule table, an anchor in a
 * paragraph of an older spec). A question that matches one rule of a rule table is cited at that rule,
 * not at the table's section; a paragraph's inline named anchor is cited where the match follows it.
 */
const REPORT = `<!DOCTYPE html><html><head><title>UAX #99: Gizmo Segmentation</title></head><body>
<h1>Unicode® Standard Annex #99</h1>
<h2>1 <a name="Rules" href="#Rules">Boundary Rules</a></h2>
<p>The rules below are applied in order; the first rule that matches decides.</p>
<table class="rules">
<tr><th>Rule</th><th>Left</th><th>Action</th><th>Right</th></tr>
<tr><td><a name="GZ1" href="#GZ1">GZ1</a></td><td>sot</td><td>÷</td><td>Any</td></tr>
<tr><td><a name="GZ2" href="#GZ2">GZ2</a></td><td>Sprocket</td><td>×</td><td>Flange</td></tr>
<tr><td><a name="GZ3" href="#GZ3">GZ3</a></td><td>Widget</td><td>÷</td><td>Gasket</td></tr>
<tr><td><a name="GZ 4 &quot;old&quot;">GZ4</a></td><td>Grommet</td><td>×</td><td>Washer</td></tr>
</table>
</body></html>`;

const OLD_SPEC = `<!DOCTYPE html><html><head><title>Gizmo</title></head><body>
<h1>Gizmo</h1>
<h2 id="model">1. Model</h2>
<p>A gizmo turns on its axis at a steady pace, whatever its size or colour.
<a name="rotation-limits"></a>Its rotation speed stays within the speed limits that the host sets.</p>
</body></html>`;

test('query: a rule of a rule table and a paragraph anchor made by <a name> are the cited fragments', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/uax99.html': REPORT,
      'src/gizmo.html': OLD_SPEC,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://www.unicode.org/reports/tr99/', localPath: 'src/uax99.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.org/gizmo.html', localPath: 'src/gizmo.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const firstFragment = async (terms: string[]): Promise<string> => {
      const answer = await rig.exec(['query', ...terms.flatMap((term) => ['--term', term]), '--limit', '1', '--json']);
      assert.equal(answer.code, 0, answer.stderr);
      return (answer.json!.data.hits as { citation: { fragment: string } }[])[0]!.citation.fragment;
    };
    assert.equal(await firstFragment(['Widget Gasket']), 'GZ3');
    assert.equal(await firstFragment(['Sprocket Flange']), 'GZ2');
    // The same under a tight snippet bound: the fragment does not depend on it.
    const tight = await rig.exec(['query', '--term', 'Widget Gasket', '--limit', '1', '--max-snippet-chars', '40', '--json']);
    assert.equal((tight.json!.data.hits as { citation: { fragment: string } }[])[0]!.citation.fragment, 'GZ3');
    assert.equal(await firstFragment(['rotation speed limits host']), 'rotation-limits');
    // A name with a space and quotes: the JSON keeps it as the source writes it; the printed URL
    // percent-encodes them (one link), and show opens the same rule's passage from that URL.
    assert.equal(await firstFragment(['Grommet Washer']), 'GZ 4 "old"');
    const human = await rig.exec(['query', '--term', 'Grommet Washer', '--limit', '1']);
    const url = 'https://www.unicode.org/reports/tr99/#GZ%204%20%22old%22';
    assert.ok(human.stdout.includes(`1. [`) && human.stdout.includes(` ${url}\n`), human.stdout);
    const shown = await rig.exec(['show', url]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /Grommet \| × \| Washer/);
    // Words before the anchor are cited at the section the paragraph is in.
    assert.equal(await firstFragment(['steady pace colour']), 'model');
  } finally {
    rig.cleanup();
  }
});

/**
 * A section the source gives no id (a report's h4 under an h3 named by its <a name>) has no fragment of its own: its
 * blocks are cited at the nearest enclosing section that has one, where a reader opens the page
 * closest to them, not at the top of the document. A document without any id stays without fragment.
 */
test('query: a block of a section without an id is cited at the nearest enclosing section with one', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/report.html': `<!DOCTYPE html><html><head><title>Gizmo report</title></head><body>
<h1>Gizmo report</h1>
<h2>2 <a name="design" href="#design">Design</a></h2>
<p>The design follows three goals.</p>
<h3>Goal 1: Uniqueness</h3>
<p>Every sprocket has exactly one flange assignment.</p>
<h4>Corollary</h4>
<p>A gasket never spans two widgets.</p>
<h3 id="speed">Goal 2: Speed</h3>
<p>A flywheel spins quickly.</p>
</body></html>`,
      // RFC XML (v2): a section without an anchor inside one with an anchor, and one at the top level.
      'src/rfc9996.xml': `<?xml version="1.0" encoding="US-ASCII"?>
<rfc number="9996" category="std">
<front><title>Gizmo Protocol</title><abstract><t>An abstract.</t></abstract></front>
<middle>
<section anchor="operation" title="Operation">
<t>Clients send frames.</t>
<section title="Pausing"><t>A paused ratchet keeps its pawl engaged.</t></section>
</section>
<section title="Loose Ends"><t>A loose lanyard is stowed.</t></section>
</middle>
</rfc>`,
      'src/bare.html': `<!DOCTYPE html><html><head><title>Bare</title></head><body>
<h1>Bare</h1><h2>Part</h2><p>A turnbuckle holds the cable taut.</p></body></html>`,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://example.org/report.html', localPath: 'src/report.html', contentType: 'text/html' },
        { sourceUrl: 'https://example.org/bare.html', localPath: 'src/bare.html', contentType: 'text/html' },
        { sourceUrl: 'https://www.rfc-editor.org/rfc/rfc9996.xml', localPath: 'src/rfc9996.xml', contentType: 'application/xml' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const first = async (term: string): Promise<{ fragment: string | null; headingPath: string[] }> => {
      const answer = await rig.exec(['query', '--term', term, '--limit', '1', '--json']);
      assert.equal(answer.code, 0, answer.stderr);
      return (answer.json!.data.hits as { citation: { fragment: string | null; headingPath: string[] } }[])[0]!.citation;
    };
    const goal = await first('sprocket flange assignment');
    assert.equal(goal.fragment, 'design');
    assert.deepEqual(goal.headingPath.slice(-1), ['Goal 1: Uniqueness'], 'the citation still names its own section');
    assert.equal((await first('gasket widgets')).fragment, 'design', 'two levels down');
    assert.equal((await first('turnbuckle cable')).fragment, null);
    const pausing = await first('paused ratchet pawl');
    assert.equal(pausing.fragment, 'operation');
    assert.deepEqual(pausing.headingPath.slice(-1), ['Pausing']);
    assert.equal((await first('loose lanyard stowed')).fragment, null);

    // Opening such a citation reads on into the subsections that cite it, as a browser does; not into
    // one with an id of its own, nor past the section.
    const shown = async (citation: string): Promise<string> => {
      const answer = await rig.exec(['show', citation, '--json']);
      assert.equal(answer.code, 0, answer.stdout + answer.stderr);
      return (answer.json!.data.blocks as { text: string }[]).map((block) => block.text).join('\n');
    };
    const design = await shown('https://example.org/report.html#design');
    for (const text of [
      'The design follows three goals.',
      'Every sprocket has exactly one flange assignment.',
      'A gasket never spans two widgets.',
    ])
      assert.ok(design.includes(text), design);
    assert.ok(!design.includes('flywheel'), design);
    assert.match(await shown('https://example.org/report.html#speed'), /^A flywheel spins quickly\.$/);
    const operation = await shown('https://www.rfc-editor.org/rfc/rfc9996.xml#operation');
    assert.ok(operation.includes('A paused ratchet keeps its pawl engaged.'), operation);
    assert.ok(!operation.includes('lanyard'), operation);
    // As text, each subsection's heading path comes before its first passage.
    const human = await rig.exec(['show', 'https://example.org/report.html#design']);
    assert.equal(human.code, 0, human.stderr);
    const lines = human.stdout.split('\n').map((line) => line.trim());
    const at = (text: string): number => lines.findIndex((line) => line.includes(text));
    assert.ok(at('The design follows three goals.') < at('§ Gizmo report > Design > Goal 1: Uniqueness'), human.stdout);
    assert.ok(at('§ Gizmo report > Design > Goal 1: Uniqueness') < at('Every sprocket has exactly one flange assignment.'), human.stdout);
    assert.ok(at('Every sprocket') < at('§ Gizmo report > Design > Goal 1: Uniqueness > Corollary'), human.stdout);
    assert.ok(at('§ Gizmo report > Design > Goal 1: Uniqueness > Corollary') < at('A gasket never spans two widgets.'), human.stdout);
    // A chunk id still reads its own section's passage alone.
    const chunk = await rig.exec(['query', '--term', 'paused ratchet pawl', '--limit', '1', '--json']);
    const chunkId = (chunk.json!.data.hits as { chunkId: string }[])[0]!.chunkId;
    assert.equal(await shown(chunkId), 'A paused ratchet keeps its pawl engaged.');
  } finally {
    rig.cleanup();
  }
});

test('a printed citation URL whose id holds a control or invisible character opens with show', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/odd.html':
        '<!DOCTYPE html><html><head><title>Odd ids</title></head><body><h1>Odd ids</h1>' +
        '<h2 id="line&#10;break">Line</h2><p>A sprocket with a newline id.</p>' +
        '<h2 id="zero&#x200B;width">Zero</h2><p>A flange with a zero-width id.</p></body></html>',
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/odd', localPath: 'src/odd.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await rig.exec(['build'])).code, 0);
    for (const [term, encoded, text] of [
      ['sprocket newline', 'line%0Abreak', 'A sprocket with a newline id.'],
      ['flange zero-width', 'zero%E2%80%8Bwidth', 'A flange with a zero-width id.'],
    ] as const) {
      const human = await rig.exec(['query', '--term', term, '--limit', '1']);
      const url = /^1\. \[[^\]]+\] (\S+)/m.exec(human.stdout)?.[1];
      assert.equal(url, `https://example.test/odd#${encoded}`, human.stdout);
      const shown = await rig.exec(['show', url!, '--json']);
      assert.equal(shown.code, 0, shown.stdout);
      assert.equal((shown.json!.data.blocks as { text: string }[]).map((b) => b.text).join(' '), text);
    }
  } finally {
    rig.cleanup();
  }
});

/**
 * An API reference lists one entry after another, each named by its own id (Sphinx's `<dt id="re.DOTALL">`).
 * The densest window of a question can begin in one entry and run into the entry asked about (here the
 * whole section fits in one window, which begins with NOFLAG's "flag"): the citation names the entry
 * whose own text matches the question best, not the id before the window's first matching word.
 */
test('query: a window spanning two API entries cites the entry that matches the question best', async () => {
  const rig = new Rig();
  try {
    rig.write({
      'src/re.html': `<!DOCTYPE html><html><head><title>re</title></head><body>
<h1>re</h1>
<section id="flags"><h2>Flags</h2>
<dl class="py data"><dt id="re.NOFLAG">re.NOFLAG</dt><dd><p>Indicates that no flag is applied; the value is 0.</p></dd></dl>
<dl class="py data"><dt id="re.DOTALL">re.DOTALL</dt><dd><p>Makes the dot match any character at all, including a newline.</p></dd></dl>
<dl class="py data"><dt id="re.MULTILINE">re.MULTILINE</dt><dd><p>When specified, '^' matches at the beginning of each line.</p></dd></dl>
</section>
</body></html>`,
      'map.json': JSON.stringify([{ sourceUrl: 'https://docs.example.org/re.html', localPath: 'src/re.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const fragments = new Set<string>();
    for (const bound of ['40', '400', '4000']) {
      const answer = await rig.exec([
        'query',
        'regex flag so dot matches a newline',
        '--limit',
        '1',
        '--max-snippet-chars',
        bound,
        '--json',
      ]);
      assert.equal(answer.code, 0, answer.stderr);
      fragments.add((answer.json!.data.hits as { citation: { fragment: string } }[])[0]!.citation.fragment);
    }
    assert.deepEqual([...fragments], ['re.DOTALL']);
    const start = await rig.exec(['query', 'beginning of each line', '--limit', '1', '--json']);
    assert.equal((start.json!.data.hits as { citation: { fragment: string } }[])[0]!.citation.fragment, 're.MULTILINE');
  } finally {
    rig.cleanup();
  }
});

/**
 * Doxygen's manual of its configuration lists each option as an entry of one long definition list: the
 * id its index links to (`cfg_warn_as_error`) sits in an empty paragraph at the end of the entry before,
 * and the entry's description starts with a numbered anchor (`a116_WARN_AS_ERROR`, the option's place
 * in the list), which moves when an option is added before it. A question about the option is cited
 * at the id a reader's link names.
 */
test('query: an option of a Doxygen configuration list is cited at its link id, not its numbered anchor', async () => {
  const rig = new Rig();
  try {
    const entry = (n: number, tag: string, text: string): string =>
      `<p class="enddd"><a class="anchor" id="cfg_${tag.toLowerCase()}"></a></p>\n</dd>\n<dt><code>${tag}</code></dt>\n` +
      `<dd><p class="startdd"><a id="a${n}_${tag}" name="a${n}_${tag}"></a> ${text}</p>\n`;
    const page = `<!DOCTYPE html><html><head><title>Doxygen: Configuration</title></head><body>
<h1>Configuration</h1>
<h2><a class="anchor" id="config_warnings"></a>Configuration options related to warning and progress messages</h2>
<dl><dt><code>QUIET</code></dt><dd><p class="startdd"><a id="a112_QUIET" name="a112_QUIET"></a> The QUIET tag turns the messages off.</p>
${entry(113, 'WARNINGS', 'The WARNINGS tag turns warning messages on or off.')}${entry(
  116,
  'WARN_AS_ERROR',
  'If WARN_AS_ERROR is FAIL_ON_WARNINGS the run goes on to the end and then exits with a non-zero status.',
)}${entry(117, 'WARN_FORMAT', 'The WARN_FORMAT tag says how a warning message is printed.')}
</dd></dl></body></html>`;
    rig.write({
      'config.html': page,
      'map.json': JSON.stringify([
        { sourceUrl: 'https://www.doxygen.nl/manual/config.html', localPath: 'config.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const hit = (await rig.exec(['query', 'finish the run but exit with a non-zero status on warnings', '--limit', '1', '--json'])).json!
      .data!.hits[0]!;
    assert.equal(hit.citation.fragment, 'cfg_warn_as_error');
  } finally {
    rig.cleanup();
  }
});
