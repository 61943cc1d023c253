import { PgDatabase } from 'drizzle-orm/pg-core';
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import pg from 'pg';

// The PostgreSQL store's handles seen as what they are (decision 065). The store gives each of
// its drizzle pg handles out as the port's handle (`giveOut` in src/db/port.ts: the query
// builders the domain writes run through the pg dialect, decision 027); where this store needs
// what only PostgreSQL has (raw SQL through `execute`, a unit of work's connection), it narrows
// the port's handle back at run time, with no cast: `instanceof` proves what it is.

/** A drizzle node-postgres handle: the pool's, or a unit of work's (a PgTransaction is a PgDatabase). */
export type PgHandle = PgDatabase<NodePgQueryResultHKT, Record<string, unknown>>;

/** The drizzle pg handle a handle of this store is; anything else is refused. */
export function pgHandle(conn: object): PgHandle {
  if (conn instanceof PgDatabase) return conn;
  throw new Error('Not a handle of the PostgreSQL store');
}

/**
 * The connection a unit of work runs on. drizzle keeps it in its session without typing it (a
 * private member), so it is read as unknown and checked to be a node-postgres client.
 */
export function connectionOf(tx: PgHandle): pg.Client {
  const client: unknown = Reflect.get(tx._.session, 'client');
  if (!(client instanceof pg.Client)) throw new Error("A unit of work's handle without its connection");
  return client;
}
