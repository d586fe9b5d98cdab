import * as path from 'node:path';
import { EpistemeError } from '../failure.js';

/**
 * A write that the file system refused (disk full, quota, read-only mount, permission, descriptor
 * exhaustion, I/O error) is an expected condition of the machine, not a bug: it becomes `write-failed`
 * naming the file and the cause, with what to do about it. Callers remove their temp files first.
 */

const CAUSES: Record<string, { cause: string; hint: string }> = {
  ENOSPC: {
    cause: 'no space left on the device',
    hint: 'The disk is full: free space on the file system that holds the workspace, then rerun.',
  },
  EDQUOT: { cause: 'disk quota exceeded', hint: 'Your disk quota is used up: free space or raise the quota, then rerun.' },
  EFBIG: {
    cause: 'file too large for the file system',
    hint: 'The file system (or the file size limit, ulimit -f) cannot hold a file this large.',
  },
  EROFS: {
    cause: 'read-only file system',
    hint:
      'The workspace is on a read-only file system: queries and a no-op build still answer; ' +
      'anything that must write needs a writable workspace.',
  },
  EACCES: { cause: 'permission denied', hint: 'Check that you may write to this folder (its permissions and owner), then rerun.' },
  EPERM: { cause: 'operation not permitted', hint: "Check the file's permissions and attributes (e.g. immutable), then rerun." },
  EMFILE: { cause: 'too many open files in this process', hint: 'Raise the open-file limit (ulimit -n) or lower --jobs, then rerun.' },
  ENFILE: {
    cause: 'too many open files on this system',
    hint: "The system's open-file table is full: close other programs or raise fs.file-max, then rerun.",
  },
  EIO: { cause: 'input/output error', hint: 'The device reported an I/O error: check the disk (dmesg), then rerun.' },
};

/** Whether `error` is an error from the operating system (it has an errno code such as ENOSPC). */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z0-9]+$/.test((error as NodeJS.ErrnoException).code!)
  );
}

/**
 * The structured failure for a write of `file` that failed with `error`; an error that did not come
 * from the operating system (a bug) is returned as it is.
 */
export function writeFailure(error: unknown, file: string): unknown {
  if (error instanceof EpistemeError || !isSystemError(error)) return error;
  return writeFailed(file, error.code, error);
}

function writeFailed(file: string, errno: string, cause: unknown): EpistemeError {
  const known = CAUSES[errno];
  return new EpistemeError('write-failed', `Cannot write ${file}: ${known?.cause ?? 'the file system refused the write'} (${errno}).`, {
    hint: known?.hint ?? 'Check the file system that holds this path, then rerun.',
    details: { path: file, errno },
    cause,
  });
}

/**
 * `error` with its path shown from the current folder when it lies inside the workspace, as every
 * human message shows workspace files (see cli/shown-path.ts); a path elsewhere stays absolute.
 */
export function relativeToWorkspace(error: unknown, root: string): unknown {
  if (!(error instanceof EpistemeError) || error.code !== 'write-failed') return error;
  const file = error.details?.path;
  const errno = error.details?.errno;
  if (typeof file !== 'string' || typeof errno !== 'string' || !path.isAbsolute(file)) return error;
  const relative = path.relative(root, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return error;
  return writeFailed(path.relative(process.cwd(), file).split(path.sep).join('/') || '.', errno, error.cause);
}
