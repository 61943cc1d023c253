import type { Tx } from '../../db/port.js';
import type { transactions } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import { snoozeAfterEntry } from './snooze.js';

// SPEC D2: what the clock makes of each entry of a ticket's history, in the entry's unit of work:
// the SLA clocks (a staff reply meets one, a customer's message starts the next response, a
// move into or out of a waiting status pauses or resumes resolution, a change of queue,
// priority or custom field matches the policies again), a snoozed ticket woken by its customer,
// an idle scrip's start. Called by recordTransactions after the entry's scrips have run (and
// after the status change a scrip asked for, which is an entry of its own).

export interface EntryEvent {
  ticketId: number;
  /** The entry as written. */
  row: typeof transactions.$inferSelect;
  actorId: number | null;
  /** The writer's role (undefined: nobody, or a deleted user), read at most once. */
  actorRole: () => Promise<string | undefined>;
  /** Inbound mail that announced itself as automatic (an autoreply, a bounce). */
  autoSubmitted: boolean;
  /** A status change a scrip made (open_inactive, set_status, close_idle): an entry by nobody. */
  byScrip: boolean;
  now: string;
  /** The app's settings, for the scrips of any entry this writes (an Unsnooze). */
  notify: NotifySettings;
}

export async function afterEntry(tx: Tx, e: EntryEvent): Promise<void> {
  // Each part of D2 adds its step here (decision 069): snooze, SLA clocks, idle.
  await snoozeAfterEntry(tx, e);
}
