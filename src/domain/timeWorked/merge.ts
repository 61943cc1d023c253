import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/port.js';
import { tickets, timeEntries, transactions } from '../../db/tables.js';

// SPEC D3 merge and SPEC D4 time worked (decision 081): a ticket's time entries go where its
// history goes. A merge moves every entry of the merged ticket to the target with its history;
// an unmerge takes back the entries whose history entry (a TimeWorked, or the reply or note they
// came with) went back. Each ticket's time_worked_minutes is then the sum of its entries again.

/** Recomputes time_worked_minutes of `ids` from their entries. */
async function resum(tx: Tx, ids: number[]): Promise<void> {
  await tx
    .update(tickets)
    .set({
      time_worked_minutes: sql`coalesce((SELECT sum(${timeEntries.minutes}) FROM ${timeEntries} WHERE ${timeEntries.ticket_id} = ${tickets.id}), 0)`,
    })
    .where(inArray(tickets.id, ids));
}

/** In a merge's unit of work, after the history moved: the entries of `from` go to `into`. */
export async function mergeTimeEntries(tx: Tx, from: number, into: number): Promise<void> {
  const moved = await tx
    .update(timeEntries)
    .set({ ticket_id: into })
    .where(eq(timeEntries.ticket_id, from))
    .returning({ id: timeEntries.id });
  if (moved.length > 0) await resum(tx, [from, into]);
}

/** In an unmerge's unit of work, after the history went back to `id`: the entries tied to it follow. */
export async function unmergeTimeEntries(tx: Tx, id: number, into: number): Promise<void> {
  const back = await tx
    .update(timeEntries)
    .set({ ticket_id: id })
    .where(
      and(
        eq(timeEntries.ticket_id, into),
        inArray(
          timeEntries.transaction_id,
          tx.select({ id: transactions.id }).from(transactions).where(eq(transactions.ticket_id, id)),
        ),
      ),
    )
    .returning({ id: timeEntries.id });
  if (back.length > 0) await resum(tx, [id, into]);
}
