import type { Tx } from '../../db/port.js';
import { armClock } from './sla.js';
import { parseSlaState, SLA_CLOCKS } from './slaClock.js';
import { armTimer } from './timers.js';

// SPEC D3 unmerge: a merge takes the merged ticket's timers away (its clocks and wake-up are the
// target's business then); an unmerge gives the ticket back its clocks and snooze as they were,
// so their timers are armed again from the restored row. A clock's warning that fired before the
// merge is not fired again: the clock's state says it was warned (decision 070). An idle scrip's
// timer comes back with the ticket's next public message or status change.

/** Inside the unmerge's unit of work: the timers of the clocks in `sla` and of a snooze until `snoozedUntil`. */
export async function rearmTimers(tx: Tx, ticketId: number, sla: string | null, snoozedUntil: string | null) {
  const state = parseSlaState(sla);
  if (state)
    for (const name of SLA_CLOCKS) {
      const clock = state[name];
      if (clock) await armClock(tx, ticketId, name, clock);
    }
  if (snoozedUntil) await armTimer(tx, { ticketId, kind: 'unsnooze', dueAt: snoozedUntil, cycle: snoozedUntil });
}
