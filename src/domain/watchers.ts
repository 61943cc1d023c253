import { lockForChange } from './merge/guard.js';
import { configChanged } from '../db/configCache.js';
import { and, eq, inArray, sql } from 'drizzle-orm';
import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';
import { changes, type Conn, type Db, lockTicket, prepared, preparedForIds, transaction } from '../db/port.js';
import { addedOrder, watcherRolesQuery } from '../db/shared/pageParts.js';
import { queueWatchers, tickets, ticketWatchers, type WATCHER_ROLES } from '../db/tables.js';
import type { ScripResult } from '../scrips/kinds.js';
import type { NotifySettings } from '../scrips/config.js';
import { ourAddresses, queueWatcherRoles } from '../scrips/people.js';
import { type Actor, isStaff } from './actor.js';
import { nowIso } from './clock.js';
import { conflict, forbidden, invalid, notFound } from './errors.js';
import { recordTransactions, type TransactionJson } from './transactions.js';
import { ensureMailUser, getUserRow, type UserRow } from './users.js';

// People on a ticket (SPEC C2): requesters, Cc and AdminCc, each a row of ticket_watchers.
// `tickets.requester_id` is the first requester, kept for the API of SPEC B3 and for lists.

export type WatcherRole = (typeof WATCHER_ROLES)[number];
export interface Watchers {
  requesters: number[];
  cc: number[];
  admin_cc: number[];
}

/** A person named by id or by address: `7`, `ann@example.com` or `Ann Lee <ann@example.com>`. */
export type PersonRef = number | string;

const emailCheck = z.email();
/** One mailbox, `Name <addr>` or a bare address (nodemailer's parser, as outbound mail uses); null if not exactly one valid address. */
export function parseAddress(text: string): { name: string; address: string } | null {
  const found = addressparser(text, { flatten: true });
  if (found.length !== 1) return null;
  const address = (found[0].address ?? '').trim().toLowerCase();
  return emailCheck.safeParse(address).success ? { name: (found[0].name ?? '').trim(), address } : null;
}

/**
 * Turns ids and addresses into users: an id must exist; an unknown address becomes a stub
 * requester (no password), as mail does; one of our own addresses (`own`: MAIL_FROM,
 * MAIL_ADDRESSES; queue aliases) is refused. `path` names the field in a 422.
 */
export async function resolvePeople(
  conn: Conn,
  refs: PersonRef[],
  path: string,
  opts: { own: string[]; single?: boolean },
): Promise<UserRow[]> {
  const out: UserRow[] = [];
  for (const [i, ref] of refs.entries()) {
    const at = opts.single ? path : `${path}.${i}`;
    let user: UserRow | undefined;
    if (typeof ref === 'number' || /^\d+$/.test(ref.trim())) {
      user = await getUserRow(conn, Number(ref));
      if (!user) throw invalid(at, `User ${ref} does not exist`);
    } else {
      const a = parseAddress(ref);
      if (!a) throw invalid(at, `"${ref.slice(0, 200)}" is not a valid e-mail address`);
      if ((await ourAddresses(conn, opts.own)).has(a.address))
        throw invalid(at, `${a.address} is one of hxdesk's own addresses`);
      user = (await ensureMailUser(conn, a.address, a.name)).user;
    }
    if (!out.some((u) => u.id === user!.id)) out.push(user);
  }
  return out;
}

const p = sql.placeholder;
const rolesOfOne = prepared((db) =>
  db
    .select({ ticket: ticketWatchers.ticket_id, role: ticketWatchers.role, user: ticketWatchers.user_id })
    .from(ticketWatchers)
    .where(eq(ticketWatchers.ticket_id, p('id')))
    .orderBy(...addedOrder),
);
/** One more person on a ticket, after everyone already on it. */
const insertWatcher = prepared((db) =>
  db
    .insert(ticketWatchers)
    .values({
      ticket_id: p('ticket'),
      role: p('role'),
      user_id: p('user'),
      created_at: p('now'),
      position: sql`(SELECT coalesce(max(${sql.identifier('position')}), 0) + 1 FROM ${ticketWatchers} WHERE ${sql.identifier('ticket_id')} = ${p('ticket')})`,
    })
    .onConflictDoNothing(),
);
const watching = prepared((db) =>
  db
    .select({ n: sql<number>`1` })
    .from(ticketWatchers)
    .where(
      and(
        eq(ticketWatchers.ticket_id, p('ticket')),
        eq(ticketWatchers.user_id, p('user')),
        inArray(ticketWatchers.role, ['requester', 'cc']),
      ),
    ),
);

