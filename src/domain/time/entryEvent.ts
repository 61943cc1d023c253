import type { tickets, transactions } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';

// What the afterEntry steps of SPEC D2 are given (./afterEntry.ts): in a file of its own, so a
// step's file may import the type without an import circle through afterEntry.ts.

export interface EntryEvent {
  ticketId: number;
  /** The entry as written. */
  row: typeof transactions.$inferSelect;
  actorId: number | null;
  /**
   * A Create's ticket row as its scrips read it, when they did (nothing wrote the row since): the
   * SLA step starts the clocks from it with no statement of its own.
   */
  created?: typeof tickets.$inferSelect;
  /** The writer's role (undefined: nobody, or a deleted user), read at most once. */
  actorRole: () => Promise<string | undefined>;
  /** Inbound mail that announced itself as automatic (an autoreply, a bounce). */
  autoSubmitted: boolean;
  /** A status change a scrip made (open_inactive, set_status, close_idle): an entry by nobody. */
  byScrip: boolean;
  now: string;
  /** The app's settings, for the scrips of any entry this writes (an Unsnooze). */
  notify: NotifySettings;
  /** Writes more entries on the ticket by nobody, in this unit of work, with their scrips (an Unsnooze and its Status). */
  record: (entries: EntryWrite[]) => Promise<void>;
}

/** An entry a step writes (recordTransactions' NewTransaction, without importing it: no import circle). */
export interface EntryWrite {
  type: 'Unsnooze' | 'Status';
  field: string;
  old_value: string | null;
  new_value: string | null;
}
