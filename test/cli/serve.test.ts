import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CLI, REPO_ROOT, Rig, sampleHtml, startCli, writeSmallWorkspace } from '../helpers/rig.js';
import { waitUntil } from '../helpers/wait.js';
import { LIMIT_RANGE, MAX_CHARS_RANGE, MAX_SNIPPET_CHARS_RANGE, OFFSET_RANGE, QUERY_REQUEST_FIELDS } from '../../src/cli/query-request.js';

/**
 * `episteme serve` as an agent uses it: the MCP SDK's own client starts it over stdio in a real built
 * workspace and calls its tools. Each answer is compared with the CLI twin run in the same
 * workspace (`query --json`, `show --json`), byte for byte.
 */

interface Served {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

async function startServer(cwd: string, args: string[] = []): Promise<Served> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', ...args], cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'episteme-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

type Text = { type: string; text: string };
const textOf = (result: Record<string, unknown>): string => ((result.content as Text[])[0] as Text).text;

let rig: Rig;
let served: Served;

before(async () => {
  rig = new Rig();
  writeSmallWorkspace(rig, 3);
  const build = await rig.exec(['build', '--json']);
  assert.equal(build.code, 0, build.stdout + build.stderr);
  served = await startServer(rig.dir);
});

after(async () => {
  await served?.close();
  rig?.cleanup();
});

test('serve: tools and their schemas; search equals query --json byte for byte', async () => {
  const { tools } = await served.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['build', 'read', 'search', 'status']);
  const search = tools.find((t) => t.name === 'search')!;
  // One schema serves both: the search tool's input is schema/query-request.schema.json, which the
  // request parser (query --batch, search) follows field by field and range by range.
  const published = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schema/query-request.schema.json'), 'utf8'));
  assert.deepEqual(Object.keys(search.inputSchema.properties ?? {}), [...QUERY_REQUEST_FIELDS]);
  assert.deepEqual(Object.keys(published.properties), [...QUERY_REQUEST_FIELDS]);
  for (const [field, range] of [
    ['limit', LIMIT_RANGE],
    ['offset', OFFSET_RANGE],
    ['maxChars', MAX_CHARS_RANGE],
    ['maxSnippetChars', MAX_SNIPPET_CHARS_RANGE],
  ] as const)
    assert.deepEqual([published.properties[field].minimum, published.properties[field].maximum], [range.min, range.max], field);

  const cases: { request: Record<string, unknown>; flags: string[] }[] = [
    { request: { terms: ['zebra1 alpha'] }, flags: ['--term', 'zebra1 alpha'] },
    {
      request: { terms: ['"conditional requests"', 'giraffe2'], limit: 2, offset: 1 },
      flags: ['--term', '"conditional requests"', '--term', 'giraffe2', '--limit', '2', '--offset', '1'],
    },
    {
      request: { terms: ['alpha'], explain: true, maxSnippetChars: 30, maxChars: 50 },
      flags: ['--term', 'alpha', '--explain', '--max-snippet-chars', '30', '--max-chars', '50'],
    },
    {
      request: { terms: ['shared words'], normativity: ['informative'], collapse: false, expand: true },
      flags: ['--term', 'shared words', '--normativity', 'informative', '--no-collapse', '--expand'],
    },
    { request: { terms: ['nothingmatchesthis'] }, flags: ['--term', 'nothingmatchesthis'] },
    // A value the index does not hold: the same usage error as the CLI's, as a failed tool result.
    { request: { terms: ['alpha'], family: ['rfcc'] }, flags: ['--term', 'alpha', '--family', 'rfcc'] },
  ];
  for (const { request, flags } of cases) {
    const cli = await rig.exec(['query', '--index', 'chunks/search-index.json', ...flags, '--json']);
    const result = await served.client.callTool({ name: 'search', arguments: request });
    assert.equal(textOf(result) + '\n', cli.stdout, JSON.stringify(request));
    assert.deepEqual(result.structuredContent, cli.json);
    assert.equal(result.isError === true, cli.code !== 0);
  }
});

