import { and, eq, gte, inArray, lt, min } from 'drizzle-orm';
import type { Db, TicketListSpec } from '../../db/port.js';
import { ticketRatings, ticketTags, timeEntries, transactions, users } from '../../db/tables.js';
import type { Actor } from '../actor.js';
import { listSpec } from '../tickets/list.js';
import type { TicketFilter } from '../tickets/query.js';
import type { TicketRow } from '../tickets/serialize.js';
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

export interface TicketFacts {
  row: TicketRow;
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

/** The list spec of a report's filter: every matching ticket, by id. */
export async function reportSpec(db: Db, actor: Actor, filter: TicketFilter): Promise<TicketListSpec> {
  const spec = await listSpec(db, actor, filter);
  return { ...spec, sort: 'id', desc: false, ranks: undefined, limit: ALL, offset: 0 };
}

/** The tickets of `spec` created in the period (their rows). */
export async function createdRows(db: Db, spec: TicketListSpec, p: Period): Promise<TicketRow[]> {
  return (await db.store.queries.listTickets(db, { ...spec, createdFrom: p.from, createdTo: p.to })).rows;
}

/** The rows of `ids` that pass `spec` (a merged ticket or one outside the filter does not). */
export async function rowsOf(db: Db, spec: TicketListSpec, ids: number[]): Promise<TicketRow[]> {
  const out: TicketRow[] = [];
  for (const b of batches([...ids].sort((x, y) => x - y)))
    out.push(...(await db.store.queries.listTickets(db, { ...spec, idSet: b })).rows);
  return out;
}

/** The first public staff reply of each of `ids` (D2's first response): a Correspond by an agent or admin, not an outside sender's. */
export async function firstResponses(db: Db, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const b of batches(ids)) {
    const rows = await db
      .select({ id: transactions.ticket_id, at: min(transactions.created_at) })
      .from(transactions)
      .innerJoin(users, eq(users.id, transactions.creator_id))
      .where(
        and(
          inArray(transactions.ticket_id, b),
          eq(transactions.type, 'Correspond'),
          eq(transactions.outside_sender, false),
          inArray(users.role, ['admin', 'agent']),
        ),
      )
      .groupBy(transactions.ticket_id);
    for (const r of rows) if (r.at) out.set(r.id, r.at);
  }
  return out;
}

export async function tagsOf(db: Db, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const b of batches(ids)) {
    const rows = await db
      .select({ id: ticketTags.ticket_id, tag: ticketTags.tag })
      .from(ticketTags)
      .where(inArray(ticketTags.ticket_id, b));
    for (const r of rows) out.set(r.id, [...(out.get(r.id) ?? []), r.tag]);
  }
  for (const t of out.values()) t.sort();
  return out;
}

/** Everything a report counts for a period, per ticket that passes the filter. */
export async function reportFacts(
  db: Db,
  spec: TicketListSpec,
  p: Period,
  opts: { tags: boolean },
): Promise<Map<number, TicketFacts>> {
  const facts = new Map<number, TicketFacts>();
  const blank = (row: TicketRow, created: boolean): TicketFacts => ({
    row,
    created,
    first_response_at: null,
    resolved_at: null,
    reopens: [],
    time: [],
    ratings: [],
    tags: [],
  });
  for (const row of await createdRows(db, spec, p)) facts.set(row.id, blank(row, true));
  const moves = await periodMoves(db, p.from, p.to);
  const entries = await db
    .select({ id: timeEntries.ticket_id, minutes: timeEntries.minutes, worked_on: timeEntries.worked_on })
    .from(timeEntries)
    .where(and(gte(timeEntries.worked_on, p.fromDate), lt(timeEntries.worked_on, p.toDate)));
  const ratings = await db
    .select({ id: ticketRatings.ticket_id, rating: ticketRatings.rating, rated_at: ticketRatings.rated_at })
    .from(ticketRatings)
    .where(and(gte(ticketRatings.rated_at, p.from), lt(ticketRatings.rated_at, p.to)));
  const others = new Set<number>();
  for (const id of moves.resolved.keys()) others.add(id);
  for (const m of moves.reopens) others.add(m.ticket_id);
  for (const e of entries) others.add(e.id);
  for (const r of ratings) others.add(r.id);
  for (const id of facts.keys()) others.delete(id);
  for (const row of await rowsOf(db, spec, [...others])) facts.set(row.id, blank(row, false));
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
  return facts;
}