/** The ticket's own watchers (not the queue's), by ticket, ids in the order they were added. */
const rolesOfMany = preparedForIds((db, inIds) => watcherRolesQuery(db, { inIds }));
export async function watchersOf(conn: Conn, ids: number[]): Promise<Map<number, Watchers>> {
  return watchersFrom(
    ids,
    ids.length === 1 ? await rolesOfOne(conn).all({ id: ids[0] }) : await rolesOfMany(conn, ids),
  );
}

/** watchersOf's map from its rows. */
export function watchersFrom(
  ids: number[],
  rows: { ticket: number; role: string; user: number }[],
): Map<number, Watchers> {
  const out = new Map<number, Watchers>(ids.map((id) => [id, { requesters: [], cc: [], admin_cc: [] }]));
  for (const r of rows)
    out.get(r.ticket)![r.role === 'requester' ? 'requesters' : (r.role as 'cc' | 'admin_cc')].push(r.user);
  return out;
}

/** Whether a user is a requester or Cc of the ticket (what a customer needs to see it). */
export const isCustomerOf = async (conn: Conn, ticketId: number, userId: number) =>
  (await watching(conn).get({ ticket: ticketId, user: userId })) !== undefined;

/** Adds watchers while a ticket is created (part of its Create, no transactions of their own). */
export async function addInitialWatchers(
  conn: Conn,
  ticketId: number,
  role: WatcherRole,
  userIds: number[],
  now: string,
): Promise<void> {
  for (const user of userIds) await insertWatcher(conn).run({ ticket: ticketId, role, user, now });
}

function checkRole(role: WatcherRole, user: UserRow, path: string): void {
  if (user.disabled) throw invalid(path, `User ${user.id} is disabled`);
  if (role === 'admin_cc' && user.role === 'requester')
    throw invalid(path, `AdminCc receives internal notes: ${user.email} is not an agent or administrator`);
}

export interface AddWatcherInput {
  role: WatcherRole;
  user_id?: number;
  email?: string;
}

/** POST /tickets/:id/watchers: an `AddWatcher` transaction that runs scrips. */
export async function addWatcher(
  db: Db,
  actor: Actor,
  ticketId: number,
  input: AddWatcherInput,
  notify: NotifySettings,
): Promise<{ transaction: TransactionJson; scrip_results: ScripResult[] }> {
  if (!isStaff(actor))
    throw forbidden('Requesters cannot change who is on a ticket; Cc people by replying to the mail instead');
  return transaction(db, async (tx) => {
    await lockForChange(tx, ticketId); // SPEC D3: 404 for no ticket, 409 for a merged one
    const path = input.user_id !== undefined ? 'user_id' : 'email';
    const ref = input.user_id ?? input.email;
    if (ref === undefined) throw invalid('user_id', 'Give user_id or email');
    const [user] = await resolvePeople(tx, [ref], path, { own: notify.ownAddresses, single: true });
    checkRole(input.role, user, path);
    const r = await addWatcherIn(tx, actor.id, ticketId, input.role, user.id, { notify });
    if (!r) throw conflict(`${user.email} is already ${ROLE_NAMES[input.role]} of ticket ${ticketId}`);
    return r;
  });
}

export const ROLE_NAMES: Record<WatcherRole, string> = { requester: 'a requester', cc: 'a Cc', admin_cc: 'an AdminCc' };

