import { ensurePrivateFile, tightenFile } from '../../dataDir.js';

// The modes of SQLite's files (docs/decisions/042).

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
