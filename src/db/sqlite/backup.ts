// Copies of the SQLite store (SPEC C6 "data safety", docs/decisions/024): the copy kept before
// a migration runs at start, and the online backup, check and restore behind `hxdesk backup`
// and `hxdesk restore`. Every copy is a consistent snapshot taken through SQLite itself (the
// online backup API, or VACUUM INTO where it must be synchronous), never a copy of the bytes
// of a file that a server may be writing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import {
  copyPrivateFile,
  createPrivateDir,
  ensurePrivateDir,
  ensurePrivateFile,
  tightenDir,
  tightenFile,
} from '../../dataDir.js';
import { StoreError } from '../shared/storeError.js';

/** The SQL migrations in the source tree, as openDb() reads them (from src/ and dist/ alike). */
export const MIGRATIONS_FOLDER = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../src/db/sqlite/migrations',
);

/** Pre-migration copies kept per database (SPEC C6: the last 3). */
export const KEEP_MIGRATION_BACKUPS = 3;

interface JournalEntry {
  tag: string;
  when: number;
}

function journal(migrationsFolder: string): JournalEntry[] {
  const file = path.join(migrationsFolder, 'meta', '_journal.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: JournalEntry[] }).entries;
}

const hasTable = (db: Database.Database, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;

/**
 * What drizzle's migrator will do with this database: the journal's migrations it has not
 * applied yet, by drizzle's own rule (a migration runs when its `when` is later than the
 * newest `created_at` in __drizzle_migrations), and whether the database already has
 * migrations newer than this code knows (made by a newer hxdesk). A database without
 * __drizzle_migrations is fresh: everything is pending.
 */
export function migrationState(
  db: Database.Database,
  migrationsFolder = MIGRATIONS_FOLDER,
): { fresh: boolean; applied: number; pending: string[]; newer: boolean } {
  const entries = journal(migrationsFolder);
  if (!hasTable(db, '__drizzle_migrations'))
    return { fresh: true, applied: 0, pending: entries.map((e) => e.tag), newer: false };
  const row = db
    .prepare('SELECT count(*) AS n, max(CAST(created_at AS INTEGER)) AS last FROM __drizzle_migrations')
    .get() as { n: number; last: number | null };
  const last = row.last ?? -Infinity;
  const latest = entries.at(-1)?.when ?? -Infinity;
  return {
    fresh: false,
    applied: row.n,
    pending: entries.filter((e) => e.when > last).map((e) => e.tag),
    newer: last > latest,
  };
}

/** `2026-11-23T10-11-12-345Z`: sortable, and safe in a file name everywhere. */
export const stamp = (d = new Date()) => d.toISOString().replace(/[:.]/g, '-');

/** `hxdesk` for `…/hxdesk.db`: the stem backups of that file are named after. */
const stem = (file: string) => path.basename(file).replace(/\.[^.]*$/, '');

/** Where the copies of a database file go: `backups/` beside it (DATA_DIR/backups). */
export const backupsDir = (file: string) => path.join(path.dirname(file), 'backups');

/**
 * Decision 042: every copy holds the store's secrets, so `backups/` is 0700 and each file in it
 * 0600 — tightened at every open, for the copies an older version left readable.
 */
export function privateBackups(file: string): void {
  if (file === ':memory:' || file === '') return;
  const dir = backupsDir(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  tightenDir(dir);
  for (const n of names) tightenFile(path.join(dir, n));
}

/**
 * An empty file, mode 0600, for SQLite to write a copy into (VACUUM INTO and the backup API both
 * accept an empty file): created with the mode it keeps, so the copy is never readable by others,
 * not even while it is being written in a directory they can read.
 */
function privateTarget(file: string): void {
  fs.rmSync(file, { force: true });
  ensurePrivateFile(file);
}

/**
 * Makes a fresh copy a single self-contained file: rollback journal mode (a copy of a WAL
 * database is marked WAL, and opening it read-only would then need -wal/-shm files beside it;
 * the server switches it back to WAL when it opens it), optionally checked, on disk.
 */
function settleCopy(file: string, check?: (db: Database.Database) => void): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    check?.(copy);
  } finally {
    copy.close();
  }
  fsyncFile(file);
}

/** Removes what a failed copy left; never throws (it runs while another error is reported). */
function removeQuietly(...files: string[]): void {
  for (const f of files) {
    try {
      fs.rmSync(f, { force: true });
    } catch {
      /* nothing there, or nothing to do */
    }
  }
}

/** Writes the file's data and its directory entry to disk. */
function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    /* not supported here (some file systems) */
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Called by openDb() on its connection before it migrates (SPEC C6): when the file holds an
 * hxdesk database with migrations pending, copies it to
 * `DATA_DIR/backups/<name>-before-<first pending tag>-<timestamp>.sqlite` and keeps only the
 * newest KEEP_MIGRATION_BACKUPS of those copies. Nothing for a fresh file or when nothing is
 * pending. Synchronous, as openDb is: the copy is made with VACUUM INTO, a consistent snapshot
 * in one read transaction (the online backup API is asynchronous in better-sqlite3). A copy
 * that cannot be made stops the start: no migration runs without one.
 */
export function backupBeforeMigrating(
  sqlite: Database.Database,
  file: string,
  migrationsFolder = MIGRATIONS_FOLDER,
): string | null {
  if (file === ':memory:' || file === '') return null;
  const state = migrationState(sqlite, migrationsFolder);
  if (state.fresh || state.pending.length === 0) return null;
  const dir = backupsDir(file);
  const name = `${stem(file)}-before-${state.pending[0]}-${stamp()}.sqlite`;
  const target = path.join(dir, name);
  const partial = path.join(dir, `.${name}.partial`);
  try {
    ensurePrivateDir(dir);
    privateTarget(partial);
    sqlite.prepare('VACUUM INTO ?').run(partial);
    settleCopy(partial);
    fs.renameSync(partial, target);
    fsyncDir(dir);
  } catch (e) {
    removeQuietly(partial);
    throw new StoreError(
      `cannot copy the database to ${dir} before migrating it (${(e as Error).message}); nothing was migrated`,
    );
  }
  pruneMigrationBackups(file);
  return target;
}

/** The pre-migration copies of `file`, oldest first. */
export function migrationBackups(file: string): string[] {
  const dir = backupsDir(file);
  const re = new RegExp(
    `^${stem(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-before-\\d{4}_.*-(\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z)\\.sqlite$`,
  );
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => ({ n, at: re.exec(n)?.[1] }))
    .filter((x) => x.at !== undefined)
    .sort((a, b) => a.at!.localeCompare(b.at!) || a.n.localeCompare(b.n))
    .map((x) => path.join(dir, x.n));
}

