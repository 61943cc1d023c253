import { asc } from 'drizzle-orm';
import { cachedConfig } from '../../db/configCache.js';
import type { Conn } from '../../db/port.js';
import { slaPolicies as policiesTable } from '../../db/tables.js';
import { parseJson } from '../actor.js';
import { addBusinessMs, businessMsBetween, type CalendarSpec } from './businessTime.js';
import { calendarSpec } from './calendars.js';
import { AROUND_THE_CLOCK, type BusinessHours } from './slaClock.js';
import type { MatchablePolicy, PolicyMatch } from './slaMatch.js';

// What the SLA clocks read of the configuration (decision 070): the policies in order and a
// calendar's business time, both kept per process by config version (decision 067). The
// policies are read here rather than through ./slaPolicies.ts (decision 068's policiesInOrder,
// the same rows in the same order): that module checks custom fields and queues, which lead back
// to recordTransactions and so to this step — an import circle.

/** The policies, lowest position first (then by id). */
export async function slaPolicies(conn: Conn): Promise<readonly MatchablePolicy[]> {
  return cachedConfig(conn, 'sla-policies:clocks', async () =>
    (await conn.select().from(policiesTable).orderBy(asc(policiesTable.position), asc(policiesTable.id))).map((r) => ({
      id: r.id,
      name: r.name,
      match: parseJson<PolicyMatch>(r.match, {}),
      calendar_id: r.calendar_id,
      first_response_minutes: r.first_response_minutes,
      next_response_minutes: r.next_response_minutes,
      resolution_minutes: r.resolution_minutes,
      warn_before_minutes: r.warn_before_minutes,
    })),
  );
}

/** Business time under a calendar (null, or one since deleted: around the clock). */
export async function slaHours(conn: Conn, calendarId: number | null): Promise<BusinessHours> {
  const cal: CalendarSpec | null = calendarId === null ? null : await calendarSpec(conn, calendarId);
  if (cal === null) return AROUND_THE_CLOCK;
  return {
    add: (start, ms) => addBusinessMs(cal, start, ms).dueMs,
    between: (from, to) => businessMsBetween(cal, from, to),
  };
}
