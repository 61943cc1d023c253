import { sql } from 'drizzle-orm';
import type { Tx } from '../port.js';
import { pgHandle } from './handle.js';

// SPEC D1, docs/decisions/058: the locks a unit of work takes on PostgreSQL, held until it ends.

/** The key space of named locks (the two-int form never meets tryLock's one-bigint keys). */
const NAMED = 0x6878; // "hx"

export function rowLocks() {
  /** Per unit of work (a new handle per attempt), the tickets it has locked: a second lock is free. */
  const locked = new WeakMap<object, Set<number>>();
  return {
    /**
     * The ticket's row, locked for a change: a second change to the ticket waits here until this
     * unit of work ends, then reads what it wrote. FOR NO KEY UPDATE leaves the row's key alone,
     * so rows referring to the ticket (its history, watchers) are still written by others.
     */
    async lockTicket(tx: Tx, id: number): Promise<void> {
      let ids = locked.get(tx);
      if (!ids) locked.set(tx, (ids = new Set()));
      if (ids.has(id)) return;
      ids.add(id);
      // pg_current_xact_id(): the unit of work's transaction id, taken here (the change log's
      // append relies on it being taken before an entry's id, decision 063) in the same round trip.
      await pgHandle(tx).execute(sql`SELECT id, pg_current_xact_id() FROM tickets WHERE id = ${id} FOR NO KEY UPDATE`);
    },
    /** A lock on a name (a message's identity, the first start), until the unit of work ends. */
    async lockName(tx: Tx, name: string): Promise<void> {
      await pgHandle(tx).execute(sql`SELECT pg_advisory_xact_lock(${NAMED}::int, hashtext(${name}::text))`);
    },
  };
}
