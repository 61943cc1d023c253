import { and, desc, eq } from 'drizzle-orm';
import type { Conn } from '../../db/port.js';
import { transactions } from '../../db/tables.js';
import { statusesIn } from '../lifecycles/categories.js';

/**
 * SPEC D6: the status a deleted ticket's Restore gives back: the one it had when it was deleted,
 * as its history says (the newest move to `deleted`), else its lifecycle's first active status.
 */
export async function statusBeforeDeletion(conn: Conn, ticketId: number, queueId?: number): Promise<string> {
  const [last] = await conn
    .select({ old: transactions.old_value })
    .from(transactions)
    .where(
      and(eq(transactions.ticket_id, ticketId), eq(transactions.type, 'Status'), eq(transactions.new_value, 'deleted')),
    )
    .orderBy(desc(transactions.id))
    .limit(1);
  if (last?.old && last.old !== 'deleted') return last.old;
  // SPEC D3: else the first active status of the ticket's lifecycle (RT's default: open).
  return queueId === undefined ? 'open' : ((await statusesIn(conn, queueId, 'active'))[0] ?? 'open');
}
