import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { type Db, prepared } from '../../db/client.js';
import { teamMembers, ticketCustomValues, tickets, ticketWatchers } from '../../db/schema.js';
import { type HeldIds, holdIds, keepHeld, releaseIds } from '../../db/idsets.js';
import { checkTextWithin, ownTextSet, TextCheckTooCostly, textMatchSet, ticketTextMatch } from '../../db/search.js';
import { type Actor, isStaff } from '../actor.js';
import { allCustomFields, type CustomFieldJson } from '../customFields.js';
import { invalid } from '../errors.js';
import { getSavedViewFilters } from '../savedViews.js';
import type { TicketFilter, TicketListQuery } from './query.js';
import { ticketsJson, type TicketJson } from './serialize.js';

export interface TicketList { tickets: TicketJson[]; total: number; limit: number; offset: number }

const SORT_COLUMNS = { id: tickets.id, created: tickets.created_at, updated: tickets.updated_at, priority: tickets.priority };

/** What a list may count with: the total as a one-row `{ n }` statement. */
interface CountQuery { get(): { n: number } | undefined; toSQL(): { sql: string; params: unknown[] } }

/**
 * A `cf.<key>` filter: its ticket ids in the lookup index, a test of one ticket (the walk), and
 * its size counted in the index alone (every id in it is a ticket's).
 */
interface ValueSet { ids: SQL; has: (id: SQL) => SQL; count: CountQuery }

/**
 * Builds the WHERE conditions for a filter, once: plain column conditions, the `q` text match
 * (a parenthesized query of ticket ids, one row per matching message) and the `cf.<key>` sets.
 * Authorization is part of the query itself.
 */
function conditions(db: Db, actor: Actor, f: TicketFilter): { plain: SQL[]; text?: string; values: ValueSet[] } {
  const plain: SQL[] = [];
  const values: ValueSet[] = [];
  let text: string | undefined;
  // A customer sees the tickets they are a requester or Cc of (SPEC C2).
  if (!isStaff(actor)) {
    plain.push(inArray(tickets.id, db.select({ id: ticketWatchers.ticket_id }).from(ticketWatchers)
      .where(and(eq(ticketWatchers.user_id, actor.id), inArray(ticketWatchers.role, ['requester', 'cc'])))));
  }
  if (f.queue_id !== undefined) plain.push(eq(tickets.queue_id, f.queue_id));
  if (f.status && f.status.length > 0) plain.push(f.status.length === 1 ? eq(tickets.status, f.status[0]) : inArray(tickets.status, f.status));
  if (f.owner_id === 'none') plain.push(isNull(tickets.owner_id));
  else if (f.owner_id !== undefined) plain.push(eq(tickets.owner_id, f.owner_id));
  if (f.team_id !== undefined) {
    plain.push(inArray(tickets.owner_id, db.select({ id: teamMembers.user_id }).from(teamMembers).where(eq(teamMembers.team_id, f.team_id))));
  }
  if (f.ticket_team_id !== undefined) plain.push(eq(tickets.team_id, f.ticket_team_id));
  if (f.requester_id !== undefined) plain.push(eq(tickets.requester_id, f.requester_id));
  // Three or more characters: a set held once (holdText). Fewer: LIKE, over a requester's own tickets only.
  if (f.q && [...f.q].length >= 3) text = f.q;
  else if (f.q) plain.push(ticketTextMatch(f.q, { includeComments: isStaff(actor), scoped: !isStaff(actor) }));
  if (f.cf) {
    const fields = allCustomFields(db);
    for (const [key, raw] of Object.entries(f.cf)) {
      const { field, value } = cfValue(fields, key, raw);
      const match = and(eq(ticketCustomValues.field_id, field.id), eq(ticketCustomValues.value, value));
      values.push({
        ids: sql`${db.select({ id: ticketCustomValues.ticket_id }).from(ticketCustomValues).where(match)}`,
        // The (ticket_id, field_id) primary key: one probe per ticket the walk reads.
        has: (id) => sql`EXISTS (SELECT 1 FROM ${ticketCustomValues} WHERE ${ticketCustomValues.ticket_id} = ${id} AND ${match})`,
        count: db.select({ n: sql<number>`count(*)` }).from(ticketCustomValues).where(match),
      });
    }
  }
  return { plain, text, values };
}

