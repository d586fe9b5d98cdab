import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rig, runCli, startCli, writeSmallWorkspace } from '../helpers/rig.js';
import { LOCK_MECHANISM_ENV } from '../../src/store/workspace-lock-address.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * The writer lock's non-Linux mechanism (Unix sockets in a folder, as on macOS), forced on Linux with
 * EPISTEME_LOCK_MECHANISM=socket-folder: the existing lock tests (a SIGKILLed holder, a second writer
 * refused, --wait-lock, queries during a build) run again against it, then checks of its own. The
 * mutual-exclusion check runs against both mechanisms.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const lockModule = path.resolve(here, '../../src/store/workspace-lock.js');

process.env[LOCK_MECHANISM_ENV] = 'socket-folder';
await import('./crash-and-lock.test.js');
await import('../hostile/query-during-build.test.js');

const sockets = (rig: Rig): string[] => {
  try {
    return fs.readdirSync(rig.path('.episteme/lock')).filter((name) => name.endsWith('.sock'));
  } catch {
    return [];
  }
};

const socketFolderLockRecovers =
  'socket-folder: a holder is one live socket in .episteme/lock; a SIGKILLed holder leaves a dead one, which the next writer deletes';
test(socketFolderLockRecovers, async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig, 12);
    const holder = startCli(['build', '--jobs', '1'], rig.dir);
    holder.stdout!.resume();
    holder.stderr!.resume();
    const exited = new Promise((resolve) => holder.on('close', resolve));
    await waitUntil(() => fs.existsSync(rig.path('.episteme/lock-holder.json')), 'the build took the lock', {
      timeoutMs: 20_000,
      intervalMs: 5,
    });
    holder.kill('SIGSTOP');
    assert.equal(sockets(rig).length, 1, 'the holder owns exactly one socket');
    const refused = await runCli(['build', '--json'], { cwd: rig.dir });
    assert.equal(refused.json!.error!.code, 'workspace-locked');
    assert.deepEqual(sockets(rig).length, 1, 'the refused writer removed its own socket');
    holder.kill('SIGKILL');
    await exited;
    assert.equal(sockets(rig).length, 1, 'the dead holder left its socket file behind');
    const next = await runCli(['build', '--json'], { cwd: rig.dir });
    assert.equal(next.code, 0, next.stdout);
    assert.deepEqual(sockets(rig), [], 'the dead socket was deleted and the new holder removed its own');
  } finally {
    rig.cleanup();
  }
});

/**
 * Processes that race for the lock, many times each: while holding it, each creates a marker file
 * with O_EXCL, and fails loudly if the marker is already there (two holders at once).
 */
const CONTENDER = `
const fs = require('node:fs');
const path = require('node:path');
const [lockModule, root, rounds] = [process.argv[1], process.argv[2], Number(process.argv[3])];
(async () => {
  const { acquireWorkspaceLock } = await import(lockModule);
  const marker = path.join(root, 'inside');
  let held = 0;
  for (let round = 0; round < rounds; round++) {
    const lock = await acquireWorkspaceLock(root, path.join(root, '.episteme'), { waitMs: 60000, command: 'contender' });
    fs.writeFileSync(marker, String(process.pid), { flag: 'wx' });
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.floor(Math.random() * 8)));
    fs.rmSync(marker);
    held++;
    await lock.release();
  }
  process.stdout.write(String(held));
})().catch((error) => { process.stderr.write(String(error && error.stack)); process.exitCode = 1; });
`;

for (const mechanism of ['socket-folder', 'abstract-socket'] as const) {
  test(`${mechanism}: six processes taking the lock 15 times each are never inside at once`, { timeout: 120_000 }, async () => {
    const rig = new Rig();
    try {
      fs.mkdirSync(rig.path('.episteme'));
      const env = { ...process.env, [LOCK_MECHANISM_ENV]: mechanism };
      const results = await Promise.all(
        Array.from({ length: 6 }, () => {
          const child = spawn(process.execPath, ['-e', CONTENDER, lockModule, rig.dir, '15'], { env });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
          child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
          return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
            child.on('close', (code) => resolve({ code, stdout, stderr })),
          );
        }),
      );
      for (const result of results) {
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, '15');
      }
      if (mechanism === 'socket-folder') assert.deepEqual(sockets(rig), []);
    } finally {
      rig.cleanup();
    }
  });
}
