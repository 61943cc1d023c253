import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { ensurePrivateFile, tightenFile } from '../../dataDir.js';
import { causeChain, type StorageCause, StorageUnavailable } from '../storageErrors.js';

// SQLite's side of a full disk or a read-only store (docs/decisions/042): which of its errors mean
// that the file cannot be written, the probe write that tells when it can again, and the modes
// of its files.

/** The files SQLite keeps for a database: the file itself, its write-ahead log and shared memory (and a rollback journal). */
export const sqliteFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];

/**
 * Makes the database file private before SQLite opens it: created empty with mode 0600 when
 * missing (SQLite would create it 0644 less the umask), tightened to 0600 when an older install
 * left it looser. SQLite gives a new -wal and -shm the mode of the database file, and existing
 * ones are tightened here too.
 */
export function privateDatabaseFiles(file: string): void {
  if (file === ':memory:' || file === '') return;
  ensurePrivateFile(file);
  for (const f of sqliteFiles(file).slice(1)) tightenFile(f);
}

/** Why the file cannot be written (EROFS, EACCES…), or null when it can. */
function notWritable(file: string): string | null {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? null : (code ?? 'not writable');
  }
}

/** The storage cause an SQLite error code stands for, or undefined. */
function causeOf(code: string, file: string): StorageCause | undefined {
  if (code === 'SQLITE_FULL') return 'disk_full';
  if (code === 'SQLITE_READONLY') {
    // Plain SQLITE_READONLY is also what the store's read-only reader answers to a write outside
    // a unit of work (a bug, decision 026): a storage failure only while the file cannot be written.
    return notWritable(file) ? 'read_only' : undefined;
  }
  if (code.startsWith('SQLITE_READONLY_')) return 'read_only';
  if (code === 'SQLITE_IOERR_NOMEM') return undefined;
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') {
    // A file system remounted read-only under an open file answers a write with EROFS, which
    // SQLite reports as an I/O error.
    return notWritable(file) === 'EROFS' ? 'read_only' : 'io_error';
  }
  return undefined;
}

/**
 * The storage failure an error of this database means (SQLITE_FULL, SQLITE_READONLY*, SQLITE_IOERR*,
 * SQLITE_CANTOPEN), or undefined. Reads the error and its causes (drizzle may wrap the driver's
 * error); the checkpointer thread sends `{ code, message }`.
 */
export function sqliteStorageFailure(err: unknown, file: string): StorageUnavailable | undefined {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('SQLITE_')) continue;
    const cause = causeOf(code, file);
    return cause
      ? new StorageUnavailable(cause, String((e as { message?: unknown }).message ?? code), { cause: err })
      : undefined;
  }
  return undefined;
}

/**
 * The probe write: rewrites the database header's user_version (hxdesk never sets it) with its
 * own value, which dirties page 1, so the COMMIT appends a frame to the WAL — a write that needs
 * the disk, as every change does, and changes nothing. Run through the group commit like any
 * unit of work.
 */
export function probeWrite(sqlite: Database.Database): void {
  const version = Number(sqlite.pragma('user_version', { simple: true }));
  sqlite.pragma(`user_version = ${version}`);
}