function pruneMigrationBackups(file: string, keep = KEEP_MIGRATION_BACKUPS): void {
  for (const old of migrationBackups(file).slice(0, -keep)) removeQuietly(old);
}

/** The tables every hxdesk database has, whatever its migration. */
const OUR_TABLES = ['__drizzle_migrations', 'users', 'sessions', 'queues', 'tickets', 'transactions', 'attachments'];

/** Opens an existing file as SQLite, with a clear error (naming it `what`) when it is missing or is no SQLite database. */
function openExisting(file: string, what = file): Database.Database {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file, { throwIfNoEntry: false });
  } catch (e) {
    throw new StoreError(`cannot read ${what} (${(e as NodeJS.ErrnoException).code})`);
  }
  if (!st) throw new StoreError(`${what} does not exist`);
  if (!st.isFile()) throw new StoreError(`${what} is not a file`);
  try {
    const db = new Database(file, { fileMustExist: true, timeout: 5000 });
    db.prepare('SELECT count(*) FROM sqlite_schema').get(); // reads the header: "file is not a database" shows here
    return db;
  } catch (e) {
    if (e instanceof StoreError) throw e;
    throw new StoreError(`${what} cannot be opened as an SQLite database (${(e as Error).message})`);
  }
}

/**
 * Checks that `db` is a sound hxdesk database this code can serve: integrity_check passes,
 * it has our tables, and its migrations are not newer than ours. Returns the migrations
 * still to apply (the server applies them at its next start).
 */
