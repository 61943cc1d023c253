import fs from 'node:fs';
import path from 'node:path';

// DATA_DIR and the private files in it (docs/decisions/042). The database, its WAL and shared
// memory, every backup and the webhook secret hold what signs portal links and webhooks: none of
// them may be readable by other accounts of the machine, whatever the umask. A mode given to
// open() or mkdir() is masked by the umask, so every file here is created with its mode and then
// set to it exactly (a umask such as 0277 would otherwise leave the owner unable to write).

export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** DATA_DIR cannot be used: the message names it and says why, on one line. */
export class DataDirError extends Error {}

const REASONS: Record<string, string> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted (is it owned by another user?)',
  ENOTDIR: 'it, or a directory above it, is not a directory',
  EEXIST: 'it is not a directory',
  ENOSPC: 'no space left on the device',
};
const why = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] ? `${REASONS[code]} (${code})` : (e as Error).message;
};

const isOwn = (st: fs.Stats) => process.getuid === undefined || st.uid === process.getuid();
/** A directory others share (the sticky bit, as /tmp has, or writable by all): never ours to close. */
const isShared = (st: fs.Stats) => (st.mode & 0o1002) !== 0;

/**
 * Sets `target` to `mode` when it is looser (an older install, another umask). Missing files are
 * fine; a file of another user is left alone — it cannot be changed by us, and DATA_DIR's own
 * 0700 keeps it from everyone but that user anyway — and so is a shared directory.
 */
function tighten(target: string, mode: number): void {
  const st = fs.lstatSync(target, { throwIfNoEntry: false });
  if (!st || st.isSymbolicLink() || (st.mode & 0o777 & ~mode) === 0 || !isOwn(st) || (st.isDirectory() && isShared(st)))
    return;
  fs.chmodSync(target, mode);
}
export const tightenFile = (file: string) => tighten(file, PRIVATE_FILE);
export const tightenDir = (dir: string) => tighten(dir, PRIVATE_DIR);

/** Creates `dir` (and its parents) when missing, `dir` itself 0700; an existing directory is left as it is. */
export function createPrivateDir(dir: string): void {
  if (fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR }) !== undefined) fs.chmodSync(dir, PRIVATE_DIR);
}

/** A directory of hxdesk's own (DATA_DIR, backups/): created 0700, or tightened to 0700. */
export function ensurePrivateDir(dir: string): void {
  createPrivateDir(dir);
  tightenDir(dir);
}

/** Creates `file` empty with mode 0600 when missing (for a program that fills it, SQLite), else tightens it. */
export function ensurePrivateFile(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', PRIVATE_FILE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    tightenFile(file);
    return;
  }
  try {
    fs.fchmodSync(fd, PRIVATE_FILE);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a new file (refusing an existing one) with mode 0600. */
export function writePrivateFile(file: string, data: string | Uint8Array): void {
  const fd = fs.openSync(file, 'wx', PRIVATE_FILE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE);
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Copies `from` to a new file `to` with mode 0600 (fs.copyFileSync would give the copy the
 * source's mode, and a window in which it exists with it).
 */
export function copyPrivateFile(from: string, to: string): void {
  const input = fs.openSync(from, 'r');
  try {
    const output = fs.openSync(to, 'wx', PRIVATE_FILE);
    try {
      fs.fchmodSync(output, PRIVATE_FILE);
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let n; (n = fs.readSync(input, buf, 0, buf.length, null)) > 0; ) {
        for (let off = 0; off < n; ) off += fs.writeSync(output, buf, off, n - off);
      }
    } finally {
      fs.closeSync(output);
    }
  } finally {
    fs.closeSync(input);
  }
}

/**
 * At start: DATA_DIR exists, is 0700, and takes a new file — or a DataDirError saying, on one
 * line, which directory and why not (a read-only mount, no permission). The check creates and
 * removes an empty file, which needs no space: a full disk is not refused here (the server starts,
 * serves what it can and answers writes 503 until there is room, decision 042).
 */
export function prepareDataDir(dir: string): void {
  const where = `the data directory (DATA_DIR=${dir})`;
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir, { throwIfNoEntry: false });
  } catch (e) {
    throw new DataDirError(`Cannot use ${where}: ${why(e)}`); // a file where a directory should be (ENOTDIR), no permission
  }
  if (st?.isDirectory() && isShared(st)) {
    throw new DataDirError(
      `Cannot use ${where}: other users can write to it (mode ${(st.mode & 0o7777).toString(8)}); give hxdesk a directory of its own`,
    );
  }
  try {
    ensurePrivateDir(dir);
  } catch (e) {
    throw new DataDirError(`Cannot use ${where}: ${why(e)}`);
  }
  const probe = path.join(dir, `.hxdesk-write-check-${process.pid}`);
  try {
    fs.closeSync(fs.openSync(probe, 'w', PRIVATE_FILE));
    fs.rmSync(probe, { force: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOSPC') return;
    throw new DataDirError(`Cannot write to ${where}: ${why(e)}`);
  }
}
