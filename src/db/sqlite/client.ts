import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { createPrivateDir } from '../../dataDir.js';
import { configCache } from '../configCache.js';
import { type Conn, type Db as PortDb, giveOut, type Prepared, type Store, type StoreSignal } from '../port.js';
import type { TicketListSpec } from '../ticketListSpec.js';
import { requestsInFlight } from '../requestLoad.js';
import * as schema from './schema.js';
import { storageWatch, type StorageWatch } from '../storageWatch.js';
import { startCheckpointer } from './checkpointer.js';
import { backupBeforeMigrating, privateBackups } from './backup.js';
import { type Commit, groupCommit } from './groupCommit.js';
import { flushSearch, reindexTicket } from './search.js';
import { listTickets } from './ticketList.js';
import { searchPeople } from './people.js';
import { type Readers, startReaders } from './readers.js';
import { privateDatabaseFiles, probeWrite, sqliteStorageFailure } from './storage.js';
import { connect } from './connection.js';
import type { Db } from './handle.js';
import { fastPrepared } from './rows.js';
import { idsInJson, unindexed } from './pageParts.js';

export type { Db };

// The SQL migrations live in the source tree (drizzle-kit writes them there); the server reads
// them from there whether it runs from src/ (tsx) or from the compiled dist/.
const migrationsFolder = fileURLToPath(new URL('../../../src/db/sqlite/migrations', import.meta.url));

/** A page deeper than this reads the rows it skips (at 100k tickets, ~1 ms per 5,000): on a thread. */
const SHALLOW = 1000;

/**
 * A list the HTTP thread runs itself, reader threads or not (decision 098): the one request this
 * process is answering, with a bounded total, no text search and a shallow page — a few index
 * reads, cheaper than the hop to a thread and back. A search (its cost follows the text), an exact
 * total (every matching row counted) or a deep page still goes to a thread, as does every list
 * while another request waits, and every list outside a request (workers, the CLI).
 */
const onThisThread = (spec: TicketListSpec) =>
  requestsInFlight() === 1 && spec.countUpTo !== undefined && spec.offset < SHALLOW && !spec.q && !spec.qRequesterIds;

/**
 * Opens (creating if needed) the SQLite file, applies migrations and returns the store
 * (docs/decisions/026, 065). Two connections: the writer, on which every unit of work runs (one
 * at a time, batched by the group commit), and a read-only reader for everything outside a
 * unit of work — which therefore only ever sees committed data, and cannot write by mistake.
 * The store's `db` is the reader's handle: what the app passes around as `db`.
 */
