import { and, asc, eq, inArray, isNotNull, isNull, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { cachedConfig } from '../../db/configCache.js';
import { type Conn, prepared, type Tx } from '../../db/port.js';
import { scrips, tickets, timers } from '../../db/tables.js';
import { invalid } from '../errors.js';
import { STATUS_NAME, STATUSES } from '../lifecycle.js';
import { idleDueMs } from './idleCalendar.js';
import { armTimer, disarmTimer } from './timers.js';

// SPEC D2 time-based scrips (decision 072). A ticket's idle start (`tickets.idle_since`, kept while
// an idle scrip is enabled; else read from its history) is the later of its last public message
// and its last status change. For each enabled `on_idle` scrip
// whose statuses hold the ticket's status, the ticket has one 'idle' timer (key: the scrip's id,
// cycle: the idle start), due `hours` (business hours when `business`) after the idle start: it
// fires once per idle start, and any public message or status change starts a new one.

/** An on_idle scrip's `config`, as validated. */
export interface IdleConfig {
  statuses: string[];
  hours: number;
  business: boolean;
}

/** At most ten years: a longer wait is a typing error. */
export const IDLE_MAX_HOURS = 87_600;

/** Validates an on_idle scrip's config; the error names the field. */
export function checkIdleConfig(config: Record<string, unknown>): IdleConfig {
  const { statuses, hours, business } = config;
  if (
    !Array.isArray(statuses) ||
    statuses.length === 0 ||
    !statuses.every((s) => typeof s === 'string' && STATUS_NAME.test(s))
  )
    throw invalid(
      'config.statuses',
      `The on_idle condition needs a list of statuses, each one of: ${STATUSES.join(', ')} (or of a lifecycle)`,
    );
  if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || hours > IDLE_MAX_HOURS)
    throw invalid(
      'config.hours',
      `The on_idle condition needs a number of hours above 0 and at most ${IDLE_MAX_HOURS}`,
    );
  if (business !== undefined && typeof business !== 'boolean')
    throw invalid('config.business', 'Must be true (count business hours) or false (around the clock)');
  return { statuses: [...new Set(statuses as string[])], hours, business: business === true };
}

/** The config of a stored on_idle scrip (null: not one, or not valid: it never fires). */
export function idleConfigOf(config: Record<string, unknown>): IdleConfig | null {
  try {
    return checkIdleConfig(config);
  } catch {
    return null;
  }
}

export interface IdleScrip extends IdleConfig {
  id: number;
  queue_id: number | null;
}

const enabledIdleScrips = prepared((db) =>
  db
    .select({ id: scrips.id, queue_id: scrips.queue_id, config: scrips.config })
    .from(scrips)
    .where(and(eq(scrips.enabled, true), eq(scrips.condition, 'on_idle')))
    .orderBy(asc(scrips.id)),
);

/** The enabled on_idle scrips with a valid config (kept by the process per configuration version). */
export async function idleScrips(conn: Conn): Promise<IdleScrip[]> {
  return await cachedConfig(conn, 'scrips:on_idle', async () => {
    const out: IdleScrip[] = [];
    for (const r of await enabledIdleScrips(conn).all()) {
      const c = idleConfigOf(JSON.parse(r.config) as Record<string, unknown>);
      if (c) out.push({ id: r.id, queue_id: r.queue_id, ...c });
    }
    return out;
  });
}

/**
 * Whether an idle scrip watches a ticket in this queue and status. A snoozed ticket is not idle
 * (staff chose when it wakes; its wake-up starts its idle time): decision 072.
 */
export const watches = (s: IdleScrip, t: { queue_id: number; status: string; snoozed_until: string | null }) =>
  (s.queue_id === null || s.queue_id === t.queue_id) && s.statuses.includes(t.status) && t.snoozed_until === null;

/** Entries that start a ticket's idle time afresh (an autoreply does not: decision 072). */
const RESTARTS = new Set(['Create', 'Correspond', 'Status', 'Unsnooze']);

/**
 * A ticket's idle start: `idle_since`, or for a ticket from before it was kept, its last public
 * message or status change.
 */
export const idleStart: SQL<string | null> = sql<string | null>`coalesce(${tickets.idle_since}, ${sql.raw(
  "(select max(h.created_at) from transactions h where h.ticket_id = tickets.id and h.type in ('Create', 'Correspond', 'Status', 'Unsnooze'))",
)})`;

const setIdleSince = prepared((db) =>
  db
    .update(tickets)
    .set({ idle_since: sql`${sql.placeholder('at')}` })
    .where(eq(tickets.id, sql.placeholder('id')))
    .returning({
      id: tickets.id,
      queue_id: tickets.queue_id,
      status: tickets.status,
      snoozed_until: tickets.snoozed_until,
      sla: tickets.sla,
    }),
);
const ticketForIdle = prepared((db) =>
  db
    .select({
      id: tickets.id,
      queue_id: tickets.queue_id,
      status: tickets.status,
      snoozed_until: tickets.snoozed_until,
      sla: tickets.sla,
      start: idleStart,
    })
    .from(tickets)
    .where(eq(tickets.id, sql.placeholder('id'))),
);

