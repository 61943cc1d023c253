import type Database from 'better-sqlite3';
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from './client.js';

/** A set of ids held in a temporary table for the statements of one list. */
export interface HeldIds {
  /** The table, to write `tickets.id IN ${table}` (SQLite probes it by rowid). */
  table: SQL;
  /** How many distinct ids it holds. */
  size: number;
  /** The statement that filled it, for EXPLAIN QUERY PLAN. */
  fill: SQL;
}

const created = new WeakMap<Database.Database, Set<number>>();

/**
 * Runs `source` (a parenthesized query of one column of ids, duplicates allowed) once and keeps its distinct
 * ids in the connection's temporary table `hx_ids_<slot>` (temp_store is MEMORY), so that a list
 * can count the set and then page through it without running the query again — a dense text
 * search costs ~12 ms at 100k tickets, twice was the bulk of a list (docs/decisions/012).
 * The table holds the set until the next hold of the same slot or `releaseIds`; callers are
 * synchronous, so one list's statements never see another's set.
 */
export function holdIds(db: Db, slot: number, source: SQLWrapper): HeldIds {
  const client = db.$client;
  let slots = created.get(client);
  if (!slots) created.set(client, (slots = new Set()));
  const name = sql.raw(`temp.hx_ids_${slot}`);
  if (!slots.has(slot)) {
    client.exec(`CREATE TEMP TABLE IF NOT EXISTS hx_ids_${slot} (id INTEGER PRIMARY KEY)`);
    slots.add(slot);
  }
  db.run(sql`DELETE FROM ${name}`);
  const fill = sql`INSERT OR IGNORE INTO ${name} SELECT * FROM ${source}`;
  const size = db.run(fill).changes;
  return { table: sql`${name}`, size, fill };
}

/** Empties the temporary tables of the slots given (their memory goes back to the page cache). */
export function releaseIds(db: Db, count: number): void {
  for (let slot = 0; slot < count; slot++) db.run(sql`DELETE FROM ${sql.raw(`temp.hx_ids_${slot}`)}`);
}
