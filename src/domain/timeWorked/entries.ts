import { eq, sql } from 'drizzle-orm';
import { type Conn, type Db, one, transaction } from '../../db/port.js';
import { tickets, timeEntries } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/kinds.js';
import { type Actor, isAdmin, isStaff, requireStaff } from '../actor.js';
import { nowIso, nowMs } from '../clock.js';
import { AppError, forbidden, invalid } from '../errors.js';
import { lockForChange } from '../merge/guard.js';
import { recordTransactions } from '../transactions.js';
import { getUserRow } from '../users.js';
import { dateIn, isDate } from '../dates.js';

// SPEC D4 time worked (decision 081): minutes someone worked on a ticket on a day. An entry comes
// from POST /tickets/:id/time (with a `TimeWorked` history entry of its own, by the one who
// worked) or with a reply or note (`time_minutes`, the entry's transaction_id the message's).
// Either way the entry and tickets.time_worked_minutes change in the ticket's unit of work.

/** At most a day's minutes in one entry, either way (negative minutes correct earlier time). */
export const MINUTES_MAX = 24 * 60;
export const NOTE_MAX = 1000;

export interface TimeEntryJson {
  id: number;
  ticket_id: number;
  user_id: number;
  creator_id: number;
  minutes: number;
  worked_on: string;
  note: string;
  created_at: string;
}

export interface TimeEntryInput {
  minutes: number;
  worked_on?: string;
  note?: string;
  user_id?: number;
}

type EntryRow = typeof timeEntries.$inferSelect;

export const entryJson = (r: EntryRow): TimeEntryJson => ({
  id: r.id,
  ticket_id: r.ticket_id,
  user_id: r.user_id,
  creator_id: r.creator_id,
  minutes: r.minutes,
  worked_on: r.worked_on,
  note: r.note,
  created_at: r.created_at,
});

/** The reader's zone (their settings; UTC when unset). */
export const zoneOf = (actor: Actor) => actor.timezone || 'UTC';

/** Today's date in the reader's zone, by the store's clock. */
export const todayFor = (conn: Conn, actor: Actor): string => dateIn(nowMs(conn), zoneOf(actor));

/** Minutes as an entry takes them: a whole number, not zero, within a day either way (422 on `path`). */
export function checkMinutes(minutes: number, path = 'minutes'): void {
  if (!Number.isInteger(minutes)) throw invalid(path, 'Must be a whole number of minutes');
  if (minutes === 0) throw invalid(path, 'Must not be 0 (negative minutes correct earlier time)');
  if (Math.abs(minutes) > MINUTES_MAX)
    throw invalid(path, `Must be between -${MINUTES_MAX} and ${MINUTES_MAX} (at most a day)`);
}

/** The entry's date: today in the caller's zone by default; never after today there (422 `worked_on`). */
export function workedOnFor(conn: Conn, actor: Actor, raw: string | undefined): string {
  const today = todayFor(conn, actor);
  if (raw === undefined || raw === '') return today;
  if (!isDate(raw)) throw invalid('worked_on', 'Must be a date (YYYY-MM-DD)');
  if (raw > today) throw invalid('worked_on', `Must not be in the future (today is ${today} in ${zoneOf(actor)})`);
  return raw;
}

/** Who worked: the caller, or (admins only) a staff member they name. */
async function workerFor(conn: Conn, actor: Actor, userId: number | undefined): Promise<number> {
  if (userId === undefined || userId === actor.id) return actor.id;
  if (!isAdmin(actor)) throw forbidden('Only administrators can enter time worked by someone else');
  const u = await getUserRow(conn, userId);
  if (!u) throw invalid('user_id', `User ${userId} does not exist`);
  if (u.role === 'requester') throw invalid('user_id', `User ${userId} is a requester: only staff work on tickets`);
  return u.id;
}

const addToTicket = (tx: Conn, ticketId: number, minutes: number, now: string) =>
  tx
    .update(tickets)
    .set({ time_worked_minutes: sql`${tickets.time_worked_minutes} + ${minutes}`, updated_at: now })
    .where(eq(tickets.id, ticketId));

/** A correction may take back time worked, never more than the ticket has (422 on `path`). */
function refuseBelowZero(current: number, minutes: number, path: string): void {
  if (current + minutes < 0)
    throw invalid(path, `Would take the ticket's time worked below zero: it has ${current} minutes`);
}

