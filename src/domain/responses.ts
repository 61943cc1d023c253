import { and, asc, eq, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { type Conn, type Db, first, one, transaction } from '../db/port.js';
import { cannedResponses } from '../db/schema.js';
import { isStatus, STATUSES, type Status } from '../lifecycle.js';
import { type Actor, isAdmin, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { AppError, forbidden, invalid, notFound } from './errors.js';
import { getQueueRow } from './queues.js';
import { checkLiquid, renderLiquid, ticketScope } from './templates.js';
import { getTicket } from './tickets/write.js';

// SPEC C4: canned responses (decision 034). A response is Liquid text an agent inserts into the
// reply box, rendered against the ticket as templates are; it may carry a status that the reply
// then sets. Each belongs to one agent (owner_id) or is shared (owner_id null, managed by
// administrators); it serves one queue (queue_id) or all (null). Requesters have none.

export type ResponseJson = typeof cannedResponses.$inferSelect;

export interface ResponseInput {
  name: string; body: string; queue_id?: number | null; set_status?: Status | null;
  /** Shared with every agent (administrators only); otherwise the writer's own. */
  shared?: boolean;
}

export interface ResponseFilter {
  /** Only this queue's responses and those for all queues. */
  queue_id?: number;
  /** Name contains (any case). */
  q?: string;
}

/** What the reply box inserts: the rendered text, and the status the reply will set (if any). */
export interface RenderedResponse { id: number; name: string; body: string; set_status: string | null }

const visibleTo = (actor: Actor): SQL => or(isNull(cannedResponses.owner_id), eq(cannedResponses.owner_id, actor.id))!;

/** Own and shared responses, by name (own first when names tie). Staff only. */
export async function listResponses(db: Db, actor: Actor, filter: ResponseFilter = {}): Promise<ResponseJson[]> {
  requireStaff(actor);
  const where = [visibleTo(actor)];
  if (filter.queue_id !== undefined) where.push(or(isNull(cannedResponses.queue_id), eq(cannedResponses.queue_id, filter.queue_id))!);
  const rows = await db.select().from(cannedResponses).where(and(...where))
    .orderBy(sql`lower(${cannedResponses.name})`, asc(cannedResponses.owner_id), asc(cannedResponses.id));
  const q = filter.q?.trim().toLowerCase();
  return q ? rows.filter((r) => r.name.toLowerCase().includes(q)) : rows;
}

/** One response the actor may use (their own or a shared one); anyone else's is not found. */
export async function getResponse(db: Conn, actor: Actor, id: number): Promise<ResponseJson> {
  requireStaff(actor);
  const row = await first(db.select().from(cannedResponses).where(and(eq(cannedResponses.id, id), visibleTo(actor))));
  if (!row) throw notFound('Canned response', id);
  return row;
}

/** Whether the actor may change it: their own, or (administrators) a shared one. */
export const canManage = (actor: Actor, r: Pick<ResponseJson, 'owner_id'>) => (r.owner_id === null ? isAdmin(actor) : r.owner_id === actor.id);

function requireManage(actor: Actor, r: Pick<ResponseJson, 'owner_id'>): void {
  if (!canManage(actor, r)) throw forbidden(r.owner_id === null ? 'Only administrators can change shared canned responses' : 'You can only change your own canned responses');
}

function checkStatus(status: string | null | undefined): void {
  if (status != null && !isStatus(status)) throw invalid('set_status', `Expected one of: ${STATUSES.join(', ')}`);
}

async function checkQueue(conn: Conn, id: number | null | undefined): Promise<void> {
  if (id != null && !await getQueueRow(conn, id)) throw invalid('queue_id', `Queue ${id} does not exist`);
}

/**
 * A name is unique among one owner's responses, and among the shared ones (any case). Checked in
 * the unit of work that writes: SQLite has one writer at a time; on PostgreSQL two writers racing
 * for the same name is an edge this rule accepts (the table has no index for a NULL owner).
 */
async function checkName(tx: Conn, name: string, ownerId: number | null, except?: number): Promise<void> {
  const where = [sql`lower(${cannedResponses.name}) = ${name.toLowerCase()}`,
    ownerId === null ? isNull(cannedResponses.owner_id) : eq(cannedResponses.owner_id, ownerId)];
  if (except !== undefined) where.push(ne(cannedResponses.id, except));
  if (await first(tx.select({ id: cannedResponses.id }).from(cannedResponses).where(and(...where)))) {
    const message = `A ${ownerId === null ? 'shared ' : ''}canned response named "${name}" already exists`;
    throw new AppError('conflict', message, [{ path: 'name', message }]);
  }
}

export async function createResponse(db: Db, actor: Actor, input: ResponseInput): Promise<ResponseJson> {
  requireStaff(actor);
  if (input.shared && !isAdmin(actor)) throw forbidden('Only administrators can create shared canned responses');
  checkStatus(input.set_status);
  await checkLiquid(db, { body: input.body });
  const ownerId = input.shared ? null : actor.id;
  const now = nowIso(db);
  return transaction(db, async (tx) => {
    await checkQueue(tx, input.queue_id);
    await checkName(tx, input.name, ownerId);
    return one(tx.insert(cannedResponses).values({
      name: input.name, body: input.body, queue_id: input.queue_id ?? null, owner_id: ownerId, set_status: input.set_status ?? null,
      created_at: now, updated_at: now,
    }).returning());
  });
}

export async function updateResponse(db: Db, actor: Actor, id: number, input: Partial<ResponseInput>): Promise<ResponseJson> {
  requireManage(actor, await getResponse(db, actor, id));
  if (input.shared && !isAdmin(actor)) throw forbidden('Only administrators can share canned responses');
  checkStatus(input.set_status);
  if (input.body !== undefined) await checkLiquid(db, { body: input.body });
  return transaction(db, async (tx) => {
    const current = await getResponse(tx, actor, id);
    requireManage(actor, current);
    const ownerId = input.shared === undefined ? current.owner_id : input.shared ? null : actor.id;
    await checkQueue(tx, input.queue_id);
    if (input.name !== undefined || ownerId !== current.owner_id) await checkName(tx, input.name ?? current.name, ownerId, id);
    const { shared: _, ...fields } = input;
    return one(tx.update(cannedResponses).set({ ...fields, owner_id: ownerId, updated_at: nowIso(db) }).where(eq(cannedResponses.id, id)).returning());
  });
}

export async function deleteResponse(db: Db, actor: Actor, id: number): Promise<void> {
  await transaction(db, async (tx) => {
    requireManage(actor, await getResponse(tx, actor, id));
    await tx.delete(cannedResponses).where(eq(cannedResponses.id, id));
  });
}

/**
 * A response rendered for a ticket the actor can see, with the variables a template has for it
 * (src/domain/templates.ts) — `transaction` being the newest entry the customer saw (Create or
 * Correspond), never an internal note; a failure of the response's own Liquid, or a text larger
 * than 1 MiB (SPEC D0), is 422 naming `body`, never a 500.
 */
export async function renderResponse(db: Db, actor: Actor, id: number, ticketId: number): Promise<RenderedResponse> {
  const r = await getResponse(db, actor, id);
  const ticket = await getTicket(db, actor, ticketId);
  if (r.queue_id !== null && r.queue_id !== ticket.queue_id) throw invalid('ticket_id', `"${r.name}" is for another queue than ticket ${ticketId}'s`);
  return { id: r.id, name: r.name, body: renderLiquid('body', r.body, await ticketScope(db, ticketId, 'public')), set_status: r.set_status };
}
