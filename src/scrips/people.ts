import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { type Conn, inUnitOfWork, oncePerUnit, prepared } from '../db/port.js';
import { cachedConfig } from '../db/configCache.js';
import { adminMailAddresses } from './ownAddresses.js';
import { queues, queueWatchers, teamMembers, tickets, ticketWatchers, transactions, users } from '../db/tables.js';

// Who is on a ticket, as the scrip engine needs it to address mail (SPEC C2): requesters, Cc
// and AdminCc of the ticket and of its queue, the owner and the ticket's team.

export interface Recipient {
  id: number;
  email: string;
  name: string;
  role: 'admin' | 'agent' | 'requester';
  disabled: boolean;
  notify_new_tickets: boolean;
  notify_replies: boolean;
  notify_notes: boolean;
  portal_epoch: number;
}

const cols = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  disabled: users.disabled,
  notify_new_tickets: users.notify_new_tickets,
  notify_replies: users.notify_replies,
  notify_notes: users.notify_notes,
  portal_epoch: users.portal_epoch,
};
const p = sql.placeholder;

export interface TicketPeople {
  /** The ticket's row, read with its people (the template scope uses it too: decision 067). */
  ticket: typeof tickets.$inferSelect;
  queue: number;
  owner: number | null;
  team: number | null;
  status: string;
  requesters: number[];
  cc: number[];
  adminCc: number[];
}

/** The ticket's row and its people in one statement (decision 066): one row per watcher, or one with none. */
const ticketWithRoles = prepared((db) =>
  db
    .select({
      ticket: tickets,
      role: ticketWatchers.role,
      user: ticketWatchers.user_id,
    })
    .from(tickets)
    .leftJoin(ticketWatchers, eq(ticketWatchers.ticket_id, tickets.id))
    .where(eq(tickets.id, p('id')))
    .orderBy(asc(ticketWatchers.position), asc(ticketWatchers.created_at), asc(ticketWatchers.user_id)),
);
const queueRoles = prepared((db) =>
  db
    .select({ role: queueWatchers.role, user: queueWatchers.user_id })
    .from(queueWatchers)
    .where(eq(queueWatchers.queue_id, p('id')))
    .orderBy(asc(queueWatchers.user_id)),
);
/** A queue's Cc and AdminCc by user id, kept with the configuration (decision 067; the ticket page's too, decision 104). */
export const queueWatcherRoles = (conn: Conn, queue: number) =>
  cachedConfig(conn, `queue-watchers:${queue}`, async () => await queueRoles(conn).all({ id: queue }));
const membersOf = prepared((db) =>
  db
    .select({ id: teamMembers.user_id })
    .from(teamMembers)
    .where(eq(teamMembers.team_id, p('team'))),
);
/**
 * Several users by id, prepared once per number of ids (decision 067: on SQLite, building and
 * preparing the statement for each write cost more than running it); more ids are built as asked.
 */
const MAX_IDS_PREPARED = 16;
const someUsersBy = new Map<number, ReturnType<typeof someUsersOf>>();
const someUsersOf = (n: number) =>
  prepared((db) =>
    db
      .select(cols)
      .from(users)
      .where(
        inArray(
          users.id,
          Array.from({ length: n }, (_, i) => p(`id${i}`)),
        ),
      ),
  );
const someUsers = (n: number) => {
  let q = someUsersBy.get(n);
  if (!q) someUsersBy.set(n, (q = someUsersOf(n)));
  return q;
};

const oneUser = prepared((db) =>
  db
    .select(cols)
    .from(users)
    .where(eq(users.id, p('id'))),
);

/** The ticket's people by role, ids in the order they joined; queue Cc/AdminCc count as the ticket's. */
export async function ticketPeople(conn: Conn, ticketId: number): Promise<TicketPeople | undefined> {
  const rows = await ticketWithRoles(conn).all({ id: ticketId });
  if (rows.length === 0) return undefined;
  const { ticket } = rows[0];
  const { queue_id: queue, owner_id: owner, team_id: team, status } = ticket;
  const people: TicketPeople = { ticket, queue, owner, team, status, requesters: [], cc: [], adminCc: [] };
  const add = (list: number[], id: number) => {
    if (!list.includes(id)) list.push(id);
  };
  for (const w of rows) {
    if (w.user === null || w.role === null) continue; // the ticket's row alone: nobody on it
    add(w.role === 'requester' ? people.requesters : w.role === 'cc' ? people.cc : people.adminCc, w.user);
  }
  const queueWide = await queueWatcherRoles(conn, queue);
  for (const w of queueWide) add(w.role === 'cc' ? people.cc : people.adminCc, w.user);
  // A requester who is also on the Cc list is a requester.
  people.cc = people.cc.filter((id) => !people.requesters.includes(id));
  return people;
}