test('serve: read returns the section a search hit cites, as show --json does', async () => {
  const hit = (await served.client.callTool({ name: 'search', arguments: { terms: ['giraffe2'], limit: 1 } })).structuredContent as {
    data: { hits: { chunkId: string; snippet: { text: string }; citation: { sourceUrl: string; fragment: string; sectionId: string } }[] };
  };
  const [first] = hit.data.hits;
  assert.ok(first, 'a hit');
  for (const citation of [first.chunkId, `${first.citation.sourceUrl}#${first.citation.fragment}`]) {
    const result = await served.client.callTool({ name: 'read', arguments: { citation } });
    const cli = await rig.exec(['show', citation, '--json']);
    assert.equal(cli.code, 0, cli.stdout);
    assert.equal(textOf(result) + '\n', cli.stdout);
    const data = (result.structuredContent as { data: any }).data;
    assert.equal(data.citation.sectionId, first.citation.sectionId);
    assert.equal(data.contentTrust, 'untrusted-source');
    const text = data.blocks.map((b: { text: string }) => b.text).join('\n\n');
    assert.ok(text.includes(first.snippet.text), `${JSON.stringify(text)} holds the snippet`);
    assert.equal(data.truncated, false);
  }
  // Bounded: a window of 10 code points names what it cut and where the next page starts.
  const page = (await served.client.callTool({ name: 'read', arguments: { citation: first.chunkId, maxChars: 10 } })).structuredContent as {
    data: any;
  };
  assert.equal(page.data.returnedChars, 10);
  assert.equal(page.data.nextOffset, 10);
  assert.ok(page.data.cut.blockIds.length > 0 && page.data.cut.chars === page.data.totalChars - 10);
  const human = await rig.exec(['show', first.chunkId]);
  assert.match(human.stdout, /untrusted source text/);
  assert.match(human.stdout, /^ {3}\| .*giraffe2/m);
});

test('serve: bad requests are errors with the CLI codes and hints, and the server survives them', async () => {
  const rpcError = async (name: string, args: Record<string, unknown>) => {
    try {
      await served.client.callTool({ name, arguments: args });
    } catch (error) {
      assert.ok(error instanceof McpError, String(error));
      return error;
    }
    assert.fail(`${name} ${JSON.stringify(args)} was answered`);
  };
  const unknown = await rpcError('delete-everything', {});
  assert.equal(unknown.code, -32602);
  assert.equal((unknown.data as { code: string }).code, 'usage-error');
  assert.match((unknown.data as { hint: string }).hint, /search, read, status, build/);
  for (const [name, args, field] of [
    ['search', { terms: 'not an array' }, 'terms'],
    ['search', { terms: ['x'], limit: 1e9 }, 'limit'],
    ['search', { terms: ['x'], maxChars: -1 }, 'maxChars'],
    ['search', { terms: ['x'], explain: 'yes' }, 'explain'],
    ['search', { limit: 3 }, 'terms'],
    ['search', { terms: ['x'], index: '/etc/passwd' }, '"index"'],
    ['read', { citation: 'x', maxChars: 10 ** 12 }, 'maxChars'],
    ['read', { citation: 42 }, 'citation'],
    ['status', { verbose: true }, 'verbose'],
    ['build', { targets: '--all' }, 'targets'],
    // A NUL cannot reach a command line: it was Node's own error, -32603, with no code or hint.
    ['build', { targets: ['a\u0000b'] }, 'targets'],
    ['build', { targets: ['specs/a\nb.json'] }, 'targets'],
  ] as const) {
    const error = await rpcError(name, args);
    assert.equal(error.code, -32602, `${name} ${JSON.stringify(args)}`);
    assert.equal((error.data as { code: string }).code, 'usage-error');
    assert.equal((error.data as { details: { field: string } }).details.field, field);
  }
  // A citation of another workspace: a failed tool result naming the code, no absolute path.
  const other = await served.client.callTool({ name: 'read', arguments: { citation: 'https://elsewhere.test/spec/#intro' } });
  assert.equal(other.isError, true);
  const envelope = other.structuredContent as { ok: boolean; error: { code: string; hint: string } };
  assert.equal(envelope.error.code, 'citation-not-found');
  assert.ok(!textOf(other).includes(rig.dir), 'no absolute path in the answer');
  const missingSection = await served.client.callTool({ name: 'read', arguments: { citation: 'example-test-doc0#no-such-section' } });
  assert.equal((missingSection.structuredContent as { error: { code: string } }).error.code, 'citation-not-found');
  // Still serving.
  const after = await served.client.callTool({ name: 'search', arguments: { terms: ['alpha'], limit: 1 } });
  assert.equal((after.structuredContent as { ok: boolean }).ok, true);
  assert.doesNotMatch(served.stderr(), /Error|at .*\.js:\d+/);
});

