import type { Tx } from '../../db/port.js';
import { idleStep } from './idle.js';
import type { EntryEvent } from './entryEvent.js';
import { slaAfterEntry } from './sla.js';
import { snoozeAfterEntry } from './snoozeWake.js';

// SPEC D2: what the clock makes of each entry of a ticket's history, in the entry's unit of work:
// the SLA clocks (a staff reply meets one, a customer's message starts the next response, a
// move into or out of a waiting status pauses or resumes resolution, a change of queue,
// priority or custom field matches the policies again), a snoozed ticket woken by its customer,
// an idle scrip's start. Called by recordTransactions after the entry's scrips have run (and
// after the status change a scrip asked for, which is an entry of its own).

export type { EntryEvent, EntryWrite } from './entryEvent.js';

/** Whether a step changed the ticket's row (a caller answering with the ticket reads it again). */
export async function afterEntry(tx: Tx, e: EntryEvent): Promise<boolean> {
  // Each part of D2 adds its step here (decision 069): snooze, SLA clocks, idle.
  const woke = await snoozeAfterEntry(tx, e);
  const sla = await slaAfterEntry(tx, e);
  await idleStep(tx, e);
  return woke || sla;
}
