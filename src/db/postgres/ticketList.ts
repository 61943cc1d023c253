import { and, asc, desc, sql, type SQL } from 'drizzle-orm';
import type { PageParts } from '../shared/pageParts.js';
import { readPageParts } from './pageParts.js';
import { readableBy } from '../shared/staffText.js';
import type { Db } from '../port.js';
import type { TicketListSpec } from '../ticketListSpec.js';
import { pgHandle } from './handle.js';
import { listFilters } from '../shared/listFilters.js';
import { sortCondition, sortExpression } from '../shared/listSort.js';
import { containsPattern } from '../shared/like.js';
import { contradicts, type TotalAndPage } from '../shared/listTotal.js';
import { newestFirst } from '../shared/newestWords.js';
import { type WordPlan, wordPlan } from '../shared/words.js';
import { PLANNED_EACH_RUN_MARK } from './named.js';
import { newestWordPage, wordMatches } from './newestWords.js';
import { rowsOf } from './rows.js';
import { teamMembers, ticketCustomValues, tickets, ticketWatchers, transactions } from '../tables.js';

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

/** Past this many ids, a statement holding them is planned with them each run (decision 102). */
export const MANY_IDS = 100;

/**
 * Ids (integers from the database) as one array parameter; past MANY_IDS the statement is planned
 * with them each run: a generic plan takes an array for a few ids and probes the primary key for
 * each, where a thousand held tickets' own plan reads the sort's index until the page is full.
 */
function idArray(ids: number[]): SQL {
  const array = sql`${`{${ids.join(',')}}`}::int[]`;
  return ids.length > MANY_IDS ? sql`${array} ${sql.raw(PLANNED_EACH_RUN_MARK)}` : array;
}

/**
 * The tickets whose subject or messages contain `q` (internal notes only for readers who may
 * see them, decision 025: not `Comment` or `Rating`), as one array: a union of two index searches,
 * each through its trigram index. It is run once per list and its ids handed to the total and
 * the page: on a common word it is nearly all of a list's cost (0.4 s at 100k), which the total
 * and the page each paid when both held it as a subquery.
 */
export function textIdsQuery(f: TicketListSpec & { q: string }): SQL {
  const p = containsPattern(f.q);
  const visible = readableBy(f.includeComments, transactions.type);
  // The tickets of the people q named (decision 035), through ticket_watchers_user_idx.
  const people = f.qRequesterIds?.length
    ? sql` UNION SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ANY(${idArray(f.qRequesterIds)}) AND ${ticketWatchers.role} = 'requester'`
    : sql``;
  return sql`SELECT ARRAY(SELECT ${tickets.id} FROM ${tickets} WHERE ${tickets.subject} ILIKE ${p} UNION SELECT ${transactions.ticket_id} FROM ${transactions} WHERE ${transactions.body} ILIKE ${p}${visible}${people}) AS ids`;
}

/**
 * The tickets whose subject or messages hold q's words in a row, the last one as a prefix
 * (decision 084), through the tsvector GIN indexes of migration 0019_word_search (the expression
 * `hx_words(…)` is the indexes'). Internal notes and ratings only for readers who may see them.
 * Without the people q named: a word search that finds no text falls back to the substring search.
 */
export function wordIdsQuery(plan: WordPlan, opts: { includeComments: boolean; customerId?: number }): SQL {
  const found = wordMatches(plan, opts.includeComments);
  // A customer's search falls back on what their own tickets hold, as on SQLite (src/db/sqlite/ticketList.ts).
  if (opts.customerId === undefined) return sql`SELECT ARRAY(${found}) AS ids`;
  return sql`SELECT ARRAY(SELECT s.id FROM (${found}) AS s WHERE s.id IN (SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ${opts.customerId} AND ${ticketWatchers.role} IN ('requester', 'cc'))) AS ids`;
}

/** The tickets the people q named are requesters of (decision 035), through ticket_watchers_user_idx. */
function peopleIdsQuery(ids: number[]): SQL {
  return sql`SELECT ARRAY(SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ANY(${idArray(ids)}) AND ${ticketWatchers.role} = 'requester') AS ids`;
}

