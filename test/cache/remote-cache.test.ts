import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Rig, writeSmallWorkspace, sampleHtml, assertNoStackTrace, type CliResult } from '../helpers/rig.js';
import { NGINX_SKIP, freePort, startNginx, type NginxCache } from '../helpers/nginx.js';
import { BuildState } from '../../src/graph/state.js';
import { actionKey } from '../../src/cache/remote-cache.js';
import { decodeActionResult, encodeActionResult } from '../../src/cache/action-result.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { CHUNKS_FORMAT_VERSION } from '../../src/rule-versions.js';
import { initFastHash, sha256Hex } from '../../src/store/hash.js';
import { refingerprinted } from '../helpers/forged-artifact.js';

// BuildState.load checks state.json's xxh64 checksum.
await initFastHash();

/**
 * The remote cache against a real Bazel-protocol server (nginx with WebDAV, on 127.0.0.1), driven
 * through the CLI as CI would: sharing between checkouts, verification of what comes back, degrading
 * to local builds, uploads only when asked, and a token that never leaks.
 */
const TOKEN = 'tok-7f3a9c1e5b2d4068a1c3e5f7';

type TargetRow = { target: string; rule: string; status: string; restored?: boolean };

function rows(result: CliResult): TargetRow[] {
  return result.json!.data.targets as TargetRow[];
}

function cacheable(result: CliResult): TargetRow[] {
  return rows(result).filter((t) => t.rule === 'extract' || t.rule === 'chunk' || t.rule === 'search-index');
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((name) => path.join(dir, name))
    .filter((file) => fs.statSync(file).isFile());
}

/** Action key of a target as the workspace's build state records it. */
function keyOf(rig: Rig, target: string): string {
  const state = BuildState.load(rig.path('.episteme'), true);
  const record = state.targets.get(target);
  assert.ok(record, `no record of ${target}`);
  return actionKey(record.components);
}

function unavailable(result: CliResult): unknown[] {
  return result.json!.warnings.filter((w: { code: string }) => w.code === 'remote-cache-unavailable');
}