const aliases = prepared((db) =>
  db.select({ alias: queues.mail_alias }).from(queues).where(isNotNull(queues.mail_alias)),
);
/**
 * Every address of ours: the configured ones (the environment's), the queue aliases and the list
 * admins keep (SPEC D6, read afresh each time: every process sees a change at once). Mail to
 * them would come back in.
 */
export const ourAddresses = async (conn: Conn, configured: string[]): Promise<Set<string>> =>
  new Set([
    ...configured,
    // Kept by the process for the configuration's version (decision 067).
    ...(await cachedConfig(conn, 'own-addresses', async () => [
      ...(await aliases(conn).all()).map((r) => r.alias!),
      ...(await adminMailAddresses(conn)),
    ])),
  ]);

export const teamMemberIds = async (conn: Conn, team: number | null): Promise<number[]> =>
  team === null
    ? []
    : await cachedConfig(conn, `team-members:${team}`, async () =>
        (await membersOf(conn).all({ team })).map((m) => m.id),
      );

/** The key of a unit of work's users read so far (decision 067). */
const READ_USERS = Symbol('users read in this unit of work');

/**
 * Users by id in the order asked, each once; unknown ids are skipped. Inside a unit of work each
 * user is read once (its scrips ask for the requester, the owner, the writer … several times;
 * nothing in a ticket change changes a user after its scrips have read one): decision 067.
 */
export async function usersByIds(conn: Conn, ids: number[]): Promise<Recipient[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const known = await oncePerUnit(conn, READ_USERS, async () => new Map<number, Recipient | null>());
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length === 1) {
    known.set(missing[0], (await oneUser(conn).get({ id: missing[0] })) ?? null);
  } else if (missing.length > 1) {
    const rows =
      missing.length <= MAX_IDS_PREPARED
        ? await someUsers(missing.length)(conn).all(Object.fromEntries(missing.map((id, i) => [`id${i}`, id])))
        : await conn.select(cols).from(users).where(inArray(users.id, missing));
    for (const id of missing) known.set(id, null);
    for (const r of rows) known.set(r.id, r);
  }
  return unique.map((id) => known.get(id)).filter((r): r is Recipient => r != null);
}

/**
 * A user the unit of work has read already (its whole row: the owner it checked, the sender of a
 * mail), for its scrips to use without reading it again (decision 067). Outside one: nothing.
 */
export async function rememberUser(conn: Conn, u: Recipient): Promise<void> {
  if (!inUnitOfWork(conn)) return;
  const known = await oncePerUnit(conn, READ_USERS, async () => new Map<number, Recipient | null>());
  if (known.has(u.id)) return;
  const { id, email, name, role, disabled, notify_new_tickets, notify_replies, notify_notes, portal_epoch } = u;
  known.set(id, { id, email, name, role, disabled, notify_new_tickets, notify_replies, notify_notes, portal_epoch });
}

export const userById = async (conn: Conn, id: number | null): Promise<Recipient | undefined> =>
  id === null ? undefined : (await usersByIds(conn, [id]))[0];

export const isStaffRole = (role: string | undefined) => role === 'admin' || role === 'agent';

const staffWrote = prepared((db) =>
  db
    .select({ id: transactions.id })
    .from(transactions)
    .innerJoin(users, eq(users.id, transactions.creator_id))
    .where(
      and(
        eq(transactions.ticket_id, p('id')),
        inArray(transactions.type, ['Create', 'Correspond']),
        inArray(users.role, ['admin', 'agent']),
      ),
    )
    .limit(1),
);
/**
 * SPEC D0: whether a staff member has written publicly on the ticket (a public reply, or the
 * ticket itself when staff opened it): until then what a customer writes is not mailed on to
 * the other customers.
 */
export const staffSpokePublicly = async (conn: Conn, ticketId: number): Promise<boolean> =>
  (await staffWrote(conn).get({ id: ticketId })) !== undefined;
