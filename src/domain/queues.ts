import { cachedConfig, configTransaction } from '../db/configCache.js';
import { asc, eq, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, sameName, first, one } from '../db/port.js';
import { queues, queueWatchers, tickets } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import { signatureError } from '../scrips/signature.js';
import { type Actor, isStaff, requireAdmin } from './actor.js';
import { nowIso } from './clock.js';
import { conflict, invalid, notFound } from './errors.js';
import { lifecycleWithId, moveTicketsToLifecycle } from './lifecycles/queueLifecycle.js';
import { teamExists } from './teams.js';
import { queueFor } from './customerView.js';
import { unique } from './unique.js';
import { type PersonRef, queueWatchersOf, setQueueWatchers } from './watchers.js';

export type QueueRow = typeof queues.$inferSelect;
/**
 * A queue as the API shows it. Staff also see its Cc and AdminCc (user ids; SPEC C2), who watch
 * every ticket in it; requesters, who read queues to open tickets, see the queue without them.
 */
export type QueueJson = QueueRow & { cc?: number[]; admin_cc?: number[] };

const queueById = prepared((db) =>
  db
    .select()
    .from(queues)
    .where(eq(queues.id, sql.placeholder('id'))),
);

export async function getQueueRow(db: Conn, id: number): Promise<QueueRow | undefined> {
  // Kept by the process for the configuration's version inside a unit of work (decision 067).
  return await cachedConfig(db, `queue:${id}`, async () => await queueById(db).get({ id }));
}

/** The queue of that name, ignoring case (names are unique regardless of case). */
export async function findQueueByName(db: Conn, name: string): Promise<QueueRow | undefined> {
  return await first(
    db
      .select()
      .from(queues)
      .where(sameName(db, queues.name, name)),
  );
}

/**
 * Queues are readable by anyone signed in: requesters need them to open a ticket, so they read the
 * queues they may open requests in (`portal_create`), without the staff fields (decision 050).
 */
export async function listQueues(db: Db, actor: Actor): Promise<QueueJson[]> {
  const rows = await db.select().from(queues).orderBy(asc(queues.name));
  if (!isStaff(actor)) return rows.filter((q) => q.portal_create).map((q) => queueFor(actor, q));
  const watchers = await db.select().from(queueWatchers).orderBy(asc(queueWatchers.user_id));
  const of = (q: number, role: 'cc' | 'admin_cc') =>
    watchers.filter((w) => w.queue_id === q && w.role === role).map((w) => w.user_id);
  return rows.map((q) => ({ ...q, cc: of(q.id, 'cc'), admin_cc: of(q.id, 'admin_cc') }));
}

const withWatchers = async (conn: Conn, actor: Actor, q: QueueRow): Promise<QueueJson> =>
  isStaff(actor) ? { ...q, ...(await queueWatchersOf(conn, q.id)) } : q;

export async function getQueue(db: Db, actor: Actor, id: number): Promise<QueueJson> {
  const q = await getQueueRow(db, id);
  if (!q || (!isStaff(actor) && !q.portal_create)) throw notFound('Queue', id);
  return queueFor(actor, await withWatchers(db, actor, q));
}

export interface QueueInput {
  name: string;
  description?: string;
  mail_alias?: string | null;
  team_id?: number | null;
  /** New mail's other To/Cc people become Cc watchers of its ticket (default true). */
  keep_mail_cc?: boolean;
  /** SPEC D6: requesters may open new requests in this queue from the portal (default false). */
  portal_create?: boolean;
  /** SPEC D4: the Resolved mail asks the requesters for a rating (default false). */
  csat_enabled?: boolean;
  /** SPEC D0: new people of one message who become Cc (1–10), and people a ticket gets from mail (1–20). */
  mail_cc_per_message?: number;
  mail_cc_per_ticket?: number;
  /** Liquid closing public replies from this queue, after the writer's own signature (SPEC C3). */
  signature?: string;
  /** The whole list of the queue's Cc / AdminCc, as user ids or addresses. */
  cc?: PersonRef[];
  admin_cc?: PersonRef[];
  /** SPEC D3: the queue's lifecycle; null: RT's default. */
  lifecycle_id?: number | null;
}

