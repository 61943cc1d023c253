import { asc, eq, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, sameName } from '../db/client.js';
import { queues, tickets } from '../db/schema.js';
import { type Actor, nowIso, requireAdmin } from './actor.js';
import { conflict, invalid, notFound } from './errors.js';
import { teamExists } from './teams.js';
import { unique } from './unique.js';

export type QueueRow = typeof queues.$inferSelect;
export type QueueJson = QueueRow;

const queueById = prepared((db) => db.select().from(queues).where(eq(queues.id, sql.placeholder('id'))).prepare());

export function getQueueRow(db: Conn, id: number): QueueRow | undefined {
  return queueById(db).get({ id });
}

/** The queue of that name, ignoring case (names are unique regardless of case). */
export function findQueueByName(db: Conn, name: string): QueueRow | undefined {
  return db.select().from(queues).where(sameName(queues.name, name)).get();
}

/** Queues are readable by anyone signed in: requesters need them to open a ticket. */
export function listQueues(db: Db, _actor: Actor): QueueJson[] {
  return db.select().from(queues).orderBy(asc(queues.name)).all();
}

export function getQueue(db: Db, _actor: Actor, id: number): QueueJson {
  const q = getQueueRow(db, id);
  if (!q) throw notFound('Queue', id);
  return q;
}

export interface QueueInput { name: string; description?: string; mail_alias?: string | null; team_id?: number | null }

function check(db: Db, input: Partial<QueueInput>) {
  if (input.team_id != null && !teamExists(db, input.team_id)) throw invalid('team_id', `Team ${input.team_id} does not exist`);
}

const normalize = <T extends Partial<QueueInput>>(input: T): T =>
  input.mail_alias ? { ...input, mail_alias: input.mail_alias.trim().toLowerCase() } : input;

export function createQueue(db: Db, actor: Actor, raw: QueueInput): QueueJson {
  requireAdmin(actor);
  const input = normalize(raw);
  check(db, input);
  const now = nowIso();
  return unique(input, () => db.insert(queues).values({
    name: input.name, description: input.description ?? '', mail_alias: input.mail_alias ?? null, team_id: input.team_id ?? null,
    created_at: now, updated_at: now,
  }).returning().get());
}

export function updateQueue(db: Db, actor: Actor, id: number, raw: Partial<QueueInput>): QueueJson {
  requireAdmin(actor);
  getQueue(db, actor, id);
  const input = normalize(raw);
  check(db, input);
  return unique(input, () => db.update(queues).set({ ...input, updated_at: nowIso() }).where(eq(queues.id, id)).returning().get());
}

export function deleteQueue(db: Db, actor: Actor, id: number): void {
  requireAdmin(actor);
  getQueue(db, actor, id);
  if (db.select({ id: tickets.id }).from(tickets).where(eq(tickets.queue_id, id)).limit(1).get()) {
    throw conflict(`Queue ${id} still has tickets; move them to another queue first`);
  }
  db.delete(queues).where(eq(queues.id, id)).run();
}