export function checkHxdeskDatabase(
  db: Database.Database,
  what: string,
  opts: { allowNewer?: boolean } = {},
): { pending: string[] } {
  let problems: string[];
  try {
    problems = (db.prepare('PRAGMA integrity_check(5)').all() as { integrity_check: string }[]).map(
      (r) => r.integrity_check,
    );
  } catch (e) {
    throw new StoreError(`${what} fails SQLite's integrity check (${(e as Error).message})`);
  }
  if (problems.length !== 1 || problems[0] !== 'ok')
    throw new StoreError(`${what} fails SQLite's integrity check: ${problems.join('; ')}`);
  const missing = OUR_TABLES.filter((t) => !hasTable(db, t));
  if (missing.length > 0)
    throw new StoreError(`${what} is an SQLite database but not hxdesk's (no table ${missing.join(', ')})`);
  const state = migrationState(db);
  if (state.newer && !opts.allowNewer)
    throw new StoreError(
      `${what} was made by a newer hxdesk (its schema has migrations this version does not know); upgrade hxdesk first`,
    );
  return { pending: state.pending };
}

export interface BackupResult {
  file: string;
  pages: number;
  bytes: number;
}

/**
 * Copies the database in `source` to `target` with SQLite's online backup API, in a single
 * step: one read transaction, so the copy is the database as of one moment, while a server
 * keeps reading and writing it (WAL: the backup's reader blocks no writer). The copy is
 * written beside `target` and renamed into place only once it is complete and passes
 * integrity_check, so `target` is never a partial file. Refuses an existing `target` unless
 * `force`.
 */
