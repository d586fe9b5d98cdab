import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Waits for a condition instead of a fixed time: polls `condition` every `intervalMs` until it holds,
 * and fails with `what` once `timeoutMs` has passed. A fixed sleep is either too short on a loaded
 * machine (the test then checks nothing, or fails) or too long everywhere else.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 30_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Whether a child process of this one has `file` open (Linux: from /proc). A command that reads a
 * file block by block holds it open while it works, so this says it has opened the file.
 */
export function childHasOpen(file: string): boolean {
  const target = fs.realpathSync(file);
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const fds = `/proc/${pid}/fd`;
      if (fs.readdirSync(fds).some((fd) => fs.readlinkSync(path.join(fds, fd)) === target)) return true;
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return false;
}
