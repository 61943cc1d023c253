import { Column, is, SQL, sql } from 'drizzle-orm';
import { getTableConfig, type PgColumn, PgTable } from 'drizzle-orm/pg-core';
import * as schema from './schema.js';

// Unique constraints on PostgreSQL, answered as on SQLite (SPEC C6: 409 naming the field).
// SQLite names the columns in its message ("UNIQUE constraint failed: teams.name");
// PostgreSQL names the index or constraint (error 23505, `constraint: 'teams_name_uq'`), whose
// columns this module knows from the schema.

/** Unique index or primary key name → its columns as `table.column`, from the pg schema. */
export const uniqueColumns: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const t of Object.values(schema) as unknown[]) {
    if (!is(t, PgTable)) continue;
    const c = getTableConfig(t);
    const qualified = (col: { name: string }) => `${c.name}.${col.name}`;
    for (const col of c.columns) if (col.primary) map.set(`${c.name}_pkey`, [qualified(col)]);
    for (const pk of c.primaryKeys) map.set(pk.getName(), pk.columns.map(qualified));
    for (const ix of c.indexes) {
      if (!ix.config.unique || !ix.config.name) continue;
      // An expression (lower(name)) names the columns inside it.
      const cols = ix.config.columns.flatMap((e) =>
        is(e, SQL) ? (e.queryChunks.filter((ch) => is(ch, Column)) as Column[]) : [e as Column],
      );
      map.set(ix.config.name, cols.map(qualified));
    }
  }
  return map;
})();

/** Whether err is PostgreSQL's unique violation (SQLSTATE 23505), from node-postgres. */
export function isUniqueViolation(err: unknown): err is Error & { code: string; constraint?: string } {
  return err instanceof Error && (err as { code?: unknown }).code === '23505';
}

/**
 * The columns of the unique index (or primary key) a write broke, as `table.column` in index
 * order — what src/db/sqlite/client.ts's uniqueViolation reads from SQLite's message; undefined for any
 * other error, [] for a constraint this schema does not describe.
 */
export function uniqueViolation(err: unknown): string[] | undefined {
  if (!isUniqueViolation(err)) return undefined;
  return [...(uniqueColumns.get(err.constraint ?? '') ?? [])];
}

/**
 * `column = value` ignoring ASCII case: the comparison of the unique name indexes
 * (`lower(name COLLATE "C")`, SQLite's NOCASE), written as they are so that they serve it.
 */
export const sameName = (column: PgColumn, value: string): SQL =>
  sql`lower(${column} COLLATE "C") = lower(${value}::text COLLATE "C")`;
