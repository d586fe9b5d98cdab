import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { CLI, REPO_ROOT, Rig, sampleHtml, sharedDir } from '../helpers/rig.js';
import { DENO_PERMISSIONS, RUNTIMES_DIR, ensureRuntimes, runtimeBin } from '../helpers/runtimes.js';

/**
 * The JSR package used as a user uses it: loaded from a URL, not from a checkout. A loopback HTTP
 * server serves exactly the files jsr.json publishes, with the bare imports of the bundle rewritten
 * to npm: specifiers at the versions package.json declares, as JSR does when it publishes. Deno runs
 * the ./cli entry by its http://127.0.0.1 URL with the README's permissions: there is no rules/ folder
 * to read and the stage worker is not a file. The pipeline (with a PDF when ../shared is there) and a
 * query must leave nothing on stderr but Deno's own download lines, and write the same bytes as Node.
 */
const jsr = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'jsr.json'), 'utf8')) as {
  exports: Record<string, string>;
  publish: { include: string[] };
};
const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** jsr.json's include patterns ("dist/bundle/*.js", "rules/*.json", a file) as one test. */
function published(relative: string): boolean {
  return jsr.publish.include.some((pattern) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`).test(relative),
  );
}

/** Bare imports become npm:name@range/subpath; one that package.json does not declare is an error. */
function unfurl(code: string, file: string): string {
  return code.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"([^"]+)"/g, (whole, before: string, specifier: string) => {
    if (specifier.startsWith('.') || specifier.startsWith('node:')) return whole;
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
    const range = pkg.dependencies[name];
    if (range === undefined) throw new Error(`${file} imports ${specifier}, which package.json does not declare`);
    return `${before}"npm:${name}@${range}${specifier.slice(name.length)}"`;
  });
}

function servePackage(prefix: string): Promise<{ server: http.Server; base: string; errors: string[] }> {
  const errors: string[] = [];
  const server = http.createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname);
    const relative = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
    const file = path.join(REPO_ROOT, relative);
    if (!published(relative) || !fs.existsSync(file)) {
      errors.push(`not published: ${pathname}`);
      response.writeHead(404).end();
      return;
    }
    try {
      const bytes = fs.readFileSync(file);
      const body = relative.endsWith('.js') ? unfurl(bytes.toString('utf8'), relative) : bytes;
      response.writeHead(200, { 'content-type': relative.endsWith('.js') ? 'text/javascript' : 'application/json' }).end(body);
    } catch (error) {
      errors.push(String(error));
      response.writeHead(500).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`, errors }),
    );
  });
}

/** Runs a child without blocking this process's event loop (the server above answers it). */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Every file below dir (relative path -> bytes), for comparing two workspaces' artifacts. */
function filesBelow(dir: string, relative = ''): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
    const child = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) for (const [name, bytes] of filesBelow(dir, child)) found.set(name, bytes);
    else found.set(child, fs.readFileSync(path.join(dir, child)));
  }
  return found;
}

test('deno run of the ./cli entry by URL (as from a published package): pipeline and query, no warnings, the same bytes as Node', {
  timeout: 900_000,
}, async (t) => {
  const skip = ensureRuntimes();
  if (skip !== undefined) {
    t.skip(skip);
    return;
  }
  // A fresh path per run, so Deno's cache of remote modules never serves an older build.
  const { server, base, errors } = await servePackage(`/${randomBytes(6).toString('hex')}/`);
  const denoRig = new Rig('episteme-deno-remote-');
  const nodeRig = new Rig('episteme-node-remote-');
  try {
    const map = [
      { sourceUrl: 'https://example.test/doc/', localPath: 'src/doc.html', contentType: 'text/html' },
      { sourceUrl: 'https://example.test/notes.txt', localPath: 'src/notes.txt', contentType: 'text/plain' },
    ];
    const files: Record<string, string> = {
      'src/doc.html': sampleHtml(2),
      'src/notes.txt': 'Plain notes about conditional requests and giraffes.\n',
    };
    for (const rig of [denoRig, nodeRig]) rig.write(files);
    const shared = sharedDir();
    if (shared !== null) {
      for (const rig of [denoRig, nodeRig])
        fs.copyFileSync(path.join(shared, 'corpus/dev/pdf/multicolumn.pdf'), rig.path('src/multicolumn.pdf'));
      map.push({ sourceUrl: 'https://example.test/multicolumn.pdf', localPath: 'src/multicolumn.pdf', contentType: 'application/pdf' });
    } else t.diagnostic('../shared is absent: no PDF in this run');
    for (const rig of [denoRig, nodeRig]) rig.write({ 'map.json': JSON.stringify(map) });

    // Deno's npm cache lives with the runtimes, so the packages download once per machine.
    const env = { ...process.env, NO_COLOR: '1', DENO_DIR: path.join(RUNTIMES_DIR, 'deno-dir') };
    const entry = new URL(jsr.exports['./cli']!.replace(/^\.\//, ''), base).href;
    const deno = (args: string[]) => run(runtimeBin('deno'), ['run', '--no-lock', ...DENO_PERMISSIONS, entry, ...args], denoRig.dir, env);
    // Deno reports what it fetches ("Download <url>") on stderr; anything else there is ours.
    const ownStderr = (stderr: string) =>
      stderr
        .split('\n')
        .filter((line) => line !== '' && !/^Download (https?|npm):/.test(line))
        .join('\n');
    const node = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: nodeRig.dir, encoding: 'utf8' });

    const pipeline = await deno(['pipeline', '--map', 'map.json']);
    assert.equal(pipeline.status, 0, pipeline.stderr + pipeline.stdout);
    assert.equal(ownStderr(pipeline.stderr), '');
    const nodePipeline = node(['pipeline', '--map', 'map.json']);
    assert.equal(nodePipeline.status, 0, nodePipeline.stderr);
    for (const folder of ['snapshots', 'specs', 'chunks']) {
      const fromDeno = filesBelow(denoRig.path(folder));
      const fromNode = filesBelow(nodeRig.path(folder));
      assert.deepEqual([...fromDeno.keys()].sort(), [...fromNode.keys()].sort(), folder);
      for (const [name, bytes] of fromNode)
        assert.ok(bytes.equals(fromDeno.get(name)!), `${folder}/${name} differs between Deno (by URL) and Node`);
    }
    const documents = fs.readdirSync(denoRig.path('specs')).filter((name) => name.endsWith('.json') && name !== 'index.json');
    assert.equal(documents.length, map.length, 'one document per source');

    const queryArgs = ['query', '--index', 'chunks/search-index.json', '--term', 'giraffes', '--json'];
    const query = await deno(queryArgs);
    assert.equal(query.status, 0, query.stderr);
    assert.equal(ownStderr(query.stderr), '');
    assert.ok((JSON.parse(query.stdout) as { data: { hits: unknown[] } }).data.hits.length >= 1, query.stdout);
    assert.equal(query.stdout, node(queryArgs).stdout);
    assert.deepEqual(errors, []);
  } finally {
    server.close();
    denoRig.cleanup();
    nodeRig.cleanup();
  }
});
