import { asc, eq, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, sameName } from '../db/client.js';
import { queues, queueWatchers, tickets } from '../db/schema.js';
import { signatureError } from '../scrips/signature.js';
import { type Actor, isStaff, nowIso, requireAdmin } from './actor.js';
import { conflict, invalid, notFound } from './errors.js';
import { teamExists } from './teams.js';
import { unique } from './unique.js';
import { type PersonRef, queueWatchersOf, setQueueWatchers } from './watchers.js';

export type QueueRow = typeof queues.$inferSelect;
/**
 * A queue as the API shows it. Staff also see its Cc and AdminCc (user ids; SPEC C2), who watch
 * every ticket in it; requesters, who read queues to open tickets, see the queue without them.
 */
export type QueueJson = QueueRow & { cc?: number[]; admin_cc?: number[] };

const queueById = prepared((db) => db.select().from(queues).where(eq(queues.id, sql.placeholder('id'))).prepare());

export function getQueueRow(db: Conn, id: number): QueueRow | undefined {
  return queueById(db).get({ id });
}

/** The queue of that name, ignoring case (names are unique regardless of case). */
export function findQueueByName(db: Conn, name: string): QueueRow | undefined {
  return db.select().from(queues).where(sameName(queues.name, name)).get();
}

/** Queues are readable by anyone signed in: requesters need them to open a ticket. */
export function listQueues(db: Db, actor: Actor): QueueJson[] {
  const rows = db.select().from(queues).orderBy(asc(queues.name)).all();
  if (!isStaff(actor)) return rows;
  const watchers = db.select().from(queueWatchers).orderBy(asc(queueWatchers.user_id)).all();
  const of = (q: number, role: 'cc' | 'admin_cc') => watchers.filter((w) => w.queue_id === q && w.role === role).map((w) => w.user_id);
  return rows.map((q) => ({ ...q, cc: of(q.id, 'cc'), admin_cc: of(q.id, 'admin_cc') }));
}

const withWatchers = (conn: Conn, actor: Actor, q: QueueRow): QueueJson => (isStaff(actor) ? { ...q, ...queueWatchersOf(conn, q.id) } : q);

export function getQueue(db: Db, actor: Actor, id: number): QueueJson {
  const q = getQueueRow(db, id);
  if (!q) throw notFound('Queue', id);
  return withWatchers(db, actor, q);
}

export interface QueueInput {
  name: string; description?: string; mail_alias?: string | null; team_id?: number | null;
  /** New mail's other To/Cc people become Cc watchers of its ticket (default true). */
  keep_mail_cc?: boolean;
  /** Liquid closing public replies from this queue, after the writer's own signature (SPEC C3). */
  signature?: string;
  /** The whole list of the queue's Cc / AdminCc, as user ids or addresses. */
  cc?: PersonRef[]; admin_cc?: PersonRef[];
}

function check(db: Conn, input: Partial<QueueInput>) {
  if (input.team_id != null && !teamExists(db, input.team_id)) throw invalid('team_id', `Team ${input.team_id} does not exist`);
  if (input.signature !== undefined) {
    const error = signatureError(input.signature);
    if (error) throw invalid('signature', error);
  }
}

const normalize = <T extends Partial<QueueInput>>(input: T): T =>
  input.mail_alias ? { ...input, mail_alias: input.mail_alias.trim().toLowerCase() } : input;

/** The queue's own columns of an input (the watcher lists are rows of their own). */
function columns(input: Partial<QueueInput>) {
  const { cc: _cc, admin_cc: _adminCc, ...rest } = input;
  return rest;
}

function setWatchers(conn: Conn, queueId: number, input: Partial<QueueInput>) {
  if (input.cc !== undefined) setQueueWatchers(conn, queueId, 'cc', input.cc);
  if (input.admin_cc !== undefined) setQueueWatchers(conn, queueId, 'admin_cc', input.admin_cc);
}

export function createQueue(db: Db, actor: Actor, raw: QueueInput): QueueJson {
  requireAdmin(actor);
  const input = normalize(raw);
  const now = nowIso();
  return unique(input, () => db.transaction((tx) => {
    check(tx, input);
    const row = tx.insert(queues).values({
      name: input.name, description: input.description ?? '', mail_alias: input.mail_alias ?? null, team_id: input.team_id ?? null,
      keep_mail_cc: input.keep_mail_cc ?? true, signature: input.signature ?? '', created_at: now, updated_at: now,
    }).returning().get();
    setWatchers(tx, row.id, input);
    return withWatchers(tx, actor, row);
  }, { behavior: 'immediate' }));
}

export function updateQueue(db: Db, actor: Actor, id: number, raw: Partial<QueueInput>): QueueJson {
  requireAdmin(actor);
  const input = normalize(raw);
  return unique(input, () => db.transaction((tx) => {
    if (!getQueueRow(tx, id)) throw notFound('Queue', id);
    check(tx, input);
    const row = tx.update(queues).set({ ...columns(input), updated_at: nowIso() }).where(eq(queues.id, id)).returning().get();
    setWatchers(tx, id, input);
    return withWatchers(tx, actor, row);
  }, { behavior: 'immediate' }));
}

export function deleteQueue(db: Db, actor: Actor, id: number): void {
  requireAdmin(actor);
  getQueue(db, actor, id);
  if (db.select({ id: tickets.id }).from(tickets).where(eq(tickets.queue_id, id)).limit(1).get()) {
    throw conflict(`Queue ${id} still has tickets; move them to another queue first`);
  }
  db.delete(queues).where(eq(queues.id, id)).run();
}
