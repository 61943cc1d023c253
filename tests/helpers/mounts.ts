import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// Real file systems for the tests of a full disk and a read-only data directory (decision 042):
// a small tmpfs, a read-only mount. Mounting needs root (the test machines run the suite as
// root; root ignores a directory's mode, so a read-only mount is the only real "cannot write").

/** Whether this process may mount file systems (root on Linux). */
const canMount = () => process.platform === 'linux' && process.getuid?.() === 0;
/** The tests that mount run as root on Linux, as CI does (never skipped: a clear failure instead). */
function mustMount(): void {
  if (!canMount()) throw new Error('this test mounts a tmpfs: run the suite as root on Linux, as CI does');
}

/** Mounts a tmpfs of `sizeMb` MiB at `dir` (created if missing); `readOnly` mounts it read-only. */
export function mountTmpfs(dir: string, sizeMb: number, opts: { readOnly?: boolean; mode?: number } = {}): void {
  mustMount();
  fs.mkdirSync(dir, { recursive: true });
  const options = [`size=${sizeMb}m`, `mode=${(opts.mode ?? 0o755).toString(8)}`, ...(opts.readOnly ? ['ro'] : [])];
  execFileSync('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', dir]);
}

/** Mounts `source` again at `dir`, read-only (a bind mount: the same files, refusing every write). */
export function bindReadOnly(source: string, dir: string): void {
  mustMount();
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['--bind', source, dir]);
  try {
    execFileSync('mount', ['-o', 'remount,ro,bind', dir]);
  } catch (e) {
    unmount(dir);
    throw e;
  }
}

/** Remounts the file system at `dir` read-only, or read-write again. */
export function remount(dir: string, readOnly: boolean): void {
  execFileSync('mount', ['-o', `remount,${readOnly ? 'ro' : 'rw'}`, dir]);
}

const mounted = (dir: string) =>
  fs
    .readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[1] === path.resolve(dir));

/**
 * Unmounts `dir`, whatever happened in the test: a file system still in use (a process that did
 * not close its files) is detached lazily, so no mount outlives the test run. Never throws.
 */
export function unmount(dir: string): void {
  for (let i = 0; i < 5 && mounted(dir); i++) {
    if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir]);
  }
}

/**
 * Fills the file system holding `dir` with the file `dir/name`, up to the last byte it takes.
 * Synchronous: nothing else of this process writes meanwhile. Returns the filler's path.
 */
export function fillDisk(dir: string, name = 'filler'): string {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1 << 20, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