/** Tickets a search may check against their text when the index can only narrow q down. */
export const MAX_CHECKED_TICKETS = 5_000;
/** Characters of message text one search may read to test it (each message read costs 512 more). */
export const TEXT_CHECK_BUDGET = 8 * 1024 * 1024;
/** A requester with at most this many tickets is searched by reading their tickets, not the index. */
export const OWN_SCAN_MAX_TICKETS = 1_000;

const ownTicketCount = prepared((db) => db.select({ n: sql<number>`count(*)` })
  .from(sql`(SELECT 1 FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ${sql.placeholder('id')} AND ${ticketWatchers.role} IN ('requester', 'cc') LIMIT ${OWN_SCAN_MAX_TICKETS + 1})`).prepare());

const tooBroad = () => invalid('q', 'Too broad to search: this text repeats itself, and too much text contains its pieces to check it all. Add more distinctive words');

/**
 * Runs q's set of tickets once into the temporary table (decision 012), with bounded work
 * (decision 017):
 * - a requester's own tickets are read and tested directly (they have few; the index holds
 *   everyone's text), within TEXT_CHECK_BUDGET — past it, or past OWN_SCAN_MAX_TICKETS
 *   tickets, the index is used as for staff, narrowed to their tickets;
 * - through the index, when it could only narrow q down (q repeats a trigram, see textPlan in
 *   src/db/search.ts), the candidates are tested against their text, within
 *   MAX_CHECKED_TICKETS and TEXT_CHECK_BUDGET, else a 422 asking for more distinctive text.
 */
function holdText(db: Db, actor: Actor, q: string): HeldIds {
  const staff = isStaff(actor);
  try {
    if (!staff && ownTicketCount(db).get({ id: actor.id })!.n <= OWN_SCAN_MAX_TICKETS) {
      try {
        return checkTextWithin(db, TEXT_CHECK_BUDGET, () => holdIds(db, ownTextSet(q, actor.id)));
      } catch (e) {
        if (!(e instanceof TextCheckTooCostly)) throw e;
      }
    }
    const text = textMatchSet(q, { includeComments: staff, requesterId: staff ? undefined : actor.id });
    const held = holdIds(db, text.ids);
    if (!text.check) return held;
    if (held.size > MAX_CHECKED_TICKETS) throw tooBroad();
    return checkTextWithin(db, TEXT_CHECK_BUDGET, () => keepHeld(db, held, text.check!));
  } catch (e) {
    releaseIds(db);
    throw e instanceof TextCheckTooCostly ? tooBroad() : e;
  }
}

/** A cf.<key> filter's field and the value as stored. */
function cfValue(fields: CustomFieldJson[], key: string, raw: string): { field: CustomFieldJson; value: string } {
  const field = fields.find((x) => x.key === key);
  if (!field) throw invalid(`cf.${key}`, `No custom field with key "${key}"`);
  let value = raw.trim();
  if (field.type === 'number') {
    if (value === '' || !Number.isFinite(Number(value))) throw invalid(`cf.${key}`, `${field.name} must be a number`);
    value = String(Number(value));
  }
  return { field, value };
}

/** The filters in force: a saved view's first, explicit parameters over them (cf.<key> by key). */
export function effectiveFilter(db: Db, actor: Actor, query: TicketListQuery): TicketFilter {
  const { view_id, ...explicit } = query;
  const view = view_id !== undefined ? getSavedViewFilters(db, actor, view_id) : {};
  const f: TicketFilter = { ...view, ...explicit };
  if (view.cf || explicit.cf) f.cf = { ...view.cf, ...explicit.cf };
  return f;
}

