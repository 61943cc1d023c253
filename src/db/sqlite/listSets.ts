import { and, sql, type SQL } from 'drizzle-orm';
import { alias, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { NOT_MERGED } from '../shared/listFilters.js';
import type { Db } from './handle.js';
import type { HeldIds } from './idsets.js';
import { fastPrepared, type SyncPrepared } from './rows.js';
import type { ticketCustomValues, ticketTags } from './schema.js';

// The counts and value sets of a SQLite ticket list (./ticketList.ts): a `cf.<key>` value or a
// tag as a set of ticket ids that either leads the list's reading or is probed per ticket, and
// the statements a list kept for its spec (decision 106) runs compiled again.

/** A query drizzle built, compiled once (./rows.ts): again for a list kept for its spec (listTickets). */
const compiled = new WeakMap<object, SyncPrepared>();
export const compiledOnce = (q: { prepare(): unknown }): SyncPrepared => {
  let stmt = compiled.get(q);
  if (!stmt) compiled.set(q, (stmt = fastPrepared(q.prepare() as Parameters<typeof fastPrepared>[0])));
  return stmt;
};

/** What a list may count with: the total as a one-row `{ n }` statement. */
export interface CountQuery {
  get(): { n: number } | undefined;
  toSQL(): { sql: string; params: unknown[] };
}

/** A count drizzle built, compiled on its first run (compiledOnce). */
export const countOnce = (q: { prepare(): unknown; toSQL(): { sql: string; params: unknown[] } }): CountQuery => ({
  get: () => compiledOnce(q).get() as { n: number } | undefined,
  toSQL: () => q.toSQL(),
});

/** `build(cap)` once per cap: the counts up to a bound a list kept for its spec runs again. */
export function perCap(build: (cap: number) => CountQuery): (cap: number) => CountQuery {
  const byCap = new Map<number, CountQuery>();
  return (cap) => {
    let q = byCap.get(cap);
    if (!q) byCap.set(cap, (q = build(cap)));
    return q;
  };
}

/**
 * At most `cap` of the rows of `from` that meet `cond`, counted (decision 085): the count stops
 * reading its index after `cap` entries, whatever the list's size.
 */
export function cappedCount(
  db: Db,
  from: SQL | SQLiteTable,
  cond: SQL | undefined,
  cap: number,
  /** What is counted: a row (`1`), or each distinct value of a column (`DISTINCT ticket_id`). */
  what: SQL = sql`1`,
): CountQuery {
  const where = cond ? sql` WHERE ${cond}` : sql``;
  return countOnce(
    db.select({ n: sql<number>`count(*)` }).from(sql`(SELECT ${what} FROM ${from}${where} LIMIT ${cap})`),
  );
}

/**
 * A `cf.<key>` filter, a tag, or the tags of `tag_any` together: its ticket ids in the lookup
 * index, a test of one ticket (the walk), and its size counted in the index alone (every id in it
 * is a ticket's).
 */
export interface ValueSet {
  ids: SQL;
  has: (id: SQL) => SQL;
  count: CountQuery;
  /** The same count, up to `cap` index entries (decision 085). */
  capped: (cap: number) => CountQuery;
  /**
   * The set's entries in its index, up to `cap` when given: its size, or more when a ticket is
   * in it twice (any of two tags). What chooses the lead: counting each ticket once costs more.
   */
  entries: (cap?: number) => CountQuery;
  /**
   * The tickets in this set and in each of `others` (decision 108): this set's index read, each
   * of its tickets probed in the others' indexes. No ticket row is read, and a list led by this
   * set then reads only the tickets in all of them.
   */
  among: (others: ValueSet[]) => Pick<ValueSet, 'ids' | 'count' | 'capped'>;
}

/**
 * A set of tickets kept in a table of (ticket_id, …) rows — a `cf.<key>` value, a tag — read as
 * a ValueSet: its ids and counts from the rows meeting `match` (their lookup index), and a probe
 * of one ticket through `probeIndex`, named. The probe's index holds every column the probe
 * tests, so a probe is one seek (decision 108): for a tag the primary key (ticket_id, tag), for a
 * custom value its lookup index (field_id, value, ticket_id), where the primary key (ticket_id,
 * field_id) left the value in the table row, a second read per probe. Named, because on a
 * database without statistics for the table (never analysed) SQLite otherwise builds an automatic
 * index of every value for each list (45 ms at 10k tickets instead of 0.7). `LIMIT 1` keeps it a
 * probe: SQLite 3.53 turns a bare EXISTS into a join with a Bloom filter over every entry of the
 * value, built per run (3.4 ms a page at 100k, issue 32).
 */
export function valueSet<T extends typeof ticketTags | typeof ticketCustomValues>(
  db: Db,
  table: T,
  matchOf: (t: T) => SQL,
  probeIndex: 'sqlite_autoindex_ticket_tags_1' | 'ticket_custom_values_lookup_idx',
  /** A ticket may be in the table more than once (any of several tags): its tickets counted once each. */
  opts: { distinct?: boolean } = {},
): ValueSet {
  /**
   * The set's ids, counts and counts up to a bound, from `t` (the table, or an alias of it) where
   * `where`; `from` is `t` as a FROM clause written by hand (cappedCount) names it. `distinct`:
   * each ticket counted once.
   */
  const setOf = (t: T, where: SQL, from: SQL | T = t, distinct = opts.distinct) => ({
    ids: sql`${db.select({ id: t.ticket_id }).from(t).where(where)}`,
    count: countOnce(
      db
        .select({ n: distinct ? sql<number>`count(DISTINCT ${t.ticket_id})` : sql<number>`count(*)` })
        .from(t)
        .where(where),
    ),
    capped: perCap((cap) => cappedCount(db, from, where, cap, distinct ? sql`DISTINCT ${t.ticket_id}` : undefined)),
  });
  const match = matchOf(table);
  const set = setOf(table, match);
  // The index entries: the set itself, unless a ticket may be in it twice.
  const inIndex = opts.distinct ? setOf(table, match, table, false) : set;
  return {
    ...set,
    entries: (cap) => (cap === undefined ? inIndex.count : inIndex.capped(cap)),
    has: (id) =>
      sql`EXISTS (SELECT 1 FROM ${table} INDEXED BY ${sql.raw(probeIndex)} WHERE ${table.ticket_id} = ${id} AND ${match} LIMIT 1)`,
    among: (others) => {
      // Named apart: another set's probe may read the same table (two tags).
      const lead = alias(table, 'lead_set') as unknown as T;
      const where = and(matchOf(lead), ...others.map((o) => o.has(sql`${lead.ticket_id}`)))!;
      return setOf(lead, where, sql`${table} AS ${sql.identifier('lead_set')}`);
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
 * Which value set, if any, leads the list as `id IN (set)` (the others are an EXISTS probe per
 * ticket): the smallest, when it is under SET_LEADS_UNDER, or whatever its size when nothing else
 * narrows the list (no plain condition but `status <> 'merged'`, no held text). With other
 * conditions, or more than one set, the sets are counted to choose. A list kept for its spec
 * (./ticketList.ts) chooses again on each run, through counts compiled once, and keeps its
 * statements for each choice (decision 108).
 */
export function chooseLead(plain: SQL[], held: HeldIds | undefined, values: ValueSet[]): ValueSet | undefined {
  if (values.length === 0 || held) return undefined;
  const narrowed = plain.some((c) => c !== NOT_MERGED);
  if (!narrowed && values.length === 1) return values[0];
  // Sets alone: the smallest leads, whatever the sizes (each counted whole in its index).
  const size = (v: ValueSet) => v.entries(narrowed ? SET_LEADS_UNDER : undefined).get()!.n;
  const sized = values.map((v) => ({ v, n: size(v) })).sort((a, b) => a.n - b.n);
  return !narrowed || sized[0].n < SET_LEADS_UNDER ? sized[0].v : undefined;
}