test('serve: status reports the stale target after an edit; build as a tool, then search sees the change', async () => {
  const fresh = (await served.client.callTool({ name: 'status', arguments: {} })).structuredContent as { data: any };
  assert.equal(fresh.data.upToDate, true);
  assert.equal(fresh.data.rebuild, null);
  assert.equal(fresh.data.index, 'chunks/search-index.json');
  const before = fresh.data.generation.fingerprint;

  rig.write({ 'src/doc1.html': sampleHtml(1, ' Newly saved okapi words.') });
  const stale = (await served.client.callTool({ name: 'status', arguments: {} })).structuredContent as { data: any };
  assert.equal(stale.data.upToDate, false);
  assert.equal(stale.data.rebuild, 'episteme build chunks/search-index.json');
  const targets = stale.data.stale.map((t: { target: string }) => t.target);
  assert.ok(targets.includes('chunks/search-index.json'), targets.join(', '));
  assert.ok(targets.includes('snapshots/example-test-doc1.json'), targets.join(', '));
  const explain = await rig.exec(['explain', 'chunks/search-index.json', '--json']);
  assert.deepEqual(
    stale.data.stale.map((t: { target: string; reasons: unknown }) => [t.target, t.reasons]),
    explain.json!.data.targets.map((t: { target: string; reasons: unknown }) => [t.target, t.reasons]),
    'the reasons explain gives',
  );
  const none = await served.client.callTool({ name: 'search', arguments: { terms: ['okapi'] } });
  assert.equal((none.structuredContent as { data: { total: number } }).data.total, 0);

  const progress: number[] = [];
  const built = await served.client.callTool({ name: 'build', arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  const cliBuild = built.structuredContent as { ok: boolean; command: string; data: { counts: { built: number } } };
  assert.equal(cliBuild.ok, true, textOf(built));
  assert.equal(cliBuild.command, 'build');
  assert.ok(cliBuild.data.counts.built > 0);
  assert.ok(progress.length > 0, 'build progress reached the client');

  const found = await served.client.callTool({ name: 'search', arguments: { terms: ['okapi'] } });
  assert.equal((found.structuredContent as { data: { total: number } }).data.total, 1);
  const cli = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'okapi', '--json']);
  assert.equal(textOf(found) + '\n', cli.stdout);
  const now = (await served.client.callTool({ name: 'status', arguments: {} })).structuredContent as { data: any };
  assert.equal(now.data.upToDate, true);
  assert.notEqual(now.data.generation.fingerprint, before);
});

test('serve: a generation switch while queries run gives no mixed or failed answer', async () => {
  const request = { terms: ['alpha zebra2 walrus'], limit: 5 };
  const flags = ['--term', 'alpha zebra2 walrus', '--limit', '5', '--json'];
  const old = (await rig.exec(['query', '--index', 'chunks/search-index.json', ...flags])).json!.data;
  rig.write({ 'src/doc2.html': sampleHtml(2, ' The walrus joins the alpha paragraph.') });
  const child = rig.exec(['build', '--json']);
  let finished = false;
  void child.then(() => (finished = true));
  const answers: { ok: boolean; data: unknown; warnings: { code: string }[] }[] = [];
  // Queries go on while the build runs, and a few after it committed.
  let afterBuild = 0;
  while (afterBuild < 3) {
    const result = await served.client.callTool({ name: 'search', arguments: request });
    answers.push(result.structuredContent as (typeof answers)[number]);
    if (finished) afterBuild++;
  }
  const build = await child;
  assert.equal(build.code, 0, build.stdout);
  const fresh = (await rig.exec(['query', '--index', 'chunks/search-index.json', ...flags])).json!.data;
  assert.notDeepEqual(fresh, old);
  for (const answer of answers) {
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.ok(
      [JSON.stringify(old), JSON.stringify(fresh)].includes(JSON.stringify(answer.data)),
      'each answer is one generation, the old or the new',
    );
    for (const warning of answer.warnings) assert.equal(warning.code, 'build-in-progress');
  }
  assert.deepEqual(answers.at(-1)!.data, fresh, 'after the build, the new generation');
});

