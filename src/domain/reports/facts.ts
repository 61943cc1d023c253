import { and, eq, gte, inArray, lt, min, ne, sql } from 'drizzle-orm';
import { type Db, preparedForIds } from '../../db/port.js';
import type { TicketListSpec } from '../../db/ticketListSpec.js';
import { ticketRatings, tickets, ticketTags, timeEntries, transactions, users } from '../../db/tables.js';
import type { Actor } from '../actor.js';
import { listSpec } from '../tickets/list.js';
import type { TicketFilter } from '../tickets/query.js';
import { businessMinutesReader } from './business.js';
import { periodMoves } from './moves.js';

// SPEC D4 (decision 079): what a report reads for a period, per ticket — all from the history
// and the rows as they are now, nothing precomputed. Each read is bounded by the period through
// an index: tickets by created_at, Status entries through the tickets updated since the period
// began, time entries by worked_on, ratings by rated_at; then the tickets they name pass the
// list's own filter (the store's ticket list with those ids), in batches.

export interface Period {
  /** Dates in the reader's zone, [from, to). */
  fromDate: string;
  toDate: string;
  /** The same as UTC instants. */
  from: string;
  to: string;
  zone: string;
}

/** What a report reads of a ticket row. */
const COLUMNS = {
  id: tickets.id,
  subject: tickets.subject,
  queue_id: tickets.queue_id,
  team_id: tickets.team_id,
  owner_id: tickets.owner_id,
  requester_id: tickets.requester_id,
  created_at: tickets.created_at,
  sla: tickets.sla,
};
export type ReportTicket = { [K in keyof typeof COLUMNS]: (typeof tickets.$inferSelect)[K] };
const narrow = (r: typeof tickets.$inferSelect): ReportTicket => ({
  id: r.id,
  subject: r.subject,
  queue_id: r.queue_id,
  team_id: r.team_id,
  owner_id: r.owner_id,
  requester_id: r.requester_id,
  created_at: r.created_at,
  sla: r.sla,
});

/**
 * A report's tickets: `plain` (no filter but the period) reads the columns it needs straight
 * from tickets (not merged: what the list means without a filter); a filter goes through the
 * store's ticket list, so it means exactly what the list means.
 */
export interface ReportScope {
  spec: TicketListSpec;
  plain: boolean;
}

export interface TicketFacts {
  row: ReportTicket;
  /** Created in the period. */
  created: boolean;
  /** The first public reply by staff (any time), null when none. */
  first_response_at: string | null;
  /** The counted resolve in the period (docs/metrics.md), null when not resolved in it. */
  resolved_at: string | null;
  /** Moves from an inactive to an active status in the period. */
  reopens: string[];
  time: { minutes: number; worked_on: string }[];
  ratings: { rating: 'good' | 'okay' | 'bad'; rated_at: string }[];
  tags: string[];
  /** The first response and the counted resolve in business minutes, where a policy applies (./business.ts); else null. */
  business: { first_response: number | null; resolution: number | null };
}

/** Ids per statement (well under each store's parameter limit). */
const BATCH = 2000;
const batches = <T>(list: T[]): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += BATCH) out.push(list.slice(i, i + BATCH));
  return out;
};
/** A list with every ticket of a filter: no page limit. */
const ALL = 10_000_000;

/** The scope of a report's filter: every matching ticket, by id. */
export async function reportScope(db: Db, actor: Actor, filter: TicketFilter): Promise<ReportScope> {
  const spec = await listSpec(db, actor, filter);
  return {
    // Rows only: no total is read (counted up to one, to know there are any; decision 085).
    spec: { ...spec, sort: 'id', desc: false, ranks: undefined, limit: ALL, offset: 0, countUpTo: 1 },
    plain: Object.values(filter).every((v) => v === undefined),
  };
}

const NOT_MERGED = ne(tickets.status, 'merged');

/** The tickets of the scope created in the period, by id (`page`: a part of them). */
export async function createdRows(
  db: Db,
  scope: ReportScope,
  p: Period,
  page?: { limit: number; offset: number },
): Promise<ReportTicket[]> {
  if (scope.plain) {
    const q = db
      .select(COLUMNS)
      .from(tickets)
      .where(and(gte(tickets.created_at, p.from), lt(tickets.created_at, p.to), NOT_MERGED))
      .orderBy(tickets.id);
    return page ? await q.limit(page.limit).offset(page.offset) : await q;
  }
  const spec = { ...scope.spec, createdFrom: p.from, createdTo: p.to, ...page };
  return (await db.store.queries.listTickets(db, spec)).rows.map(narrow);
}