/** The ids of q's tickets: its words' (decision 084) when it is a search for words that finds some, else its text's. */
async function textIdsFor(db: PgDb, f: TicketListSpec & { q: string }): Promise<number[]> {
  const run = async (query: SQL) => (await pgHandle(db).execute<{ ids: number[] }>(query)).rows[0]?.ids ?? [];
  const plan = wordPlan(f.q);
  if (plan) {
    const ids = await run(wordIdsQuery(plan, f));
    if (ids.length > 0) {
      if (!f.qRequesterIds?.length) return ids;
      return [...new Set([...ids, ...(await run(peopleIdsQuery(f.qRequesterIds)))])];
    }
  }
  return run(textIdsQuery(f));
}

/**
 * A value a cf filter names is rare when at most this many tickets hold it: its tickets are then
 * read through the primary key (a few ms at most), else found by walking the sort's index (decision 088: at 100k
 * tickets the two cost the same near 1,300 tickets, at 1M near 4,000).
 */
export const CF_IDS = 2000;

/**
 * Per cf filter, how many tickets hold its value, counted up to CF_IDS + 1, in one statement,
 * each through ticket_custom_values_lookup_idx (index only, stopping past CF_IDS).
 */
export async function cfHolders(db: PgDb, cf: TicketListSpec['cf']): Promise<number[]> {
  if (!cf.length) return [];
  const cols = cf.map(
    ({ field_id, value }, i) =>
      sql`(SELECT count(*) FROM (SELECT 1 FROM ${ticketCustomValues} WHERE ${ticketCustomValues.field_id} = ${field_id} AND ${ticketCustomValues.value} = ${value} LIMIT ${CF_IDS + 1}) AS h)::int AS ${sql.raw(`c${i}`)}`,
  );
  const row = (await pgHandle(db).execute<Record<string, number>>(sql`SELECT ${sql.join(cols, sql`, `)}`)).rows[0];
  return cf.map((_, i) => row?.[`c${i}`] ?? 0);
}

/**
 * The WHERE condition of a list filter (authorization included); `textIds`: the tickets that
 * contain q; `holders`: per cf filter, its value's tickets up to past CF_IDS (cfHolders; none: common);
 * `shape`: a common cf value as the page reads it ('walk') or the count ('join').
 */
function listCondition(
  f: TicketListSpec,
  textIds?: number[],
  countsMerged = false,
  holders?: number[],
  shape: 'walk' | 'join' = 'walk',
): SQL | undefined {
  const conds = listFilters(
    f,
    {
      // The members as one array, as q and cf are below: PostgreSQL's form of the same subquery.
      ownerTeam: (teamId) =>
        sql`${tickets.owner_id} = ANY(ARRAY(SELECT ${teamMembers.user_id} FROM ${teamMembers} WHERE ${teamMembers.team_id} = ${teamId}))`,
    },
    { countsMerged },
  );
  if (f.q) {
    if (!textIds) throw new Error('a list with q needs the ids of textIdsQuery');
    // Read through the primary key: the planner cannot turn an array into a hash join over every
    // ticket (decision 027). The ids are integers from the database, passed as one array parameter.
    conds.push(sql`${tickets.id} = ANY(${idArray(textIds)})`);
  }
  const narrowed = conds.length > 0 || f.cf.length > 1;
  f.cf.forEach(({ field_id, value }, i) => {
    const rare = (holders?.[i] ?? Number.POSITIVE_INFINITY) <= CF_IDS;
    const holds = sql`${ticketCustomValues.ticket_id} = ${tickets.id} AND ${ticketCustomValues.field_id} = ${field_id} AND ${ticketCustomValues.value} = ${value}`;
    // A rare value (decision 088): its few tickets as one array, read through the primary key (as
    // q). A common one: the page walks the sort's index and probes ticket_custom_values_lookup_idx
    // per ticket, as a subquery the planner cannot turn into a hash join over every ticket (it did
    // for a value of 1 %: 141 ms at 100k); the count, a semi-join it merges with the primary key
    // and stops at the bound. (The array for every value read each holder's row to sort them:
    // 158 ms for the page of a value a sixth of 100k tickets hold.)
    if (rare)
      conds.push(
        sql`${tickets.id} = ANY(ARRAY(SELECT ${ticketCustomValues.ticket_id} FROM ${ticketCustomValues} WHERE ${ticketCustomValues.field_id} = ${field_id} AND ${ticketCustomValues.value} = ${value}))`,
      );
    else if (shape === 'walk') conds.push(sql`(SELECT true FROM ${ticketCustomValues} WHERE ${holds} LIMIT 1)`);
    // With another condition, planned with its values each run (decision 110): a generic plan
    // prices any value at a few tickets and drives the count from the value's index, probing every
    // holder's ticket against the others (a value a third of 100k tickets hold, with an owner's
    // 1,366 tickets: 33,331 probes, 55–72 ms). Alone, the count stops at the bound either way.
    else
      conds.push(
        narrowed
          ? sql`EXISTS (SELECT 1 FROM ${ticketCustomValues} WHERE ${holds}) ${sql.raw(PLANNED_EACH_RUN_MARK)}`
          : sql`EXISTS (SELECT 1 FROM ${ticketCustomValues} WHERE ${holds})`,
      );
  });
  return conds.length ? and(...conds) : undefined;
}