test('serve --read-only refuses build; serve outside a workspace says why on stderr', async () => {
  const readOnly = await startServer(rig.dir, ['--read-only']);
  try {
    const refused = await readOnly.client.callTool({ name: 'build', arguments: {} });
    assert.equal(refused.isError, true);
    const error = (refused.structuredContent as { error: { code: string; hint: string } }).error;
    assert.equal(error.code, 'server-read-only');
    assert.match(error.hint, /episteme build chunks\/search-index\.json/);
  } finally {
    await readOnly.close();
  }
  const empty = new Rig();
  try {
    const result = await empty.exec(['serve']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '', 'stdout is the protocol channel');
    assert.match(result.stderr, /^error \[config-not-found\]/);
  } finally {
    empty.cleanup();
  }
});

test('query --batch: one answer per line, in order, equal to query --json; a bad line gets an error and the rest go on', async () => {
  const lines = [{ terms: ['zebra1 alpha'], limit: 2 }, 'not json', { terms: ['giraffe2'], limit: 100000 }, { terms: ['giraffe2'] }];
  const input = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
  const batch = await rig.exec(['query', '--index', 'chunks/search-index.json', '--batch'], { input });
  assert.equal(batch.code, 2, 'the worst line decides the exit code');
  const out = batch.stdout.split('\n');
  assert.equal(out.pop(), '');
  assert.equal(out.length, 4);
  const first = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1 alpha', '--limit', '2', '--json']);
  assert.equal(out[0] + '\n', first.stdout);
  assert.match(out[1]!, /"code":"usage-error","message":"Line 2 is not JSON\."/);
  assert.match(out[2]!, /"code":"usage-error","message":"Line 3: limit must be an integer from 1 to 1000/);
  const last = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'giraffe2', '--json']);
  assert.equal(out[3] + '\n', last.stdout);
  const flags = await rig.exec(['query', '--index', 'chunks/search-index.json', '--batch', '--limit', '1'], {
    input: '{"terms":["alpha"]}\n',
  });
  assert.equal(flags.code, 0);
  assert.equal(JSON.parse(flags.stdout).data.hits.length, 1, 'flags are the lines defaults');
});