export async function backupDatabase(
  source: string,
  target: string,
  opts: { force?: boolean } = {},
): Promise<BackupResult> {
  const to = path.resolve(target);
  const existing = fs.statSync(to, { throwIfNoEntry: false });
  if (existing?.isDirectory()) throw new StoreError(`${to} is a directory; name the backup file to write`);
  if (existing && !opts.force)
    throw new StoreError(`${to} already exists; choose another name or pass --force to overwrite it`);
  const dir = path.dirname(to);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new StoreError(`the directory ${dir} does not exist`);
  const from = path.resolve(source);
  if (to === from || [`${from}-wal`, `${from}-shm`, `${from}-journal`].includes(to))
    throw new StoreError(`${to} is the live database itself; write the backup elsewhere`);

  const db = openExisting(from);
  const partial = path.join(dir, `.${path.basename(to)}.partial-${process.pid}`);
  try {
    const missing = OUR_TABLES.filter((t) => !hasTable(db, t));
    if (missing.length > 0) throw new StoreError(`${from} is not an hxdesk database (no table ${missing.join(', ')})`);
    privateTarget(partial);
    // better-sqlite3 first asks for the page count, then takes as many pages per step as the
    // progress callback returns: all of them, so no other process's write can restart it.
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    settleCopy(partial, (copy) => checkHxdeskDatabase(copy, 'the copy', { allowNewer: true }));
    fs.renameSync(partial, to);
    fsyncDir(dir);
    return { file: to, pages: progress.totalPages, bytes: fs.statSync(to).size };
  } catch (e) {
    removeQuietly(partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`);
    if (e instanceof StoreError) throw e;
    throw new StoreError(`the backup failed: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

export interface RestoreResult {
  restored: string;
  previous: string | null;
  pending: string[];
}

/**
 * Puts the database in `source` in place of the store at `live` (SPEC C6, `hxdesk restore`):
 *  1. copies `source` beside `live` and checks the copy (integrity, our tables, not newer);
 *  2. takes SQLite's exclusive lock on `live`: this fails while any other process (a running
 *     server) has it open, and the restore is refused; while held, no server can open it;
 *  3. copies the current database into `backups/<name>-before-restore-<timestamp>.sqlite`
 *     (online backup API, under that lock); a file that is not a readable database is kept
 *     byte for byte instead, since replacing a broken store is what restores are for;
 *  4. removes the old -wal/-shm and renames the checked copy into place.
 */
export async function restoreDatabase(source: string, live: string): Promise<RestoreResult> {
  const from = path.resolve(source);
  if (from === path.resolve(live)) throw new StoreError(`${from} is the live database itself`);
  const dataDir = path.dirname(live);
  createPrivateDir(dataDir);
  const incoming = path.join(dataDir, `.${path.basename(live)}.restore-${process.pid}`);
  const cleanIncoming = () => removeQuietly(incoming, `${incoming}-wal`, `${incoming}-shm`, `${incoming}-journal`);

  // 1. The bytes to restore, checked where they will be used (the original is never written).
  const st = fs.statSync(from, { throwIfNoEntry: false });
  if (!st) throw new StoreError(`${from} does not exist`);
  if (!st.isFile()) throw new StoreError(`${from} is not a file`);
  let pending: string[];
  try {
    // Copied with mode 0600, whatever the mode of the user's file: it becomes the live database.
    fs.rmSync(incoming, { force: true });
    copyPrivateFile(from, incoming);
    const wal = `${from}-wal`;
    // A copy taken by hand with its -wal beside it: that WAL holds committed data, keep it.
    if (fs.statSync(wal, { throwIfNoEntry: false })?.isFile()) {
      fs.rmSync(`${incoming}-wal`, { force: true });
      copyPrivateFile(wal, `${incoming}-wal`);
    }
    const db = openExisting(incoming, from);
    try {
      ({ pending } = checkHxdeskDatabase(db, from));
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    for (const f of [`${incoming}-wal`, `${incoming}-shm`]) fs.rmSync(f, { force: true });
    fsyncFile(incoming);
  } catch (e) {
    cleanIncoming();
    if (e instanceof StoreError) throw e;
    throw new StoreError(`cannot read ${from}: ${(e as Error).message}`);
  }

  // 2.–3. The store in place now: refused while in use, else kept.
  let previous: string | null = null;
  try {
    if (fs.existsSync(live)) {
      previous = path.join(backupsDir(live), `${stem(live)}-before-restore-${stamp()}.sqlite`);
      await keepCurrent(live, previous);
    }
    // 4. In place. SQLite removed the -wal/-shm when our connection (the last one) closed;
    // any left would be applied to the restored file at the next open, and must go.
    for (const f of [`${live}-wal`, `${live}-shm`, `${live}-journal`]) fs.rmSync(f, { force: true });
    fs.renameSync(incoming, live);
    fsyncDir(dataDir);
  } catch (e) {
    cleanIncoming();
    if (e instanceof StoreError) throw e;
    throw new StoreError(`the restore failed: ${(e as Error).message}`);
  }
  return { restored: live, previous, pending };
}

/** Step 2–3 of restoreDatabase: lock `live` exclusively and copy it to `to`. */
async function keepCurrent(live: string, to: string): Promise<void> {
  let db: Database.Database | undefined;
  try {
    db = new Database(live, { fileMustExist: true, timeout: 1000 });
    // In exclusive locking mode the lock taken by BEGIN EXCLUSIVE stays after COMMIT, until
    // close. A server's open connection holds a shared lock on a WAL database even when idle,
    // so this fails while one runs.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (e) {
    const code = (e as { code?: string }).code;
    db?.close();
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new StoreError(`${live} is in use (a running hxdesk server?); stop the server, then run the restore again`);
    }
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      // Not a database we could lock or read: keep it as it is on disk (mode 0600), then replace it.
      ensurePrivateDir(path.dirname(to));
      copyPrivateFile(live, to);
      if (fs.existsSync(`${live}-wal`)) copyPrivateFile(`${live}-wal`, `${to}-wal`);
      return;
    }
    throw new StoreError(`cannot open the current database ${live} (${(e as Error).message})`);
  }
  const partial = `${to}.partial`;
  try {
    ensurePrivateDir(path.dirname(to));
    privateTarget(partial);
    await db.backup(partial, { progress: () => 0x7fffffff });
    settleCopy(partial);
    fs.renameSync(partial, to);
  } catch (e) {
    removeQuietly(partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`);
    throw new StoreError(
      `cannot keep a copy of the current database in ${path.dirname(to)} (${(e as Error).message}); nothing was restored`,
    );
  } finally {
    db.close();
  }
}
