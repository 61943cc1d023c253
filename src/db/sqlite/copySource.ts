// The SQLite half of `hxdesk copy-store` (SPEC C6, docs/decisions/029): the source file, opened
// with its exclusive lock, checked against the copy's plan, and read table by table. It is never
// written. src/cli/copyStore.ts runs the copy; the PostgreSQL half is src/db/postgres/copyTarget.ts.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { StoreError } from '../shared/storeError.js';
import { checkHxdeskDatabase } from './backup.js';

/** A table the copy carries: its columns in the order they are read, and its primary key. */
export interface SourceTable {
  name: string;
  columns: { name: string }[];
  orderBy: string[];
}

/** The source while it is copied: locked exclusively from open to close. */
export interface CopySource {
  /** SQLite tables not copied, by name: the FTS5 search indexes, search_pending, word_terms, ticket_parts_version, drizzle's bookkeeping (shadow and sqlite_ tables go unnamed). */
  skipped: string[];
  /** Tables in the file that are not hxdesk's (made by hand?): not copied either, named so the user knows. */
  foreign: string[];
  /** One read transaction for the whole copy (the file is locked anyway); `end` closes it. */
  begin(): void;
  end(): void;
  /** A table's rows in primary-key order, each as its values in the columns' order. */
  rows(t: SourceTable): Iterable<unknown[]>;
  close(): void;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * SQLite's own bookkeeping and search tables: drizzle's, the text waiting for the index, the word
 * index's terms (decision 092), the versions of the tickets' parts its store keeps (decision 113).
 */
const SEARCH_ONLY = new Set(['__drizzle_migrations', 'search_pending', 'word_terms', 'ticket_parts_version']);

/** The SQLite tables that have no PostgreSQL counterpart by design (what PostgreSQL does instead is in decision 025). */
function internalTables(db: Database.Database): { all: Set<string>; named: string[] } {
  const rows = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
  const virtual = rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(r.sql ?? '')).map((r) => r.name);
  const shadow = (n: string) => n.startsWith('sqlite_') || virtual.some((v) => n.startsWith(`${v}_`));
  const all = rows.map((r) => r.name).filter((n) => shadow(n) || SEARCH_ONLY.has(n) || virtual.includes(n));
  // The ones worth naming: the FTS5 tables themselves, not their shadow tables or SQLite's statistics.
  return { all: new Set(all), named: all.filter((n) => !shadow(n)) };
}

/** Opens the SQLite file, holding its exclusive lock: refused while a server has it open. */
function openLocked(file: string): Database.Database {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) throw new StoreError(`no database at ${file}`);
  if (!st.isFile()) throw new StoreError(`${file} is not a file`);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 1000 });
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    // As hxdesk restore does (decision 024): a server's connection holds a shared lock on a WAL
    // database even when idle, so this fails while one runs; once taken, the lock stays until
    // close (exclusive locking mode), so no server starts on the file during the copy.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
    return db;
  } catch (e) {
    db?.close();
    const code = (e as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new StoreError(
        `${file} is in use (a running hxdesk server?); stop the server first, or what it writes after the copy would not reach PostgreSQL`,
      );
    }
    throw new StoreError(`${file} cannot be opened as an SQLite database (${(e as Error).message})`);
  }
}

/** Reads the source's state and checks it can be copied as it is: migrated, every table of the plan there as planned. */
function checkSource(
  db: Database.Database,
  file: string,
  plan: SourceTable[],
): { skipped: string[]; foreign: string[] } {
  const { pending } = checkHxdeskDatabase(db, file);
  if (pending.length > 0) {
    throw new StoreError(
      `${file} has migrations pending (${pending.join(', ')}): start this version's server on it once (it migrates, keeping a copy in backups/), stop it, then copy`,
    );
  }
  const { all: internal, named } = internalTables(db);
  const present = (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
  const ours = new Set(plan.map((t) => t.name));
  for (const t of plan) {
    const cols = new Set(
      (db.prepare(`PRAGMA table_info(${quote(t.name)})`).all() as { name: string }[]).map((c) => c.name),
    );
    if (cols.size === 0)
      throw new StoreError(`${file} has no table ${t.name}, which this version's schema has; is it migrated?`);
    const missing = t.columns.filter((c) => !cols.has(c.name)).map((c) => c.name);
    const extra = [...cols].filter((c) => !t.columns.some((p) => p.name === c));
    if (missing.length || extra.length) {
      throw new StoreError(
        `${file}: table ${t.name} differs from the PostgreSQL schema (${[...missing.map((c) => `no column ${c}`), ...extra.map((c) => `extra column ${c}`)].join(', ')})`,
      );
    }
  }
  return {
    skipped: named,
    foreign: present.filter((n) => !internal.has(n) && !ours.has(n)),
  };
}

/**
 * Opens the hxdesk SQLite database in `file` for a copy (locked exclusively: refused while a
 * server runs on it) and checks it against `plan`; throws StoreError with a one-line reason.
 */
export function openSource(file: string, plan: SourceTable[]): CopySource {
  const db = openLocked(file);
  try {
    const { skipped, foreign } = checkSource(db, file, plan);
    return {
      skipped,
      foreign,
      begin: () => db.exec('BEGIN'),
      end: () => db.exec('COMMIT'),
      rows(t) {
        const cols = t.columns.map((c) => quote(c.name)).join(', ');
        const order = t.orderBy.length ? ` ORDER BY ${t.orderBy.map(quote).join(', ')}` : '';
        return db
          .prepare(`SELECT ${cols} FROM ${quote(t.name)}${order}`)
          .raw(true)
          .iterate() as Iterable<unknown[]>;
      },
      close: () => db.close(),
    };
  } catch (e) {
    db.close();
    throw e;
  }
}