test('show: a block cut into overlapping chunks is joined back exactly, and paged by --offset', async () => {
  const long = new Rig();
  try {
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence ${i} of the long paragraph talks about okapi${i % 7} and caching.`);
    const paragraph = sentences.join(' ');
    long.write({
      'src/long.html':
        '<!DOCTYPE html><html><head><title>Long</title></head><body><h1>Long</h1>' +
        `<h2 id="long">Long section</h2><p>${paragraph}</p><p>Tail.</p></body></html>`,
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/long/', localPath: 'src/long.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await long.exec(['build', '--json'])).code, 0);
    const whole = await long.exec(['show', 'https://example.test/long/#long', '--json']);
    const data = whole.json!.data;
    assert.ok(data.blocks[0].chunkIds.length > 1, 'the paragraph was cut into several chunks');
    assert.equal(data.blocks[0].text, paragraph);
    assert.deepEqual(
      data.blocks.map((b: { text: string }) => b.text),
      [paragraph, 'Tail.'],
    );
    assert.equal(data.totalChars, paragraph.length + 2 + 'Tail.'.length);
    // Pages of 500 code points put together give the section text.
    let text = '';
    for (let offset: number | null = 0; offset !== null; ) {
      const page: { blocks: { text: string; cutAfter: boolean }[]; nextOffset: number | null } = (
        await long.exec(['show', 'example-test-long#long', '--max-chars', '500', '--offset', String(offset), '--json'])
      ).json!.data;
      text += page.blocks.map((b: { text: string; cutAfter: boolean }) => b.text + (b.cutAfter ? '' : '\n\n')).join('');
      offset = page.nextOffset;
    }
    assert.equal(text, `${paragraph}\n\nTail.\n\n`);
  } finally {
    long.cleanup();
  }
});

test('show: a section of more than ten passages, and a block cut into more than ten pieces, read in document order', async () => {
  // The index holds a document's chunks in chunk-id order, in which s~b10 precedes s~b2.
  const many = new Rig();
  try {
    const paragraphs = Array.from({ length: 14 }, (_, i) =>
      `Paragraph ${i + 1} describes the tapir number ${i + 1}. ${'It grazes by the river at dusk. '.repeat(40)}`.trim(),
    );
    const long = Array.from({ length: 300 }, (_, i) => `Clause ${i} of the long rule names the quoll${i % 5}.`).join(' ');
    many.write({
      'src/many.html':
        '<!DOCTYPE html><html><head><title>Many</title></head><body><h1>Many</h1>' +
        `<h2 id="many">Many paragraphs</h2>${paragraphs.map((p) => `<p>${p}</p>`).join('')}` +
        `<h2 id="rule">One long rule</h2><p>${long}</p></body></html>`,
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/many/', localPath: 'src/many.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await many.exec(['build', '--json'])).code, 0);
    const section = (await many.exec(['show', 'https://example.test/many/#many', '--max-chars', '1000000', '--json'])).json!.data;
    assert.ok(section.blocks.length > 10, `${section.blocks.length} passages`);
    assert.deepEqual(
      section.blocks.map((b: { text: string }) => b.text),
      paragraphs,
    );
    const rule = (await many.exec(['show', 'https://example.test/many/#rule', '--max-chars', '1000000', '--json'])).json!.data;
    assert.ok(rule.blocks[0].chunkIds.length > 10, `${rule.blocks[0].chunkIds.length} pieces`);
    assert.equal(rule.blocks[0].text, long);
  } finally {
    many.cleanup();
  }
});

test('show: a lead-in and the long list it introduces are one passage, joined back exactly', async () => {
  const lead = new Rig();
  try {
    const items = Array.from({ length: 40 }, (_, i) => `Forwarding records of edits number ${i} to the publisher`);
    lead.write({
      'src/lead.html':
        '<!DOCTYPE html><html><head><title>Lead</title></head><body><h1>Lead</h1>' +
        '<h2 id="duties">Duties</h2><p>The contractor\'s responsibilities include the following:</p>' +
        `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul></body></html>`,
      'map.json': JSON.stringify([{ sourceUrl: 'https://example.test/lead/', localPath: 'src/lead.html', contentType: 'text/html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    assert.equal((await lead.exec(['build', '--json'])).code, 0);
    const data = (await lead.exec(['show', 'https://example.test/lead/#duties', '--json'])).json!.data;
    assert.equal(data.blocks.length, 1, 'the lead-in is not a passage of its own');
    assert.equal(data.blocks[0].blockIds.length, 2);
    assert.ok(data.blocks[0].chunkIds.length > 1, 'the list was cut into several chunks');
    const list = items.map((item) => `- ${item}`).join('\n');
    assert.equal(data.blocks[0].text, `The contractor's responsibilities include the following:\n\n${list}`);
  } finally {
    lead.cleanup();
  }
});

