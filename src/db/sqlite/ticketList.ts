import { and, asc, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { TicketListSpec } from '../ticketListSpec.js';
import { listFilters, NOT_MERGED } from '../shared/listFilters.js';
import { isWalkable, sortCondition, sortExpression } from '../shared/listSort.js';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { teamMembers, ticketCustomValues, tickets, ticketTags } from './schema.js';
import type { Db } from './handle.js';
import { createIdTable, type HeldIds, releaseIds } from './idsets.js';
import { wordPlan } from '../shared/words.js';
import { fastPrepared, type SyncPrepared } from './rows.js';
import { readPageParts } from './pageParts.js';
import { walkOrSort } from './walk.js';
import { FIRST_ROWS, settleNewest } from './newestWords.js';
import { newestFirst } from '../shared/newestWords.js';
import { ticketTextMatch } from './search.js';
import { holdText, perConnection, requestersTickets } from './textHold.js';

// A filtered ticket list on SQLite (SPEC B4): the text search held once in a temporary table
// (decision 012), bounded work (decision 017), and a cost model choosing between walking a
// sort index and sorting the set. The domain resolves names, views and permissions into a
// TicketListSpec first.

/** A page of a list: the tickets, in the list's order. */
type PageQuery = {
  all(): (typeof tickets.$inferSelect)[];
  prepare(): unknown;
  toSQL(): { sql: string; params: unknown[] };
};
/** A query drizzle built, compiled once (./rows.ts): again for a list kept for its spec (listTickets). */
const compiled = new WeakMap<object, SyncPrepared>();
const compiledOnce = (q: { prepare(): unknown }): SyncPrepared => {
  let stmt = compiled.get(q);
  if (!stmt) compiled.set(q, (stmt = fastPrepared(q.prepare() as Parameters<typeof fastPrepared>[0])));
  return stmt;
};
/** A page's tickets, mapped by a function made for the tickets' columns (./rows.ts), not drizzle's per-field walk. */
const pageRows = (p: PageQuery) => compiledOnce(p).all() as (typeof tickets.$inferSelect)[];

/** What a list may count with: the total as a one-row `{ n }` statement. */
interface CountQuery {
  get(): { n: number } | undefined;
  toSQL(): { sql: string; params: unknown[] };
}

/**
 * A `cf.<key>` filter: its ticket ids in the lookup index, a test of one ticket (the walk), and
 * its size counted in the index alone (every id in it is a ticket's).
 */
interface ValueSet {
  ids: SQL;
  has: (id: SQL) => SQL;
  count: CountQuery;
  /** The same count, up to `cap` index entries (decision 085). */
  capped: (cap: number) => CountQuery;
}

/**
 * Builds the WHERE conditions for a filter, once: plain column conditions, the `q` text match
 * (a parenthesized query of ticket ids, one row per matching message) and the `cf.<key>` sets.
 * Authorization is part of the query itself.
 */
function conditions(db: Db, f: TicketListSpec): { plain: SQL[]; text?: string; values: ValueSet[] } {
  // The owner's team as a subquery: SQLite runs it once, into a table it probes per ticket.
  const plain = listFilters(
    f,
    {
      ownerTeam: (teamId) =>
        inArray(
          tickets.owner_id,
          db.select({ id: teamMembers.user_id }).from(teamMembers).where(eq(teamMembers.team_id, teamId)),
        ),
    },
    { tagsApart: true },
  );
  const values: ValueSet[] = [];
  // A tag (SPEC D3) as a custom value is read: a set in its index (tag, ticket_id), counted there,
  // probed through the primary key (ticket_id, tag) by a walk of the sort index. As a condition
  // on the page, a tag of a third of the tickets had SQLite read and sort all of them (22 ms a
  // page at 100k, issue 32).
  for (const tag of f.tags ?? [])
    values.push(valueSet(db, ticketTags, eq(ticketTags.tag, tag), 'sqlite_autoindex_ticket_tags_1'));
  let text: string | undefined;
  // Three or more characters, or a word (decision 084): a set held once (holdText). Fewer: LIKE,
  // over a customer's own tickets only.
  if (f.q && ([...f.q].length >= 3 || wordPlan(f.q))) text = f.q;
  else if (f.q) {
    const match = ticketTextMatch(f.q, { includeComments: f.includeComments, scoped: f.customerId !== undefined });
    plain.push(f.qRequesterIds?.length ? or(match, inArray(tickets.id, requestersTickets(f.qRequesterIds)))! : match);
  }
  for (const { field_id, value } of f.cf) {
    const match = and(eq(ticketCustomValues.field_id, field_id), eq(ticketCustomValues.value, value))!;
    values.push(valueSet(db, ticketCustomValues, match, 'sqlite_autoindex_ticket_custom_values_1'));
  }
  return { plain, text, values };
}

/**
 * A set of tickets kept in a table of (ticket_id, …) rows — a `cf.<key>` value, a tag — read as
 * a ValueSet: its ids and counts from the rows meeting `match` (their lookup index), and a probe
 * of one ticket through `primaryKey`, the table's (ticket_id, …) key, named: on a database
 * without statistics for the table (never analysed) SQLite otherwise builds an automatic index of
 * every value for each list (45 ms at 10k tickets instead of 0.7). `LIMIT 1` keeps it a probe:
 * SQLite 3.53 turns a bare EXISTS into a join with a Bloom filter over every entry of the value,
 * built per run (3.4 ms a page at 100k, issue 32).
 */
function valueSet(
  db: Db,
  table: typeof ticketTags | typeof ticketCustomValues,
  match: SQL,
  primaryKey: string,
): ValueSet {
  return {
    ids: sql`${db.select({ id: table.ticket_id }).from(table).where(match)}`,
    has: (id) =>
      sql`EXISTS (SELECT 1 FROM ${table} INDEXED BY ${sql.raw(primaryKey)} WHERE ${table.ticket_id} = ${id} AND ${match} LIMIT 1)`,
    count: db.select({ n: sql<number>`count(*)` }).from(table).where(match),
    capped: (cap) => cappedCount(db, table, match, cap),
  };
}

/**
 * At most `cap` of the rows of `from` that meet `cond`, counted (decision 085): the count stops
 * reading its index after `cap` entries, whatever the list's size.
 */
function cappedCount(db: Db, from: SQL | SQLiteTable, cond: SQL | undefined, cap: number): CountQuery {
  const where = cond ? sql` WHERE ${cond}` : sql``;
  return countOnce(db.select({ n: sql<number>`count(*)` }).from(sql`(SELECT 1 FROM ${from}${where} LIMIT ${cap})`));
}

/** A count drizzle built, compiled on its first run (compiledOnce). */
const countOnce = (q: { prepare(): unknown; toSQL(): { sql: string; params: unknown[] } }): CountQuery => ({
  get: () => compiledOnce(q).get() as { n: number } | undefined,
  toSQL: () => q.toSQL(),
});

/** `build(cap)` once per cap: the counts up to a bound a list kept for its spec runs again. */
function perCap(build: (cap: number) => CountQuery): (cap: number) => CountQuery {
  const byCap = new Map<number, CountQuery>();
  return (cap) => {
    let q = byCap.get(cap);
    if (!q) byCap.set(cap, (q = build(cap)));
    return q;
  };
}

const ticketCount = perConnection((db) =>
  db
    .select({ n: sql<number>`coalesce(max(${tickets.id}), 0)` })
    .from(tickets)
    .prepare(),
);

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
export function listQueries(db: Db, f: TicketListSpec) {
  const { limit, offset } = f;
  const dir = f.desc ? desc : asc;
  const walkable = isWalkable(f.sort);
  const order = sortExpression(f);
  const page = (where: SQL | undefined) =>
    db
      .select()
      .from(tickets)
      .where(and(where, sortCondition(f)))
      .orderBy(dir(order), dir(tickets.id))
      .limit(limit)
      .offset(offset);
  const { plain, text, values } = conditions(db, f);
  let held = text ? holdText(db, f, text, newestFirst(f, values.length > 0) ? FIRST_ROWS : undefined) : undefined;
  const id = sql`${tickets.id}`;
  const setConds = valueConditions(plain, held, values, id);
  // The held set first: SQLite has no statistics for a temporary table, and drives by the first.
  const where = and(...plain, ...(held ? [sql`${id} IN ${held.table}`] : []), ...setConds);
  const walkOf = (conds: SQL[]) =>
    and(...conds, ...(held ? [sql`+${id} IN ${held.table}`] : []), ...values.map((v) => v.has(id)));
  const countOf = (from: SQL | typeof tickets, cond?: SQL): CountQuery =>
    countOnce(db.select({ n: sql<number>`count(*)` }).from(from).where(cond));
  // SPEC D3 (decision 076): a list with no status filter leaves merged tickets out. Its count
  // counts as it did before merges (an index alone, the held set's size, a value's index entries)
  // and takes away the merged tickets among them, read through their partial index:
  // `status <> 'merged'` would read every ticket counted. When none of them is merged (most
  // lists), the page is read without the condition too: a page deep in a sort index then skips
  // index entries without reading their tickets.
  const counted = plain.filter((c) => c !== NOT_MERGED);
  const countWhere =
    counted.length === plain.length
      ? where
      : and(...counted, ...(held ? [sql`${id} IN ${held.table}`] : []), ...setConds);
  const merged =
    counted.length === plain.length
      ? undefined
      : countOf(
          sql`${tickets} INDEXED BY tickets_merged_into_idx`,
          and(sql`${tickets.merged_into} IS NOT NULL`, countWhere),
        );
  // A word search held newest first (decision 092): kept if it gives the list's count and page.
  let partial = false;
  /** The held set's first `offset + limit` tickets in the list's order, as pageEnd last read them. */
  let heldPage: number[] = [];
  let older: number[] = [];
  if (held?.from !== undefined)
    ({ held, partial, older } = settleNewest(db, held, (rows) => holdText(db, f, text!, rows), {
      f,
      plan: wordPlan(text!)!,
      q: text!,
      countedUpTo: (cap) =>
        (counted.length > 0
          ? cappedCount(db, tickets, countWhere, cap)
          : cappedCount(db, held!.table, undefined, cap)
        ).get()!.n,
      merged: () => (merged ? merged.get()!.n : 0),
      plain,
      pageEnd: () => {
        const first = db
          .select({ key: order, id: tickets.id })
          .from(tickets)
          .where(and(where, sortCondition(f)))
          .orderBy(dir(order), dir(tickets.id))
          .limit(offset + limit)
          .all() as { key: string | number; id: number }[];
        heldPage = first.map((r) => r.id);
        return first.length === offset + limit ? first[first.length - 1] : undefined;
      },
    }));
  // Held newest first, the page lies within the held set's first tickets (read for pageEnd) and
  // the older ones held after: it is read from those alone, not by sorting every held ticket's
  // row again (at 1M a rare word's ~4,000; decision 094). Each of them is in the held set.
  const onPage = partial
    ? sql`${id} IN (SELECT value FROM json_each(${JSON.stringify([...heldPage, ...older])}))`
    : undefined;
  const pageWhere = onPage ? and(...plain, onPage, ...setConds) : where;
  let count: CountQuery | undefined;
  /** The count up to `cap` (decision 085), built when asked for; undefined: the held set's size. */
  let countUpTo: ((cap: number) => CountQuery) | undefined;
  if (counted.length > 0) {
    count = countOf(tickets, countWhere);
    countUpTo = perCap((cap) => cappedCount(db, tickets, countWhere, cap));
  } else if (held) {
    const heldValues = and(...values.map((v) => v.has(sql`s.id`)));
    count = values.length === 0 ? undefined : countOf(sql`${held.table} AS s`, heldValues);
    countUpTo =
      values.length === 0 && !partial ? undefined : (cap) => cappedCount(db, sql`${held!.table} AS s`, heldValues, cap);
  } else if (values.length === 1) {
    count = values[0].count;
    countUpTo = values[0].capped;
  } else {
    count = countOf(tickets, countWhere);
    countUpTo = perCap((cap) => cappedCount(db, tickets, countWhere, cap));
  }
  const hasWalk = walkable && (held || values.length > 0);
  const built: { page?: PageQuery; walk?: PageQuery; pageAll?: PageQuery; walkAll?: PageQuery } = {};
  return {
    limit,
    offset,
    count,
    fill: held?.fill,
    /** Whether q's set is held newest first (decision 092), not whole. */
    newest: partial,
    /** The statement adding the tickets of the people q named to the held set (for its plan check). */
    fillRequesters:
      held && f.qRequesterIds?.length
        ? sql`INSERT OR IGNORE INTO temp.hx_ids SELECT * FROM ${requestersTickets(f.qRequesterIds)}`
        : undefined,
    /** The page (built when first asked for). */
    get page(): PageQuery {
      return (built.page ??= page(pageWhere));
    },
    /** A ranked order (and the due order) has no index to walk in: the set is read and sorted. */
    get walk(): PageQuery | undefined {
      return hasWalk && !onPage ? (built.walk ??= page(walkOf(plain))) : undefined;
    },
    /** The page, or its walk, when no ticket of the list is merged: without `status <> 'merged'`. */
    unmergedPage(walk: boolean): PageQuery {
      if (counted.length === plain.length) return walk ? this.walk! : this.page;
      if (walk) return (built.walkAll ??= page(walkOf(counted)));
      return (built.pageAll ??= page(onPage ? and(...counted, onPage, ...setConds) : countWhere));
    },
    /** The statement counting the merged tickets a list with no status filter takes away (for its plan check). */
    merged,
    /**
     * Whether the list (merged ones counted in) holds at least `n` tickets: a count that stops
     * at `n`. Undefined when the list has no bounded count (its size is then known exactly).
     */
    atLeast(n: number): boolean | undefined {
      return countUpTo ? countUpTo(n).get()!.n >= n : undefined;
    },
    /**
     * The tickets of the list before merged ones are taken away, and the merged ones among them;
     * with `upTo` (decision 085), counted only until the list's own reach `upTo` (the merged ones,
     * few and through their partial index, are counted first): `exact` false when it did.
     */
    counts(upTo?: number): { counted: number; merged: number; exact: boolean } {
      const m = merged ? merged.get()!.n : 0;
      if (partial) upTo ??= f.countUpTo; // the held set is not the whole set: never counted as it
      if (upTo === undefined || !countUpTo)
        return { counted: count ? count.get()!.n : held!.size, merged: m, exact: true };
      const counted = countUpTo(upTo + m).get()!.n;
      return { counted, merged: m, exact: counted < upTo + m };
    },
    total(): number {
      const c = this.counts();
      return c.counted - c.merged;
    },
    release: () => {
      if (held) releaseIds(db);
    },
  };
}

/**
 * A `cf.<key>` value or a tag may lead a list's reading (its tickets read first by id, the other
 * conditions checked on each) when it holds fewer tickets than this; a larger one is probed per
 * ticket the other conditions find. SQLite takes `id IN (set)` for the cheapest way in whatever
 * the set's size: a queue's open tickets with a value of a quarter of all tickets read 25,000
 * tickets to count 900 (22 ms a list at 100k, issue 32).
 */
export const SET_LEADS_UNDER = 3_000;

/**
 * Each value set as a condition: at most one of them `id IN (set)` — the smallest, when it is
 * under SET_LEADS_UNDER, or whatever its size when nothing else narrows the list (no plain
 * condition but `status <> 'merged'`, no held text) — the others an EXISTS probe per ticket.
 */
function valueConditions(plain: SQL[], held: HeldIds | undefined, values: ValueSet[], id: SQL): SQL[] {
  if (values.length === 0) return [];
  const narrowed = held !== undefined || plain.some((c) => c !== NOT_MERGED);
  let lead: ValueSet | undefined;
  if (!held) {
    if (!narrowed && values.length === 1) lead = values[0];
    else {
      // Sets alone: the smallest leads, whatever the sizes (each counted whole in its index).
      const size = (v: ValueSet) => (narrowed ? v.capped(SET_LEADS_UNDER) : v.count).get()!.n;
      const sized = values.map((v) => ({ v, n: size(v) })).sort((a, b) => a.n - b.n);
      if (!narrowed || sized[0].n < SET_LEADS_UNDER) lead = sized[0].v;
    }
  }
  return values.map((v) => (v === lead ? sql`${id} IN ${v.ids}` : v.has(id)));
}

/**
 * One list, run synchronously from start to end: the temporary table belongs to the connection,
 * and no other list's statements can run in between.
 */
export function listTickets(db: Db, f: TicketListSpec) {
  // The total and the page in one snapshot: read by two statements, each in a snapshot of its own,
  // a change committed between them left a page that contradicted its total (decision 096).
  // The temporary table a list holds its ids in is created before: a list that ends in an error
  // (a search too broad) rolls its transaction back, and would take a table created in it along.
  const client = db.$client;
  if (client.inTransaction) return listIn(db, f);
  createIdTable(db);
  return client.transaction(() => listIn(db, f))();
}

/**
 * The statements of the plain lists (no text, no custom value, no tag) a connection answered
 * lately, by spec: the same spec is the same statements, so they are built and compiled once
 * (issue 32: building a list's page and count took a tenth of a JSON list's time). A list with
 * text holds its set in a table of the moment, and one with value sets sizes them against the
 * data: both are built each time.
 */
const kept = new WeakMap<object, Map<string, ReturnType<typeof listQueries>>>();
/** How many plain lists a connection keeps: past it, the least recently used goes. */
const KEPT_LISTS = 100;

function queriesOf(db: Db, f: TicketListSpec): ReturnType<typeof listQueries> {
  if (f.q || f.cf.length > 0 || (f.tags?.length ?? 0) > 0) return listQueries(db, f);
  const { parts: _parts, ...statements } = f;
  const key = JSON.stringify(statements);
  let byKey = kept.get(db.$client);
  if (!byKey) kept.set(db.$client, (byKey = new Map()));
  let q = byKey.get(key);
  if (q)
    byKey.delete(key); // set again below: most recently used last
  else {
    q = listQueries(db, f);
    if (byKey.size >= KEPT_LISTS) byKey.delete(byKey.keys().next().value!);
  }
  byKey.set(key, q);
  return q;
}

function listIn(db: Db, f: TicketListSpec) {
  const q = queriesOf(db, f);
  try {
    const c = q.counts(f.countUpTo);
    const { counted, merged, exact } = c;
    const total = counted - merged;
    const walk = q.walk !== undefined && total > 0 && walkOrSort(q, c, ticketCount(db).get()!.n, q.offset + q.limit);
    const rows = total === 0 ? [] : pageRows(merged === 0 ? q.unmergedPage(walk) : walk ? q.walk! : q.page);
    // What the page shows beside its rows, in the same snapshot (decision 105).
    const parts = f.parts && rows.length > 0 ? readPageParts(db, rows, f.parts) : undefined;
    return { rows, total, exact, parts };
  } finally {
    q.release();
  }
}
