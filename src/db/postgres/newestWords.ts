import { and, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../port.js';
import type { TicketListSpec } from '../ticketListSpec.js';
import { MAX_OLD_CANDIDATES, MAX_OLD_WALK, type NewestSort, OLD_CHUNK, walksOlder } from '../shared/newestWords.js';
import { readableBy } from '../shared/staffText.js';
import type { WordPlan } from '../shared/words.js';
import { tickets, transactions } from '../tables.js';
import { pgHandle } from './handle.js';

// A word search newest first on PostgreSQL (decision 093; SQLite's form is decision 092): a staff
// list of a common word sorted newest first needs its page and a count up to its bound, not every
// match. GIN gives its matches in no order, so the word indexes whose words carry their ticket's
// id range (migration 0025, decision 101) are asked for the newest ranges only: GIN reads those
// ranges' postings, not the whole word's; the tickets below them that could still sort onto the page (an old ticket updated
// lately) are few, found through the sort's index, and their texts tested one by one.
// Whenever that cannot be shown to give the page and the count of the whole set, the whole set is
// read, as before.

/** Tickets (ids from the newest down) whose matches the first try reads. */
export const FIRST_SPAN = 4_000;
/**
 * At most this many on a second try, which reads as many tickets as the first try's share of
 * matches on the list says the bound needs (with a quarter more); past it, the whole set is read.
 * 64,000 (decision 111): a filter that keeps an eighth of a common word's tickets (a queue, a
 * team) needs ~35,000 at 100k, and read whole the word cost 124–150 ms.
 */
export const MAX_SPAN = 64_000;

/**
 * The span of a second try after a first of `span` tickets found `counted` on the list, short of
 * `bound` (merged ones counted in): the span that share says reaches it, with a quarter more;
 * undefined past MAX_SPAN (the whole set is read instead).
 */
export function secondSpan(span: number, bound: number, counted: number): number | undefined {
  const need = Math.ceil(((span * bound) / Math.max(counted, 1)) * 1.25);
  return need > MAX_SPAN ? undefined : need;
}

const SORTS = { updated: tickets.updated_at, created: tickets.created_at, id: tickets.id } as const;

type Run = (query: SQL) => Promise<Record<string, unknown>[]>;

/** q's words as one tsquery: in a row, the last one a prefix (decision 084). */
export function wordTsQuery(plan: WordPlan): SQL {
  const query = plan.words.map((w, i) => (i === plan.words.length - 1 ? `${w}:*` : w)).join(' <-> ');
  return sql`to_tsquery('hx_words', ${query})`;
}

/**
 * The tickets whose subject or messages (those the reader may see) hold q's words, among the
 * tickets `among` admits (a condition on a ticket id column). Without `rowByRow`: through 0022's
 * GIN indexes (the whole set; the newest tickets' matches are rangeMatches'). `rowByRow`: each
 * text of the few tickets `among` names is tested itself, after a cheap test that keeps every text the words could match
 * (the longest word somewhere in the text, both folded by unaccent and lower, as the index folds
 * words): hx_words costs ~40 µs a message, and the GIN scan of a common word ~14 ms at 100k
 * whatever else narrows it.
 */
export function wordMatches(plan: WordPlan, includeComments: boolean, among?: (id: SQL) => SQL, rowByRow = false): SQL {
  const tsq = wordTsQuery(plan);
  const longest = plan.words.reduce((a, b) => (b.length > a.length ? b : a));
  const test = (text: SQL) =>
    rowByRow
      ? // `|| ''` keeps the GIN index out of it: otherwise the planner's estimate of the word
        // decides, and a common word's GIN scan costs more than every candidate's text.
        sql`strpos(lower(unaccent(${text})), lower(unaccent(${longest}::text))) > 0 AND hx_words(${text} || '') @@ ${tsq}`
      : sql`hx_words(${text}) @@ ${tsq}`;
  return textsWhere(includeComments, (text, id) => (among ? sql`${test(text)} AND ${among(id)}` : test(text)));
}

/**
 * The tickets whose subject, or a message the reader may see, passes `test` (given the text and
 * its ticket's id column): one index search of each, as a union.
 */
function textsWhere(includeComments: boolean, test: (text: SQL, id: SQL) => SQL): SQL {
  const visible = readableBy(includeComments, transactions.type);
  return sql`SELECT ${tickets.id} AS id FROM ${tickets} WHERE ${test(sql`${tickets.subject}`, sql`${tickets.id}`)} UNION SELECT ${transactions.ticket_id} FROM ${transactions} WHERE ${transactions.body} IS NOT NULL AND ${test(sql`${transactions.body}`, sql`${transactions.ticket_id}`)}${visible}`;
}

/** What newestWordPage asks of the list it is part of. */
export interface NewestList {
  f: TicketListSpec;
  plan: WordPlan;
  /** The list's conditions without q (authorization and `status <> 'merged'` included). */
  plain: SQL | undefined;
  /** The tickets of the people q named (decision 035): held whatever their id. */
  people: number[];
  /**
   * For a held set: its tickets on the list (merged ones counted) up to `cap`, the merged ones
   * among them, and its first `offset + limit` tickets on the list in the list's order (sort
   * value and id): the page's and those before it.
   */
  measure: (
    held: number[],
    cap: number,
  ) => Promise<{ counted: number; merged: number; top: { key: unknown; id: number }[] }>;
}

/**
 * The tickets a newest-first word search's page is read from, when the held set gives the list's
 * bounded count and page (the count is then the bound, not exact); undefined when it must read
 * the whole set. They are the held set's first `offset + limit` on the list and the older ones
 * that match: the list's first `offset + limit` are among them.
 * It gives them when:
 * - its tickets on the list reach the bound (merged ones taken away: held tickets are the whole
 *   set's, so the whole list holds at least as many);
 * - every ticket below `from` that sorts no later than the page's last held one is tested
 *   against q's words and held when it matches, newest first until the page is settled (at most
 *   MAX_OLD_WALK of them, or MAX_OLD_CANDIDATES when the word is rarer than that needs; decision
 *   116). Any ticket of the whole set on the page is then held: one not held is below `from`, and
 *   it sorts before the page's end, which the held set's own page end can only follow.
 */
export async function newestWordPage(db: Db, list: NewestList): Promise<number[] | undefined> {
  const run: Run = async (query) => (await pgHandle(db).execute<Record<string, unknown>>(query)).rows;
  const { f, plan } = list;
  const bound = f.countUpTo!;
  if (plan.words.some((w) => w.length > MAX_RANGED_WORD)) return undefined;
  let span = FIRST_SPAN;
  let found: number[] = [];
  /** The newest id, and where the ranges read so far start: a second try reads only the ranges below. */
  let newest = 0;
  let below: number | undefined;
  for (let step = 0; step < 2; step++) {
    // The ranges' matches, and where they start (the newest `span` ids and the rest of their range): one statement.
    const [r] = await run(rangeMatches(plan, f.includeComments, span, below));
    const from = Number(r?.lo ?? 0);
    if (from <= 1) return undefined; // the range was every ticket: the whole set, as before
    if (below === undefined) newest = Number(r?.hi ?? 0);
    span = newest + 1 - from;
    below = from;
    found = [...found, ...((r?.ids as number[] | undefined) ?? [])];
    // None in the range: whether the words match anything (or q falls back to its text) is the whole set's to say.
    if (found.length === 0) return undefined;
    const held = [...new Set([...found, ...list.people])];
    const m = await list.measure(held, bound);
    const end = m.top[f.offset + f.limit - 1];
    if (m.counted >= bound + m.merged) {
      if (!end) return undefined;
      const older = await olderMatches(run, list, from, end, held);
      if (older === undefined) return undefined;
      return [...m.top.map((t) => t.id), ...older];
    }
    const next = step === 0 ? secondSpan(span, bound + m.merged, m.counted) : undefined;
    if (next === undefined) return undefined;
    span = next;
  }
  return undefined;
}

/**
 * Those of the list's tickets below `from` that sort before the page's `end` (a later value, or
 * the same one and a higher id) which q's words match, as far as the page needs them; undefined
 * when the page is not settled within MAX_OLD_WALK of them, or MAX_OLD_CANDIDATES.
 * Newest first, OLD_CHUNK at a time, until `offset + limit` of them are held (matched, or a ticket
 * of a person q named): every one not tested yet sorts after those (decision 116). Only when the
 * word's share of the `held` tickets says the page fills within MAX_OLD_WALK (walksOlder);
 * otherwise they are counted first, and tested only when at most MAX_OLD_CANDIDATES (decision
 * 093): a rarer word tests no text for nothing.
 */
async function olderMatches(
  run: Run,
  list: NewestList,
  from: number,
  end: { key: unknown; id: number },
  held: number[],
): Promise<number[] | undefined> {
  const { f } = list;
  if (f.sort === 'id') return []; // below `from` is after the page
  const sort = f.sort as Exclude<NewestSort, 'id'>;
  const need = f.offset + f.limit;
  const newest = held.reduce((a, b) => Math.max(a, b), 0);
  if (!walksOlder(need, from, newest, held.length)) {
    const older = olderTickets(sort, list.plain, from, end, undefined, MAX_OLD_CANDIDATES + 1);
    const [r] = await run(candidatesMatching(older, list.plan, f.includeComments));
    if (Number(r?.n ?? 0) > MAX_OLD_CANDIDATES) return undefined;
    return (r?.ids as number[] | null) ?? [];
  }
  const people = new Set(list.people);
  const older: number[] = [];
  let settled = 0;
  let after: { key: unknown; id: number } | undefined;
  for (let walked = 0; walked < MAX_OLD_WALK; ) {
    const chunk = await run(
      chunkMatching(olderTickets(sort, list.plain, from, end, after), list.plan, f.includeComments),
    );
    walked += chunk.length;
    for (const r of chunk) {
      const id = Number(r.id);
      if (r.hit) older.push(id);
      if (r.hit || people.has(id)) settled += 1;
    }
    if (settled >= need || chunk.length < OLD_CHUNK) return older;
    const last = chunk[chunk.length - 1]!;
    after = { key: last.key, id: Number(last.id) };
  }
  return undefined;
}

/**
 * Ticket ids a range of migration 0025's indexes covers (`id >> 11`): their lexemes carry the
 * range (`46|password`), so a word's matches in the newest ranges are read without its others.
 */
export const RANGE_BITS = 11;
/** A word this long (folded) goes to the whole set: 0025's indexes leave out lexemes of 2,040 bytes or more. */
export const MAX_RANGED_WORD = 500;

/**
 * The matches (`ids`) of the newest `span` tickets, widened down to the first id of their range
 * (`lo`), and the newest id (`hi`), in one statement (exported for its plan check). q's tsquery is
 * asked of each range from lo's to hi's (`'46|password':* | '47|password':*`) in migration 0025's
 * indexes: GIN reads those ranges' postings only (decision 101), and every id of a range is in it.
 * `below` (a second try: where the first one's ranges start): only the ranges below it, one at
 * least, and `hi` is the last id below it.
 */
export function rangeMatches(plan: WordPlan, includeComments: boolean, span: number, below?: number): SQL {
  const q = sql`(SELECT t.q FROM t)`;
  const bits = sql.raw(String(RANGE_BITS));
  // Each quoted lexeme of q's tsquery text ('' is a quote inside one) gets the range's prefix.
  const ranged = sql`(SELECT string_agg('(' || regexp_replace(${wordTsQuery(plan)}::text, ${"'((?:[^']|'')*)'"}::text, ${"'"}::text || r::text || ${"|\\1'"}::text, 'g') || ')', ' | ') FROM generate_series(m.lo >> ${bits}, m.hi >> ${bits}) AS r)::tsquery`;
  const start = sql`(greatest(coalesce(max(${tickets.id}), 0) + 1 - ${span}::int, 0) >> ${bits}) << ${bits}`;
  // Below the ranges a first try read (`below`, where they start): one range more at least.
  const bounds =
    below === undefined
      ? sql`SELECT ${start} AS lo, coalesce(max(${tickets.id}), 0) AS hi FROM ${tickets}`
      : sql`SELECT greatest(least(${start}, ${below}::int - ${1 << RANGE_BITS}), 0) AS lo, ${below}::int - 1 AS hi FROM ${tickets}`;
  const matches = textsWhere(includeComments, (text, id) => sql`hx_ranged_words(${text}, ${id}) @@ ${q}`);
  return sql`WITH t AS MATERIALIZED (SELECT m.lo, m.hi, ${ranged} AS q FROM (${bounds}) AS m) SELECT (SELECT t.lo FROM t) AS lo, (SELECT t.hi FROM t) AS hi, ARRAY(${matches}) AS ids`;
}

/**
 * How many tickets `older` gives (`n`) and, when at most MAX_OLD_CANDIDATES, those q's words match
 * (`ids`), each tested row by row: a CASE's subquery runs only when its branch does (exported for its plan check).
 */
export function candidatesMatching(older: SQL, plan: WordPlan, includeComments: boolean): SQL {
  return sql`WITH o AS MATERIALIZED (${older}) SELECT (SELECT count(*)::int FROM o) AS n, CASE WHEN (SELECT count(*) FROM o) <= ${MAX_OLD_CANDIDATES} THEN ARRAY(${wordMatches(plan, includeComments, (id) => sql`${id} = ANY(ARRAY(SELECT o.id FROM o))`, true)}) END AS ids`;
}

/**
 * The tickets of `chunk` (olderTickets') in its order, each with its key and whether q's words
 * match it (`hit`), tested row by row (exported for its plan check).
 */
export function chunkMatching(chunk: SQL, plan: WordPlan, includeComments: boolean): SQL {
  const hits = wordMatches(plan, includeComments, (id) => sql`${id} = ANY(ARRAY(SELECT o.id FROM o))`, true);
  return sql`WITH o AS MATERIALIZED (${chunk}) SELECT o.id, o.key, o.id = ANY(ARRAY(${hits})) AS hit FROM o ORDER BY o.key DESC, o.id DESC`;
}

/**
 * The older tickets that sort onto the page, in the list's order (newest first) through the sort's
 * index, from after `after` (the last one read before) on; `limit` of them (exported for its plan
 * check).
 */
export function olderTickets(
  sort: Exclude<NewestSort, 'id'>,
  plain: SQL | undefined,
  from: number,
  end: { key: unknown; id: number },
  after?: { key: unknown; id: number },
  limit = OLD_CHUNK,
): SQL {
  const column = SORTS[sort];
  const next = after && sql`(${column}, ${tickets.id}) < (${after.key}, ${after.id})`;
  return sql`SELECT ${tickets.id} AS id, ${column} AS key FROM ${tickets} WHERE ${and(plain, sql`${tickets.id} < ${from}`, sql`(${column}, ${tickets.id}) > (${end.key}, ${end.id})`, next)} ORDER BY ${column} DESC, ${tickets.id} DESC LIMIT ${limit}`;
}
