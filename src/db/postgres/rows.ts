import { DrizzleQueryError, fillPlaceholders } from 'drizzle-orm';
import { type Field, rowMapper } from '../shared/rowMapper.js';

// A query's rows on node-postgres, mapped by a function made for its columns once
// (src/db/shared/rowMapper.ts, decision 097): drizzle's own mapping of each field of each row was a
// fifth of a PostgreSQL list request's CPU at 100k tickets.

/** What drizzle's node-postgres prepared query holds (drizzle-orm/node-postgres/session.js). */
export interface DrizzlePgPrepared {
  fields?: Field[];
  customResultMapper?: unknown;
  params: unknown[];
  queryString: string;
  /** The array-mode config drizzle sends a statement with fields in. */
  queryConfig: object;
  client: { query(config: object, params: unknown[]): Promise<{ rows: unknown[][] }> };
  execute(values?: Record<string, unknown>): Promise<unknown>;
}

/** How rows of a query are turned into objects: by a function made for its columns. */
export type RowMap = (row: unknown[]) => unknown;

/** `pq`'s row mapper, or undefined when drizzle's own path must map it (fields not flat, a custom mapper, none). */
export const mapperOf = (pq: DrizzlePgPrepared): RowMap | undefined =>
  pq.fields && !pq.customResultMapper ? rowMapper(pq.fields) : undefined;

/**
 * How to run `pq` (drizzle's prepared query on node-postgres): the same statement on the same
 * client with the same config as drizzle's `execute`, its rows mapped by `map` (made once per
 * statement by the caller that runs it often: the store, per statement key); or drizzle's own
 * `execute` when there is no mapper (fields not flat, or none: a write without RETURNING, whose
 * answer is the driver's result).
 */
export function fastExecute(
  pq: DrizzlePgPrepared,
  map: RowMap | undefined = mapperOf(pq),
): (values?: Record<string, unknown>) => Promise<unknown> {
  if (!map) return (values) => pq.execute(values);
  const { params, queryConfig, client, queryString } = pq;
  return async (values = {}) => {
    const filled = fillPlaceholders(params, values);
    let rows: unknown[][];
    try {
      rows = (await client.query(queryConfig, filled)).rows;
    } catch (e) {
      // As drizzle's execute throws it: the driver's error (with its SQLSTATE) as the cause.
      throw new DrizzleQueryError(queryString, filled, e as Error);
    }
    return rows.map(map);
  };
}

/** A select built for one run (a list's page), run as fastExecute runs it (drizzle's own `then` if it cannot be prepared). */
export async function rowsOf<Row>(query: PromiseLike<Row[]>): Promise<Row[]> {
  const pq = (query as PromiseLike<Row[]> & { _prepare?: () => DrizzlePgPrepared })._prepare?.();
  return pq ? ((await fastExecute(pq)()) as Row[]) : await query;
}
