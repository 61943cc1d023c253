import { eq } from 'drizzle-orm';
import { type Conn, first, lockAndReadTicket, type TicketRowOf, type Tx } from '../../db/port.js';
import { tickets } from '../../db/tables.js';
import { MergedError, notFound } from '../errors.js';

// SPEC D3 merge (decision 076): a merged ticket is a tombstone (`merged_into` set, status
// `merged`). Changes are refused with its target; mail and portal links follow it there.

/** The reserved status of a tombstone: in no lifecycle, so every status-filtered list leaves it out. */
export const MERGED_STATUS = 'merged';
/** A chain of merges longer than this is not followed (one hop per merge: far more than any real chain). */
const MAX_HOPS = 50;

/** Inside a unit of work that changes ticket `id`, first: its lock and row; 404 when there is none, 409 when it was merged. */
export async function lockForChange(tx: Tx, id: number): Promise<TicketRowOf> {
  const row = await lockAndReadTicket(tx, id);
  if (!row) throw notFound('Ticket', id);
  if (row.merged_into !== null) throw new MergedError(id, row.merged_into);
  return row;
}

/**
 * Inside a unit of work: ticket `id` locked and, when it was merged, the ticket it lives on now,
 * following a chain of merges, each locked as it is read (a merge that committed while this unit
 * of work waited for a lock is seen: the lock returns the row as it is once taken). `mergedFrom`:
 * the merged ticket whose thread led here (null: `id` is live). Undefined: no such ticket.
 */
export async function lockFollowingMerges(
  tx: Tx,
  id: number,
): Promise<{ row: TicketRowOf; mergedFrom: number | null } | undefined> {
  let row = await lockAndReadTicket(tx, id);
  if (!row) return undefined;
  const mergedFrom = row.merged_into !== null ? row.id : null;
  for (let hops = 0; row.merged_into !== null && hops < MAX_HOPS; hops++) {
    row = await lockAndReadTicket(tx, row.merged_into);
    if (!row) return undefined;
  }
  return row.merged_into === null ? { row, mergedFrom } : undefined;
}

/** The live ticket `id` stands for now (itself, or where a chain of merges took it), read without a lock. */
export async function liveTicketId(conn: Conn, id: number): Promise<number | undefined> {
  let at = id;
  for (let hops = 0; hops <= MAX_HOPS; hops++) {
    const row = await first(
      conn.select({ merged_into: tickets.merged_into }).from(tickets).where(eq(tickets.id, at)).limit(1),
    );
    if (!row) return undefined;
    if (row.merged_into === null) return at;
    at = row.merged_into;
  }
  return undefined;
}
