import { type SQL, sql } from 'drizzle-orm';
import type { TicketListSpec } from '../port.js';
import { newestFirst } from '../shared/newestWords.js';
import { wordPlan } from '../shared/words.js';
import type { tickets } from '../tables.js';
import { pgHandle } from './handle.js';
import { type listQueries, type PgDb, peopleIdsQuery, wordIdsQuery } from './ticketList.js';

// A word search that reads what its page and its bounded count need (decision 087), PostgreSQL's
// form: GIN gives no order, so the word indexes are asked for the tickets of an id range at the
// top (their bitmap ANDed with the ticket id's index: only the range's rows are read), widened
// until it holds enough tickets; older ones only as far as the page reaches.

type ListResult = { rows: (typeof tickets.$inferSelect)[]; total: number; exact: boolean };

/** The newest ranges tried: 4 × the tickets wanted, then 8 times wider each time. */
const FIRST_SPAN = 4;
const WIDER = 8;

/**
 * A staff word search with a bounded count, newest first: `result` when the newest tickets held
 * reach the bound (the page read from them once the older tickets that sort onto it are held
 * too), `textIds` when the whole set was read on the way; undefined: not such a search (or its
 * words found nothing), the caller runs it as before.
 */
export async function newestWordList(
  db: PgDb,
  f: TicketListSpec & { q: string },
  lists: typeof listQueries,
): Promise<{ result?: ListResult; textIds?: number[] } | undefined> {
  const plan = wordPlan(f.q);
  const k = newestFirst(f);
  if (!plan || f.customerId !== undefined || k === undefined) return undefined;
  const run = async (query: SQL) => (await pgHandle(db).execute<{ ids: number[] }>(query)).rows[0]?.ids ?? [];
  const top = Number(
    (await pgHandle(db).execute<{ m: number | null }>(sql`SELECT max(id) AS m FROM tickets`)).rows[0]?.m ?? 0,
  );
  const below = top + 1;
  let span = FIRST_SPAN * k;
  let from: number;
  let ids: number[];
  for (;;) {
    from = Math.max(0, below - span);
    ids = await run(wordIdsQuery(plan, f, { from, below }));
    if (ids.length >= k || from === 0) break;
    span *= WIDER;
  }
  const people = f.qRequesterIds?.length ? await run(peopleIdsQuery(f.qRequesterIds)) : [];
  const union = (...sets: number[][]) => [...new Set(sets.flat())];
  if (from === 0) return ids.length === 0 ? undefined : { textIds: union(ids, people) };
  const whole = async () => ({
    textIds: union(ids, await run(wordIdsQuery(plan, f, { from: 0, below: from })), people),
  });
  const upTo = f.countUpTo!;
  const end = f.offset + f.limit;
  let held = union(ids, people);
  let q = lists(db, f, held);
  // The merged tickets and the list's own up to the bound plus those, in one statement (decision 088).
  const {
    rows: [c],
  } = await q.countUpTo(upTo);
  const merged = c?.merged ?? 0;
  const counted = c?.counted ?? 0;
  if (counted < upTo + merged || upTo < end) return whole();
  const last = (await q.at(end - 1))[0];
  if (!last) return whole();
  const low = (await q.lowestBefore(from, last))[0]?.id ?? null;
  if (low !== null) {
    held = union(held, await run(wordIdsQuery(plan, f, { from: Number(low), below: from })));
    q = lists(db, f, held);
  }
  return { result: { rows: (await q.page) as ListResult['rows'], total: upTo, exact: false } };
}
