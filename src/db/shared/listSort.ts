import { sql, type SQL } from 'drizzle-orm';
import type { TicketListSpec } from '../port.js';
import { tickets } from '../schema.js';

// The ranked sorts of a ticket list (status, owner, queue; decision 055), in SQL both stores
// speak alike: the domain hands the order of the values (the lifecycle, staff and queues by
// name: small tables, sorted once in JavaScript, so both stores order alike whatever their
// collation), and the list orders by each ticket's place in it. No index serves such an order:
// the store reads the filtered set and keeps the page (a top-N sort).

const RANKED = { status: tickets.status, owner: tickets.owner_id, queue: tickets.queue_id } as const;

/** Whether a sort is ranked (no sort index: never walked). */
export const isRanked = (sort: TicketListSpec['sort']): sort is keyof typeof RANKED => sort in RANKED;

/** `CASE` giving each ticket its place: `values[i]` at i, no value at `nullRank`, anything else after the values. */
export function rankExpression(f: TicketListSpec): SQL {
  if (!isRanked(f.sort) || !f.ranks) throw new Error(`sort ${f.sort} needs its ranks`);
  const col = RANKED[f.sort];
  const int = (n: number) => sql.raw(String(Math.trunc(n)));
  const whens = f.ranks.values.map((v, i) => sql` WHEN ${col} = ${v} THEN ${int(i)}`);
  return sql`(CASE WHEN ${col} IS NULL THEN ${int(f.ranks.nullRank)}${sql.join(whens, sql``)} ELSE ${int(f.ranks.values.length)} END)`;
}
