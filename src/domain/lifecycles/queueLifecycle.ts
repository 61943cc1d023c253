import { and, eq } from 'drizzle-orm';
import type { Conn } from '../../db/port.js';
import { tickets } from '../../db/tables.js';
import { nowIso } from '../clock.js';
import { categoryIn, DEFAULT_LIFECYCLE, type Lifecycle, lifecycleOf, lifecycleWithId, namesIn } from './categories.js';

export { lifecycleWithId };

/**
 * Where a ticket's status goes when it changes lifecycle (SPEC D3): the status of the same name,
 * else the first status of the same category in the new one, else its initial status.
 */
export function mapStatus(from: Lifecycle, to: Lifecycle, status: string): string {
  if (to.statuses.some((s) => s.name === status)) return status;
  const category = categoryIn(from, status);
  return (category && namesIn(to, category)[0]) ?? namesIn(to, 'initial')[0] ?? to.statuses[0].name;
}

/**
 * A queue takes another lifecycle (decision 073): its tickets in a status the new one lacks move as
 * a queue move would move them (same name, else the first of the same category), one statement
 * per status. The queue's change is the record; the tickets get no history entry each.
 */
export async function moveTicketsToLifecycle(tx: Conn, queueId: number, lifecycleId: number | null): Promise<void> {
  const from = await lifecycleOf(tx, queueId);
  const to = lifecycleId === null ? DEFAULT_LIFECYCLE : await lifecycleWithId(tx, lifecycleId);
  if (!to) return;
  const held = await tx.selectDistinct({ status: tickets.status }).from(tickets).where(eq(tickets.queue_id, queueId));
  const now = nowIso(tx);
  for (const { status } of held) {
    const next = mapStatus(from, to, status);
    if (next === status) continue;
    await tx
      .update(tickets)
      .set({ status: next, updated_at: now })
      .where(and(eq(tickets.queue_id, queueId), eq(tickets.status, status)));
  }
}
