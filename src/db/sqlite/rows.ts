import { fillPlaceholders } from 'drizzle-orm';
import { type Field, rowMapper } from '../shared/rowMapper.js';

// A compiled query's rows on better-sqlite3, mapped by a function made for its columns once
// (src/db/shared/rowMapper.ts, issue 32).

/** What drizzle's better-sqlite3 prepared query holds (drizzle-orm/better-sqlite3/session.js). */
interface DrizzlePrepared {
  fields?: Field[];
  customResultMapper?: unknown;
  query: { sql: string; params: unknown[] };
  stmt: {
    raw(on?: boolean): { all(...p: unknown[]): unknown[][]; get(...p: unknown[]): unknown[] | undefined };
    run(...p: unknown[]): { changes: number };
  };
  all(p?: unknown): unknown[];
  get(p?: unknown): unknown;
  run(p?: unknown): { changes: number };
}

export interface SyncPrepared {
  get(p?: unknown): unknown;
  all(p?: unknown): unknown[];
  run(p?: unknown): { changes: number };
}

/**
 * `pq` (drizzle's compiled query on better-sqlite3) with rows mapped by a function made once, or
 * `pq` itself when its fields are not flat.
 */
export function fastPrepared(pq: DrizzlePrepared): SyncPrepared {
  const { fields, customResultMapper, query, stmt } = pq;
  // joinsNotNullableMap only matters to nested fields (a joined table's columns as one object), which rowMapper refuses.
  const map = fields && !customResultMapper ? rowMapper(fields) : undefined;
  if (!map) return pq;
  const params = (p: unknown) => fillPlaceholders(query.params, (p ?? {}) as Record<string, unknown>);
  // The statement may be shared (the connection hands out one per SQL text): back to objects after.
  return {
    all: (p) => {
      const rows = stmt.raw(true).all(...params(p));
      stmt.raw(false);
      return rows.map(map);
    },
    get: (p) => {
      const row = stmt.raw(true).get(...params(p));
      stmt.raw(false);
      return row === undefined ? undefined : map(row);
    },
    run: (p) => pq.run(p),
  };
}
