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

/**
 * How to run `pq` (drizzle's prepared query on node-postgres): the same statement on the same
 * client with the same config as drizzle's `execute`, its rows mapped by a function made once; or
 * drizzle's own `execute` when its fields are not flat (or it has none: a write without RETURNING,
 * whose answer is the driver's result).
 */
export function fastExecute(pq: DrizzlePgPrepared): (values?: Record<string, unknown>) => Promise<unknown> {
  const { fields, customResultMapper, params, queryConfig, client, queryString } = pq;
  const map = fields && !customResultMapper ? rowMapper(fields) : undefined;
  if (!map) return (values) => pq.execute(values);
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