export function openSqlite(file: string, opts: { readThreads?: number } = {}): Store {
  if (file !== ':memory:') {
    // Decision 042: the directory 0700 when we create it (an existing DATA_DIR is the server's to
    // tighten, at start), the database and its -wal/-shm 0600 (an older install's looser files
    // tightened), and so every copy in backups/.
    createPrivateDir(path.dirname(file));
    privateDatabaseFiles(file);
    privateBackups(file);
    // SQLite opens a file it cannot write read-only without a word; every write would then fail.
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch (e) {
      throw new Error(`${file} cannot be written (${(e as NodeJS.ErrnoException).code})`);
    }
  }
  const writer = connect(file, false);
  if (file !== ':memory:') {
    const st = fs.statSync(file);
    opened.set(writer, { dev: st.dev, ino: st.ino });
  }
  const writerDb = drizzle(writer, { schema }) as Db;
  backupBeforeMigrating(writer, file, migrationsFolder); // SPEC C6: a copy in DATA_DIR/backups/ when migrations are pending
  migrate(writerDb, { migrationsFolder });
  // A database in memory has no second connection: the reader is a second handle on the writer.
  const reader = file === ':memory:' ? writer : connect(file, true);
  const readerDb = drizzle(reader, { schema }) as Db;
  roots.set(writer, writerDb);
  roots.set(reader, reader === writer ? writerDb : readerDb);
  const commit = groupCommit(writerDb);
  // Lists and searches outside a unit of work go to reader threads (./readers.ts), when asked for.
  const readers =
    file !== ':memory:' && (opts.readThreads ?? 0) > 0 ? startReaders(file, opts.readThreads!) : undefined;
  const statements = new WeakMap<Database.Database, Map<object, Prepared<unknown>>>();
  // SPEC C5: one process per file, so the store's signals stay in it. A unit of work that appended
  // to the change log sets `appended`; its listeners hear 'log' once it has committed (a rolled
  // back one costs them a read that finds nothing new).
  const listeners = new Set<(signal: StoreSignal) => void>();
  const signal = (s: StoreSignal) => {
    for (const fn of listeners) {
      try {
        fn(s);
      } catch {
        /* a listener's own failure */
      }
    }
  };
  let appended = false;
  const afterUnit = () => {
    if (appended) {
      appended = false;
      signal({ kind: 'log' });
    }
  };
  // Decision 042: a unit of work that fails for lack of space (or on a read-only file) is thrown
  // as StorageUnavailable and remembered; the probe write, through the group commit, clears it.
  const storageFailure = (err: unknown) => sqliteStorageFailure(err, file);
  const storage = storageWatch({ classify: storageFailure, probe: () => commit(async () => probeWrite(writer)) });
  const newestLogId = reader.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM transactions');
  // The handles this store gives out (decision 065): each carries the store, set once it is built.
  let readerPort: PortDb;
  let writerPort: PortDb;
  const portOf = (client: Database.Database) => (client === writer ? writerPort : readerPort);
  const impl: Store = {
    dialect: 'sqlite',
    config: configCache(),
    get db() {
      return readerPort;
    },
    startMaintenance(onError, opts) {
      const search = startSearchIndexer(writerDb, commit, storage, onError, opts.searchIndexMs);
      // A checkpoint that fails (no room to grow the file) is said, not remembered: writes may still fit in the WAL.
      const checkpointer = startCheckpointer(writerDb, {
        onError: (error) => onError('wal checkpoint failed', storageFailure(error) ?? error),
      });
      return {
        async stop() {
          await search.stop();
          await checkpointer?.stop();
        },
      };
    },
    async close() {
      listeners.clear();
      await readers?.close();
      if (reader !== writer) reader.close();
      try {
        writer.pragma('optimize');
      } finally {
        writer.close();
      }
    },
    work: {
      transaction: (fn) => storage.run(() => commit(() => fn(writerPort))).finally(afterUnit),
      logAppend: () => {
        appended = true;
      },
      isTx: (conn) => conn === writerPort,
      prepare<Row>(conn: Conn, key: object, build: (db: PortDb) => unknown): Prepared<Row> {
        const client = clientOf(conn);
        let byKey = statements.get(client);
        if (!byKey) statements.set(client, (byKey = new Map()));
        let p = byKey.get(key) as Prepared<Row> | undefined;
        if (!p) {
          const stmt = fastPrepared(
            (build(portOf(client)) as { prepare(): Parameters<typeof fastPrepared>[0] }).prepare(),
          );
          p = {
            get: (params) => stmt.get(params) as Row | undefined,
            all: (params) => stmt.all(params) as Row[],
            run: (params) => ({ changes: stmt.run(params).changes }),
          };
          byKey.set(key, p as Prepared<unknown>);
        }
        return p;
      },
    },
    queries: {
      // One writer: ids commit in the order they were given, so the newest is the horizon.
      logHorizon: async () => ({ upTo: newestLogId.get()?.id ?? 0, settled: true }),
      sameName: (column, value) => sql`${column as SQLiteColumn} = ${value} COLLATE NOCASE`,
      notIndexed: unindexed,
      // The batch as a JSON array read by json_each: SQLite probes the column's index once per id, as for IN (…).
      idsIn: idsInJson,
      idsParam: (ids) => JSON.stringify(ids),
      // Migration 0033's index expression, word for word (SQLite matches an indexed expression as written).
      emailDomain: (column) => sql`lower(substr(${column as SQLiteColumn}, instr(${column as SQLiteColumn}, '@') + 1))`,
      listTickets: async (conn, spec) =>
        readers && conn !== writerPort && !onThisThread(spec)
          ? readers.list(spec)
          : listTickets(sqliteHandle(conn), spec),
      searchPeople: async (conn, needle, n) => searchPeople(sqliteHandle(conn), needle, n),
      reindexTicketText: async (conn, ids) => {
        for (const id of ids) reindexTicket(sqliteHandle(conn), id);
      },
    },
    coordination: {
      listen(fn) {
        listeners.add(fn);
        return () => {
          listeners.delete(fn);
        };
      },
      broadcast: async (payload) => {
        queueMicrotask(() => signal({ kind: 'message', payload }));
      },
      claimRows: (query) => query,
      tryLock: async () => ({ held: async () => true, release: async () => {} }),
    },
    errors: {
      uniqueViolation,
      problem: async () => dbProblem(writerDb),
      storageFailure,
      storageProblem: () => storage.problem(),
    },
  };
  writerPort = giveOut(impl, writerDb);
  readerPort = giveOut(impl, readerDb);
  writers.set(readerPort, writer);
  writers.set(writerPort, writer);
  if (readers) readerPools.set(readerPort, readers);
  return impl;
}