test('serve: malformed input (not JSON: -32700, not JSON-RPC: -32600, a call without params) is answered; the server goes on', async () => {
  const child = startCli(['serve'], rig.dir);
  // Each answer, by id, as its line arrives.
  const answers = new Map<number, any>();
  // Answers to lines whose id could not be read (JSON-RPC: id null), in order.
  const unnumbered: any[] = [];
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      const line = pending.slice(0, at);
      pending = pending.slice(at + 1);
      if (!line.startsWith('{')) continue;
      const message = JSON.parse(line);
      if (message.id === null) unnumbered.push(message);
      else answers.set(message.id, message);
    }
  });
  const send = (message: unknown) => child.stdin!.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  const answer = async (id: number) => {
    await waitUntil(() => answers.has(id), `the answer to request ${id}`);
    return answers.get(id);
  };

  try {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    await answer(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send('this is not JSON {');
    await waitUntil(() => unnumbered.length === 1, 'the answer to a line that is not JSON');
    assert.equal(unnumbered[0].error.code, -32700);
    assert.equal(unnumbered[0].error.data.code, 'usage-error');
    send({ id: 9, method: 'tools/call' });
    await waitUntil(() => unnumbered.length === 2, 'the answer to JSON that is not a JSON-RPC message');
    assert.equal(unnumbered[1].error.code, -32600);
    // A line past the bound on a message (4 MiB; the SDK would close its transport at 10 MiB): answered, not held.
    const long = 'a'.repeat(11 * 1024 * 1024);
    child.stdin!.write(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"terms":["${long}"]}}}\n`);
    await waitUntil(() => unnumbered.length === 3, 'the answer to a line past the bound');
    assert.equal(unnumbered[2].error.code, -32600);
    assert.equal(unnumbered[2].error.data.code, 'input-too-large');
    assert.equal(answers.has(8), false, 'the long request was not read');
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: 'terms' } });
    send({ jsonrpc: '2.0', id: 4, method: 'no/such/method', params: {} });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search', arguments: { terms: ['alpha'], limit: 1 } } });
    // Params that break the protocol's shape of a tool call are invalid params with the CLI's error,
    // as a tool's own argument check answers (not the SDK's -32603 with its validator's dump).
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'search', arguments: [1, 2] } });
    send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 5 } });
    send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'search', arguments: null } });
    // A filter value the index does not hold is a failed tool result (as the CLI's envelope), its hint in a request's terms.
    send({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'search', arguments: { terms: ['alpha'], family: ['nope'] } } });
    const family = (await answer(11)).result;
    assert.equal(family.isError, true, JSON.stringify(family));
    assert.equal(family.structuredContent.error.details.field, 'family');
    assert.match(family.structuredContent.error.hint, /"family": \["generic"\] in a request/);
    for (const [id, field] of [
      [2, 'params'],
      [3, 'params.arguments'],
      [6, 'params.arguments'],
      [7, 'params.name'],
      [10, 'params.arguments'],
    ] as const) {
      const refused = (await answer(id)).error;
      assert.equal(refused.code, -32602, `request ${id}: ${JSON.stringify(refused)}`);
      assert.equal(refused.data.code, 'usage-error');
      assert.equal(refused.data.details.field, field);
      assert.match(refused.data.hint, /"arguments": \{"terms"/);
    }
    assert.equal((await answer(4)).error.code, -32601);
    const five = await answer(5);
    assert.equal(five.result.structuredContent.ok, true);
    // 300 calls in one write: requests wait their turn, at most MAX_QUEUED_REQUESTS (64) of them; the
    // rest are refused at once with server-busy, and every call gets an answer.
    const burst = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'search', arguments: { terms: ['alpha'] } } }),
    );
    child.stdin!.write(burst.join('\n') + '\n');
    const replies = await Promise.all(burst.map((_, i) => answer(100 + i)));
    const busy = replies.filter((a) => a.error?.data?.code === 'server-busy');
    assert.ok(busy.length > 0, 'some calls found the queue full');
    assert.equal(replies.filter((a) => a.result?.structuredContent?.ok === true).length + busy.length, 300);
    assert.equal((await answer(5)).result.structuredContent.ok, true);
    assert.equal(child.exitCode, null, 'still running');
  } finally {
    child.stdin!.end();
    await waitUntil(() => child.exitCode !== null, 'the server exits when its stdin closes');
  }
  assert.equal(child.exitCode, 0);
});

test('serve: the end of stdin ends the server once every request read is answered, a build included', async () => {
  const lines = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eof', version: '0' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'status', arguments: {} } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'build', arguments: {} } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search', arguments: { terms: ['alpha'] } } },
  ];
  // The last line without its newline: read all the same.
  const served = await rig.exec(['serve'], { input: lines.map((line) => JSON.stringify(line)).join('\n') });
  assert.equal(served.code, 0, served.stderr);
  const answers = served.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: number; result?: { structuredContent: { ok: boolean; command: string } } });
  assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3, 4]);
  for (const id of [2, 3, 4]) assert.equal(answers.find((a) => a.id === id)!.result!.structuredContent.ok, true, `request ${id}`);
  assert.equal(answers.find((a) => a.id === 3)!.result!.structuredContent.command, 'build');
});

test('the MCP SDK is loaded by serve alone: not in the query bundle, not imported by cli.js or any chunk but one', () => {
  const bundle = path.join(REPO_ROOT, 'dist/bundle');
  assert.doesNotMatch(fs.readFileSync(path.join(bundle, 'query-main.cjs'), 'utf8'), /modelcontextprotocol/);
  const importers = fs
    .readdirSync(bundle)
    .filter((file) => /\.js$/.test(file) && /modelcontextprotocol/.test(fs.readFileSync(path.join(bundle, file), 'utf8')));
  assert.equal(importers.length, 1, importers.join(', '));
  assert.match(importers[0]!, /^chunk-/, 'a chunk of its own, loaded by import() from serve');
});
