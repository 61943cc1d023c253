import type { Conn } from '../../db/port.js';
import { addBusinessMs, businessMsBetween, type CalendarSpec } from './businessTime.js';
import { calendarSpec } from './calendars.js';
import { AROUND_THE_CLOCK, type BusinessHours } from './slaClock.js';
import type { MatchablePolicy } from './slaMatch.js';
import { policiesInOrder } from './slaPolicies.js';

// What the SLA clocks read of the configuration (decision 070): the policies in order and a
// calendar's business time, both kept per process by config version (decision 067).

/** The policies, lowest position first (then by id): decision 068's reader. */
export const slaPolicies = (conn: Conn): Promise<readonly MatchablePolicy[]> => policiesInOrder(conn);

/** Business time under a calendar (null, or one since deleted: around the clock). */
export async function slaHours(conn: Conn, calendarId: number | null): Promise<BusinessHours> {
  const cal: CalendarSpec | null = calendarId === null ? null : await calendarSpec(conn, calendarId);
  if (cal === null) return AROUND_THE_CLOCK;
  return {
    add: (start, ms) => addBusinessMs(cal, start, ms).dueMs,
    between: (from, to) => businessMsBetween(cal, from, to),
  };
}
