import type pg from 'pg';
import type { Db } from '../port.js';

// The pool behind each PostgreSQL store's handle, in a module of its own: src/db/store.ts names
// `poolOf` for tests and tools without loading node-postgres and the PostgreSQL store into every
// SQLite server's start (issue 32: start-up at 100k tickets ≤ 700 ms).

const pools = new WeakMap<object, pg.Pool>();

/** Registers the pool of a store's handle (openPostgres). */
export function setPool(db: Db, pool: pg.Pool): void {
  pools.set(db, pool);
}

/** The pool of a PostgreSQL store (for PostgreSQL-only tests and tools). */
export function poolOf(db: Db): pg.Pool {
  const p = pools.get(db);
  if (!p) throw new Error('Not a PostgreSQL store');
  return p;
}
