import { and, asc, eq, gte, lt } from 'drizzle-orm';
import type { Db } from '../../db/port.js';
import { tickets, timeEntries } from '../../db/tables.js';
import { type Actor, isAdmin, requireStaff } from '../actor.js';
import { forbidden, invalid } from '../errors.js';
import { getUserRow } from '../users.js';
import { addDays, daysBetween, isDate, weekOf } from '../dates.js';
import { entryJson, type TimeEntryJson, todayFor } from './entries.js';

// SPEC D4 GET /time (decision 081): one person's entries in a period of days `[from, to)`, by
// default the current ISO week in the reader's zone ("My week"). Agents read their own, admins
// anyone's; requesters none. Read through the (user_id, worked_on) index.

/** At most a year of days in one answer. */
export const PERIOD_DAYS_MAX = 366;

export interface TimeQuery {
  user_id?: number;
  from?: string;
  to?: string;
}

export interface TimeEntryListed extends TimeEntryJson {
  /** The ticket's subject, for the page and for clients that list the week. */
  ticket_subject: string;
}

export interface TimeList {
  user_id: number;
  from: string;
  to: string;
  entries: TimeEntryListed[];
  total_minutes: number;
}

function period(db: Db, actor: Actor, q: TimeQuery): { from: string; to: string } {
  for (const k of ['from', 'to'] as const)
    if (q[k] !== undefined && !isDate(q[k])) throw invalid(k, 'Must be a date (YYYY-MM-DD)');
  if (q.from === undefined && q.to === undefined) return weekOf(todayFor(db, actor));
  const from = q.from ?? addDays(q.to as string, -7);
  const to = q.to ?? addDays(from, 7);
  const days = daysBetween(from, to);
  if (days <= 0) throw invalid('to', 'Must come after from (the period is [from, to))');
  if (days > PERIOD_DAYS_MAX) throw invalid('to', `At most ${PERIOD_DAYS_MAX} days in one period`);
  return { from, to };
}

export async function listTime(db: Db, actor: Actor, q: TimeQuery): Promise<TimeList> {
  requireStaff(actor);
  const userId = q.user_id ?? actor.id;
  if (userId !== actor.id) {
    if (!isAdmin(actor)) throw forbidden("Agents see their own time worked only: only administrators see others'");
    if (!(await getUserRow(db, userId))) throw invalid('user_id', `User ${userId} does not exist`);
  }
  const { from, to } = period(db, actor, q);
  const rows = await db
    .select({ entry: timeEntries, subject: tickets.subject })
    .from(timeEntries)
    .innerJoin(tickets, eq(tickets.id, timeEntries.ticket_id))
    .where(and(eq(timeEntries.user_id, userId), gte(timeEntries.worked_on, from), lt(timeEntries.worked_on, to)))
    .orderBy(asc(timeEntries.worked_on), asc(timeEntries.id));
  const entries = rows.map((r) => ({ ...entryJson(r.entry), ticket_subject: r.subject }));
  return { user_id: userId, from, to, entries, total_minutes: entries.reduce((n, e) => n + e.minutes, 0) };
}

/**
 * What the "My week" page shows of a list: the days (a week or less: each; longer: those with
 * entries), its last day, and the periods of the same length before and after.
 */
export function periodPages(list: TimeList) {
  const n = daysBetween(list.from, list.to);
  const days =
    n <= 7
      ? Array.from({ length: n }, (_, i) => addDays(list.from, i))
      : [...new Set(list.entries.map((e) => e.worked_on))].sort();
  return {
    days,
    last: addDays(list.to, -1),
    before: { from: addDays(list.from, -n), to: list.from },
    after: { from: list.to, to: addDays(list.to, n) },
    week: n === 7,
  };
}
