import type Database from 'better-sqlite3';
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from './handle.js';

/** A set of ids held in a temporary table for the statements of one list. */
export interface HeldIds {
  /** The table, to write `tickets.id IN ${table}` (SQLite probes it by rowid). */
  table: SQL;
  /** How many distinct ids it holds. */
  size: number;
  /** The statement that filled it, for EXPLAIN QUERY PLAN. */
  fill: SQL;
  /**
   * Held newest first (decision 092): every id of the set from this one up, and not all below
   * it. Undefined: the whole set.
   */
  from?: number;
}

const TABLE = sql.raw('temp.hx_ids');
const created = new WeakSet<Database.Database>();

/**
 * Creates the connection's `hx_ids` once. Created inside a transaction, it is not remembered: a
 * rollback (a list that ends in an error, decision 096) takes the table away with it.
 */
export function createIdTable(db: Db): void {
  if (created.has(db.$client)) return;
  db.$client.exec('CREATE TEMP TABLE IF NOT EXISTS hx_ids (id INTEGER PRIMARY KEY)');
  if (!db.$client.inTransaction) created.add(db.$client);
}

/**
 * Runs `source` (a parenthesized query of one column of ids, duplicates allowed) once and keeps
 * its distinct ids in the connection's temporary table `hx_ids` (temp_store is MEMORY), so that
 * a list can count the set and then page through it without running the query again — the
 * text search is the costly part of a `q` list (docs/decisions/012). The table holds the set
 * until the next hold or `releaseIds`; lists are synchronous, so one list's statements never
 * see another's set.
 */
export function holdIds(db: Db, source: SQLWrapper): HeldIds {
  createIdTable(db);
  db.run(sql`DELETE FROM ${TABLE}`);
  const fill = sql`INSERT OR IGNORE INTO ${TABLE} SELECT * FROM ${source}`;
  const size = db.run(fill).changes;
  return { table: TABLE, size, fill };
}

/** Adds the ids of `source` (a parenthesized query of one column) to the held set; returns how many were new. */
export function addIds(db: Db, source: SQLWrapper): number {
  return db.run(sql`INSERT OR IGNORE INTO ${TABLE} SELECT * FROM ${source}`).changes;
}

/**
 * Keeps only the held ids for which `keep(id)` holds (an exact test of candidates that an index
 * could only narrow down); returns the held set with its new size.
 */
export function keepHeld(db: Db, held: HeldIds, keep: (id: SQL) => SQL): HeldIds {
  const dropped = db.run(sql`DELETE FROM ${TABLE} WHERE NOT ${keep(sql`${TABLE}.id`)}`).changes;
  return { ...held, size: held.size - dropped };
}

/** Empties the table (its memory goes back to the temporary database's page cache). */
export function releaseIds(db: Db): void {
  db.run(sql`DELETE FROM ${TABLE}`);
}
