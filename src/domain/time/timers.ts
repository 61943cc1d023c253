import { and, eq, sql } from 'drizzle-orm';
import { prepared, type Tx } from '../../db/port.js';
import { timers } from '../../db/tables.js';
import { nowIso } from '../clock.js';

// SPEC D2 timers (decision 069): what happens to a ticket at a time — an SLA clock's warning or
// breach, a snoozed ticket's wake-up, an idle scrip's firing — is a row in `timers`, one per
// ticket, kind and key. A unit of work arms and disarms them with the change that sets their
// time; the timer worker (./worker.ts) claims the due ones as the delivery worker claims outbox
// rows (a lease, SPEC D1) and fires each in a unit of work of its ticket, which marks it fired:
// it fires once per cycle, whichever process, restart or crash.

/** What a timer does when it falls due (src/domain/time/timerKinds.ts maps each to its handler). */
export const TIMER_KINDS = ['sla', 'unsnooze', 'idle'] as const;
export type TimerKind = (typeof TIMER_KINDS)[number];
export type TimerRow = typeof timers.$inferSelect;

export interface ArmTimer {
  ticketId: number;
  kind: TimerKind;
  /** Which of the ticket's timers of this kind: the clock and step (`first_response:warning`), the scrip id. */
  key?: string;
  /** When it falls due (ISO, as stored). */
  dueAt: string;
  /**
   * What it was armed for (a clock's cycle, an idle start, a snooze): armed again with the cycle
   * it already fired for, it stays fired (its due time is still updated); with another cycle it
   * is pending again.
   */
  cycle: string;
}

/** The upsert of `n` timers in one statement (one prepared per count). */
const upserts = new Map<number, ReturnType<typeof upsertOf>>();
function upsertOf(n: number) {
  const row = (i: number) => ({
    ticket_id: sql.placeholder(`ticket${i}`),
    kind: sql.placeholder(`kind${i}`),
    key: sql.placeholder(`key${i}`),
    due_at: sql.placeholder(`due${i}`),
    cycle: sql.placeholder(`cycle${i}`),
    created_at: sql.placeholder('now'),
  });
  return prepared((db) =>
    db
      .insert(timers)
      .values(Array.from({ length: n }, (_, i) => row(i)))
      .onConflictDoUpdate({
        target: [timers.ticket_id, timers.kind, timers.key],
        set: {
          due_at: sql`excluded.due_at`,
          // Another cycle: pending again, and no process's claim on the old one counts.
          fired_at: sql`CASE WHEN ${timers.cycle} = excluded.cycle THEN ${timers.fired_at} ELSE NULL END`,
          claimed_by: sql`CASE WHEN ${timers.cycle} = excluded.cycle THEN ${timers.claimed_by} ELSE NULL END`,
          claimed_until: sql`CASE WHEN ${timers.cycle} = excluded.cycle THEN ${timers.claimed_until} ELSE NULL END`,
          cycle: sql`excluded.cycle`,
        },
      }),
  );
}

/** Inside the unit of work of a change of the ticket: sets one of its timers (see ArmTimer). */
export async function armTimer(tx: Tx, t: ArmTimer): Promise<void> {
  await armTimers(tx, [t]);
}

/** Sets several timers in one statement (a ticket's SLA clocks; each ticket, kind and key at most once). */
export async function armTimers(tx: Tx, list: ArmTimer[]): Promise<void> {
  if (list.length === 0) return;
  let upsert = upserts.get(list.length);
  if (!upsert) upserts.set(list.length, (upsert = upsertOf(list.length)));
  const params: Record<string, unknown> = { now: nowIso(tx) };
  list.forEach((t, i) => {
    params[`ticket${i}`] = t.ticketId;
    params[`kind${i}`] = t.kind;
    params[`key${i}`] = t.key ?? '';
    params[`due${i}`] = t.dueAt;
    params[`cycle${i}`] = t.cycle;
  });
  await upsert(tx).run(params);
  for (const t of list) armed(tx, t.dueAt);
}

const removeOne = prepared((db) =>
  db
    .delete(timers)
    .where(
      and(
        eq(timers.ticket_id, sql.placeholder('ticket')),
        eq(timers.kind, sql.placeholder('kind')),
        eq(timers.key, sql.placeholder('key')),
      ),
    ),
);
const removeKind = prepared((db) =>
  db
    .delete(timers)
    .where(and(eq(timers.ticket_id, sql.placeholder('ticket')), eq(timers.kind, sql.placeholder('kind')))),
);

/** Inside a unit of work: forgets a ticket's timer of `kind` and `key` (every key of the kind when none is given). */
export async function disarmTimer(tx: Tx, ticketId: number, kind: TimerKind, key?: string): Promise<void> {
  if (key === undefined) await removeKind(tx).run({ ticket: ticketId, kind });
  else await removeOne(tx).run({ ticket: ticketId, kind, key });
}

const timersOfTicket = prepared((db) =>
  db
    .select()
    .from(timers)
    .where(eq(timers.ticket_id, sql.placeholder('ticket'))),
);
/** A ticket's timers (for its page, and for tests). */
export async function ticketTimers(tx: Tx, ticketId: number): Promise<TimerRow[]> {
  return await timersOfTicket(tx).all({ ticket: ticketId });
}

// The worker of this process sleeps until the next due time it knows of; a timer armed earlier
// than that by this process wakes it (other processes hear it through the store's change signal).
type Waker = (dueAt: string) => void;
const wakers = new WeakMap<object, Waker>();
/** The timer worker of a store asks to hear of timers armed by this process. */
export function onArmed(store: object, wake: Waker): void {
  wakers.set(store, wake);
}
function armed(tx: Tx, dueAt: string): void {
  wakers.get(tx.store)?.(dueAt);
}
