import type { Conn } from '../../db/port.js';
import { businessTimeline } from '../time/businessTime.js';
import { calendarSpec } from '../time/calendars.js';
import { parseSlaState } from '../time/slaClock.js';

// SPEC D4 (docs/metrics.md, decision 079): where an SLA policy applies to a ticket, its first
// response and resolution also in business minutes — the business time of the policy's calendar
// (SPEC D2; around the clock when the policy has none) between the ticket's creation and the
// event. Paused time is not taken out: this is the time the team's hours saw pass, which the SLA
// clocks' met/breached (sla_met_percent) already judge against the policy's targets.

/**
 * A reader of business minutes for one report: `(sla, from, to)` → whole minutes (rounded), or
 * null when no policy applies (`tickets.sla` empty) or there is no event (`to` null). Each
 * calendar is read and laid out once per report (businessTimeline).
 */
export function businessMinutesReader(conn: Conn) {
  const calendars = new Map<number | null, Promise<(fromMs: number, toMs: number) => number>>();
  return async (sla: string | null, from: string, to: string | null): Promise<number | null> => {
    if (to === null || sla === null) return null;
    const state = parseSlaState(sla);
    if (!state) return null;
    const id = state.terms.calendar_id;
    let hours = calendars.get(id);
    if (!hours) {
      // The clocks' reading of a calendar (slaHours): none, or one since deleted, is around the clock.
      hours = (id === null ? Promise.resolve(null) : calendarSpec(conn, id)).then(businessTimeline);
      calendars.set(id, hours);
    }
    return Math.round((await hours)(Date.parse(from), Date.parse(to)) / 60_000);
  };
}
