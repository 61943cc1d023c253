import type { Db } from '../db/port.js';
import { attachmentIdsOf } from '../scrips/compose.js';
import {
  getOutboxRow,
  type Mailbox,
  listOutbox as queryOutbox,
  requeue,
  storedMail,
  type OutboxRow,
} from '../scrips/outbox.js';
import { type Actor, parseJson, requireAdmin } from './actor.js';
import { conflict, notFound } from './errors.js';

/**
 * An outbox row as the API shows it: `headers` parsed, and for e-mail the header `to` and `cc`
 * lists (`recipient` is the envelope address of this one copy) and the `attachment_ids` sent with it.
 */
export type OutboxJson = Omit<OutboxRow, 'headers' | 'attachment_ids'> & {
  headers: Record<string, string>;
  to: Mailbox[];
  cc: Mailbox[];
  attachment_ids: number[];
};
const toJson = (r: OutboxRow): OutboxJson => {
  const mail = r.kind === 'email' ? storedMail(r) : null;
  return {
    ...r,
    headers: parseJson(r.headers, {}),
    to: mail?.to ?? [],
    cc: mail?.cc ?? [],
    attachment_ids: attachmentIdsOf(r),
  };
};

export interface OutboxFilter {
  status?: OutboxRow['status'];
  ticket_id?: number;
  limit?: number;
  offset?: number;
}

/** Admins see every notification and its delivery state (queued mail when SMTP is off, too). */
export async function listOutbox(db: Db, actor: Actor, f: OutboxFilter) {
  requireAdmin(actor);
  const limit = f.limit ?? 50;
  const offset = f.offset ?? 0;
  const { rows, total } = await queryOutbox(db, { status: f.status, ticket_id: f.ticket_id, limit, offset });
  return { outbox: rows.map(toJson), total, limit, offset };
}

export async function getOutboxEntry(db: Db, actor: Actor, id: number): Promise<OutboxJson> {
  requireAdmin(actor);
  const row = await getOutboxRow(db, id);
  if (!row) throw notFound('Outbox entry', id);
  return toJson(row);
}

/** Sends a failed (or stuck) notification again from attempt one. */
export async function retryOutboxEntry(db: Db, actor: Actor, id: number): Promise<OutboxJson> {
  const row = await getOutboxEntry(db, actor, id);
  if (row.status === 'sent' || row.status === 'sending') throw conflict(`Outbox entry ${id} is ${row.status}`);
  return toJson(await requeue(db, id));
}
