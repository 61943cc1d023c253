import { and, asc, count, eq, isNotNull, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared } from '../db/port.js';
import { ticketMailCc } from '../db/tables.js';
import { ticketPeople, usersByIds } from '../scrips/people.js';
import { type Actor, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { notFound } from './errors.js';
import { getQueueRow } from './queues.js';
import { ensureMailUser, findUserByEmail, type UserRow } from './users.js';

// SPEC D0, Cc from mail, bounded: the people a message names in To/Cc become Cc watchers of its
// ticket only up to MAIL_CC_PER_MESSAGE new people a message and MAIL_CC_PER_TICKET a ticket
// (a queue may lower both, or keep no Cc from mail at all: `keep_mail_cc`). The others are kept
// in ticket_mail_cc with the reason, and the ticket page lists them as "not added" with an
// "Add as Cc" action. Mail from an outside sender adds nobody (src/domain/mailIntake.ts).

/** The most new people one message may make Cc, and the most a ticket may get from mail (SPEC D0). */
export const MAIL_CC_PER_MESSAGE = 10;
export const MAIL_CC_PER_TICKET = 20;
/** People of one message listed as not added, at most (a message may name thousands; the raw mail keeps them all). */
export const NOT_ADDED_LISTED = 50;
/**
 * Addresses of one message looked at, at most: each costs a lookup inside the mail's unit of
 * work, and a 25 MiB message can name hundreds of thousands. The rest are counted in the rule.
 */
export const NAMED_LOOKED_AT = 200;

export interface Named {
  address: string;
  name: string;
}

export interface CcJudgement {
  /** The people to make Cc (users, created as stub requesters when new). */
  add: UserRow[];
  /** The people not added, with the reason; at most NOT_ADDED_LISTED of them. */
  notAdded: (Named & { reason: string })[];
  /** How many were not added in all (listed or not). */
  notAddedCount: number;
  /** For the intake log's rule: what the bounds held back, or null when they held back nobody. */
  summary: string | null;
}

const p = sql.placeholder;
const addedFromMail = prepared((db) =>
  db
    .select({ n: count() })
    .from(ticketMailCc)
    .where(and(eq(ticketMailCc.ticket_id, p('ticket')), eq(ticketMailCc.added, true))),
);

/**
 * Who of the people a message names becomes Cc of its ticket (`ticketId` null: the ticket this
 * message opens). Not judged at all: our own addresses, staff (they hear of tickets as staff),
 * disabled people, and people already on the ticket (`onTicket`, by user id). Nothing is written
 * here but the new stub users of the people added.
 */
export async function judgeMailCc(
  conn: Conn,
  queueId: number,
  ticketId: number | null,
  named: Named[],
  skip: { own: Set<string>; onTicket: Set<number> },
): Promise<CcJudgement> {
  const queue = await getQueueRow(conn, queueId);
  const none: CcJudgement = { add: [], notAdded: [], notAddedCount: 0, summary: null };
  if (!queue) return none;
  const newPeople: Named[] = [];
  const unread = Math.max(0, named.length - NAMED_LOOKED_AT);
  const more = unread === 0 ? '' : `; ${unread} more addresses in To/Cc not looked at`;
  for (const person of named.slice(0, NAMED_LOOKED_AT)) {
    const address = person.address.trim().toLowerCase();
    if (!address || skip.own.has(address) || newPeople.some((x) => x.address === address)) continue;
    const user = await findUserByEmail(conn, address);
    if (user && (user.disabled || user.role !== 'requester' || skip.onTicket.has(user.id))) continue;
    newPeople.push({ address, name: person.name });
  }
  if (newPeople.length === 0) return { ...none, summary: more ? `Cc from mail: nobody new${more}` : null };
  if (!queue.keep_mail_cc)
    return { ...none, summary: `Cc from mail is off in queue ${queue.name}: ${newPeople.length} not added${more}` };
  const perMessage = Math.max(0, Math.min(queue.mail_cc_per_message, MAIL_CC_PER_MESSAGE));
  const perTicket = Math.max(0, Math.min(queue.mail_cc_per_ticket, MAIL_CC_PER_TICKET));
  const already = ticketId === null ? 0 : (await addedFromMail(conn).get({ ticket: ticketId }))!.n;
  const room = Math.max(0, Math.min(perMessage, perTicket - already));
  const add: UserRow[] = [];
  for (const person of newPeople.slice(0, room))
    add.push((await ensureMailUser(conn, person.address, person.name)).user);
  const rest = newPeople.slice(room);
  const reasonFor = (i: number) =>
    room + i >= perMessage
      ? `more than ${perMessage} new ${perMessage === 1 ? 'person' : 'people'} in one message`
      : `${perTicket} ${perTicket === 1 ? 'person was' : 'people were'} already added to this ticket from mail`;
  const notAdded = rest.slice(0, NOT_ADDED_LISTED).map((person, i) => ({ ...person, reason: reasonFor(i) }));
  const reasons = [...new Set(rest.map((_, i) => reasonFor(i)))].join('; ');
  const summary =
    rest.length === 0 && !more
      ? null
      : `Cc from mail: ${add.length} added, ${rest.length} not added${rest.length ? ` (${reasons})` : ''}${more}`;
  return { add, notAdded, notAddedCount: rest.length, summary };
}

/** Keeps what the bounds decided for the message `transactionId`: the added (they count) and the not added. */
export async function recordMailCc(conn: Conn, ticketId: number, transactionId: number, j: CcJudgement): Promise<void> {
  const now = nowIso(conn);
  for (const u of j.add) {
    await conn
      .insert(ticketMailCc)
      .values({
        ticket_id: ticketId,
        email: u.email,
        name: u.name,
        added: true,
        reason: null,
        transaction_id: transactionId,
        created_at: now,
      })
      .onConflictDoUpdate({
        target: [ticketMailCc.ticket_id, ticketMailCc.email],
        set: { added: true, reason: null, transaction_id: transactionId, created_at: now },
      });
  }
  for (const n of j.notAdded) {
    // Someone added from mail before (and since removed by staff) stays counted as added.
    await conn
      .insert(ticketMailCc)
      .values({
        ticket_id: ticketId,
        email: n.address,
        name: n.name.slice(0, 200),
        added: false,
        reason: n.reason,
        transaction_id: transactionId,
        created_at: now,
      })
      .onConflictDoUpdate({
        target: [ticketMailCc.ticket_id, ticketMailCc.email],
        set: { reason: n.reason, transaction_id: transactionId, created_at: now },
      });
  }
}

export interface NotAddedJson {
  email: string;
  name: string;
  reason: string;
  transaction_id: number | null;
  created_at: string;
}

/**
 * The people mail named on the ticket whom the bounds did not add (SPEC D0), who are still not
 * on it (`onTicket`: the addresses of its requesters and Cc), oldest first.
 */
const notAddedRows = prepared((db) =>
  db
    .select({
      email: ticketMailCc.email,
      name: ticketMailCc.name,
      reason: ticketMailCc.reason,
      transaction_id: ticketMailCc.transaction_id,
      created_at: ticketMailCc.created_at,
    })
    .from(ticketMailCc)
    .where(and(eq(ticketMailCc.ticket_id, p('ticket')), isNotNull(ticketMailCc.reason)))
    .orderBy(asc(ticketMailCc.created_at), asc(ticketMailCc.email)),
);

export async function notAddedOf(conn: Conn, ticketId: number, onTicket: Set<string>): Promise<NotAddedJson[]> {
  return notAddedFrom(await notAddedNamed(conn, ticketId), onTicket);
}

type NotAddedRow = Awaited<ReturnType<ReturnType<typeof notAddedRows>['all']>>[number];
/** notAddedOf's read alone (the ticket page reads it beside its people; issue 32). */
export async function notAddedNamed(conn: Conn, ticketId: number): Promise<NotAddedRow[]> {
  return await notAddedRows(conn).all({ ticket: ticketId });
}

/** notAddedOf from its read: those of them still not on the ticket. */
export const notAddedFrom = (rows: NotAddedRow[], onTicket: Set<string>): NotAddedJson[] =>
  rows.filter((r) => !onTicket.has(r.email)).map((r) => ({ ...r, reason: r.reason! }));

/** GET /tickets/:id's `cc_not_added` (staff): who mail named on the ticket and the bounds left out, still not on it. */
export async function ccNotAdded(db: Db, actor: Actor, ticketId: number): Promise<NotAddedJson[]> {
  requireStaff(actor);
  const people = await ticketPeople(db, ticketId);
  if (!people) throw notFound('Ticket', ticketId);
  const on = await usersByIds(db, [...people.requesters, ...people.cc]);
  return notAddedOf(db, ticketId, new Set(on.map((u) => u.email)));
}
