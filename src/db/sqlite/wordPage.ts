import { sql } from 'drizzle-orm';
import type { WordPlan } from '../shared/words.js';
import type { Db } from './handle.js';
import { addIds, type HeldIds, holdIds } from './idsets.js';
import { pendingWordIds, wordIndexQuery } from './search.js';

// A word search that reads what its page and its bounded count need (decision 087): the newest
// tickets of the word index first, older ones only as far as the page reaches. The word index's
// rowids are ticket_id << 20 | n, so its rowid order is ticket-id order, and FTS5 reads a MATCH
// newest-first and stops at a LIMIT (0.3 ms for 1,000 tickets of a word in 30 % of 100,000).

/**
 * A held word set that may hold only the newest tickets of the index: every ticket with an id of
 * at least `below` that the index has (plus text not indexed yet and the people q named, of any
 * id); the index's tickets under `below` are not held. `below` 0: the set is whole.
 */
export interface WordHold {
  held: HeldIds;
  below: number;
  /** Holds the index's tickets from id `from` up (to `below`); the set is then whole from there. */
  extendDown(from: number): void;
}

/** `id << 20` as the index's rowid (up to 2^51: exact in a double). */
const rowidOf = (id: number) => id * 1_048_576;

/**
 * Holds the newest `k` tickets of q's words in the word index (and every pending row that holds
 * them). When the index has fewer than `k`, the set is whole (`below` 0).
 */
export function holdNewestWords(db: Db, plan: WordPlan, includeComments: boolean, k: number): WordHold {
  const query = wordIndexQuery(plan, includeComments);
  // DISTINCT streams: FTS5 reads the rowids newest-first and the LIMIT stops it after k tickets.
  const held = holdIds(
    db,
    sql`(SELECT DISTINCT rowid >> 20 AS id FROM message_words WHERE message_words MATCH ${query} ORDER BY rowid DESC LIMIT ${k})`,
  );
  let below = 0;
  if (held.size >= k) below = (db.$client.prepare('SELECT min(id) AS id FROM temp.hx_ids').get() as { id: number }).id;
  held.size += addIds(db, pendingWordIds(plan, includeComments));
  const hold: WordHold = {
    held,
    below,
    extendDown(from: number) {
      if (hold.below === 0) return;
      const start = Math.max(0, from);
      hold.held.size += addIds(
        db,
        sql`(SELECT rowid >> 20 AS id FROM message_words WHERE message_words MATCH ${query} AND rowid >= ${rowidOf(start)} AND rowid < ${rowidOf(hold.below)})`,
      );
      hold.below = start === 0 ? 0 : start;
    },
  };
  return hold;
}
