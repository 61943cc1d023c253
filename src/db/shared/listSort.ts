import { sql, type SQL } from 'drizzle-orm';
import type { TicketListSpec } from '../ticketListSpec.js';
import { tickets } from '../tables.js';

// The order of a ticket list, in SQL both stores speak alike. A plain sort is a column with an
// index of its own; every one is NOT NULL, so NULL ordering (SQLite's and PostgreSQL's differ)
// does not arise, and no NULLS clause is needed (one other than the index's own would make
// PostgreSQL sort every matching row instead of reading the page off the index).
const SORT_COLUMNS = {
  id: tickets.id,
  created: tickets.created_at,
  updated: tickets.updated_at,
  priority: tickets.priority,
};

// The ranked sorts of a ticket list (status, owner, queue; decision 055), in SQL both stores
// speak alike: the domain hands the order of the values (the lifecycle, staff and queues by
// name: small tables, sorted once in JavaScript, so both stores order alike whatever their
// collation), and the list orders by each ticket's place in it. No index serves such an order:
// the store reads the filtered set and keeps the page (a top-N sort).

const RANKED = { status: '"tickets"."status"', owner: '"tickets"."owner_id"', queue: '"tickets"."queue_id"' } as const;

/** Whether a sort is ranked (no sort index: never walked). */
export const isRanked = (sort: TicketListSpec['sort']): sort is keyof typeof RANKED => sort in RANKED;

type Entry = { v: string | number; rank: number };

/** A value as SQL text: an integer id, or a status (lower-case letters, from the lifecycle). */
function literal(v: string | number): string {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`not an id: ${v}`);
    return String(v);
  }
  if (!/^[a-z_]{1,40}$/.test(v)) throw new Error(`not a status: ${v}`);
  return `'${v}'`;
}

function oneByOne(col: string, entries: Entry[], other: number): string {
  if (entries.length === 0) return String(other);
  return `CASE ${col}${entries.map((e) => ` WHEN ${literal(e.v)} THEN ${e.rank}`).join('')} ELSE ${other} END`;
}

/** Ids by halving: about log2(n) comparisons a ticket instead of n (60 owners one by one: 2× the sort's cost). */
function halving(col: string, sorted: Entry[], other: number): string {
  if (sorted.length <= 4) return oneByOne(col, sorted, other);
  const mid = Math.floor(sorted.length / 2);
  return `CASE WHEN ${col} < ${literal(sorted[mid].v)} THEN ${halving(col, sorted.slice(0, mid), other)} ELSE ${halving(col, sorted.slice(mid), other)} END`;
}

// The last few expressions, by sort and order: a list page asks for the same one again and again.
const built = new Map<string, string>();

/**
 * `CASE` giving each ticket its place: `values[i]` at i, no value at `nullRank`, anything else
 * after the values. Written as SQL text of literals (ids and statuses, checked above): as drizzle
 * parameters, building the expression for 60 owners cost more than running the list.
 */
export function rankExpression(f: TicketListSpec): SQL {
  if (!isRanked(f.sort) || !f.ranks) throw new Error(`sort ${f.sort} needs its ranks`);
  const key = `${f.sort}|${f.ranks.nullRank}|${f.ranks.values.join(',')}`;
  let text = built.get(key);
  if (text === undefined) {
    const col = RANKED[f.sort];
    const other = f.ranks.values.length;
    const entries = f.ranks.values.map((v, rank) => ({ v, rank }));
    const found = entries.every((e) => typeof e.v === 'number')
      ? halving(
          col,
          [...entries].sort((a, b) => Number(a.v) - Number(b.v)),
          other,
        )
      : oneByOne(col, entries, other);
    text = `(CASE WHEN ${col} IS NULL THEN ${Math.trunc(f.ranks.nullRank)} ELSE ${found} END)`;
    if (built.size >= 32) built.clear();
    built.set(key, text);
  }
  return sql.raw(text);
}

// SPEC D2 `sort=due`: by the earliest due time of a running clock, and a ticket with none last
// either way — a text past every ISO time ascending, before every one descending (never NULL, as
// the other sorts). No index serves it (most tickets have no due time): never walked.
const DUE_ASC = sql.raw(`coalesce("tickets"."next_due_at", '~')`);
const DUE_DESC = sql.raw(`coalesce("tickets"."next_due_at", '')`);

/** Whether a list in this order may be walked along a sort index (src/db/sqlite/ticketList.ts). */
export const isWalkable = (sort: TicketListSpec['sort']): boolean => !isRanked(sort) && sort !== 'due';

/**
 * Decision 107: the indexes for a list by `created` after a status or a queue are partial, on a
 * condition every ticket meets; a list by `created` names it beside its filter (`sortCondition`),
 * so that it may read its page from them, and no other query can take them. A period of creation
 * names it too (decision 109): its tickets after a status or a queue are then a range of them.
 */
export const OLDEST_FIRST = sql`${tickets.created_at} > ''`;

/** What a list's page adds to its filter for its order: OLDEST_FIRST by `created`, else nothing. */
export const sortCondition = (f: Pick<TicketListSpec, 'sort'>): SQL | undefined =>
  f.sort === 'created' ? OLDEST_FIRST : undefined;

/** What a list is ordered by (before the ticket's id): its sort column, or a ranked sort's `CASE` (never NULL either). */
export const sortExpression = (f: TicketListSpec): SQL | (typeof SORT_COLUMNS)[keyof typeof SORT_COLUMNS] =>
  f.sort === 'due' ? (f.desc ? DUE_DESC : DUE_ASC) : isRanked(f.sort) ? rankExpression(f) : SORT_COLUMNS[f.sort];
