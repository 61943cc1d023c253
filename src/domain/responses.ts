import { and, asc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import { type Conn, type Db, first, one, prepared, transaction } from '../db/port.js';
import { cannedResponses } from '../db/tables.js';
import { checkStatusName } from './lifecycles/statuses.js';
import { type Actor, isAdmin, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { forbidden, invalid, notFound } from './errors.js';
import { getQueueRow } from './queues.js';
import { checkLiquid, renderLiquid, ticketScope } from './templates.js';
import { unique } from './unique.js';
import { getTicket } from './tickets/read.js';

// SPEC C4: canned responses (decision 034). A response is Liquid text an agent inserts into the
// reply box, rendered against the ticket as templates are; it may carry a status that the reply
// then sets. Each belongs to one agent (owner_id) or is shared (owner_id null, managed by
// administrators); it serves one queue (queue_id) or all (null). Requesters have none.

export type ResponseJson = typeof cannedResponses.$inferSelect;

export interface ResponseInput {
  name: string;
  body: string;
  queue_id?: number | null;
  set_status?: string | null;
  /** Shared with every agent (administrators only); otherwise the writer's own. */
  shared?: boolean;
  /** The same choice as the field every response carries: null = shared, the writer's own id = theirs. */
  owner_id?: number | null;
}

export interface ResponseFilter {
  /** Only this queue's responses and those for all queues. */
  queue_id?: number;
  /** Name contains (any case). */
  q?: string;
}

/** What the reply box inserts: the rendered text, and the status the reply will set (if any). */
export interface RenderedResponse {
  id: number;
  name: string;
  body: string;
  set_status: string | null;
}

const visibleTo = (actor: Actor): SQL => or(isNull(cannedResponses.owner_id), eq(cannedResponses.owner_id, actor.id))!;

// The reply box's list on every ticket page (no queue filter, or one): compiled once each.
const responsesFor = (byQueue: boolean) =>
  prepared((db) =>
    db
      .select()
      .from(cannedResponses)
      .where(
        and(
          or(isNull(cannedResponses.owner_id), eq(cannedResponses.owner_id, sql.placeholder('reader'))),
          byQueue
            ? or(isNull(cannedResponses.queue_id), eq(cannedResponses.queue_id, sql.placeholder('queue')))
            : undefined,
        ),
      )
      .orderBy(sql`lower(${cannedResponses.name})`, asc(cannedResponses.owner_id), asc(cannedResponses.id)),
  );
const responsesOfAll = responsesFor(false);
const responsesOfQueue = responsesFor(true);

/** Own and shared responses, by name (own first when names tie). Staff only. */
export async function listResponses(db: Db, actor: Actor, filter: ResponseFilter = {}): Promise<ResponseJson[]> {
  requireStaff(actor);
  const rows =
    filter.queue_id === undefined
      ? await responsesOfAll(db).all({ reader: actor.id })
      : await responsesOfQueue(db).all({ reader: actor.id, queue: filter.queue_id });
  const q = filter.q?.trim().toLowerCase();
  return q ? rows.filter((r) => r.name.toLowerCase().includes(q)) : rows;
}

/** One response the actor may use (their own or a shared one); anyone else's is not found. */
export async function getResponse(db: Conn, actor: Actor, id: number): Promise<ResponseJson> {
  requireStaff(actor);
  const row = await first(
    db
      .select()
      .from(cannedResponses)
      .where(and(eq(cannedResponses.id, id), visibleTo(actor))),
  );
  if (!row) throw notFound('Canned response', id);
  return row;
}

/** Whether the actor may change it: their own, or (administrators) a shared one. */
export const canManage = (actor: Actor, r: Pick<ResponseJson, 'owner_id'>) =>
  r.owner_id === null ? isAdmin(actor) : r.owner_id === actor.id;

function requireManage(actor: Actor, r: Pick<ResponseJson, 'owner_id'>): void {
  if (!canManage(actor, r))
    throw forbidden(
      r.owner_id === null
        ? 'Only administrators can change shared canned responses'
        : 'You can only change your own canned responses',
    );
}

/** SPEC D3: a status of the response's queue's lifecycle, or (for every queue) of any lifecycle. */
async function checkStatus(conn: Conn, status: string | null | undefined, queueId: number | null | undefined) {
  if (status != null) await checkStatusName(conn, status, queueId ?? null, 'set_status');
}

async function checkQueue(conn: Conn, id: number | null | undefined): Promise<void> {
  if (id != null && !(await getQueueRow(conn, id))) throw invalid('queue_id', `Queue ${id} does not exist`);
}

/**
 * Whose the response is to be, from `owner_id` (null = shared, one's own id) or `shared`, which
 * say the same thing: a client may send back the `owner_id` it read. undefined when neither is given.
 */
function ownerFrom(actor: Actor, input: Partial<ResponseInput>): number | null | undefined {
  if (input.owner_id !== undefined && input.owner_id !== null && input.owner_id !== actor.id) {
    throw invalid(
      'owner_id',
      `A canned response is your own (owner_id ${actor.id}) or shared (null), never another person's`,
    );
  }
  if (input.owner_id !== undefined && input.shared !== undefined && (input.owner_id === null) !== input.shared) {
    throw invalid('owner_id', `owner_id ${input.owner_id} and shared: ${input.shared} say different things`);
  }
  if (input.owner_id !== undefined) return input.owner_id;
  return input.shared === undefined ? undefined : input.shared ? null : actor.id;
}

/**
 * A name is unique among one owner's responses, and among the shared ones (any case): the unique
 * indexes canned_responses_own_name_uq and canned_responses_shared_name_uq decide, on both stores,
 * also for two writers racing (decision 048); a broken one is 409 naming `name` (src/domain/unique.ts).
 */
const uniqueName = <T>(db: Conn, name: string, write: () => Promise<T>) => unique(db, { name }, write);

export async function createResponse(db: Db, actor: Actor, input: ResponseInput): Promise<ResponseJson> {
  requireStaff(actor);
  const chosen = ownerFrom(actor, input);
  const ownerId = chosen === undefined ? actor.id : chosen;
  if (ownerId === null && !isAdmin(actor)) throw forbidden('Only administrators can create shared canned responses');
  await checkStatus(db, input.set_status, input.queue_id);
  await checkLiquid(db, { body: input.body });
  const now = nowIso(db);
  return uniqueName(db, input.name, () =>
    transaction(db, async (tx) => {
      await checkQueue(tx, input.queue_id);
      return one(
        tx
          .insert(cannedResponses)
          .values({
            name: input.name,
            body: input.body,
            queue_id: input.queue_id ?? null,
            owner_id: ownerId,
            set_status: input.set_status ?? null,
            created_at: now,
            updated_at: now,
          })
          .returning(),
      );
    }),
  );
}

export async function updateResponse(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<ResponseInput>,
): Promise<ResponseJson> {
  const before = await getResponse(db, actor, id);
  requireManage(actor, before);
  const owner = ownerFrom(actor, input);
  if (owner === null && before.owner_id !== null && !isAdmin(actor))
    throw forbidden('Only administrators can share canned responses');
  await checkStatus(
    db,
    input.set_status ?? before.set_status,
    input.queue_id !== undefined ? input.queue_id : before.queue_id,
  );
  if (input.body !== undefined) await checkLiquid(db, { body: input.body });
  return uniqueName(db, input.name ?? before.name, () =>
    transaction(db, async (tx) => {
      const current = await getResponse(tx, actor, id);
      requireManage(actor, current);
      await checkQueue(tx, input.queue_id);
      const { shared: _, owner_id: __, ...fields } = input;
      return one(
        tx
          .update(cannedResponses)
          .set({ ...fields, owner_id: owner === undefined ? current.owner_id : owner, updated_at: nowIso(db) })
          .where(eq(cannedResponses.id, id))
          .returning(),
      );
    }),
  );
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
export async function renderResponse(
  db: Db,
  actor: Actor,
  id: number,
  ticketId: number,
  publicUrl: string,
): Promise<RenderedResponse> {
  const r = await getResponse(db, actor, id);
  const ticket = await getTicket(db, actor, ticketId);
  if (r.queue_id !== null && r.queue_id !== ticket.queue_id)
    throw invalid('ticket_id', `"${r.name}" is for another queue than ticket ${ticketId}'s`);
  return {
    id: r.id,
    name: r.name,
    body: renderLiquid('body', r.body, await ticketScope(db, ticketId, publicUrl, 'public')),
    set_status: r.set_status,
  };
}
