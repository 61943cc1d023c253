import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import * as schema from './schema.js';
import { registerSearchFunctions } from './search.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

// The SQL migrations live in the source tree (drizzle-kit writes them there); the server reads
// them from there whether it runs from src/ (tsx) or from the compiled dist/.
const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');

/** Opens (creating if needed) the SQLite file, sets the pragmas and applies migrations. */
export function openDb(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  if (file !== ':memory:') { const st = fs.statSync(file); opened.set(sqlite, { dev: st.dev, ino: st.ino }); }
  cacheStatements(sqlite);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -16000');
  sqlite.pragma('temp_store = MEMORY');
  registerSearchFunctions(sqlite);
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder });
  roots.set(sqlite, db);
  return db;
}

const roots = new WeakMap<Database.Database, Db>();
/** The connection under a database or a transaction handle (they share it: SQLite has one writer). */
const clientOf = (conn: Conn) => (conn as unknown as { session: { client: Database.Database } }).session.client;

/**
 * A drizzle query built and compiled once per database, for the hot paths: building a query
 * (drizzle's SQL generation) costs more than SQLite running it. Parameters are
 * `sql.placeholder(name)`s. The query is built on the root database and runs on whatever
 * transaction is open on its connection, so it may be called with a `Tx` too.
 */
export function prepared<Q>(build: (db: Db) => Q): (conn: Conn) => Q {
  const byClient = new WeakMap<Database.Database, Q>();
  return (conn) => {
    const client = clientOf(conn);
    let q = byClient.get(client);
    if (q === undefined) {
      const root = roots.get(client);
      if (!root) throw new Error('prepared(): the database was not opened with openDb()');
      q = build(root);
      byClient.set(client, q);
    }
    return q;
  };
}

/**
 * drizzle prepares every query anew, and preparing is the single largest cost of a small
 * query in SQLite. Identical SQL text gets the same compiled statement back (an LRU of 1000),
 * reset to better-sqlite3's default result mode, since drizzle switches some to raw rows.
 */
function cacheStatements(sqlite: Database.Database, max = 1000): void {
  const cache = new Map<string, Database.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt) {
      cache.delete(source); // re-inserted below: most recently used last
    } else {
      stmt = prepare(source);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, stmt);
    if (stmt.reader) stmt.raw(false);
    return stmt;
  }) as typeof sqlite.prepare;
}

export function closeDb(db: Db): void {
  try {
    db.$client.pragma('optimize');
  } finally {
    db.$client.close();
  }
}

/** The file each connection opened (device and inode), to notice it being removed or replaced. */
const opened = new WeakMap<Database.Database, { dev: number; ino: number }>();

/**
 * Why the database cannot serve, or null when it can: the connection is open and answers a
 * read of the schema, and its file is still the one at its path. The last check matters:
 * SQLite keeps working on an open file that was deleted (its directory removed) or replaced
 * (a restore copied over it), and everything written from then on would be lost.
 */
export function dbProblem(db: Db): string | null {
  const client = db.$client;
  if (!client.open) return 'the database connection is closed';
  try {
    client.prepare('SELECT 1 AS ok FROM sqlite_schema LIMIT 1').get(); // a read transaction on the file, ~7 µs
  } catch (e) {
    return `the database does not answer (${(e as Error).message})`;
  }
  const was = opened.get(client);
  if (!was) return null;
  let now: fs.Stats | undefined;
  try {
    now = fs.statSync(client.name, { throwIfNoEntry: false });
  } catch (e) {
    return `the database file cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (!now) return 'the database file is gone from its directory';
  if (now.dev !== was.dev || now.ino !== was.ino) return 'the database file was replaced while open; restart the server';
  return null;
}

/** SQLite's error codes for constraint violations, so the domain can map them without SQL. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Database.SqliteError && (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');
}

/**
 * The columns of the unique index (or primary key) a write broke, as `table.column` in index
 * order (`["team_members.team_id", "team_members.user_id"]`); undefined for any other error.
 * SQLite names them in the message: "UNIQUE constraint failed: teams.name".
 */
export function uniqueViolation(err: unknown): string[] | undefined {
  if (!isUniqueViolation(err)) return undefined;
  const m = /constraint failed: (.+)$/.exec((err as Error).message);
  return m ? m[1].split(',').map((c) => c.trim()) : [];
}

/** `column = value`, ignoring ASCII case: the comparison the unique name indexes use (COLLATE NOCASE). */
export const sameName = (column: SQLiteColumn, value: string): SQL => sql`${column} = ${value} COLLATE NOCASE`;

/** The handle inside `db.transaction(cb)`; helpers that may run inside one accept `Conn`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Conn = Db | Tx;