const writers = new WeakMap<object, Database.Database>();
const readerPools = new WeakMap<object, Readers>();
/** A SQLite store's reader threads: how many, and the lists they answered (undefined: lists run on the HTTP thread). */
export const readerStats = (db: PortDb) => readerPools.get(db)?.stats();
/** The writer connection of a SQLite store (for SQLite-only tests, tools and maintenance). */
export function sqliteOf(db: PortDb): Database.Database {
  const w = writers.get(db);
  if (!w) throw new Error('Not a SQLite store');
  return w;
}

/** The connection under a handle of this store (drizzle's `$client`, checked to be a better-sqlite3 connection). */
export function clientOf(conn: object): Database.Database {
  const client: unknown = Reflect.get(conn, '$client');
  if (!(client instanceof Database)) throw new Error('Not a handle of a SQLite store');
  return client;
}
const roots = new WeakMap<Database.Database, Db>();
/** The writer connection's handle of a SQLite store (SQLite-only tests and maintenance). */
export const writerHandle = (db: PortDb): Db => roots.get(sqliteOf(db))!;
/** The SQLite handle of a connection (for code under src/db/sqlite only). */
export const sqliteHandle = (conn: Conn): Db => roots.get(clientOf(conn))!;

/** After a storage failure the search indexer waits this long before trying again (decision 042). */
const INDEX_RETRY_MS = 1000;

/**
 * Moves freshly written text into the full-text index in batches (docs/decisions/011): every
 * `everyMs` while the server runs, all of it at start (left by a crash) and at stop. Searches
 * see pending text anyway, so the interval only bounds how much is matched row by row. When the
 * disk cannot take the index's writes it skips its turns for INDEX_RETRY_MS (decision 042).
 */
function startSearchIndexer(
  db: Db,
  commit: Commit,
  storage: StorageWatch,
  onError: (what: string, error: unknown) => void,
  everyMs: number,
): { stop(): Promise<void> } {
  const pending = db.$client.prepare('SELECT 1 FROM search_pending LIMIT 1');
  let flushing: Promise<void> | null = null;
  let pausedUntil = 0;
  // Through the group commit: the writer connection may be inside a unit of work right now.
  const run = async (all: boolean) => {
    if (!all && Date.now() < pausedUntil) return;
    try {
      while (pending.get() && (await commit(async () => flushSearch(db))) > 0 && all) {
        /* a backlog from before a restart: all of it */
      }
    } catch (e) {
      const error = storage.failed(e);
      if (error !== e) pausedUntil = Date.now() + INDEX_RETRY_MS;
      onError('search: indexing failed', error);
    }
  };
  const flush = (all: boolean): Promise<void> => {
    if (flushing) return flushing;
    const p = run(all).finally(() => {
      if (flushing === p) flushing = null;
    });
    return (flushing = p);
  };
  void flush(true);
  const timer = setInterval(() => {
    void flush(false);
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await flushing;
      await flush(true);
    },
  };
}

/** The file each connection opened (device and inode), to notice it being removed or replaced. */
const opened = new WeakMap<Database.Database, { dev: number; ino: number }>();

/**
 * Why the database cannot serve, or null when it can: the connection is open and answers a
 * read of the schema, and its file is still the one at its path. The last check matters:
 * SQLite keeps working on an open file that was deleted (its directory removed) or replaced
 * (a restore copied over it), and everything written from then on would be lost.
 */
function dbProblem(db: Db): string | null {
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
  if (now.dev !== was.dev || now.ino !== was.ino)
    return 'the database file was replaced while open; restart the server';
  return null;
}

/** SQLite's error codes for constraint violations, so the domain can map them without SQL. */
function isUniqueViolation(err: unknown): boolean {
  return (
    err instanceof Database.SqliteError &&
    (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
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
