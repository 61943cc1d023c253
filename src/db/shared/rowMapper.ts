import { Column, is, SQL, Subquery } from 'drizzle-orm';

// A compiled query's rows, mapped without drizzle's general mapper (issue 32). drizzle maps each
// row field by field, checking each field's kind (`is()`) and walking its path on every row: at
// 100k tickets that was a tenth of a SQLite list request's CPU, and a fifth of a PostgreSQL one's
// (decision 097). A query whose fields are flat (every select of this code base that is compiled
// once, and a list's page) is mapped instead by a function made for its columns once, when it is
// compiled; anything else (nested selections, such as a joined table's columns as one object, or
// a custom mapper) keeps drizzle's own path. Each store's driver runs the statement
// (src/db/sqlite/rows.ts, src/db/postgres/rows.ts).

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}
export interface Field {
  path: string[];
  field: unknown;
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
export function rowMapper(fields: Field[]): ((row: unknown[]) => unknown) | undefined {
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
