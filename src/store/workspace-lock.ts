import * as net from 'node:net';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { EpistemeError } from '../failure.js';
import { isSystemError } from './write-failure.js';
import { randomBytes } from 'node:crypto';
import { lockMechanism, lockName, probeSocket, socketFolder } from './workspace-lock-address.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * One exclusive writer per workspace.
 *
 * The lock is a socket the kernel owns (see store/workspace-lock-address.ts for the mechanisms): it
 * is released when the holder dies, even by SIGKILL, so a dead holder can never leave a lock behind
 * and no process ever deletes a lock that another may hold (the race that file locks with stale-PID
 * recovery get wrong). `.episteme/lock-holder.json` only describes the holder for error messages; it
 * is never used to decide who holds the lock.
 */
export interface WorkspaceLock {
  release(): Promise<void>;
}

/**
 * `verify` runs once the lock is held and before anything is written (the holder file): a writer's
 * last look at what it is about to write to. What it throws releases the lock and is thrown.
 */
export async function acquireWorkspaceLock(
  workspaceRoot: string,
  stateDir: string,
  options: { waitMs: number; command: string; verify?: () => void },
): Promise<WorkspaceLock> {
  const real = fs.realpathSync(workspaceRoot);
  const holderFile = path.join(stateDir, 'lock-holder.json');
  const deadline = Date.now() + options.waitMs;
  const mechanism = lockMechanism();
  for (;;) {
    const held = mechanism === 'socket-folder' ? await tryTakeSocketFolder(socketFolder(real)) : await tryListen(lockName(real, mechanism));
    if (held) {
      held.server.unref();
      try {
        options.verify?.();
      } catch (error) {
        if (held.file !== undefined) removeQuietly(held.file);
        await new Promise<void>((resolve) => held.server.close(() => resolve()));
        throw error;
      }
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
            // Our socket file goes before the listener closes, so no one ever sees it refuse.
            if (held.file !== undefined) removeQuietly(held.file);
            held.server.close(() => resolve());
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
    // Jittered: two contenders that both stepped back in the socket folder do not meet again.
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 100)));
  }
}

interface HeldSocket {
  server: net.Server;
  /** The socket's file (socket-folder only). */
  file?: string;
}

function tryListen(name: string): Promise<HeldSocket | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((connection) => connection.destroy());
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(null);
      else reject(error);
    });
    server.listen({ path: name }, () => resolve({ server }));
  });
}

/**
 * The socket-folder lock, for systems without abstract sockets (macOS). Socket files outlive their
 * process, and deleting a fixed-name lock file that looks stale races with a new holder; so no name
 * is ever reused, and no live socket is ever deleted:
 *
 *   1. listen on a new socket with a random name in the folder (bind creates the file atomically);
 *   2. list the folder and connect to every other socket: a refused one belongs to a dead process and
 *      can never listen again, so anyone may delete it; an answering one is alive; (a socket also
 *      refuses between its bind and its listen, so a live contender's file may be deleted then;)
 *   3. no other socket alive and our own file still there: we hold the lock. Otherwise step back
 *      (close and delete ours) and retry.
 *
 * Two contenders cannot both hold it: each binds before it lists, so whichever lists second sees the
 * other's socket alive. (Both may step back; the jittered retry separates them.) A holder that dies,
 * even by SIGKILL, leaves a socket that refuses, which the next contender deletes.
 */
async function tryTakeSocketFolder(folder: string): Promise<HeldSocket | null> {
  ensurePrivateFolder(folder);
  const file = path.join(folder, randomBytes(8).toString('hex') + '.sock');
  const mine = await tryListen(file);
  if (mine === null) return null; // a name collision: just another try
  for (const entry of fs.readdirSync(folder)) {
    const other = path.join(folder, entry);
    if (other === file || !entry.endsWith('.sock')) continue;
    if ((await probeSocket(other)) === 'dead') removeQuietly(other);
    else {
      removeQuietly(file);
      await new Promise<void>((resolve) => mine.server.close(() => resolve()));
      return null;
    }
  }
  // Our file may have been deleted by a contender that probed it between our bind and our listen,
  // when it refused like a dead one; a holder without its file would be invisible to the next
  // contender. Such a deleter had its own socket bound before it probed, so it was in our listing
  // (and we stepped back) unless it had already finished, and then its delete is visible by now.
  if (!isSocketFile(file)) {
    await new Promise<void>((resolve) => mine.server.close(() => resolve()));
    return null;
  }
  return { server: mine.server, file };
}

function isSocketFile(file: string): boolean {
  try {
    return fs.lstatSync(file).isSocket();
  } catch {
    return false;
  }
}

/** The socket folder must be a real folder of this user's (it may be under /tmp, which is shared). */
function ensurePrivateFolder(folder: string): void {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(folder);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) {
    throw new EpistemeError('usage-error', `The workspace lock folder ${folder} is not a folder of this user's.`, {
      hint: 'Remove it (another user or a link put it there), then retry.',
      details: { folder },
    });
  }
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // gone or not ours to delete: the next contender finds it refusing and deletes it
  }
}

function readHolder(file: string): string {
  try {
    const holder = JSON.parse(readRegularFileSync(file, 'utf8')) as { pid?: unknown; command?: unknown };
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