describe('remote cache on nginx (Bazel HTTP cache protocol)', { skip: NGINX_SKIP }, () => {
  let nginx: NginxCache;
  const rigs: Rig[] = [];
  const rig = (): Rig => {
    const made = new Rig('episteme-remote-');
    writeSmallWorkspace(made, 3);
    rigs.push(made);
    return made;
  };
  /** A single-machine build without any cache: what every cached build must equal. */
  let reference: Map<string, string>;

  before(async () => {
    nginx = await startNginx(TOKEN);
    const plain = rig();
    const built = await plain.exec(['build', '--json']);
    assert.equal(built.code, 0, built.stdout);
    reference = plain.artifacts();
  });
  // Every case starts from an empty cache (the workspaces all hold the same three sources).
  beforeEach(() => {
    for (const area of ['ac', 'cas']) fs.rmSync(path.join(nginx.dataDir, area), { recursive: true, force: true });
  });
  after(async () => {
    await nginx?.stop();
    for (const r of rigs) r.cleanup();
  });

  it('shares results between workspaces in different folders, and uploads only with --remote-cache-upload', async () => {
    const reader = rig();
    const read = await reader.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(read.code, 0, read.stdout);
    assert.equal(read.json!.data.remoteCache.misses, 7);
    assert.equal(read.json!.data.remoteCache.uploaded, 0);
    assert.doesNotMatch(nginx.accessLog(), /^PUT /m, 'a build without --remote-cache-upload sent a PUT');
    assert.deepEqual(filesUnder(nginx.dataDir), [], 'the cache holds files after a read-only build');

    const writer = rig();
    const written = await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json']);
    assert.equal(written.code, 0, written.stdout);
    assert.equal(written.json!.data.remoteCache.uploaded, 7);
    assert.equal(filesUnder(path.join(nginx.dataDir, 'ac')).length, 7);
    // 7 outputs, and beside each chunk output its document's search-index part.
    assert.equal(filesUnder(path.join(nginx.dataDir, 'cas')).length, 7 + 3);

    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(restored.code, 0, restored.stdout);
    assert.equal(restored.json!.data.remoteCache.hits, 7);
    assert.equal(restored.json!.data.remoteCache.misses, 0);
    // Zero extraction: every extract and chunk target and the search index came from the cache; only
    // snapshots (a file read each) and the three stage indexes (lists of files) ran.
    assert.ok(
      cacheable(restored).every((t) => t.status === 'built' && t.restored === true),
      JSON.stringify(cacheable(restored)),
    );
    assert.equal(restored.json!.data.actions, 3 + 3);
    assert.deepEqual(clone.artifacts(), reference, 'a build from the cache differs from a local build');
    const again = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(again.json!.data.actions, 0);
    const query = await clone.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1', '--json']);
    assert.equal(query.code, 0, query.stdout);
  });

  const restoresIndexParts =
    'restores index parts with the chunks, so the next incremental build re-tokenises only what changed, as a local one does';
  it(restoresIndexParts, async () => {
    const writer = rig();
    assert.equal((await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json'])).code, 0);
    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(restored.json!.data.remoteCache.hits, 7, restored.stdout);
    const partsDir = clone.path('.episteme', 'cache', 'index-parts');
    const parts = (): Map<string, string> =>
      new Map(
        fs
          .readdirSync(partsDir)
          .sort()
          .map((name) => {
            const stat = fs.statSync(path.join(partsDir, name));
            return [name, `${stat.ino}:${stat.mtimeMs}`];
          }),
      );
    const before = parts();
    assert.equal(before.size, 3, 'the restore did not install one index part per document');
    // The writer's own parts: the same names, the same sealed bytes.
    for (const name of before.keys())
      assert.equal(fs.readFileSync(path.join(partsDir, name), 'utf8'), writer.read(path.join('.episteme', 'cache', 'index-parts', name)));

    // One edited source, in the restored clone and in a workspace that only ever built locally.
    const local = rig();
    assert.equal((await local.exec(['build', '--json'])).code, 0);
    for (const ws of [clone, local]) ws.write({ 'src/doc1.html': sampleHtml(1, ' An edited sentence about okapis.') });
    const incremental = await clone.exec(['build', '--json']);
    assert.equal(incremental.code, 0, incremental.stdout);
    assert.equal((await local.exec(['build', '--json'])).code, 0);
    const after = parts();
    // The two unchanged documents' restored parts were used as they were; only the edited one was made.
    const kept = [...before].filter(([name, stamp]) => after.get(name) === stamp);
    assert.equal(kept.length, 2, `restored parts rewritten: before ${JSON.stringify([...before])}, after ${JSON.stringify([...after])}`);
    assert.equal([...after.keys()].filter((name) => !before.has(name)).length, 1);
    assert.deepEqual(clone.artifacts(), local.artifacts(), 'the incremental build after a restore differs from a local one');
    const query = await clone.exec(['query', '--index', 'chunks/search-index.json', '--term', 'okapis', '--json']);
    assert.equal(query.code, 0, query.stdout);
    assert.match(query.stdout, /doc1/);
  });

  it('rejects a restored index part that is not sealed for its chunks, and rebuilds the target locally', async () => {
    const writer = rig();
    assert.equal((await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json'])).code, 0);
    const target = 'chunks/example-test-doc0.json';
    const entry = decodeActionResult(fs.readFileSync(path.join(nginx.dataDir, 'ac', keyOf(writer, target))));
    const [sidePath, side] = [...entry].find(([name]) => name !== 'output')!;
    // Another document's (valid, sealed) part under this target's entry: the seal names other chunks.
    const other = decodeActionResult(fs.readFileSync(path.join(nginx.dataDir, 'ac', keyOf(writer, 'chunks/example-test-doc1.json'))));
    fs.writeFileSync(
      path.join(nginx.dataDir, 'ac', keyOf(writer, target)),
      encodeActionResult([
        { path: 'output', digest: entry.get('output')! },
        { path: sidePath, digest: other.get(sidePath)! },
      ]),
    );
    assert.ok(side);
    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(restored.code, 0, restored.stdout);
    assert.equal(restored.json!.data.remoteCache.rejected, 1, restored.stdout);
    assert.ok(
      restored.json!.warnings.some(
        (w: { code: string; target?: string; message: string }) =>
          w.code === 'remote-cache-entry-rejected' && w.target === target && /index part/.test(w.message),
      ),
      JSON.stringify(restored.json!.warnings),
    );
    assert.equal(rows(restored).find((t) => t.target === target)!.restored, undefined);
    assert.deepEqual(clone.artifacts(), reference);
  });

  it('rejects a document whose fingerprint does not match its bytes, or that is not a canonical artifact file', async () => {
    const writer = rig();
    assert.equal((await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json'])).code, 0);
    const forge = (target: string, bytes: Buffer): void => {
      const hash = sha256Hex(bytes);
      fs.writeFileSync(path.join(nginx.dataDir, 'cas', hash), bytes);
      fs.writeFileSync(
        path.join(nginx.dataDir, 'ac', keyOf(writer, target)),
        encodeActionResult([{ path: 'output', digest: { hash, sizeBytes: bytes.length } }]),
      );
    };
    const original = (target: string): string => writer.read(BuildState.load(writer.path('.episteme'), true).targets.get(target)!.output);
    // Pretty-printed: the same artifact, a valid fingerprint over its content, but not the bytes a build writes.
    forge(
      'specs/example-test-doc0.json',
      Buffer.from(`${JSON.stringify(JSON.parse(original('specs/example-test-doc0.json')), null, 2)}\n`),
    );
    // Canonical bytes under a fingerprint that is not theirs.
    forge(
      'specs/example-test-doc1.json',
      Buffer.from(original('specs/example-test-doc1.json').replace(/"sha256:[0-9a-f]{4}/, '"sha256:0000')),
    );
    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(restored.code, 0, restored.stdout);
    const rejected = (restored.json!.warnings as { code: string; target?: string }[]).filter(
      (w) => w.code === 'remote-cache-entry-rejected',
    );
    assert.deepEqual(rejected.map((w) => w.target).sort(), ['specs/example-test-doc0.json', 'specs/example-test-doc1.json']);
    assert.deepEqual(clone.artifacts(), reference);
  });

  it('rejects artifacts fingerprinted anew that are not the canonical file this producer writes, the search index too', async () => {
    const writer = rig();
    assert.equal((await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json'])).code, 0);
    const original = (target: string): string => writer.read(BuildState.load(writer.path('.episteme'), true).targets.get(target)!.output);
    /** Replaces the output of `target`'s entry, keeping the other files it names. */
    const forge = (target: string, bytes: Buffer): void => {
      const hash = sha256Hex(bytes);
      fs.writeFileSync(path.join(nginx.dataDir, 'cas', hash), bytes);
      const entry = path.join(nginx.dataDir, 'ac', keyOf(writer, target));
      const outputs = [...decodeActionResult(fs.readFileSync(entry))].map(([name, digest]) => ({
        path: name,
        digest: name === 'output' ? { hash, sizeBytes: bytes.length } : digest,
      }));
      fs.writeFileSync(entry, encodeActionResult(outputs));
    };
    const olderProducer = (rest: string): string => rest.replace(/"version":"[^"]*"\}\}\n$/, '"version":"0.0.9"}}\n');
    // The payload pretty-printed, with a key twice: the same value, other bytes.
    forge(
      'specs/example-test-doc0.json',
      refingerprinted(original('specs/example-test-doc0.json'), (rest) => {
        const at = rest.indexOf('"payload":') + '"payload":'.length;
        const end = rest.lastIndexOf(',"producer":');
        const payload = JSON.parse(rest.slice(at, end)) as { documentId: string };
        const pretty = JSON.stringify(payload, null, 2).replace('{', `{\n  "documentId": ${JSON.stringify(payload.documentId)},`);
        return `${rest.slice(0, at)}${pretty}${rest.slice(end)}`;
      }),
    );
    forge('specs/example-test-doc1.json', refingerprinted(original('specs/example-test-doc1.json'), olderProducer));
    forge('chunks/example-test-doc2.json', refingerprinted(original('chunks/example-test-doc2.json'), olderProducer));
    forge('chunks/search-index.json', refingerprinted(original('chunks/search-index.json'), olderProducer));

    const clone = rig();
    const restored = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(restored.code, 0, restored.stdout);
    const rejected = (restored.json!.warnings as { code: string; target?: string; message: string }[]).filter(
      (w) => w.code === 'remote-cache-entry-rejected',
    );
    assert.deepEqual(
      rejected.map((w) => w.target).sort(),
      ['chunks/example-test-doc2.json', 'chunks/search-index.json', 'specs/example-test-doc0.json', 'specs/example-test-doc1.json'],
      JSON.stringify(rejected),
    );
    for (const w of rejected) assert.match(w.message, w.target === 'specs/example-test-doc0.json' ? /canonical/ : /made by "?\{?.*0\.0\.9/);
    assert.deepEqual(clone.artifacts(), reference, 'a forged artifact reached the workspace');
  });

  it('pipeline takes the same remote cache options as build', async () => {
    const writer = rig();
    const written = await writer.exec(['pipeline', '--remote-cache', nginx.url, '--remote-cache-upload', '--json']);
    assert.equal(written.code, 0, written.stdout);
    assert.equal(written.json!.data.remoteCache.uploaded, 7);
    const clone = rig();
    const restored = await clone.exec(['pipeline', '--remote-cache', nginx.url, '--remote-cache-verify', '1', '--json']);
    assert.equal(restored.code, 0, restored.stdout);
    assert.equal(restored.json!.data.remoteCache.hits, 7);
    assert.equal(restored.json!.data.remoteCache.verified, 7);
    assert.deepEqual(clone.artifacts(), reference);
    const bad = await clone.exec(['pipeline', '--remote-cache-upload', '--json']);
    assert.equal(bad.code, 2);
    assert.equal(bad.json!.error!.code, 'usage-error');
  });

  it('detects a corrupted CAS blob and a mismatching or malformed AC entry, and rebuilds those targets locally', async () => {
    const writer = rig();
    assert.equal((await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json'])).code, 0);
    const acFile = (target: string): string => path.join(nginx.dataDir, 'ac', keyOf(writer, target));
    const blobOf = (target: string): string =>
      path.join(nginx.dataDir, 'cas', decodeActionResult(fs.readFileSync(acFile(target))).get('output')!.hash);
    // 1. A flipped byte in a blob.
    const blob = blobOf('specs/example-test-doc0.json');
    const bytes = fs.readFileSync(blob);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0x20;
    fs.writeFileSync(blob, bytes);
    // 2. An AC entry naming another document's (valid) chunks.
    fs.copyFileSync(acFile('chunks/example-test-doc2.json'), acFile('chunks/example-test-doc1.json'));
    // 3. An AC entry that is not an ActionResult.
    fs.writeFileSync(acFile('specs/example-test-doc2.json'), 'not a protobuf \xff\xff\xff');

    const clone = rig();
    const result = await clone.exec(['build', '--remote-cache', nginx.url, '--json']);
    assert.equal(result.code, 0, result.stdout);
    const rejected = result
      .json!.warnings.filter((w: { code: string }) => w.code === 'remote-cache-entry-rejected')
      .map((w: { target: string }) => w.target)
      .sort();
    assert.deepEqual(rejected, ['chunks/example-test-doc1.json', 'specs/example-test-doc0.json', 'specs/example-test-doc2.json']);
    assert.equal(result.json!.data.remoteCache.rejected, 3);
    for (const target of rejected)
      assert.ok(!rows(result).find((t) => t.target === target)!.restored, `${target} was restored from a bad entry`);
    assert.deepEqual(clone.artifacts(), reference, 'a bad entry reached the workspace');
  });

  it("an upload build of an up-to-date workspace repairs evicted blobs, a damaged entry and another output's entry", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-file-cache-'));
    try {
      for (const [label, url, dataDir] of [
        ['nginx', nginx.url, nginx.dataDir],
        ['file://', pathToFileURL(folder).href, folder],
      ] as const) {
        const upload = ['build', '--remote-cache', url, '--remote-cache-upload', '--json'];
        const writer = rig();
        const written = await writer.exec(upload);
        assert.equal(written.json!.data.remoteCache.uploaded, 7, `${label}: ${written.stdout}`);
        const acFile = (target: string): string => path.join(dataDir, 'ac', keyOf(writer, target));
        const entryOf = (target: string) => decodeActionResult(fs.readFileSync(acFile(target)));
        // Evicted: a document's blob, and the index part beside a chunk file (its entry is left behind).
        fs.rmSync(path.join(dataDir, 'cas', entryOf('specs/example-test-doc0.json').get('output')!.hash));
        const part = [...entryOf('chunks/example-test-doc1.json')].find(([name]) => name !== 'output')![1];
        fs.rmSync(path.join(dataDir, 'cas', part.hash));
        // A damaged entry, and another target's entry under this one's key.
        fs.writeFileSync(acFile('specs/example-test-doc2.json'), 'not a protobuf \xff\xff');
        fs.copyFileSync(acFile('chunks/example-test-doc0.json'), acFile('chunks/example-test-doc2.json'));

        const repaired = await writer.exec(upload);
        assert.equal(repaired.code, 0, `${label}: ${repaired.stdout}`);
        assert.equal(repaired.json!.data.actions, 0, `${label}: the workspace was up to date`);
        assert.equal(repaired.json!.data.remoteCache.uploaded, 4, `${label}: ${JSON.stringify(repaired.json!.data.remoteCache)}`);
        const clone = rig();
        const restored = await clone.exec(['build', '--remote-cache', url, '--json']);
        assert.equal(restored.code, 0, restored.stdout);
        assert.equal(restored.json!.data.remoteCache.hits, 7, `${label}: ${JSON.stringify(restored.json!.data.remoteCache)}`);
        assert.equal(restored.json!.data.remoteCache.rejected, 0, label);
        assert.deepEqual(clone.artifacts(), reference, label);

        // Nothing lost: the next upload build only asks (a HEAD per blob over HTTP, a stat per file) and uploads nothing.
        const logged = nginx.accessLog().length;
        const again = await writer.exec(upload);
        assert.equal(again.json!.data.remoteCache.uploaded, 0, `${label}: ${again.stdout}`);
        if (label === 'nginx') {
          const requests = nginx.accessLog().slice(logged);
          assert.doesNotMatch(requests, /^PUT /m, 'an intact entry was uploaded again');
          assert.equal(requests.match(/^HEAD \/cache\/cas\/\w+ 200 /gm)?.length, 7 + 3, requests);
        }
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('never uploads failures or a search index built from a partial set', async () => {
    const partial = rig();
    // doc1 goes past the file bound: its snapshot fails, so its chain is skipped.
    partial.write({
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: 4000 } }),
      'src/doc1.html': `${partial.read('src/doc1.html')}${'<p>padding</p>'.repeat(400)}`,
    });
    const result = await partial.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--allow-partial', '--json']);
    assert.equal(result.code, 1, result.stdout);
    assert.equal(rows(result).find((t) => t.rule === 'search-index')!.status, 'built');
    // Two sources' documents and chunks; nothing of the failed source, and not the partial index.
    assert.equal(result.json!.data.remoteCache.uploaded, 4);
    assert.equal(filesUnder(path.join(nginx.dataDir, 'ac')).length, 4);
    for (const file of filesUnder(path.join(nginx.dataDir, 'cas')))
      assert.doesNotMatch(fs.readFileSync(file, 'latin1').slice(0, 200), /search-index/);
  });

  /** Uploads a clean build, then puts a forged (valid, well-formed) chunk file under `target`'s key. */
  async function forgeChunks(target: string): Promise<void> {
    const writer = rig();
    assert.equal((await writer.exec(['build', '--remote-cache', nginx.url, '--remote-cache-upload', '--json'])).code, 0);
    const record = BuildState.load(writer.path('.episteme'), true).targets.get(target)!;
    const artifact = JSON.parse(writer.read(record.output)) as { payload: { documentId: string; chunks: { text: string }[] } };
    artifact.payload.chunks[0]!.text = 'Forged by a malicious cache writer.';
    const forged = Buffer.from(artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, artifact.payload)), 'utf8');
    const hash = sha256Hex(forged);
    fs.writeFileSync(path.join(nginx.dataDir, 'cas', hash), forged);
    fs.writeFileSync(
      path.join(nginx.dataDir, 'ac', keyOf(writer, target)),
      encodeActionResult([{ path: 'output', digest: { hash, sizeBytes: forged.length } }]),
    );
  }

  it('uses a forged entry with valid bytes unless --remote-cache-verify recomputes it, which fails loudly', async () => {
    const target = 'chunks/example-test-doc0.json';
    await forgeChunks(target);

    // The trust model: valid bytes from a malicious writer cannot be told apart without recomputing.
    const trusting = rig();
    assert.equal((await trusting.exec(['build', '--remote-cache', nginx.url, '--json'])).code, 0);
    assert.match(
      fs.readFileSync(trusting.path(BuildState.load(trusting.path('.episteme'), true).targets.get(target)!.output), 'utf8'),
      /Forged by a malicious/,
    );

    const verifying = rig();
    const verified = await verifying.exec(['build', '--remote-cache', nginx.url, '--remote-cache-verify', '1', '--json']);
    assert.equal(verified.code, 1, verified.stdout);
    assert.equal(verified.json!.error!.code, 'remote-cache-mismatch');
    assert.match(verified.json!.error!.message, /chunks\/example-test-doc0\.json/);
    assertNoStackTrace(verified);
  });

  it("a mismatch's hint builds without the cache wherever its URL came from: --no-remote-cache for the config's", async () => {
    await forgeChunks('chunks/example-test-doc0.json');
    const configured = rig();
    configured.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', remoteCache: nginx.url }) });
    const verified = await configured.exec(['build', '--remote-cache-verify', '1', '--json']);
    assert.equal(verified.code, 1, verified.stdout);
    assert.equal(verified.json!.error!.code, 'remote-cache-mismatch');
    const hint = verified.json!.error!.hint as string;
    const command = /episteme (build --no-remote-cache)\b/.exec(hint);
    assert.ok(command, hint);
    // The hint as written: a local build that asks the cache nothing, equal to a clean build.
    const logged = nginx.accessLog().length;
    const local = await configured.exec([...command[1]!.split(' '), '--json']);
    assert.equal(local.code, 0, local.stdout);
    assert.equal(local.json!.data.remoteCache, undefined);
    assert.equal(nginx.accessLog().slice(logged), '', 'the build asked the cache');
    assert.deepEqual(configured.artifacts(), reference);

    // The URL given as a flag: drop it (and, when the config names a cache too, add --no-remote-cache).
    const flagged = await rig().exec(['build', '--remote-cache', nginx.url, '--remote-cache-verify', '1', '--json']);
    assert.equal(flagged.json!.error!.code, 'remote-cache-mismatch');
    assert.match(flagged.json!.error!.hint!, /build without --remote-cache\.$/);
    const both = rig();
    both.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', remoteCache: `http://127.0.0.1:${await freePort()}/` }) });
    const overridden = await both.exec(['build', '--remote-cache', nginx.url, '--remote-cache-verify', '1', '--json']);
    assert.equal(overridden.json!.error!.code, 'remote-cache-mismatch');
    assert.match(overridden.json!.error!.hint!, /episteme build --no-remote-cache, without --remote-cache/);
  });

  it('sends the token header from the environment or a file, and never shows it in output, errors, artifacts or state', async () => {
    const headers = { ...process.env, EPISTEME_REMOTE_CACHE_HEADERS: `Authorization: Bearer ${TOKEN}` };
    const writer = rig();
    const written = await writer.exec(['build', '--remote-cache', nginx.authUrl, '--remote-cache-upload', '--json', '--verbose'], {
      env: headers,
    });
    assert.equal(written.code, 0, written.stdout);
    assert.equal(written.json!.data.remoteCache.uploaded, 7, JSON.stringify(written.json!.warnings));
    assert.match(
      nginx.accessLog(),
      new RegExp(`^PUT /auth/ac/\\w+ 20\\d auth=Bearer ${TOKEN}$`, 'm'),
      'the header did not reach the server',
    );
    const clone = rig();
    const human = await clone.exec(['build', '--remote-cache', nginx.authUrl, '--verbose', '--debug'], { env: headers });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /7 restored/);

    // Refused credentials (from a headers file), credentials in the URL, a malformed header line.
    const headersFile = path.join(clone.dir, '..', `${path.basename(clone.dir)}-headers`);
    fs.writeFileSync(headersFile, `# cache token\nAuthorization: Bearer wrong-${TOKEN}\n`);
    const refusedRig = rig();
    const refused = await refusedRig.exec(['build', '--remote-cache', nginx.authUrl, '--json', '--debug'], {
      env: { ...process.env, EPISTEME_REMOTE_CACHE_HEADERS_FILE: headersFile },
    });
    fs.rmSync(headersFile);
    assert.equal(refused.code, 0, refused.stdout);
    assert.equal(unavailable(refused).length, 1);
    assert.match(JSON.stringify(unavailable(refused)), /401/);
    const userinfo = await rig().exec(['build', '--remote-cache', nginx.authUrl.replace('http://', `http://ci:${TOKEN}@`), '--json'], {
      env: headers,
    });
    assert.equal(userinfo.code, 0, userinfo.stdout);
    const malformed = await rig().exec(['build', '--remote-cache', nginx.authUrl, '--json'], {
      env: { ...process.env, EPISTEME_REMOTE_CACHE_HEADERS: `Bad Header ${TOKEN}` },
    });
    assert.equal(malformed.json!.error!.code, 'config-invalid');

    for (const result of [written, human, refused, userinfo, malformed]) {
      assert.ok(!`${result.stdout}${result.stderr}`.includes(TOKEN), `the token appeared in output:\n${result.stdout}${result.stderr}`);
    }
    for (const r of [writer, clone, refusedRig]) {
      for (const file of filesUnder(r.dir))
        assert.ok(!fs.readFileSync(file).includes(TOKEN), `the token was written to ${path.relative(r.dir, file)}`);
    }
  });

  it('degrades to a local build with one warning when the cache is down, stalls, fails (503) or is full (507)', async () => {
    const check = async (label: string, args: string[], r = rig(), expected = reference): Promise<CliResult> => {
      const result = await r.exec(['build', ...args, '--json']);
      assert.equal(result.code, 0, `${label}: ${result.stdout}`);
      assert.equal(unavailable(result).length, 1, `${label}: ${JSON.stringify(result.json!.warnings)}`);
      assert.equal(result.json!.data.remoteCache.unavailable, true, label);
      assert.deepEqual(r.artifacts(), expected, label);
      return result;
    };
    const down = await freePort();
    await check('down', ['--remote-cache', `http://127.0.0.1:${down}/`]);

    // A server that accepts connections and never answers, behind 24 sources' lookups (pipelined over a
    // few connections): the first deadline abandons everything in flight, and nothing else is sent.
    const wide = new Rig('episteme-remote-');
    rigs.push(wide);
    writeSmallWorkspace(wide, 24);
    const wideReference = new Rig('episteme-remote-');
    rigs.push(wideReference);
    writeSmallWorkspace(wideReference, 24);
    assert.equal((await wideReference.exec(['build', '--json'])).code, 0);
    const stalled: http.ServerResponse[] = [];
    let requests = 0;
    let firstRequestAt = 0;
    let lastRequestAt = 0;
    const slow = http.createServer((_request, response) => {
      requests += 1;
      lastRequestAt = Date.now();
      firstRequestAt ||= lastRequestAt;
      stalled.push(response);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const result = await check(
        'slow',
        ['--remote-cache', `http://127.0.0.1:${(slow.address() as { port: number }).port}/`, '--remote-cache-timeout', '1'],
        wide,
        wideReference.artifacts(),
      );
      assert.match(JSON.stringify(unavailable(result)), /timed out after 1000 ms/);
      // One timeout for the build, not one per target: the first level's lookups (one per source's
      // document) went out together, before the stall could be known; none after the deadline.
      assert.ok(requests <= 24, `${requests} requests reached the stalled server`);
      assert.ok(
        lastRequestAt - firstRequestAt < 1000,
        `a request reached the stalled server ${lastRequestAt - firstRequestAt} ms after the first`,
      );
      assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    } finally {
      for (const response of stalled) response.destroy();
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }

    await check('503', ['--remote-cache', nginx.brokenUrl]);
    const before = filesUnder(nginx.dataDir).length;
    const full = await check('507', ['--remote-cache', nginx.fullUrl, '--remote-cache-upload']);
    assert.match(JSON.stringify(unavailable(full)), /507/);
    assert.equal(filesUnder(nginx.dataDir).length, before, 'a full cache gained files');
  });
});

describe('remote cache options', () => {
  it('--no-remote-cache builds without the cache the config names, in build and pipeline', async () => {
    const r = new Rig('episteme-remote-');
    try {
      writeSmallWorkspace(r, 1);
      // A cache that is down: any attempt to use it would show as a remote-cache-unavailable warning.
      r.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', remoteCache: `http://127.0.0.1:${await freePort()}/` }) });
      for (const command of ['build', 'pipeline']) {
        const result = await r.exec([command, '--no-remote-cache', '--json']);
        assert.equal(result.code, 0, `${command}: ${result.stdout}`);
        assert.equal(result.json!.data.remoteCache, undefined, command);
        assert.deepEqual(unavailable(result), [], command);
      }
    } finally {
      r.cleanup();
    }
  });

  it('refuses upload or verify without a cache, a bad fraction, a bad shard and an unknown URL scheme, as usage errors', async () => {
    const r = new Rig('episteme-remote-');
    try {
      writeSmallWorkspace(r, 1);
      for (const args of [
        ['--remote-cache-upload'],
        ['--remote-cache-verify', '0.5'],
        ['--remote-cache', 'file:///tmp/x', '--remote-cache-verify', '2'],
        ['--shard', '5/4'],
        ['--shard', '1/2'],
        ['--remote-cache', 'ftp://cache.example/'],
        ['--no-remote-cache', '--remote-cache', 'file:///tmp/x'],
        ['--no-remote-cache', '--remote-cache-upload'],
        ['--no-remote-cache', '--remote-cache-verify', '0.5'],
      ]) {
        const result = await r.exec(['build', ...args, '--json']);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}`);
        assert.equal(result.json!.error!.code, 'usage-error', args.join(' '));
      }
    } finally {
      r.cleanup();
    }
  });
});