/** A ticket as the idle scrips see it (its idle start read as `start`). */
export const idleTicket = async (conn: Conn, id: number): Promise<IdleTicket | undefined> =>
  await ticketForIdle(conn).get({ id });

/** afterEntry's idle step: keeps `idle_since`, and (re)arms or disarms the ticket's idle timers. */
export async function idleStep(
  tx: Tx,
  e: { ticketId: number; row: { type: string }; autoSubmitted: boolean; now: string },
): Promise<void> {
  const type = e.row.type;
  const restart = RESTARTS.has(type) && !(e.autoSubmitted && type === 'Correspond');
  if (!restart && type !== 'SetQueue') return;
  // Kept only while some idle scrip is enabled: no write at all for an install without one.
  const all = await idleScrips(tx);
  if (all.length === 0) return;
  // A new idle start: the row as written is the ticket as the scrips see it (no read).
  const written = restart ? await setIdleSince(tx).get({ id: e.ticketId, at: e.now }) : undefined;
  const t = written ? { ...written, start: e.now } : await ticketForIdle(tx).get({ id: e.ticketId });
  if (t) await armTicket(tx, t, all);
}

export type IdleTicket = {
  id: number;
  queue_id: number;
  status: string;
  snoozed_until: string | null;
  sla: string | null;
  start: string | null;
};

/** Arms the ticket's timer of each idle scrip that watches it, and disarms the others' (one statement). */
async function armTicket(tx: Tx, t: IdleTicket, all: IdleScrip[]): Promise<void> {
  const watching = t.start === null ? [] : all.filter((s) => watches(s, t));
  for (const s of watching) await armOne(tx, t, s);
  if (watching.length === all.length) return;
  if (watching.length === 0) await disarmTimer(tx, t.id, 'idle');
  else
    await tx.delete(timers).where(
      and(
        eq(timers.ticket_id, t.id),
        eq(timers.kind, 'idle'),
        notInArray(
          timers.key,
          watching.map((s) => String(s.id)),
        ),
      ),
    );
}

async function armOne(tx: Tx, t: IdleTicket, s: IdleScrip): Promise<void> {
  const start = t.start!;
  const due = await idleDueMs(tx, t, Date.parse(start), s.hours, s.business);
  await armTimer(tx, {
    ticketId: t.id,
    kind: 'idle',
    key: String(s.id),
    dueAt: new Date(due).toISOString(),
    cycle: start,
  });
}

/** The tickets an idle scrip watches (its queue, its statuses), oldest idle start first. */
export async function watchedTickets(conn: Conn, s: IdleScrip): Promise<(IdleTicket & { subject: string })[]> {
  const inStatus = and(inArray(tickets.status, s.statuses), isNull(tickets.snoozed_until));
  return await conn
    .select({
      id: tickets.id,
      subject: tickets.subject,
      queue_id: tickets.queue_id,
      status: tickets.status,
      snoozed_until: tickets.snoozed_until,
      sla: tickets.sla,
      start: idleStart,
    })
    .from(tickets)
    .where(s.queue_id === null ? inStatus : and(inStatus, eq(tickets.queue_id, s.queue_id)))
    .orderBy(asc(idleStart), asc(tickets.id));
}

/**
 * In the unit of work that created, changed or deleted a scrip (`row` null: deleted): an enabled
 * on_idle scrip gets a timer on every ticket it watches — those idle long enough are due now and
 * fire within 2 s (the caller wakes the timer workers after the commit); any other scrip has
 * none. A ticket it already fired on for its idle start stays fired.
 */
export async function idleScripChanged(
  tx: Tx,
  id: number,
  row: { condition: string; enabled: boolean; queue_id: number | null; config: string } | null,
  /** It was an enabled on_idle scrip before this change. */
  watchedBefore: boolean,
): Promise<boolean> {
  const config = row?.enabled && row.condition === 'on_idle' ? idleConfigOf(JSON.parse(row.config)) : null;
  if (!config || !row) {
    await tx.delete(timers).where(and(eq(timers.kind, 'idle'), eq(timers.key, String(id))));
    return false;
  }
  // The first enabled idle scrip: `idle_since` was not kept while there was none, so what it holds
  // from an earlier time is forgotten and each ticket's idle start is read from its history.
  if (!watchedBefore && (await idleScrips(tx)).every((s) => s.id === id))
    await tx.update(tickets).set({ idle_since: null }).where(isNotNull(tickets.idle_since));
  const s: IdleScrip = { id, queue_id: row.queue_id, ...config };
  // Tickets it no longer watches (another status or queue) keep no timer of it.
  await tx
    .delete(timers)
    .where(
      and(
        eq(timers.kind, 'idle'),
        eq(timers.key, String(id)),
        isNull(timers.fired_at),
        or(
          sql`${timers.ticket_id} not in (select ${tickets.id} from ${tickets} where ${inArray(tickets.status, s.statuses)})`,
          s.queue_id === null
            ? sql`false`
            : sql`${timers.ticket_id} not in (select ${tickets.id} from ${tickets} where ${tickets.queue_id} = ${s.queue_id})`,
        ),
      ),
    );
  for (const t of await watchedTickets(tx, s)) if (t.start !== null) await armOne(tx, t, s);
  return true;
}
