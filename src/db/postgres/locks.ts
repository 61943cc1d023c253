import { sql } from 'drizzle-orm';
import type { TicketRowOf, Tx } from '../port.js';
import { noteConfigVersion } from '../unitMemo.js';
import { pgHandle } from './handle.js';

// SPEC D1, docs/decisions/058: the locks a unit of work takes on PostgreSQL, held until it ends.

/** The key space of named locks (the two-int form never meets tryLock's one-bigint keys). */
const NAMED = 0x6878; // "hx"

/** The configuration's version (decision 067), as a column of a statement a unit of work sends anyway. */
export const VERSION = sql`(SELECT version FROM config_version WHERE id = 1)`;

export function rowLocks() {
  /** Per unit of work (a new handle per attempt), the tickets it has locked: a second lock is free. */
  const locked = new WeakMap<object, Set<number>>();
  return {
    /**
     * The ticket's row, locked for a change: a second change to the ticket waits here until this
     * unit of work ends, then reads what it wrote. FOR NO KEY UPDATE leaves the row's key alone,
     * so rows referring to the ticket (its history, watchers) are still written by others.
     */
    async lockTicket(tx: Tx, id: number): Promise<TicketRowOf | null | undefined> {
      let ids = locked.get(tx);
      if (!ids) locked.set(tx, (ids = new Set()));
      if (ids.has(id)) return undefined;
      ids.add(id);
      // In the same round trip: the row as it is once locked (the caller reads it no more),
      // pg_current_xact_id() — the unit of work's transaction id, taken here (the change log's
      // append relies on it being taken before an entry's id, decision 063) — and the
      // configuration's version (decision 067; no row yet reads as 0).
      const { rows } = await pgHandle(tx).execute<TicketRowOf & { hx_config: number | null }>(
        sql`SELECT tickets.*, pg_current_xact_id(), ${VERSION} AS hx_config FROM tickets WHERE id = ${id} FOR NO KEY UPDATE`,
      );
      const row = rows[0];
      if (!row) return null;
      noteConfigVersion(row.hx_config);
      const { hx_config: _, pg_current_xact_id: __, ...ticket } = row as typeof row & { pg_current_xact_id?: unknown };
      return ticket;
    },
    /**
     * A lock on a name (a message's identity, the first start), until the unit of work ends; with
     * it the transaction id (every unit of work that takes one writes) and the configuration's version.
     */
    async lockName(tx: Tx, name: string): Promise<void> {
      const { rows } = await pgHandle(tx).execute<{ hx_config: number | null }>(
        sql`SELECT pg_advisory_xact_lock(${NAMED}::int, hashtext(${name}::text)), pg_current_xact_id(), ${VERSION} AS hx_config`,
      );
      noteConfigVersion(rows[0]?.hx_config);
    },
  };
}
