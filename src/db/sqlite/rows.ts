import { Column, fillPlaceholders, is, SQL, Subquery } from 'drizzle-orm';

// A compiled query's rows, mapped without drizzle's general mapper (issue 32). drizzle maps each
// row field by field, checking each field's kind (`is()`) and walking its path on every row: at
// 100k tickets that was a tenth of a list request's CPU (a page of 50 tickets and its six lookups).
// A query whose fields are flat (every select of this code base that is compiled once) is mapped
// instead by a function made for its columns once, when it is compiled; anything else (nested
// selections, such as a joined table's columns as one object, or a custom mapper) keeps drizzle's own path.

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}
interface Field {
  path: string[];
  field: unknown;
}
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

/** drizzle's decoders that return the value as it is: a column's own, and a `sql` expression's without `.mapWith`. */
const sqlDecoder = (s: unknown): Decoder => (s as { decoder: Decoder }).decoder;
const IDENTITY = new Set<unknown>([Column.prototype.mapFromDriverValue, sqlDecoder(new SQL([])).mapFromDriverValue]);
const identity = (d: Decoder) => IDENTITY.has(d.mapFromDriverValue);

function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field;
  if (is(field, SQL)) return sqlDecoder(field);
  if (is(field, Subquery)) return sqlDecoder((field as unknown as { _: { sql: SQL } })._.sql);
  return sqlDecoder((field as { sql: SQL }).sql);
}

/** A row mapper for flat fields: an object literal of the columns in order, decoders only where a column has one. */
function rowMapper(fields: Field[]): ((row: unknown[]) => unknown) | undefined {
  if (fields.some((f) => f.path.length !== 1)) return undefined;
  const decoders = fields.map((f) => decoderOf(f.field));
  const body = fields
    .map((f, i) => {
      const v = `r[${i}]`;
      return `${JSON.stringify(f.path[0])}: ${identity(decoders[i]) ? v : `${v} === null ? null : d[${i}].mapFromDriverValue(${v})`}`;
    })
    .join(', ');
  const make = new Function('d', `return (r) => ({ ${body} });`) as (d: Decoder[]) => (row: unknown[]) => unknown;
  return make(decoders);
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
