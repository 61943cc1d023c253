import { sql, type SQL } from 'drizzle-orm';
import { SearchTooBroad } from '../storageErrors.js';
import type { TicketListSpec } from '../ticketListSpec.js';
import { wordPlan } from '../shared/words.js';
import type { Db } from './handle.js';
import { addIds, type HeldIds, holdIds, keepHeld, releaseIds } from './idsets.js';
import { holdNewest } from './newestWords.js';
import { tickets, ticketWatchers } from './schema.js';
import {
  checkTextWithin,
  customersTickets,
  ownTextSet,
  TextCheckTooCostly,
  textMatchSet,
  ticketTextMatch,
  wordMatchSet,
} from './search.js';

// The set of tickets a list's q matches, held once in the connection's temporary table
// (decision 012) with bounded work (decision 017): the word index (decision 084), newest first
// when the list allows it (decision 092), the trigram index, or a customer's own tickets read.

/** The tickets these people are requesters of, through the ticket_watchers_user_idx (user_id, role). */
export const requestersTickets = (ids: number[]): SQL =>
  sql`(SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} IN (${sql.join(
    ids.map((i) => sql`${i}`),
    sql`, `,
  )}) AND ${ticketWatchers.role} = 'requester')`;

/** Tickets a search may check against their text when the index can only narrow q down. */
export const MAX_CHECKED_TICKETS = 5_000;
/** Characters of message text one search may read to test it (each message read costs 512 more). */
export const TEXT_CHECK_BUDGET = 8 * 1024 * 1024;
/** A customer with at most this many tickets is searched by reading their tickets, not the index. */
export const OWN_SCAN_MAX_TICKETS = 1_000;

/** A statement built once per connection (building costs more than running these). */
export function perConnection<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const built = new WeakMap<object, Q>();
  return (db) => {
    let q = built.get(db.$client);
    if (q === undefined) built.set(db.$client, (q = build(db)));
    return q;
  };
}

const ownTicketCountQuery = perConnection((db) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(
      sql`(SELECT 1 FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ${sql.placeholder('id')} AND ${ticketWatchers.role} IN ('requester', 'cc') LIMIT ${OWN_SCAN_MAX_TICKETS + 1})`,
    )
    .prepare(),
);
const ownTicketCount = (db: Db, id: number) => ownTicketCountQuery(db).get({ id })!.n;
/** The tickets whose text contains a q of one or two characters (LIKE), as a set of ids (a customer's own only). */
function likeSet(f: TicketListSpec, q: string): SQL {
  const scoped = f.customerId !== undefined;
  const match = ticketTextMatch(q, { includeComments: f.includeComments, scoped });
  const own = scoped ? sql` AND ${tickets.id} IN ${customersTickets(f.customerId!)}` : sql``;
  return sql`(SELECT ${tickets.id} AS id FROM ${tickets} WHERE ${match}${own})`;
}

/** The held text set plus the tickets of the people q named (staff lists only; decision 035). */
function withRequesters(db: Db, f: TicketListSpec, held: HeldIds): HeldIds {
  if (!f.qRequesterIds?.length) return held;
  return { ...held, size: held.size + addIds(db, requestersTickets(f.qRequesterIds)) };
}

/**
 * Runs q's set of tickets once into the temporary table (decision 012), with bounded work
 * (decision 017):
 * - a customer's own tickets are read and tested directly (they have few; the index holds
 *   everyone's text), within TEXT_CHECK_BUDGET — past it, or past OWN_SCAN_MAX_TICKETS
 *   tickets, the index is used as for staff, narrowed to their tickets;
 * - through the index, when it could only narrow q down (q repeats a trigram, see textPlan in
 *   search.ts), the candidates are tested against their text, within MAX_CHECKED_TICKETS and
 *   TEXT_CHECK_BUDGET, else SearchTooBroad (the domain asks for more distinctive text);
 * - with `newestRows`, a word search holds only the tickets of that many of the word index's
 *   newest matching rows (decision 092: `from` on the held set says where it starts), unless
 *   they are all there are.
 */
export function holdText(db: Db, f: TicketListSpec, q: string, newestRows?: number): HeldIds {
  const customer = f.customerId;
  // A q of whole words is asked of the word index first; when it finds nothing, of the text (decision 084).
  const words = wordPlan(q);
  try {
    if (customer !== undefined && ownTicketCount(db, customer) <= OWN_SCAN_MAX_TICKETS) {
      try {
        if (words) {
          const held = checkTextWithin(db, TEXT_CHECK_BUDGET, () => holdIds(db, ownTextSet(q, customer, words)));
          if (held.size > 0) return held;
        }
        return checkTextWithin(db, TEXT_CHECK_BUDGET, () => holdIds(db, ownTextSet(q, customer)));
      } catch (e) {
        if (!(e instanceof TextCheckTooCostly)) throw e;
      }
    }
    if (words && newestRows !== undefined) {
      const held = holdNewest(db, words, f.includeComments, newestRows);
      if (held.size > 0) return withRequesters(db, f, held);
    }
    if (words) {
      const held = holdIds(
        db,
        wordMatchSet(db, words, { includeComments: f.includeComments, requesterId: customer }).ids,
      );
      if (held.size > 0) return withRequesters(db, f, held);
      // A two-letter word found nowhere: what LIKE finds (trigrams need three characters).
      if ([...q].length < 3) return withRequesters(db, f, holdIds(db, likeSet(f, q)));
    }
    const text = textMatchSet(q, { includeComments: f.includeComments, requesterId: customer });
    const held = holdIds(db, text.ids);
    if (!text.check) return withRequesters(db, f, held);
    if (held.size > MAX_CHECKED_TICKETS) throw new SearchTooBroad();
    return withRequesters(
      db,
      f,
      checkTextWithin(db, TEXT_CHECK_BUDGET, () => keepHeld(db, held, text.check!)),
    );
  } catch (e) {
    releaseIds(db);
    throw e instanceof TextCheckTooCostly ? new SearchTooBroad() : e;
  }
}