/** Adds one watcher with its transaction, inside the caller's SQL transaction; null when already there. */
export async function addWatcherIn(
  conn: Conn,
  actorId: number | null,
  ticketId: number,
  role: WatcherRole,
  userId: number,
  opts: { notify: NotifySettings; alreadySent?: string[] },
) {
  await lockTicket(conn, ticketId); // the position after everyone on it, and the requester, are the ticket's state
  const now = nowIso(conn);
  if ((await insertWatcher(conn).run({ ticket: ticketId, role, user: userId, now })).changes === 0) return null;
  if (role === 'requester') {
    await conn
      .update(tickets)
      .set({ requester_id: userId })
      .where(and(eq(tickets.id, ticketId), sql`${tickets.requester_id} IS NULL`));
  }
  await conn.update(tickets).set({ updated_at: now }).where(eq(tickets.id, ticketId));
  const { transactions, scrip_results } = await recordTransactions(
    conn,
    ticketId,
    actorId,
    [{ type: 'AddWatcher', field: role, new_value: String(userId) }],
    now,
    opts,
  );
  return { transaction: transactions[0], scrip_results };
}

/** DELETE /tickets/:id/watchers/:role/:userId: a `DelWatcher` transaction that runs scrips. */
export async function removeWatcher(
  db: Db,
  actor: Actor,
  ticketId: number,
  role: WatcherRole,
  userId: number,
  notify: NotifySettings,
): Promise<{ transaction: TransactionJson; scrip_results: ScripResult[] }> {
  if (!isStaff(actor)) throw forbidden('Requesters cannot change who is on a ticket');
  return transaction(db, async (tx) => {
    const ticket = await lockForChange(tx, ticketId); // SPEC D3: 404 for no ticket, 409 for a merged one
    const where = and(
      eq(ticketWatchers.ticket_id, ticketId),
      eq(ticketWatchers.role, role),
      eq(ticketWatchers.user_id, userId),
    );
    if (changes(await tx.delete(ticketWatchers).where(where)) === 0)
      throw notFound(`Watcher ${role}/${userId} on ticket`, ticketId);
    const now = nowIso(db);
    if (role === 'requester' && ticket.requester_id === userId) {
      // The next requester (in the order they joined) becomes the first; none left: no requester.
      const next = (await rolesOfOne(tx).all({ id: ticketId })).find((w) => w.role === 'requester');
      await tx
        .update(tickets)
        .set({ requester_id: next?.user ?? null })
        .where(eq(tickets.id, ticketId));
    }
    await tx.update(tickets).set({ updated_at: now }).where(eq(tickets.id, ticketId));
    const { transactions, scrip_results } = await recordTransactions(
      tx,
      ticketId,
      actor.id,
      [{ type: 'DelWatcher', field: role, old_value: String(userId) }],
      now,
      { notify },
    );
    return { transaction: transactions[0], scrip_results };
  });
}

// ---- queue watchers ---------------------------------------------------------------------

/** A queue's Cc and AdminCc: the configuration's kept rows, as the scrips read them (decisions 067, 104). */
export async function queueWatchersOf(conn: Conn, queueId: number): Promise<{ cc: number[]; admin_cc: number[] }> {
  const rows = await queueWatcherRoles(conn, queueId);
  return {
    cc: rows.filter((r) => r.role === 'cc').map((r) => r.user),
    admin_cc: rows.filter((r) => r.role === 'admin_cc').map((r) => r.user),
  };
}

/** Replaces a queue's Cc or AdminCc list (PATCH /queues/:id); the caller checks the actor is an admin. */
export async function setQueueWatchers(
  conn: Conn,
  queueId: number,
  role: 'cc' | 'admin_cc',
  refs: PersonRef[],
  own: string[],
): Promise<void> {
  const people = await resolvePeople(conn, refs, role, { own });
  people.forEach((u, i) => {
    checkRole(role, u, `${role}.${i}`);
  });
  await configChanged(conn); // a queue's watchers are kept by every process (decision 067)
  await conn.delete(queueWatchers).where(and(eq(queueWatchers.queue_id, queueId), eq(queueWatchers.role, role)));
  const now = nowIso(conn);
  for (const u of people)
    await conn.insert(queueWatchers).values({ queue_id: queueId, role, user_id: u.id, created_at: now });
}