interface NewEntry {
  ticketId: number;
  userId: number;
  creatorId: number;
  minutes: number;
  workedOn: string;
  note: string;
  transactionId: number | null;
  now: string;
}

async function insertEntry(tx: Conn, e: NewEntry): Promise<TimeEntryJson> {
  const row = await one(
    tx
      .insert(timeEntries)
      .values({
        ticket_id: e.ticketId,
        user_id: e.userId,
        creator_id: e.creatorId,
        minutes: e.minutes,
        worked_on: e.workedOn,
        note: e.note,
        transaction_id: e.transactionId,
        created_at: e.now,
      })
      .returning(),
  );
  return entryJson(row);
}

/**
 * A reply's or note's `time_minutes`, first part, inside the message's unit of work before the
 * message is recorded (so its scrips and webhooks see the ticket's new sum): the ticket's sum.
 * `current`: the sum on the row read with the ticket's lock.
 */
export async function addTimeBeforeMessage(
  tx: Conn,
  actor: Actor,
  m: { ticketId: number; current: number; minutes: number },
): Promise<void> {
  if (!isStaff(actor)) throw forbidden('Only staff record time worked');
  checkMinutes(m.minutes, 'time_minutes');
  refuseBelowZero(m.current, m.minutes, 'time_minutes');
  await addToTicket(tx, m.ticketId, m.minutes, nowIso(tx));
}

/** Second part, once the message is recorded: the entry, today in the writer's zone, tied to the message. */
export async function addTimeOfMessage(
  tx: Conn,
  actor: Actor,
  m: { ticketId: number; writerId: number; minutes: number; transactionId: number },
): Promise<TimeEntryJson> {
  return insertEntry(tx, {
    ticketId: m.ticketId,
    userId: m.writerId,
    creatorId: actor.id,
    minutes: m.minutes,
    workedOn: todayFor(tx, actor),
    note: '',
    transactionId: m.transactionId,
    now: nowIso(tx),
  });
}

export interface TimeEntryAdded {
  entry: TimeEntryJson;
  scrip_results: ScripResult[];
}

/**
 * POST /tickets/:id/time (staff): the entry, its `TimeWorked` history entry (by the one who
 * worked; field `time_worked`, new_value the minutes, old_value the date) with its scrips, and the
 * ticket's sum, in one unit of work.
 */
export async function addTimeEntry(
  db: Db,
  actor: Actor,
  ticketId: number,
  input: TimeEntryInput,
  notify: NotifySettings,
): Promise<TimeEntryAdded> {
  requireStaff(actor);
  checkMinutes(input.minutes);
  const note = (input.note ?? '').trim();
  if (note.length > NOTE_MAX) throw invalid('note', `Must be at most ${NOTE_MAX} characters long`);
  return transaction(
    db,
    async (tx) => {
      const workedOn = workedOnFor(tx, actor, input.worked_on);
      const userId = await workerFor(tx, actor, input.user_id);
      const row = await lockForChange(tx, ticketId);
      if (row.status === 'deleted') throw new AppError('conflict', `Ticket #${ticketId} is deleted: restore it first`);
      refuseBelowZero(row.time_worked_minutes, input.minutes, 'minutes');
      const now = nowIso(tx);
      await addToTicket(tx, ticketId, input.minutes, now);
      const { transactions, scrip_results } = await recordTransactions(
        tx,
        ticketId,
        userId,
        [{ type: 'TimeWorked', field: 'time_worked', new_value: String(input.minutes), old_value: workedOn }],
        now,
        { notify, queueId: row.queue_id, actorRole: userId === actor.id ? actor.role : undefined },
      );
      const entry = await insertEntry(tx, {
        ticketId,
        userId,
        creatorId: actor.id,
        minutes: input.minutes,
        workedOn,
        note,
        transactionId: transactions[0].id,
        now,
      });
      return { entry, scrip_results };
    },
    { op: 'addTimeEntry' },
  );
}

/** The entries the history names (a TimeWorked entry's note, a reply's minutes), by transaction id. */
export async function entriesByTransaction(conn: Conn, ticketId: number): Promise<Map<number, TimeEntryJson>> {
  const rows = await conn.select().from(timeEntries).where(eq(timeEntries.ticket_id, ticketId));
  const byTxn = new Map<number, TimeEntryJson>();
  for (const r of rows) if (r.transaction_id !== null) byTxn.set(r.transaction_id, entryJson(r));
  return byTxn;
}
