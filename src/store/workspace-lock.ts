import * as net from 'node:net';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { sha256Hex } from './hash.js';
import { EpistemeError } from '../failure.js';
import { isSystemError } from './write-failure.js';

/**
 * One exclusive writer per workspace.
 *
 * The lock is a Linux abstract-namespace Unix socket named after the workspace's real path. The kernel
 * binds it atomically and releases it when the holder dies, even by SIGKILL, so a dead holder can never
 * leave a lock behind and no process ever has to delete a lock file that another may hold (the race
 * that file locks with stale-PID recovery get wrong). `.episteme/lock-holder.json` only describes the
 * holder for error messages; it is never used to decide who holds the lock.
 */
export interface WorkspaceLock {
  release(): Promise<void>;
}

export async function acquireWorkspaceLock(
  workspaceRoot: string,
  stateDir: string,
  options: { waitMs: number; command: string },
): Promise<WorkspaceLock> {
  if (process.platform !== 'linux') {
    throw new EpistemeError('usage-error', 'The workspace writer lock needs Linux (abstract Unix sockets).', {
      hint: 'Run Episteme on Linux; other platforms are not supported yet.',
    });
  }
  const real = fs.realpathSync(workspaceRoot);
  const socketName = '\0episteme-workspace-' + sha256Hex(real).slice(0, 40);
  const holderFile = path.join(stateDir, 'lock-holder.json');
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const server = await tryListen(socketName);
    if (server) {
      server.unref();
      // The socket is the lock; the holder file only describes it. On a read-only or full disk the
      // lock still holds, so a command with nothing to write (a no-op build) can go on without it.
      const described = describeHolder(stateDir, holderFile, options.command);
      return {
        release: () =>
          new Promise<void>((resolve) => {
            if (described) {
              try {
                fs.rmSync(holderFile, { force: true });
              } catch {
                // read-only since: the next holder overwrites it
              }
            }
            server.close(() => resolve());
          }),
      };
    }
    if (Date.now() >= deadline) {
      const holder = readHolder(holderFile);
      throw new EpistemeError('workspace-locked', `Another Episteme process${holder} is writing to this workspace.`, {
        hint: 'Wait for it to finish, or rerun with --wait-lock=SECONDS to wait for the lock.',
        details: { workspace: '.' },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function tryListen(name: string): Promise<net.Server | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(null);
      else reject(error);
    });
    server.listen({ path: name }, () => resolve(server));
  });
}

function readHolder(file: string): string {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown; command?: unknown };
    return ` (pid ${String(holder.pid)}, ${String(holder.command)})`;
  } catch {
    return '';
  }
}

/** Writes the holder description; false when the file system refuses (read-only, full). */
function describeHolder(stateDir: string, holderFile: string, command: string): boolean {
  try {
    fs.mkdirSync(stateDir, { recursive: true });
    // Renamed into place: appears complete to a reader, and replaces (never writes through) a planted symlink.
    writeFileAtomic(holderFile, JSON.stringify({ pid: process.pid, command }) + '\n');
    return true;
  } catch (error) {
    // writeFileAtomic reports a refused write as write-failed; either way the socket still holds the lock.
    if (isSystemError(error) || (error instanceof EpistemeError && error.code === 'write-failed')) return false;
    throw error;
  }
}