async function check(db: Conn, input: Partial<QueueInput>) {
  if (input.team_id != null && !(await teamExists(db, input.team_id)))
    throw invalid('team_id', `Team ${input.team_id} does not exist`);
  if (input.signature !== undefined) {
    const error = signatureError(input.signature);
    if (error) throw invalid('signature', error);
  }
  if (input.lifecycle_id != null && !(await lifecycleWithId(db, input.lifecycle_id)))
    throw invalid('lifecycle_id', `Lifecycle ${input.lifecycle_id} does not exist`);
}

const normalize = <T extends Partial<QueueInput>>(input: T): T =>
  input.mail_alias ? { ...input, mail_alias: input.mail_alias.trim().toLowerCase() } : input;

/** The queue's own columns of an input (the watcher lists are rows of their own). */
function columns(input: Partial<QueueInput>) {
  const { cc: _cc, admin_cc: _adminCc, ...rest } = input;
  return rest;
}

/** `own`: our addresses besides the queue aliases (MAIL_FROM, MAIL_ADDRESSES), never a watcher. */
async function setWatchers(conn: Conn, queueId: number, input: Partial<QueueInput>, own: string[]) {
  if (input.cc !== undefined) await setQueueWatchers(conn, queueId, 'cc', input.cc, own);
  if (input.admin_cc !== undefined) await setQueueWatchers(conn, queueId, 'admin_cc', input.admin_cc, own);
}

export async function createQueue(db: Db, actor: Actor, raw: QueueInput, notify: NotifySettings): Promise<QueueJson> {
  requireAdmin(actor);
  const input = normalize(raw);
  const now = nowIso(db);
  return unique(db, input, () =>
    configTransaction(db, async (tx) => {
      await check(tx, input);
      const row = await one(
        tx
          .insert(queues)
          .values({
            name: input.name,
            description: input.description ?? '',
            mail_alias: input.mail_alias ?? null,
            team_id: input.team_id ?? null,
            keep_mail_cc: input.keep_mail_cc ?? true,
            portal_create: input.portal_create ?? false,
            csat_enabled: input.csat_enabled ?? false,
            signature: input.signature ?? '',
            lifecycle_id: input.lifecycle_id ?? null,
            created_at: now,
            updated_at: now,
            ...(input.mail_cc_per_message === undefined ? {} : { mail_cc_per_message: input.mail_cc_per_message }),
            ...(input.mail_cc_per_ticket === undefined ? {} : { mail_cc_per_ticket: input.mail_cc_per_ticket }),
          })
          .returning(),
      );
      await setWatchers(tx, row.id, input, notify.ownAddresses);
      return withWatchers(tx, actor, row);
    }),
  );
}

export async function updateQueue(
  db: Db,
  actor: Actor,
  id: number,
  raw: Partial<QueueInput>,
  notify: NotifySettings,
): Promise<QueueJson> {
  requireAdmin(actor);
  const input = normalize(raw);
  return unique(db, input, () =>
    configTransaction(db, async (tx) => {
      const before = await getQueueRow(tx, id);
      if (!before) throw notFound('Queue', id);
      await check(tx, input);
      if (input.lifecycle_id !== undefined && input.lifecycle_id !== before.lifecycle_id)
        await moveTicketsToLifecycle(tx, id, input.lifecycle_id);
      const row = await one(
        tx
          .update(queues)
          .set({ ...columns(input), updated_at: nowIso(db) })
          .where(eq(queues.id, id))
          .returning(),
      );
      await setWatchers(tx, id, input, notify.ownAddresses);
      return withWatchers(tx, actor, row);
    }),
  );
}

export async function deleteQueue(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await getQueue(db, actor, id);
  if (await first(db.select({ id: tickets.id }).from(tickets).where(eq(tickets.queue_id, id)).limit(1))) {
    throw conflict(`Queue ${id} still has tickets; move them to another queue first`);
  }
  await configTransaction(db, (tx) => tx.delete(queues).where(eq(queues.id, id)));
}
