import { eq, sql } from 'drizzle-orm';
import { lockedTicket } from '../../db/unitMemo.js';
import { prepared, type Tx } from '../../db/port.js';
import { tickets } from '../../db/tables.js';
import { isStaffRole } from '../../scrips/people.js';
import type { EntryEvent, EntryWrite } from './entryEvent.js';
import { disarmTimer } from './timers.js';
import { categoryIn, lifecycleOf, namesIn } from '../lifecycles/categories.js';

// SPEC D2 snooze (decision 071): how a snoozed ticket wakes, and the afterEntry step that wakes it
// when its customer writes. Kept apart from ./snooze.ts (the PATCH and the timer), which writes
// entries through recordTransactions: this file is called from inside it, so it writes its
// entries through the step's own `record` (no import circle).

/** Why a ticket woke: the `new_value` of its Unsnooze entry (`old_value`: the snooze's end). */
export type WakeReason = 'due' | 'late' | 'reply' | 'manual';

export type SnoozedRow = typeof tickets.$inferSelect;

const ticketRow = prepared((db) =>
  db
    .select()
    .from(tickets)
    .where(eq(tickets.id, sql.placeholder('id'))),
);
const wakeRow = prepared((db) =>
  db
    .update(tickets)
    .set({
      snoozed_until: null,
      replied_while_snoozed: false,
      status: sql`${sql.placeholder('status')}`,
      updated_at: sql`${sql.placeholder('now')}`,
    })
    .where(eq(tickets.id, sql.placeholder('id'))),
);
const endSnooze = prepared((db) =>
  db
    .update(tickets)
    .set({ snoozed_until: null, replied_while_snoozed: false })
    .where(eq(tickets.id, sql.placeholder('id'))),
);
const markReplied = prepared((db) =>
  db
    .update(tickets)
    .set({ replied_while_snoozed: true })
    .where(eq(tickets.id, sql.placeholder('id'))),
);

/**
 * Wakes a snoozed ticket (locked by the caller): open again, no snooze, its timer gone (unless it
 * is the timer firing); returns the entries that say so — the Unsnooze, and its Status — for the
 * caller to write by nobody, so the on_unsnooze scrips run on them.
 */
export async function wakeTicket(tx: Tx, t: SnoozedRow, reason: WakeReason, now: string): Promise<EntryWrite[]> {
  // SPEC D3: from a waiting status to the lifecycle's first active one (RT's default: stalled → open).
  const lc = await lifecycleOf(tx, t.queue_id);
  const status = categoryIn(lc, t.status) === 'waiting' ? (namesIn(lc, 'active')[0] ?? t.status) : t.status;
  await wakeRow(tx).run({ id: t.id, now, status });
  if (reason !== 'due' && reason !== 'late') await disarmTimer(tx, t.id, 'unsnooze');
  const entries: EntryWrite[] = [
    { type: 'Unsnooze', field: 'snoozed_until', old_value: t.snoozed_until, new_value: reason },
  ];
  if (status !== t.status) entries.push({ type: 'Status', field: 'status', old_value: t.status, new_value: status });
  return entries;
}

/**
 * The afterEntry step of snooze: a requester's or Cc's message wakes a snoozed ticket (or, with
 * unsnooze_on_reply false, marks it replied_while_snoozed), and a status change out of `stalled`
 * ends its snooze (the Status entry says so; no Unsnooze). Automatic mail (an out-of-office) does neither.
 */
export async function snoozeAfterEntry(tx: Tx, e: EntryEvent): Promise<boolean> {
  const { row } = e;
  const moved = row.type === 'Status' && row.old_value !== row.new_value;
  const customerWrote = row.type === 'Correspond' && e.actorId !== null && !e.autoSubmitted;
  if (!moved && !customerWrote) return false;
  // A staff member's reply wakes nothing: known before the ticket is read (the role usually is).
  if (!moved && isStaffRole(await e.actorRole())) return false;
  // Not snoozed when this unit of work locked it: nothing to end or wake, with no statement (a
  // snooze begins only with a PATCH of its own, which moves into a waiting status, ending nothing).
  if (lockedTicket<{ snoozed_until: string | null }>(e.ticketId)?.snoozed_until === null) return false;
  const t = await ticketRow(tx).get({ id: e.ticketId });
  if (!t || t.snoozed_until === null) return false;
  // Out of the waiting category (SPEC D3; RT's default: out of stalled).
  const lc = moved ? await lifecycleOf(tx, t.queue_id) : undefined;
  const leaves =
    lc !== undefined &&
    categoryIn(lc, row.old_value ?? '') === 'waiting' &&
    categoryIn(lc, row.new_value ?? '') !== 'waiting';
  if (moved && !leaves) return false;
  if (leaves) {
    await endSnooze(tx).run({ id: t.id });
    await disarmTimer(tx, t.id, 'unsnooze');
    return true;
  }
  if (t.unsnooze_on_reply) await e.record(await wakeTicket(tx, t, 'reply', e.now));
  else if (t.replied_while_snoozed) return false;
  else await markReplied(tx).run({ id: t.id });
  return true;
}
