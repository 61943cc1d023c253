import { type Conn, type Db, transaction } from '../../db/port.js';
import { lockForChange } from '../merge/guard.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/kinds.js';
import { type Actor, isStaff } from '../actor.js';
import { nowIso } from '../clock.js';
import { AppError, forbidden } from '../errors.js';
import { recordTransactions } from '../transactions.js';
import { getTicketRow, ticketsJson, type TicketJson } from '../tickets/serialize.js';
import { normalizeTag } from './normalize.js';
import { deleteTag, insertTag, touchTicket } from './rows.js';

// SPEC D3 tags on one ticket (decision 074): POST /tickets/:id/tags and DELETE
// /tickets/:id/tags/:tag. Each change is an AddTag / DelTag entry (field `tag`, the tag in
// new_value / old_value) through recordTransactions, so scrips run on it, its scrip results are
// kept, and live updates and webhooks see it. Adding a tag the ticket has changes nothing.

export interface TagChange {
  ticket: TicketJson;
  scrip_results: ScripResult[];
}

/** Tags are staff's: a requester may neither read nor change them (decision 074). */
export function requireTagWriter(actor: Actor): void {
  if (!isStaff(actor)) throw forbidden('Tags are for staff: requesters cannot see or change them');
}

interface EntryOptions {
  notify: NotifySettings;
  queueId?: number;
  actorRole?: string;
}

/**
 * Adds one (normalized) tag with its AddTag entry, inside the caller's unit of work, which has
 * locked the ticket; null when the ticket has it already (no entry, no scrips).
 */
export async function addTagIn(conn: Conn, actorId: number | null, ticketId: number, tag: string, opts: EntryOptions) {
  const now = nowIso(conn);
  if ((await insertTag(conn).run({ ticket: ticketId, tag, now })).changes === 0) return null;
  await touchTicket(conn).run({ ticket: ticketId, now });
  return await recordTransactions(
    conn,
    ticketId,
    actorId,
    [{ type: 'AddTag', field: 'tag', new_value: tag }],
    now,
    opts,
  );
}

/** Takes one tag off with its DelTag entry, inside the caller's unit of work; null when the ticket has it not. */
export async function removeTagIn(
  conn: Conn,
  actorId: number | null,
  ticketId: number,
  tag: string,
  opts: EntryOptions,
) {
  if ((await deleteTag(conn).run({ ticket: ticketId, tag })).changes === 0) return null;
  const now = nowIso(conn);
  await touchTicket(conn).run({ ticket: ticketId, now });
  return await recordTransactions(
    conn,
    ticketId,
    actorId,
    [{ type: 'DelTag', field: 'tag', old_value: tag }],
    now,
    opts,
  );
}

/** The ticket locked for a tag change, as staff may change it (404: no such ticket). */
async function lockedTicket(tx: Conn, actor: Actor, id: number) {
  requireTagWriter(actor);
  // 404 when there is no such ticket, 409 with merged_into when it was merged (SPEC D3).
  return await lockForChange(tx, id);
}

/** The ticket as it is after the change, read in the change's unit of work. */
const ticketNow = async (tx: Conn, id: number) => (await ticketsJson(tx, [(await getTicketRow(tx, id))!]))[0];

/** POST /tickets/:id/tags: `added` false when the ticket had the tag (200, no entry). */
export async function addTag(
  db: Db,
  actor: Actor,
  ticketId: number,
  raw: string,
  notify: NotifySettings,
): Promise<TagChange & { added: boolean }> {
  requireTagWriter(actor);
  const tag = normalizeTag(raw);
  return transaction(db, async (tx) => {
    const row = await lockedTicket(tx, actor, ticketId);
    const r = await addTagIn(tx, actor.id, ticketId, tag, { notify, queueId: row.queue_id, actorRole: actor.role });
    return { ticket: await ticketNow(tx, ticketId), scrip_results: r?.scrip_results ?? [], added: r !== null };
  });
}

/** DELETE /tickets/:id/tags/:tag: 404 when the ticket has no such tag. */
export async function removeTag(
  db: Db,
  actor: Actor,
  ticketId: number,
  raw: string,
  notify: NotifySettings,
): Promise<TagChange> {
  requireTagWriter(actor);
  const tag = normalizeTag(raw);
  return transaction(db, async (tx) => {
    const row = await lockedTicket(tx, actor, ticketId);
    const r = await removeTagIn(tx, actor.id, ticketId, tag, {
      notify,
      queueId: row.queue_id,
      actorRole: actor.role,
    });
    if (!r) throw new AppError('not_found', `Ticket ${ticketId} has no tag "${tag}"`);
    return { ticket: await ticketNow(tx, ticketId), scrip_results: r.scrip_results };
  });
}

/**
 * A bulk change's tags for one ticket (SPEC D3 `add_tags`, `remove_tags`), inside the ticket's
 * unit of work: an entry for each tag that changes, none for one that does not.
 */
export async function changeTagsIn(
  tx: Conn,
  actor: Actor,
  ticketId: number,
  tags: { add?: string[]; remove?: string[] },
  notify: NotifySettings,
): Promise<ScripResult[]> {
  const row = await lockedTicket(tx, actor, ticketId);
  const opts = { notify, queueId: row.queue_id, actorRole: actor.role };
  const results: ScripResult[] = [];
  for (const tag of tags.remove ?? [])
    results.push(...((await removeTagIn(tx, actor.id, ticketId, tag, opts))?.scrip_results ?? []));
  for (const tag of tags.add ?? [])
    results.push(...((await addTagIn(tx, actor.id, ticketId, tag, opts))?.scrip_results ?? []));
  return results;
}
