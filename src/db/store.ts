import type { Db, Store, StoreLog } from './port.js';

export type { Db, Store };
import { poolOf } from './postgres/pools.js';
import { openSqlite, readerStats, sqliteOf } from './sqlite/client.js';

export { poolOf, readerStats, sqliteOf };

// The store factory (docs/decisions/026): the one module that knows the implementations.

/**
 * Opens the SQLite store in `file` (creating and migrating it); returns its read handle, which
 * carries the store (`db.store`), for tools and tests that work on one file.
 */
export function openDb(file: string, opts: { readThreads?: number } = {}): Db {
  return openSqlite(file, opts).db;
}

/**
 * The store the settings name: PostgreSQL when DATABASE_URL is set (a pool of PG_POOL_SIZE
 * connections), else the SQLite file in DATA_DIR. `log` hears the store's own lines (retried
 * units of work). What the app, its workers, the CLI and the mail intake are handed (decision 065).
 */
export async function openStore(
  env: {
    DATABASE_URL?: string;
    dbPath: string;
    READ_THREADS?: number;
    PG_POOL_SIZE?: number;
    PG_WRITE_RESERVE?: number;
  },
  opts: { log?: StoreLog } = {},
): Promise<Store> {
  return env.DATABASE_URL
    ? // Loaded only for PostgreSQL: node-postgres and its store cost a SQLite server's start ~0.1 s (issue 32).
      (await import('./postgres/store.js')).openPostgres(env.DATABASE_URL, {
        max: env.PG_POOL_SIZE,
        writeReserve: env.PG_WRITE_RESERVE,
        log: opts.log,
      })
    : openSqlite(env.dbPath, { readThreads: env.READ_THREADS });
}

/** Where the store is, for messages (the URL without its password, or the file). */
export function storeLocation(env: { DATABASE_URL?: string; dbPath: string }): string {
  if (!env.DATABASE_URL) return env.dbPath;
  try {
    const u = new URL(env.DATABASE_URL);
    u.password = '';
    return u.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

/** Closes the store a handle belongs to. */
export async function closeDb(db: Db): Promise<void> {
  await db.store.close();
}

/** Online backup and restore of the SQLite store (SPEC C6; `hxdesk backup`, `hxdesk restore`). */
export { backupDatabase, restoreDatabase } from './sqlite/backup.js';
export { StoreError } from './shared/storeError.js';
