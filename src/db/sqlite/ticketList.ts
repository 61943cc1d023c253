import { and, asc, desc, eq, getTableColumns, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { TicketListSpec } from '../ticketListSpec.js';
import { listFilters, NOT_MERGED } from '../shared/listFilters.js';
import { isWalkable, sortCondition, sortExpression } from '../shared/listSort.js';
import { teamMembers, ticketCustomValues, tickets, ticketTags } from './schema.js';
import type { Db } from './handle.js';
import { createIdTable, releaseIds } from './idsets.js';
import { wordPlan } from '../shared/words.js';
import {
  cappedCount,
  compiledOnce,
  type CountQuery,
  countOnce,
  perCap,
  chooseLead,
  type ValueSet,
  valueSet,
} from './listSets.js';
import { readPageParts } from './pageParts.js';
import { priorityWalked, walkOrSort, walkOrSortPlain } from './walk.js';
import { FIRST_ROWS, type Settled, settleNewest } from './newestWords.js';
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
/** A page's tickets, mapped by a function made for the tickets' columns (./rows.ts), not drizzle's per-field walk. */
const pageRows = (p: PageQuery) => compiledOnce(p).all() as (typeof tickets.$inferSelect)[];

/**
 * Builds the WHERE conditions for a filter, once: plain column conditions, the `q` text match
 * (a parenthesized query of ticket ids, one row per matching message) and the `cf.<key>` sets.
 * Authorization is part of the query itself.
 */
type Conditions = { plain: SQL[]; text?: string; values: ValueSet[] };
function conditions(db: Db, f: TicketListSpec): Conditions {
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
    values.push(valueSet(db, ticketTags, (t) => eq(t.tag, tag), 'sqlite_autoindex_ticket_tags_1'));
  // Any of `tag_any`'s tags, one set (decision 108): as a condition on the page, `vip` or `vpn`
  // had SQLite read and sort their 13,400 tickets (23 ms a list at 100k). A ticket with two of
  // them is in the index twice: counted once.
  const anyOf = f.tagsAny ?? [];
  if (anyOf.length > 0)
    values.push(
      valueSet(db, ticketTags, (t) => inArray(t.tag, anyOf), 'sqlite_autoindex_ticket_tags_1', {
        distinct: anyOf.length > 1,
      }),
    );
  let text: string | undefined;
  // Three or more characters, or a word (decision 084): a set held once (holdText). Fewer: LIKE,
  // over a customer's own tickets only.
  if (f.q && ([...f.q].length >= 3 || wordPlan(f.q))) text = f.q;
  else if (f.q) {
    const match = ticketTextMatch(f.q, { includeComments: f.includeComments, scoped: f.customerId !== undefined });
    plain.push(f.qRequesterIds?.length ? or(match, inArray(tickets.id, requestersTickets(f.qRequesterIds)))! : match);
  }
  for (const { field_id, value } of f.cf) {
    const match = (t: typeof ticketCustomValues) => and(eq(t.field_id, field_id), eq(t.value, value))!;
    values.push(valueSet(db, ticketCustomValues, match, 'ticket_custom_values_lookup_idx'));
  }
  return { plain, text, values };
}

/**
 * A ticket's columns for a page read from `tickets INDEXED BY …` (a walk along priority): as SQL,
 * each decoded as its column is, since drizzle takes a column only from a table it was given.
 */
const WALK_FIELDS = Object.fromEntries(
  Object.entries(getTableColumns(tickets)).map(([name, column]) => [name, sql`${column}`.mapWith(column)]),
) as { [K in keyof typeof tickets.$inferSelect]: SQL<(typeof tickets.$inferSelect)[K]> };

/** Whether SQLite reads `q`'s rows and sorts them (its plan has a temporary B-tree for ORDER BY). */
function sortsInTemp(db: Db, q: { toSQL(): { sql: string; params: unknown[] } }): boolean {
  const { sql: text, params } = q.toSQL();
  const plan = db.$client.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[];
  return plan.some((r) => r.detail.includes('USE TEMP B-TREE FOR ORDER BY'));
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
 * - `cf.<key>` stays in its index: the count reads the index alone, the walk (and a count
 *   with other conditions) probes the value's lookup index for each ticket it reads, the page
 *   reads the set.
 * A list filtered by sets alone is counted without reading a ticket (`count` is undefined for
 * a lone `q`, whose size is the total). Exposed so the plans can be checked; the caller
 * releases the table (`release`).
 */
export function listQueries(db: Db, f: TicketListSpec, kept?: { conds: Conditions; lead: ValueSet | undefined }) {
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
  const { plain, text, values } = kept?.conds ?? conditions(db, f);
  let held = text ? holdText(db, f, text, newestFirst(f, values.length > 0) ? FIRST_ROWS : undefined) : undefined;
  const id = sql`${tickets.id}`;
  const lead = kept ? kept.lead : chooseLead(plain, held, values);
  // The lead as `id IN` the tickets in every set, found in the sets' indexes alone (decision 108);
  // with none, each set a probe of the ticket.
  const others = values.filter((v) => v !== lead);
  const leadSet = lead && others.length > 0 ? lead.among(others) : lead;
  const setConds = leadSet ? [sql`${id} IN ${leadSet.ids}`] : values.map((v) => v.has(id));
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
  let settled: Settled['counted'];
  if (held?.from !== undefined)
    ({
      held,
      partial,
      older,
      counted: settled,
    } = settleNewest(db, held, (rows) => holdText(db, f, text!, rows), {
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
  } else if (leadSet) {
    // Sets alone: counted in their indexes (the lead's entries, each probed in the others').
    count = leadSet.count;
    countUpTo = leadSet.capped;
  } else {
    count = countOf(tickets, countWhere);
    countUpTo = perCap((cap) => cappedCount(db, tickets, countWhere, cap));
  }
  const hasWalk = walkable && (held || values.length > 0);
  const built: { page?: PageQuery; walk?: PageQuery; pageAll?: PageQuery; walkAll?: PageQuery } = {};
  // A list by priority whose page SQLite would read and sort: a walk of the priority index beside
  // it (decision 108), chosen by walkOrSortPlain. The page's plan is asked once: a plain list keeps
  // its statements for its spec.
  const plainWalk =
    !held && values.length === 0 && priorityWalked(f) && sortsInTemp(db, (built.page ??= page(pageWhere)));
  const walkPage = (where: SQL | undefined): PageQuery =>
    db
      .select(WALK_FIELDS)
      .from(sql`${tickets} INDEXED BY tickets_priority_idx`)
      .where(and(where, sortCondition(f)))
      .orderBy(dir(order), dir(tickets.id))
      .limit(limit)
      .offset(offset);
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
      if (plainWalk) return (built.walk ??= walkPage(where));
      return hasWalk && !onPage ? (built.walk ??= page(walkOf(plain))) : undefined;
    },
    /** Whether the walk is of plain conditions (walkOrSortPlain chooses), not of a set's (walkOrSort). */
    plainWalk,
    /** The page, or its walk, when no ticket of the list is merged: without `status <> 'merged'`. */
    unmergedPage(walk: boolean): PageQuery {
      if (counted.length === plain.length) return walk ? this.walk! : this.page;
      if (walk) return (built.walkAll ??= plainWalk ? walkPage(countWhere) : page(walkOf(counted)));
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
      if (partial) upTo ??= f.countUpTo; // the held set is not the whole set: never counted as it
      // Held newest first, the set was kept because its tickets on the list reached the bound: the
      // count to it is known (a third count of the same tickets cost 0.6–1 ms with a status, issue 32).
      if (settled && upTo === f.countUpTo && settled.onList >= upTo! + settled.merged)
        return { counted: upTo! + settled.merged, merged: settled.merged, exact: false };
      const m = merged ? merged.get()!.n : 0;
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
 * The statements of the lists a connection answered lately, by spec: the same spec is the same
 * statements, so they are built and compiled once (issue 32: building a list's page and count
 * took a tenth of a JSON list's time; decision 106). A list whose value sets are sized against
 * the data to choose which one leads (chooseLead) keeps its conditions, their counts compiled, and
 * its statements for each choice: the sets are counted on each run, and a set that grew past
 * SET_LEADS_UNDER since gets the other statements (decision 108). A list with text holds its set
 * in a table of the moment: it is built each time.
 */
type KeptList = { conds: Conditions; byLead: Map<ValueSet | undefined, ReturnType<typeof listQueries>> };
const kept = new WeakMap<object, Map<string, KeptList>>();
/** How many lists a connection keeps: past it, the least recently used goes. */
const KEPT_LISTS = 100;

function queriesOf(db: Db, f: TicketListSpec): ReturnType<typeof listQueries> {
  if (f.q) return listQueries(db, f);
  const { parts: _parts, ...statements } = f;
  const key = JSON.stringify(statements);
  let byKey = kept.get(db.$client);
  if (!byKey) kept.set(db.$client, (byKey = new Map()));
  let list = byKey.get(key);
  if (list)
    byKey.delete(key); // set again below: most recently used last
  else {
    list = { conds: conditions(db, f), byLead: new Map() };
    if (byKey.size >= KEPT_LISTS) byKey.delete(byKey.keys().next().value!);
  }
  byKey.set(key, list);
  const lead = chooseLead(list.conds.plain, undefined, list.conds.values);
  let q = list.byLead.get(lead);
  if (!q) list.byLead.set(lead, (q = listQueries(db, f, { conds: list.conds, lead })));
  return q;
}

function listIn(db: Db, f: TicketListSpec) {
  const q = queriesOf(db, f);
  try {
    const c = q.counts(f.countUpTo);
    const { counted, merged, exact } = c;
    const total = counted - merged;
    const walk =
      q.walk !== undefined &&
      total > 0 &&
      (q.plainWalk ? walkOrSortPlain : walkOrSort)(q, c, ticketCount(db).get()!.n, q.offset + q.limit);
    const rows = total === 0 ? [] : pageRows(merged === 0 ? q.unmergedPage(walk) : walk ? q.walk! : q.page);
    // What the page shows beside its rows, in the same snapshot (decision 105).
    const parts = f.parts && rows.length > 0 ? readPageParts(db, rows, f.parts) : undefined;
    return { rows, total, exact, parts };
  } finally {
    q.release();
  }
}