/** GET /tickets (SPEC B4). */
export function listTickets(db: Db, actor: Actor, query: TicketListQuery): TicketList {
  return listByFilter(db, actor, effectiveFilter(db, actor, query));
}

/**
 * The statements behind a list: the page, the count, and for `q` / `cf.<key>` a second form of
 * the page (`walk`) that reads tickets in sort order and tests each against the sets.
 * - `q` runs once, here, into a temporary table (`fill`; decision 012): the text search is the
 *   costly part, and the count and the page both need its result.
 * - `cf.<key>` stays in its index: the count reads the index alone, the walk probes the
 *   primary key of ticket_custom_values for each ticket it reads, the page reads the set.
 * A list filtered by sets alone is counted without reading a ticket (`count` is undefined for
 * a lone `q`, whose size is the total). Exposed so the plans can be checked; the caller
 * releases the table (`release`).
 */
export function listQueries(db: Db, actor: Actor, f: TicketFilter) {
  const limit = f.limit ?? 50;
  const offset = f.offset ?? 0;
  const sortKey = (f.sort ?? '-updated').replace(/^-/, '') as keyof typeof SORT_COLUMNS;
  const dir = (f.sort ?? '-updated').startsWith('-') ? desc : asc;
  const page = (where: SQL | undefined) =>
    db.select().from(tickets).where(where).orderBy(dir(SORT_COLUMNS[sortKey]), dir(tickets.id)).limit(limit).offset(offset);
  const { plain, text, values } = conditions(db, actor, f);
  const held = text ? holdText(db, actor, text) : undefined;
  const id = sql`${tickets.id}`;
  // The held set first: SQLite has no statistics for a temporary table, and drives by the first.
  const where = and(...plain, ...(held ? [sql`${id} IN ${held.table}`] : []), ...values.map((v) => sql`${id} IN ${v.ids}`));
  const walkWhere = and(...plain, ...(held ? [sql`+${id} IN ${held.table}`] : []), ...values.map((v) => v.has(id)));
  const countOf = (from: SQL | typeof tickets, cond?: SQL): CountQuery => db.select({ n: sql<number>`count(*)` }).from(from).where(cond);
  let count: CountQuery | undefined;
  if (plain.length > 0) count = countOf(tickets, where);
  else if (held) count = values.length === 0 ? undefined : countOf(sql`${held.table} AS s`, and(...values.map((v) => v.has(sql`s.id`))));
  else count = values.length === 1 ? values[0].count : countOf(tickets, where);
  return {
    limit, offset, count,
    fill: held?.fill,
    page: page(where),
    walk: held || values.length > 0 ? page(walkWhere) : undefined,
    total: (): number => (count ? count.get()!.n : held!.size),
    release: () => { if (held) releaseIds(db); },
  };
}

/** Index entries a walk may read, on average, before it is cheaper to sort the set instead. */
export const WALK_BUDGET = 10_000;
const ticketCount = prepared((db) => db.select({ n: sql<number>`coalesce(max(${tickets.id}), 0)` }).from(tickets).prepare());

/**
 * Walk or sort? A set of `total` tickets among `count` is met every count/total entries of a
 * sort index, so a page ending at offset+limit is reached after about (offset+limit)·count/total
 * entries. A dense set (a common word, a frequent value: thousands of tickets) is found that way
 * in a few hundred reads, where sorting it would read every ticket of the set; a sparse one is
 * cheaper to read and sort.
 */
export function shouldWalk(total: number, count: number, end: number): boolean {
  return total > 0 && (end * count) / total <= WALK_BUDGET;
}

export function listByFilter(db: Db, actor: Actor, f: TicketFilter): TicketList {
  const q = listQueries(db, actor, f);
  try {
    const total = q.total();
    const walk = q.walk && shouldWalk(total, ticketCount(db).get()!.n, q.offset + q.limit);
    const rows = total === 0 ? [] : (walk ? q.walk! : q.page).all();
    return { tickets: ticketsJson(db, rows), total, limit: q.limit, offset: q.offset };
  } finally {
    q.release();
  }
}
