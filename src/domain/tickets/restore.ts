import { and, desc, eq } from 'drizzle-orm';
import type { Conn } from '../../db/port.js';
import { transactions } from '../../db/tables.js';

/**
 * SPEC D6: the status a deleted ticket's Restore gives back: the one it had when it was deleted,
 * as its history says (the newest move to `deleted`), else `open`.
 */
export async function statusBeforeDeletion(conn: Conn, ticketId: number): Promise<string> {
  const [last] = await conn
    .select({ old: transactions.old_value })
    .from(transactions)
    .where(
      and(eq(transactions.ticket_id, ticketId), eq(transactions.type, 'Status'), eq(transactions.new_value, 'deleted')),
    )
    .orderBy(desc(transactions.id))
    .limit(1);
  return last?.old && last.old !== 'deleted' ? last.old : 'open';
}