/** From this offset on, a page reads its ids before its rows. */
export const DEFER_FROM = 500;

/** The page and the count of a list (exported for the plan check); `textIds`: see textIdsQuery. */
export function listQueries(db: PgDb, f: TicketListSpec, textIds?: number[], holders?: number[]) {
  const where = listCondition(f, textIds, false, holders, 'walk');
  const dir = f.desc ? desc : asc;
  // No NULLS clause: every sort expression is NOT NULL (src/db/shared/listSort.ts), and one other
  // than the index's own would make PostgreSQL sort every matching row (tests/pg-store-plans.test.ts).
  const col = sortExpression(f);
  // The page's rows: a list by `created` names the condition of its partial indexes (decision 107).
  const pageWhere = and(where, sortCondition(f));
  // SPEC D3 (decision 076): a list with no status filter leaves merged tickets out. Its count
  // counts as before (an index alone, decision 031) and takes away the merged tickets among
  // them, found through their partial index: `status <> 'merged'` would read every row.
  const noStatus = !f.status?.length && !f.statusByQueue;
  const all = listCondition(f, textIds, noStatus, holders, 'join');
  const merged = noStatus
    ? sql`(SELECT count(*) FROM ${tickets} WHERE ${and(all, sql`${tickets.merged_into} IS NOT NULL`)})`
    : sql`0`;
  return {
    page:
      f.offset < DEFER_FROM
        ? db.select().from(tickets).where(pageWhere).orderBy(dir(col), dir(tickets.id)).limit(f.limit).offset(f.offset)
        : // A deep page: its ids first, from the sort's index alone where it holds the filter's
          // columns (migration 0023), then their 50 rows: the rows skipped are not read (decision 088).
          db
            .select()
            .from(tickets)
            .where(
              sql`${tickets.id} = ANY(ARRAY(${db.select({ id: tickets.id }).from(tickets).where(pageWhere).orderBy(dir(col), dir(tickets.id)).limit(f.limit).offset(f.offset)}))`,
            )
            .orderBy(dir(col), dir(tickets.id)),
    count: db
      .select({ n: sql<number>`(count(*) - ${merged})::int` })
      .from(tickets)
      .where(all),
    /**
     * Decision 085 in one statement (decision 088): the merged tickets a list with no status takes
     * away (few, through their partial index; 0 otherwise), and the list's own tickets before they
     * are taken away, counted up to `cap` plus those: reading stops there, however many match.
     */
    countUpTo: (cap: number) =>
      pgHandle(db).execute<{ merged: number; counted: number }>(
        sql`WITH m AS MATERIALIZED (SELECT ${merged}::int AS n) SELECT (SELECT n FROM m) AS merged, (SELECT count(*)::int FROM (SELECT 1 FROM ${tickets} WHERE ${all ?? sql`true`} LIMIT ${cap} + (SELECT n FROM m)) AS c) AS counted`,
      ),
  };
}

/**
 * Runs `read` on a connection of its own in one snapshot (a read-only REPEATABLE READ
 * transaction), as a read: it waits for the reads' share of the pool (decision 066).
 */
export type InSnapshot = <T>(read: (db: PgDb) => Promise<T>) => Promise<T>;