/** The rows of `ids` in the scope (a merged ticket or one outside the filter is not). */
export async function rowsOf(db: Db, scope: ReportScope, ids: number[]): Promise<ReportTicket[]> {
  const out: ReportTicket[] = [];
  for (const b of batches([...ids].sort((x, y) => x - y)))
    out.push(
      ...(scope.plain
        ? await db
            .select(COLUMNS)
            .from(tickets)
            .where(and(inArray(tickets.id, b), NOT_MERGED))
        : (await db.store.queries.listTickets(db, { ...scope.spec, idSet: b })).rows.map(narrow)),
    );
  return out;
}

/** The first public staff reply of each of `ids` (D2's first response): a Correspond by an agent or admin, not an outside sender's. */
const firstResponsesOf = preparedForIds((db, inIds) =>
  db
    .select({ id: transactions.ticket_id, at: min(transactions.created_at) })
    .from(transactions)
    .innerJoin(users, eq(users.id, transactions.creator_id))
    .where(
      and(
        inIds(transactions.ticket_id),
        // The literal type: both stores then read the partial index transactions_correspond_idx.
        sql`${transactions.type} = 'Correspond'`,
        eq(transactions.outside_sender, false),
        inArray(users.role, ['admin', 'agent']),
      ),
    )
    .groupBy(transactions.ticket_id),
);

export async function firstResponses(db: Db, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const r of await firstResponsesOf(db, ids)) if (r.at) out.set(r.id, r.at);
  return out;
}

const tagRowsOf = preparedForIds((db, inIds) =>
  db.select({ id: ticketTags.ticket_id, tag: ticketTags.tag }).from(ticketTags).where(inIds(ticketTags.ticket_id)),
);

export async function tagsOf(db: Db, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const r of await tagRowsOf(db, ids)) out.set(r.id, [...(out.get(r.id) ?? []), r.tag]);
  for (const t of out.values()) t.sort();
  return out;
}

/** The time entries whose `worked_on` is in the period (the (worked_on) index). */
export const timeIn = (db: Db, p: Period) =>
  db
    .select({ id: timeEntries.ticket_id, minutes: timeEntries.minutes, worked_on: timeEntries.worked_on })
    .from(timeEntries)
    .where(and(gte(timeEntries.worked_on, p.fromDate), lt(timeEntries.worked_on, p.toDate)));

/** The current ratings given in the period (the (rated_at) index). */
export const ratingsIn = (db: Db, p: Period) =>
  db
    .select({ id: ticketRatings.ticket_id, rating: ticketRatings.rating, rated_at: ticketRatings.rated_at })
    .from(ticketRatings)
    .where(and(gte(ticketRatings.rated_at, p.from), lt(ticketRatings.rated_at, p.to)));

/** Everything a report counts for a period, per ticket that passes the filter. */
export async function reportFacts(
  db: Db,
  scope: ReportScope,
  p: Period,
  opts: { tags: boolean },
): Promise<Map<number, TicketFacts>> {
  const facts = new Map<number, TicketFacts>();
  const blank = (row: ReportTicket, created: boolean): TicketFacts => ({
    row,
    created,
    first_response_at: null,
    resolved_at: null,
    reopens: [],
    time: [],
    ratings: [],
    tags: [],
    business: { first_response: null, resolution: null },
  });
  for (const row of await createdRows(db, scope, p)) facts.set(row.id, blank(row, true));
  const moves = await periodMoves(db, p.from, p.to);
  const entries = await timeIn(db, p);
  const ratings = await ratingsIn(db, p);
  const others = new Set<number>();
  for (const id of moves.resolved.keys()) others.add(id);
  for (const m of moves.reopens) others.add(m.ticket_id);
  for (const e of entries) others.add(e.id);
  for (const r of ratings) others.add(r.id);
  for (const id of facts.keys()) others.delete(id);
  for (const row of await rowsOf(db, scope, [...others])) facts.set(row.id, blank(row, false));
  for (const [id, at] of moves.resolved) {
    const f = facts.get(id);
    if (f) f.resolved_at = at;
  }
  for (const m of moves.reopens) facts.get(m.ticket_id)?.reopens.push(m.at);
  for (const e of entries) facts.get(e.id)?.time.push({ minutes: e.minutes, worked_on: e.worked_on });
  for (const r of ratings) facts.get(r.id)?.ratings.push({ rating: r.rating, rated_at: r.rated_at });
  const createdIds = [...facts.values()].filter((f) => f.created).map((f) => f.row.id);
  for (const [id, at] of await firstResponses(db, createdIds)) (facts.get(id) as TicketFacts).first_response_at = at;
  if (opts.tags)
    for (const [id, tags] of await tagsOf(db, [...facts.keys()])) (facts.get(id) as TicketFacts).tags = tags;
  const business = businessMinutesReader(db);
  for (const f of facts.values())
    if (f.row.sla !== null)
      f.business = {
        first_response: f.created ? await business(f.row.sla, f.row.created_at, f.first_response_at) : null,
        resolution: await business(f.row.sla, f.row.created_at, f.resolved_at),
      };
  return facts;
}
