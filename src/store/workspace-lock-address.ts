import * as path from 'node:path';
import { fs } from '../node-builtins.js';
import { STATE_DIR_NAME } from './names.js';

/**
 * Where the workspace writer lock lives, and whether a writer holds it, without taking it (for
 * `query`, which must never make a build fail with workspace-locked). Small on purpose: the query
 * bundle loads it.
 *
 * Three mechanisms, each released by the kernel when the holder dies (even by SIGKILL):
 * - abstract-socket (Linux): an abstract-namespace Unix socket named after the workspace root's device
 *   and inode (workspaceIdentity).
 *   Binding is atomic; no file exists, so nothing can be left behind.
 * - named-pipe (Windows): a named pipe `\\.\pipe\episteme-workspace-<hash>`, the same idea: the first
 *   instance of a pipe name is exclusive and disappears with its process.
 * - socket-folder (macOS and other Unixes): Unix sockets in a folder; see store/workspace-lock.ts.
 *   Forced on Linux with EPISTEME_LOCK_MECHANISM=socket-folder, so the tests run this path too.
 */
export type LockMechanism = 'abstract-socket' | 'named-pipe' | 'socket-folder';

export const LOCK_MECHANISM_ENV = 'EPISTEME_LOCK_MECHANISM';

export function lockMechanism(): LockMechanism {
  if (process.platform === 'win32') return 'named-pipe';
  if (process.platform !== 'linux' || process.env[LOCK_MECHANISM_ENV] === 'socket-folder') return 'socket-folder';
  return 'abstract-socket';
}

function workspaceHash(realRoot: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(workspaceIdentity(realRoot)).digest('hex').slice(0, 40);
}

/**
 * What names a workspace's lock: its root folder's device and inode, not its path. One folder can have
 * two real paths (a bind mount, a container volume mounted elsewhere than on the host), and writers
 * through both must still exclude each other. A file system that reports no inode (0) falls back to
 * the path.
 */
function workspaceIdentity(realRoot: string): string {
  try {
    const stat = fs.statSync(realRoot, { bigint: true });
    if (stat.ino !== 0n) return `${stat.dev}:${stat.ino}`;
  } catch {
    // gone: nothing to share a lock with; named by its path
  }
  return realRoot;
}

/** The abstract socket's or named pipe's name. */
export function lockName(realRoot: string, mechanism: 'abstract-socket' | 'named-pipe'): string {
  const name = 'episteme-workspace-' + workspaceHash(realRoot);
  return mechanism === 'abstract-socket' ? '\0' + name : '\\\\.\\pipe\\' + name;
}

/** A socket's name in the socket folder: 16 hex digits and `.sock`. */
export const SOCKET_NAME_LENGTH = 21;
/** sun_path is 104 bytes on macOS and the BSDs (108 on Linux), with its terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * The socket folder: `.episteme/lock/` when a socket path there fits in sun_path; otherwise a folder
 * of this user's under /tmp named after the workspace (a deep workspace on macOS).
 */
export function socketFolder(realRoot: string): string {
  const inState = path.join(realRoot, STATE_DIR_NAME, 'lock');
  if (Buffer.byteLength(inState) + 1 + SOCKET_NAME_LENGTH <= MAX_SOCKET_PATH_BYTES) return inState;
  return path.join('/tmp', `episteme-locks-${process.getuid?.() ?? 0}`, workspaceHash(realRoot).slice(0, 32));
}

/** Whether a process holds (or is taking) the workspace writer lock. Never takes it. */
export async function writerHoldsLock(root: string): Promise<boolean> {
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    return false;
  }
  const mechanism = lockMechanism();
  if (mechanism === 'abstract-socket') return abstractSocketBound(lockName(real, mechanism));
  if (mechanism === 'named-pipe') return (await probeSocket(lockName(real, mechanism))) !== 'dead';
  let entries: string[];
  try {
    entries = fs.readdirSync(socketFolder(real));
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.endsWith('.sock') && (await probeSocket(path.join(socketFolder(real), entry))) !== 'dead') return true;
  }
  return false;
}

/**
 * Connects to a socket and hangs up. 'dead': refused or gone, which for a Unix socket file is
 * permanent (a closed listener's file can never listen again). Any other failure (a full backlog,
 * a timeout) counts as live: wrongly waiting is safe, wrongly taking the lock is not.
 */
export function probeSocket(socketPath: string): Promise<'live' | 'dead'> {
  const net = process.getBuiltinModule('node:net');
  return new Promise((resolve) => {
    const socket = net.connect({ path: socketPath });
    const done = (state: 'live' | 'dead'): void => {
      socket.destroy();
      resolve(state);
    };
    socket.setTimeout(5000, () => done('live'));
    socket.once('connect', () => done('live'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'dead' : 'live'),
    );
  });
}

/** Whether the abstract socket is bound, read from /proc/net/unix (no connection made). */
function abstractSocketBound(name: string): boolean {
  let table: string;
  try {
    table = fs.readFileSync('/proc/net/unix', 'latin1');
  } catch {
    return false;
  }
  // /proc shows abstract names with '@' for the leading NUL, and Node binds the name padded with
  // NULs to the full address length, which /proc shows as '@'s.
  const shown = '@' + name.slice(1);
  for (let at = table.indexOf(shown); at >= 0; at = table.indexOf(shown, at + 1)) {
    let end = at + shown.length;
    while (table[end] === '@') end++;
    if (table[at - 1] === ' ' && (end === table.length || table[end] === '\n')) return true;
  }
  return false;
}