export async function listTickets(db: PgDb, f: TicketListSpec, inSnapshot?: InSnapshot) {
  let textIds: number[] | undefined;
  if (f.q) {
    // Held newest first (decision 093), the held set was shown to reach the bound: only the page
    // is read, from the tickets it can hold.
    const page = await newestWords(db, f);
    if (page) {
      const rows = (await rowsOf(listQueries(db, f, page).page)) as TicketRow[];
      return { rows, total: f.countUpTo!, exact: false, parts: await partsOf(db, rows, f) };
    }
    textIds = await textIdsFor(db, { ...f, q: f.q });
    if (textIds.length === 0) return { rows: [], total: 0, exact: true };
  }
  const holders = await cfHolders(db, f.cf);
  if (holders.includes(0)) return { rows: [], total: 0, exact: true };
  // The total and the page side by side, each on a connection of its own (decision 088: a round
  // trip less a list); a page read for a list that turns out empty finds nothing, cheaply.
  let read = await totalAndPage(db, f, textIds, holders);
  // Two connections, two snapshots: a change committed between them can leave a page that
  // contradicts its total ("1 ticket" over an empty page). Such a list is read again, both in one
  // snapshot (decision 096); a change between them that leaves no contradiction is a list as it
  // was a moment earlier or later, as any list is.
  if (contradicts(f, read) && inSnapshot) read = await inSnapshot((s) => totalAndPage(s, f, textIds, holders));
  const { total, exact, page } = read;
  const rows = (total === 0 || (exact && f.offset >= total) ? [] : page) as TicketRow[];
  return { rows, total, exact, parts: await partsOf(db, rows, f) };
}

type TicketRow = typeof tickets.$inferSelect;

/** What the list asks for beside its page, in one statement after it (decision 112); none for an empty page. */
const partsOf = async (db: PgDb, rows: TicketRow[], f: TicketListSpec): Promise<PageParts | undefined> =>
  f.parts && rows.length > 0 ? readPageParts(db, rows, f.parts) : undefined;

async function totalAndPage(
  db: PgDb,
  f: TicketListSpec,
  textIds?: number[],
  holders?: number[],
): Promise<TotalAndPage> {
  const q = listQueries(db, f, textIds, holders);
  const bound = f.countUpTo;
  const [counted, page] = await Promise.all([
    bound === undefined
      ? q.count.then((r) => ({ total: r[0]?.n ?? 0, exact: true }))
      : q.countUpTo(bound).then(({ rows: [c] }) => ({
          total: (c?.counted ?? 0) - (c?.merged ?? 0),
          exact: (c?.counted ?? 0) < bound + (c?.merged ?? 0),
        })),
    rowsOf(q.page),
  ]);
  return { ...counted, page };
}

/**
 * A staff word search sorted newest first (decision 093): the tickets its page is read from when
 * those held from the newest matches down give the list's bounded count and page; undefined: the
 * whole set is read. Exported for the tests, which check which way a list went.
 */
export async function newestWords(db: PgDb, f: TicketListSpec): Promise<number[] | undefined> {
  const plan = f.q ? wordPlan(f.q) : undefined;
  if (!plan || !newestFirst(f, f.cf.length > 0 || !!f.tags?.length || !!f.tagsAny?.length)) return undefined;
  const people = f.qRequesterIds?.length
    ? ((await pgHandle(db).execute<{ ids: number[] }>(peopleIdsQuery(f.qRequesterIds))).rows[0]?.ids ?? [])
    : [];
  const dir = f.desc ? desc : asc;
  const col = sortExpression(f);
  const plainQ = { ...f, q: undefined };
  // With nothing but q to count by (merged ones counted in), the held set's size is its count.
  const bySize = listCondition(plainQ, undefined, true) === undefined;
  return newestWordPage(db, {
    f,
    plan,
    plain: listCondition(plainQ),
    people,
    measure: async (held, cap) => {
      const [counted, top] = await Promise.all([
        bySize
          ? db
              .select({ n: sql<number>`count(*)::int` })
              .from(tickets)
              .where(sql`${tickets.merged_into} IS NOT NULL AND ${tickets.id} = ANY(${idArray(held)})`)
              .then(([m]) => ({ counted: held.length, merged: m?.n ?? 0 }))
          : listQueries(db, f, held)
              .countUpTo(cap)
              .then(({ rows: [c] }) => ({ counted: c?.counted ?? 0, merged: c?.merged ?? 0 })),
        db
          .select({ key: col, id: tickets.id })
          .from(tickets)
          .where(and(listCondition(f, held), sortCondition(f)))
          .orderBy(dir(col), dir(tickets.id))
          .limit(f.offset + f.limit),
      ]);
      return { ...counted, top: top as { key: unknown; id: number }[] };
    },
  });
}
