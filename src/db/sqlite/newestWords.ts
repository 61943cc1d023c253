import { and, sql, type SQL } from 'drizzle-orm';
import type { TicketListSpec } from '../ticketListSpec.js';
import { MAX_OLD_CANDIDATES, MAX_OLD_WALK, OLD_CHUNK, walksOlder } from '../shared/newestWords.js';
import type { WordPlan } from '../shared/words.js';
import type { Db } from './handle.js';
import { addIds, type HeldIds, holdIds } from './idsets.js';
import { tickets } from './schema.js';
import { checkTextWithin, pendingWordIds, TextCheckTooCostly, ticketContains, wordIndexQuery } from './search.js';

// A word search newest first (decision 092, after decision 087's attempt): a staff list of a
// common word sorted newest first needs its page and a count up to its bound, not every match.
// The word index gives its matches in ticket-id order (rowid = ticket_id << 20 | n), so the
// newest rows are read first, and the set is held from some ticket id up; the tickets below it
// that could still sort onto the page (an old ticket updated lately) are few, found through the
// sort index, and tested one by one against their own text. Whenever that cannot be shown to give
// the page and the count of the whole set, the whole set is held, as before.

/** Rows (messages) of the word index a newest-first search reads first. */
export const FIRST_ROWS = 1_500;
/**
 * At most this many on a second try, which reads as many rows as the first try's share of
 * tickets on the list says the bound needs (with a quarter more); past it, the whole set is held.
 */
export const MAX_ROWS = 8_000;
/** Characters of text those tests may read (each test costs 512 more; as TEXT_CHECK_BUDGET). */
const OLD_CHECK_BUDGET = 2 * 1024 * 1024;

const SORTS = { updated: tickets.updated_at, created: tickets.created_at, id: tickets.id } as const;
/**
 * The sort's own index, named: the older tickets are those from the page's end on in it (as many
 * as were changed since), never the ids below `from` (all but the newest of a large install).
 */
const SORT_INDEX = { updated: sql.raw('tickets_updated_idx'), created: sql.raw('tickets_created_idx') };

/**
 * Holds the tickets of the word index's newest `rows` matching rows and of the rows not
 * indexed yet. `from`: every match with an id from it up is held (the ticket of the last row read
 * is whole too: its other rows sort after it); undefined when the rows read were all there are
 * (the held set is the whole set).
 */
export function holdNewest(db: Db, plan: WordPlan, includeComments: boolean, rows: number): HeldIds {
  const match = wordIndexQuery(db, plan, includeComments);
  const held = holdIds(
    db,
    sql`(SELECT rowid >> 20 AS id FROM message_words WHERE message_words MATCH ${match} ORDER BY rowid DESC LIMIT ${rows})`,
  );
  const from = db.get<{ id: number | null }>(sql`SELECT min(id) AS id FROM temp.hx_ids`).id;
  const more =
    from !== null &&
    db.get<{ n: number } | undefined>(
      sql`SELECT 1 AS n FROM message_words WHERE message_words MATCH ${match} AND rowid < ${from * 2 ** 20} LIMIT 1`,
    ) !== undefined;
  const size = held.size + addIds(db, sql`(${pendingWordIds(plan, includeComments)})`);
  return { ...held, size, from: more ? from : undefined };
}

/** What settleNewest asks of the list it is part of. */
export interface NewestList {
  f: TicketListSpec;
  plan: WordPlan;
  q: string;
  /** The held set's tickets on the list (merged ones counted), up to `cap`. */
  countedUpTo: (cap: number) => number;
  /** The merged tickets among them. */
  merged: () => number;
  /** The list's conditions without the held set (status <> 'merged' included). */
  plain: SQL[];
  /** The page's last ticket among the held set: its sort value and id. */
  pageEnd: () => { key: string | number; id: number } | undefined;
}

/**
 * A settled set: `partial` when held newest first; then `older`, the tickets below `from` that
 * sort onto the page's part of the list and are held (the page lies within them and the held
 * page pageEnd read).
 */
export interface Settled {
  held: HeldIds;
  partial: boolean;
  older: number[];
  /**
   * When partial: the merged tickets among the held set and its tickets on the list counted up to
   * the bound, as the test that kept it found them. The set only grew after (older tickets, none
   * merged: the list's conditions leave them out), so a count to that bound gives that bound again.
   */
  counted?: { merged: number; onList: number };
}

/**
 * The set held newest first (from `held.from` up), kept when it gives the list's bounded count and
 * page (`partial`), else held again from more rows (at most MAX_ROWS) or whole (`hold` without rows).
 * It gives them when:
 * - its tickets on the list reach the bound (merged ones taken away: held tickets are the whole
 *   set's, so the whole list holds at least as many);
 * - every ticket below `from` that sorts no later than the page's last held one is tested
 *   against q's words and held when it matches, newest first until the page is settled (at most
 *   MAX_OLD_WALK of them, or MAX_OLD_CANDIDATES when the word is rarer than that needs; within
 *   OLD_CHECK_BUDGET of text). Any ticket of the whole set on the page is then held: one not
 *   held is below `from`, and it sorts before the page's end, which the held set's own page
 *   end can only follow.
 */
