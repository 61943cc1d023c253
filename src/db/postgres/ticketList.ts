import { and, asc, desc, eq, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { Db, TicketListSpec } from '../port.js';
import { isRanked, rankExpression } from '../shared/listSort.js';
import { teamMembers, ticketCustomValues, tickets, ticketWatchers, transactions, users } from '../tables.js';
import { containsPattern } from './search.js';

// A filtered ticket list on PostgreSQL (SPEC B4): the same TicketListSpec as
// src/db/sqlite/ticketList.ts, as one plain statement for the page and one for the total. The
// planner has statistics for every table here, so there is no temporary table, no walk/sort
// cost model and no text-check budget: `q` is `ILIKE '%q%'` on tickets.subject and
// transactions.body, served by the pg_trgm GIN indexes of migration 0001_trigram_search.

/**
 * A handle of the pg store, typed as the port's handle: queries are built on the domain's
 * (SQLite-typed) tables and run by drizzle's pg dialect (decision 027).
 */
export type PgDb = Db;

/** The sort columns: each NOT NULL (see listQueries). */
const SORT_COLUMNS = {
  id: tickets.id,
  created: tickets.created_at,
  updated: tickets.updated_at,
  priority: tickets.priority,
};

/**
 * The tickets whose subject or messages contain `q` (internal notes only for readers who may
 * see them, decision 025: `type <> 'Comment'`), as one array: a union of two index searches,
 * each through its trigram index. It is run once per list and its ids handed to the total and
 * the page: on a common word it is nearly all of a list's cost (0.4 s at 100k), which the total
 * and the page each paid when both held it as a subquery.
 */
export function textIdsQuery(f: TicketListSpec & { q: string }): SQL {
  const p = containsPattern(f.q);
  const visible = f.includeComments ? sql`` : sql` AND ${transactions.type} <> 'Comment'`;
  // The tickets of the people q named (decision 035), through ticket_watchers_user_idx.
  const people = f.qRequesterIds?.length
    ? sql` UNION SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ANY(${`{${f.qRequesterIds.join(',')}}`}::int[]) AND ${ticketWatchers.role} = 'requester'`
    : sql``;
  return sql`SELECT ARRAY(SELECT ${tickets.id} FROM ${tickets} WHERE ${tickets.subject} ILIKE ${p} UNION SELECT ${transactions.ticket_id} FROM ${transactions} WHERE ${transactions.body} ILIKE ${p}${visible}${people}) AS ids`;
}

/** The WHERE condition of a list filter (authorization included); `textIds`: the tickets that contain q. */
function listCondition(f: TicketListSpec, textIds?: number[]): SQL | undefined {
  const conds: SQL[] = [];
  // A customer sees the tickets they are a requester or Cc of (SPEC C2).
  if (f.customerId !== undefined) {
    conds.push(
      sql`${tickets.id} IN (SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ${f.customerId} AND ${ticketWatchers.role} IN ('requester', 'cc'))`,
    );
  }
  if (f.queue_id !== undefined) conds.push(eq(tickets.queue_id, f.queue_id));
  if (f.queue_ids !== undefined)
    conds.push(f.queue_ids.length === 0 ? sql`1 = 0` : inArray(tickets.queue_id, f.queue_ids));
  if (f.status && f.status.length > 0)
    conds.push(
      f.status.length === 1 ? eq(tickets.status, f.status[0] as never) : inArray(tickets.status, f.status as never[]),
    );
  if (f.owner_id === 'none') conds.push(isNull(tickets.owner_id));
  else if (f.owner_id !== undefined) conds.push(eq(tickets.owner_id, f.owner_id));
  if (f.owner_team_id !== undefined) {
    conds.push(
      sql`${tickets.owner_id} = ANY(ARRAY(SELECT ${teamMembers.user_id} FROM ${teamMembers} WHERE ${teamMembers.team_id} = ${f.owner_team_id}))`,
    );
  }
  if (f.ticket_team_id !== undefined) conds.push(eq(tickets.team_id, f.ticket_team_id));
  if (f.requester_id !== undefined) conds.push(eq(tickets.requester_id, f.requester_id));
  // The people at a domain (decision 055): addresses are stored lower-case; a scan of users.
  if (f.requester_domain !== undefined)
    conds.push(
      sql`${tickets.requester_id} IN (SELECT ${users.id} FROM ${users} WHERE ${users.email} LIKE ${`%@${f.requester_domain}`})`,
    );
  if (f.id !== undefined) conds.push(eq(tickets.id, f.id));
  if (f.exceptId !== undefined) conds.push(ne(tickets.id, f.exceptId));
  if (f.q) {
    if (!textIds) throw new Error('a list with q needs the ids of textIdsQuery');
    // Read through the primary key: the planner cannot turn an array into a hash join over every
    // ticket (decision 027). The ids are integers from the database, passed as one array parameter.
    conds.push(sql`${tickets.id} = ANY(${`{${textIds.join(',')}}`}::int[])`);
  }
  for (const { field_id, value } of f.cf) {
    // The value's tickets from ticket_custom_values_lookup_idx, as an array read through the
    // primary key (as q). A semi-join (EXISTS) reads a common value's first page off the sort's
    // index (3 ms instead of 72 at 100k), but for a value of a few percent the planner then
    // prefers a hash join over every ticket: a sequential scan of tickets.
    conds.push(
      sql`${tickets.id} = ANY(ARRAY(SELECT ${ticketCustomValues.ticket_id} FROM ${ticketCustomValues} WHERE ${ticketCustomValues.field_id} = ${field_id} AND ${ticketCustomValues.value} = ${value}))`,
    );
  }
  return conds.length ? and(...conds) : undefined;
}

/** The page and the count of a list (exported for the plan check); `textIds`: see textIdsQuery. */
export function listQueries(db: PgDb, f: TicketListSpec, textIds?: number[]) {
  const where = listCondition(f, textIds);
  const dir = f.desc ? desc : asc;
  // A ranked sort (status, owner, queue) orders by an expression that is never NULL either.
  const col = isRanked(f.sort) ? rankExpression(f) : SORT_COLUMNS[f.sort];
  // Every sort column is NOT NULL, so NULL ordering (SQLite's and PostgreSQL's differ) does not
  // arise; a NULLS clause other than the index's own would make PostgreSQL sort every matching
  // row instead of reading the page off the index (tests/pg-store-plans.test.ts).
  return {
    page: db.select().from(tickets).where(where).orderBy(dir(col), dir(tickets.id)).limit(f.limit).offset(f.offset),
    count: db.select({ n: sql<number>`count(*)::int` }).from(tickets).where(where),
  };
}

export async function listTickets(db: PgDb, f: TicketListSpec) {
  let textIds: number[] | undefined;
  if (f.q) {
    const found = await (db as unknown as NodePgDatabase).execute<{ ids: number[] }>(textIdsQuery({ ...f, q: f.q }));
    textIds = found.rows[0]?.ids ?? [];
    if (textIds.length === 0) return { rows: [], total: 0 };
  }
  const q = listQueries(db, f, textIds);
  const total = (await q.count)[0]?.n ?? 0;
  const rows = total === 0 || f.offset >= total ? [] : await q.page;
  return { rows: rows as (typeof tickets.$inferSelect)[], total };
}
