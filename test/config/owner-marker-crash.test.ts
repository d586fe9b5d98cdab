import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { Rig, assertNoStackTrace, runCli } from '../helpers/rig.js';

const MARKER = '{"workspaceRoot":".."}\n';
const OUTPUT_FOLDERS = ['snapshots', 'specs', 'chunks'];

function sources(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  const map = [];
  for (let i = 1; i <= count; i += 1) {
    let html = `<!DOCTYPE html><html><head><title>Doc ${i}</title></head><body><h1>Doc ${i}</h1>`;
    for (let j = 1; j <= 30; j += 1) html += `<h2 id="s${j}">Section ${j}</h2><p>Paragraph ${j} of doc ${i} on freshness ${i * j}.</p>`;
    files[`src/d${i}.html`] = `${html}</body></html>`;
    map.push({ sourceUrl: `https://example.test/d${i}`, localPath: `src/d${i}.html`, contentType: 'text/html' });
  }
  files['map.json'] = JSON.stringify(map);
  return files;
}

/**
 * The owner marker was created with O_EXCL and then written: a crash or a full disk in between left an
 * empty `.episteme-owner`, which names no owner (the folder no longer refused as another workspace's, nor
 * as a place for `index --out`), and which no later build replaced, since it only created missing ones.
 */
test('an owner marker emptied by a crash or a full disk is mended by the next build, and protects the folder again', async () => {
  const rig = new Rig();
  try {
    rig.write(sources(2));
    const first = await rig.exec(['pipeline', '--map', 'map.json']);
    assert.equal(first.code, 0, first.stderr);
    for (const folder of OUTPUT_FOLDERS) assert.equal(rig.read(`${folder}/.episteme-owner`), MARKER, folder);

    // What a crash between the open and the write, or ENOSPC on the write, left behind.
    fs.writeFileSync(rig.path('specs/.episteme-owner'), '');
    fs.writeFileSync(rig.path('chunks/.episteme-owner'), '{"workspace');
    const again = await rig.exec(['build', '--json']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    for (const folder of OUTPUT_FOLDERS) assert.equal(rig.read(`${folder}/.episteme-owner`), MARKER, `${folder} mended`);

    // Mended, it protects the folder again: a user-named output file inside it is refused.
    const into = await rig.exec(['index', '--out', 'specs/extra.json', '--json']);
    assert.equal(into.code, 2, into.stdout);
    assert.equal(into.json!.error!.code, 'usage-error');
    assert.ok(!fs.existsSync(rig.path('specs/extra.json')));
  } finally {
    rig.cleanup();
  }
});

/** A tmpfs of `size` mounted at a new folder, or null where this process may not mount one. */
function smallDisk(size: string): string | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

const noMount = smallDisk('1m');
if (noMount !== null) {
  execFileSync('umount', [noMount]);
  fs.rmSync(noMount, { recursive: true, force: true });
}

test('a build that fills the disk says write-failed, leaves no empty owner marker, and the next build with room equals a clean one', {
  skip: noMount === null ? 'needs root and tmpfs mounts (Linux) to fill a disk' : false,
}, async () => {
  const disk = smallDisk('3m')!;
  const clean = new Rig();
  try {
    const files = sources(60);
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(disk, name)), { recursive: true });
      fs.writeFileSync(path.join(disk, name), content);
    }
    const full = await runCli(['pipeline', '--map', 'map.json', '--json'], { cwd: disk });
    assertNoStackTrace(full);
    assert.equal(full.code, 1, full.stdout);
    assert.equal(full.json!.error!.code, 'write-failed', full.stdout);
    assert.equal(full.json!.error!.details.errno, 'ENOSPC');
    for (const folder of OUTPUT_FOLDERS) {
      const marker = path.join(disk, folder, '.episteme-owner');
      if (fs.existsSync(marker)) assert.equal(fs.readFileSync(marker, 'utf8'), MARKER, `${folder}: a whole marker or none`);
    }

    execFileSync('mount', ['-o', 'remount,size=32m', disk]);
    const resumed = await runCli(['build', '--json'], { cwd: disk });
    assert.equal(resumed.code, 0, resumed.stdout);
    clean.write(files);
    const fresh = await clean.exec(['pipeline', '--map', 'map.json']);
    assert.equal(fresh.code, 0, fresh.stderr);
    for (const folder of OUTPUT_FOLDERS) {
      assert.equal(fs.readFileSync(path.join(disk, folder, '.episteme-owner'), 'utf8'), MARKER, folder);
    }
    const resumedRig = Object.assign(Object.create(Rig.prototype) as Rig, { dir: disk });
    assert.deepEqual(resumedRig.artifacts(), clean.artifacts());
  } finally {
    clean.cleanup();
    execFileSync('umount', [disk]);
    fs.rmSync(disk, { recursive: true, force: true });
  }
});

test('on a file system without hard links, a marker or config is created in place, and removed when its write fails', async () => {
  const { createFileExclusive } = await import('../../src/store/atomic-file.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-no-links-'));
  // The module object named imports of node:fs read from, once synced.
  const writableFs = createRequire(import.meta.url)('node:fs') as { linkSync: typeof fs.linkSync };
  const realLink = writableFs.linkSync;
  try {
    // What link(2) says on FAT, exFAT and some network mounts.
    writableFs.linkSync = () => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    };
    syncBuiltinESMExports();
    const file = path.join(dir, 'episteme.json');
    assert.equal(createFileExclusive(file, '{"a":1}\n'), true);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"a":1}\n');
    assert.equal(createFileExclusive(file, '{"b":2}\n'), false, 'never replaces what is there');
    assert.equal(fs.readFileSync(file, 'utf8'), '{"a":1}\n');
    assert.deepEqual(fs.readdirSync(dir), ['episteme.json'], 'no temp file left');
  } finally {
    writableFs.linkSync = realLink;
    syncBuiltinESMExports();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