export function settleNewest(db: Db, held: HeldIds, hold: (rows?: number) => HeldIds, list: NewestList): Settled {
  for (let step = 0; held.from !== undefined; step++) {
    const found = tested(db, list, { ...held, from: held.from });
    if (found.page)
      return {
        held,
        partial: true,
        older: found.older ?? [],
        counted: { merged: found.merged, onList: found.onList! },
      };
    let rows: number | undefined;
    if (step === 0 && found.onList !== undefined) {
      const need = Math.ceil(((FIRST_ROWS * (list.f.countUpTo! + found.merged)) / Math.max(found.onList, 1)) * 1.25);
      if (need <= MAX_ROWS) rows = need;
    }
    held = hold(rows);
  }
  return { held, partial: false, older: [] };
}

/**
 * The tickets of the list below `from` that sort before the page's `end` (a later value, or the
 * same one and a higher id: an older ticket can be held, one of the text not indexed yet or of a
 * person q named), in the list's order (newest first) through the sort's index, from after
 * `after` (the last one read before) on; OLD_CHUNK at a time. Exported for its plan check.
 */
export function olderTickets(
  sort: keyof typeof SORT_INDEX,
  plain: SQL[],
  from: number,
  end: { key: string | number; id: number },
  after?: { key: string | number; id: number },
  limit = OLD_CHUNK,
): SQL {
  const column = SORTS[sort];
  const before = sql`${column} >= ${end.key} AND (${column} > ${end.key} OR ${tickets.id} > ${end.id})`;
  const next = after && sql`${column} <= ${after.key} AND (${column} < ${after.key} OR ${tickets.id} < ${after.id})`;
  return sql`SELECT ${tickets.id} AS id, ${column} AS key FROM ${tickets} INDEXED BY ${SORT_INDEX[sort]} WHERE ${and(...plain, sql`${tickets.id} < ${from}`, before, next)} ORDER BY ${column} DESC, ${tickets.id} DESC LIMIT ${limit}`;
}

/** The walk of older tickets reached its bound before the page was settled. */
class TooManyOlder extends Error {}

/**
 * Whether the held set gives the count and the page; if not, with `onList` when it held too few
 * tickets on the list (how many it did), without when too many older tickets sort onto the page.
 */
function tested(
  db: Db,
  list: NewestList,
  held: HeldIds & { from: number },
): { page: boolean; onList?: number; merged: number; older?: number[] } {
  const { from } = held;
  const { f } = list;
  const merged = list.merged();
  const onList = list.countedUpTo(f.countUpTo! + merged);
  const short = { page: false, onList, merged };
  if (onList < f.countUpTo! + merged) return short;
  const end = list.pageEnd();
  if (!end) return short;
  if (f.sort === 'id') return { page: true, merged, onList }; // below `from` is after the page
  // The older tickets, newest first, tested a chunk at a time until the page is settled: once
  // offset + limit of them are held, every one not tested yet sorts after them, off the page.
  const sort = f.sort as keyof typeof SORT_INDEX;
  const need = f.offset + f.limit;
  const newest = db.get<{ id: number }>(sql`SELECT max(id) AS id FROM temp.hx_ids`).id;
  const bound = walksOlder(need, from, newest, held.size) ? MAX_OLD_WALK : MAX_OLD_CANDIDATES;
  // A rarer word reads its candidates in one go, up to one past the bound: more than the bound
  // means the whole set, before any is tested (decision 092).
  const first = bound === MAX_OLD_WALK ? OLD_CHUNK : MAX_OLD_CANDIDATES + 1;
  const older: number[] = [];
  try {
    checkTextWithin(db, OLD_CHECK_BUDGET, () => {
      let after: { key: string | number; id: number } | undefined;
      for (let walked = 0; ; ) {
        const limit = walked === 0 ? first : OLD_CHUNK;
        const chunk = db.all<{ id: number; key: string | number }>(
          olderTickets(sort, list.plain, from, end, after, limit),
        );
        if (chunk.length === 0) return;
        walked += chunk.length;
        if (walked > bound) throw new TooManyOlder();
        const ids = JSON.stringify(chunk.map((r) => r.id));
        addIds(
          db,
          sql`(SELECT o.value AS id FROM json_each(${ids}) AS o WHERE ${ticketContains(sql`o.value`, list.q, { includeComments: f.includeComments }, list.plan)})`,
        );
        // The chunk's tickets held now (matched, or held before: a person q named, text not indexed yet).
        const nowHeld = new Set(
          db
            .all<{ id: number }>(sql`SELECT o.value AS id FROM json_each(${ids}) AS o WHERE o.value IN temp.hx_ids`)
            .map((r) => r.id),
        );
        for (const r of chunk) if (nowHeld.has(r.id)) older.push(r.id);
        if (older.length >= need || chunk.length < limit) return;
        if (walked >= bound) throw new TooManyOlder();
        after = chunk[chunk.length - 1];
      }
    });
  } catch (e) {
    if (e instanceof TextCheckTooCostly || e instanceof TooManyOlder) return { page: false, merged };
    throw e;
  }
  return { page: true, merged, onList, older };
}
