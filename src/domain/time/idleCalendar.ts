import type { Conn } from '../../db/port.js';
import { addBusinessMs, type CalendarSpec } from './businessTime.js';
import { calendarSpec, defaultCalendarSpec } from './calendars.js';
import { slaJson } from './slaJson.js';
import { policiesInOrder } from './slaPolicies.js';

// SPEC D2 on_idle with `business: true`: the hours count in the business hours of the ticket's
// policy's calendar, else of the default calendar, else around the clock (decision 072). The one
// place the idle scrips ask for business time.

const HOUR_MS = 3_600_000;

/** The calendar an idle scrip counts a ticket's business hours in (null: around the clock). */
export async function idleCalendar(conn: Conn, ticket: { sla: string | null }): Promise<CalendarSpec | null> {
  const policyId = slaJson(ticket.sla)?.policy_id;
  const calendarId =
    policyId === undefined ? null : ((await policiesInOrder(conn)).find((p) => p.id === policyId)?.calendar_id ?? null);
  return (calendarId !== null ? await calendarSpec(conn, calendarId) : null) ?? (await defaultCalendarSpec(conn));
}

/** When `hours` of the ticket's business time (around the clock unless `business`) after `startMs` end. */
export async function idleDueMs(
  conn: Conn,
  ticket: { sla: string | null },
  startMs: number,
  hours: number,
  business: boolean,
): Promise<number> {
  const ms = Math.round(hours * HOUR_MS);
  const cal = business ? await idleCalendar(conn, ticket) : null;
  try {
    return addBusinessMs(cal, startMs, ms).dueMs;
  } catch {
    // A calendar with no business hours at all: counted around the clock rather than never.
    return startMs + ms;
  }
}
