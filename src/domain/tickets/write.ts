import { and, eq, sql } from 'drizzle-orm';
import { type Conn, type Db, lockAndReadTicket, lockTicket, prepared, transaction } from '../../db/port.js';
import { ticketCustomValues, tickets } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/kinds.js';
import { signReply } from '../../scrips/signature.js';
import { type Actor, isAdmin, isStaff, worksAnyTicket } from '../actor.js';
import { nowIso } from '../clock.js';
import {
  allCustomFields,
  appliesToQueue,
  customValueJson,
  normalizeCustomValue,
  type CustomFieldJson,
} from '../customFields.js';
import { AppError, conflict, forbidden, invalid, MergedError, notFound, StaleError, TakeFromError } from '../errors.js';
import { getQueueRow } from '../queues.js';
import { teamExists } from '../teams.js';
import {
  attachmentWithTicket,
  recordTransactions,
  transactionsOfTicket,
  type NewAttachment,
  type NewTransaction,
  type TransactionJson,
} from '../transactions.js';
import { addMentioned } from '../mentions.js';
import { withStagedFiles } from '../stagedFiles.js';
import { getUserRow } from '../users.js';
import { addInitialWatchers, isCustomerOf, resolvePeople, type PersonRef } from '../watchers.js';
import { clearDraftIn } from './drafts.js';
import { applySnoozeTimer, planSnooze } from '../time/snooze.js';
import { markSeenIn } from './reads.js';
import { tagsOfTicket } from '../tags/rows.js';
import { addTimeBeforeMessage, addTimeOfMessage, checkMinutes } from '../timeWorked/entries.js';
import {
  type CustomerTicketJson,
  getTicketRow,
  ticketJson,
  ticketsJson,
  type TicketJson,
  type TicketRow,
} from './serialize.js';
import { lifecycleOf, namesIn, resolvedAtAfter } from '../lifecycles/categories.js';
import { mapStatus } from '../lifecycles/queueLifecycle.js';
import { requireAllowedMove, requireStatusOf } from '../lifecycles/statuses.js';
import { checkDependencies } from '../links.js';
import { HIDDEN_STATUS, scripResultsFor, ticketFor, transactionsFor } from '../customerView.js';

export interface TicketChange {
  ticket: TicketJson;
  scrip_results: ScripResult[];
}
/** A write's answer as its writer may read it: a requester's has no staff fields and no scrip results (decision 050). */
export interface CustomerTicketChange {
  ticket: CustomerTicketJson;
  scrip_results?: ScripResult[];
}
export interface CustomerComment {
  transaction: TransactionJson;
  scrip_results?: ScripResult[];
}
// The mail gateway acting for a sender is no reader: its callers get the whole change.
const changeFor = (actor: Actor, c: TicketChange): CustomerTicketChange =>
  worksAnyTicket(actor) ? c : scripResultsFor(actor, { ...c, ticket: ticketFor(actor, c.ticket) });
const commentFor = (
  actor: Actor,
  c: { transaction: TransactionJson; scrip_results: ScripResult[] },
): CustomerComment =>
  worksAnyTicket(actor)
    ? c
    : scripResultsFor(actor, { ...c, transaction: transactionsFor(actor, [c.transaction])[0] ?? c.transaction });

/**
 * Loads a ticket the actor may see; others' tickets are "not found" to requesters, and so are
 * their own deleted ones (decision 050).
 */
async function visibleTicket(conn: Conn, actor: Actor, id: number, locked?: TicketRow | null): Promise<TicketRow> {
  // `locked`: the row its lock returned (decision 067; null: no such ticket), not read again.
  const row = locked === undefined ? await getTicketRow(conn, id) : (locked ?? undefined);
  if (
    !row ||
    (!worksAnyTicket(actor) &&
      (row.status === HIDDEN_STATUS || (row.requester_id !== actor.id && !(await isCustomerOf(conn, id, actor.id)))))
  )
    throw notFound('Ticket', id);
  // SPEC D3 (decision 076): a merged ticket takes no change and is read as a tombstone (the route answers it).
  if (row.merged_into !== null)
    throw worksAnyTicket(actor) ? new MergedError(id, row.merged_into) : notFound('Ticket', id);
  return row;
}

/** A ticket as the actor may read it: a requester's without the staff fields (decision 050). */
export async function getTicket(db: Db, actor: Actor, id: number): Promise<CustomerTicketJson> {
  return ticketFor(actor, (await ticketsJson(db, [await visibleTicket(db, actor, id)]))[0]);
}

/** An attachment, if the actor may see its ticket and (for requesters) it is not on an internal note. */
export async function getAttachment(db: Db, actor: Actor, id: number) {
  const a = await attachmentWithTicket(db, id);
  if (!a) throw notFound('Attachment', id);
  try {
    await visibleTicket(db, actor, a.ticket_id);
  } catch {
    throw notFound('Attachment', id);
  }
  if (a.type === 'Comment' && !isStaff(actor)) throw notFound('Attachment', id);
  return a;
}

/** A ticket's history as this actor may see it (customers: no internal notes); `after`: only the entries after that id. */
export async function listTicketTransactions(
  db: Db,
  actor: Actor,
  id: number,
  opts: { after?: number } = {},
): Promise<TransactionJson[]> {
  await visibleTicket(db, actor, id);
  return historyOfReadTicket(db, actor, { id }, opts);
}

/**
 * The history of a ticket this actor has just read with getTicket (which refused it if they may
 * not see it): its row is not read a second time (the ticket page; issue 32).
 */
export async function historyOfReadTicket(
  db: Db,
  actor: Actor,
  ticket: Pick<CustomerTicketJson, 'id'>,
  opts: { after?: number } = {},
): Promise<TransactionJson[]> {
  return transactionsFor(
    actor,
    await transactionsOfTicket(db, ticket.id, { includeComments: isStaff(actor), after: opts.after }),
  );
}

/** One transaction of a ticket, as its history shows it to this actor (404 otherwise). */
export async function getTicketTransaction(
  db: Db,
  actor: Actor,
  ticketId: number,
  txnId: number,
): Promise<TransactionJson> {
  const t = (await listTicketTransactions(db, actor, ticketId)).find((x) => x.id === txnId);
  if (!t) throw notFound('Transaction', txnId);
  return t;
}

async function checkOwner(conn: Conn, id: number | null | undefined) {
  if (id == null) return;
  const u = await getUserRow(conn, id);
  if (!u) throw invalid('owner_id', `User ${id} does not exist`);
  if (u.disabled || u.role === 'requester')
    throw invalid('owner_id', `User ${id} cannot own tickets (must be an active agent or administrator)`);
}
async function checkTeam(conn: Conn, id: number | null | undefined) {
  if (id != null && !(await teamExists(conn, id))) throw invalid('team_id', `Team ${id} does not exist`);
}

/** Validates custom field values for a queue; returns field id -> stored text (null = clear). */
function checkCustomFields(
  fields: CustomFieldJson[],
  queueId: number,
  values: Record<string, unknown>,
  requireAll: boolean,
): Map<CustomFieldJson, string | null> {
  const out = new Map<CustomFieldJson, string | null>();
  for (const [key, value] of Object.entries(values)) {
    const path = `custom_fields.${key}`;
    const field = fields.find((f) => f.key === key);
    if (!field) throw invalid(path, `No custom field with key "${key}"`);
    if (!appliesToQueue(field, queueId)) throw invalid(path, `${field.name} does not apply to queue ${queueId}`);
    if (value === null || value === '') {
      if (field.required) throw invalid(path, `${field.name} is required`);
      out.set(field, null);
    } else {
      out.set(field, normalizeCustomValue(field, value, path));
    }
  }
  if (requireAll) {
    for (const f of fields) {
      if (f.required && appliesToQueue(f, queueId) && !out.get(f))
        throw invalid(`custom_fields.${f.key}`, `${f.name} is required`);
    }
  }
  return out;
}

export interface CreateTicketInput {
  queue_id: number;
  subject: string;
  description?: string;
  status?: string;
  owner_id?: number | null;
  team_id?: number | null;
  requester_id?: number;
  priority?: number;
  custom_fields?: Record<string, unknown>;
  /** SPEC C2: people by id or address (unknown addresses become stub requesters). */
  requesters?: PersonRef[];
  cc?: PersonRef[];
  admin_cc?: PersonRef[];
  /** Set by the mail processor: the inbound message's id and files, kept on the Create transaction. */
  message_id?: string | null;
  attachments?: NewAttachment[];
  /** Set by the mail processor for mail that announced itself as automatic (no autoreply). */
  auto_submitted?: boolean;
  /** Set by the mail processor: the message's To/Cc addresses, who have it already. */
  already_sent?: string[];
  /** Set by a split (SPEC D3, decision 075): as with mail, required custom fields may be filled in later. */
  split?: boolean;
}

const p = sql.placeholder;
const insertTicket = prepared((db) =>
  db
    .insert(tickets)
    .values({
      queue_id: p('queue_id'),
      subject: p('subject'),
      status: p('status'),
      owner_id: p('owner_id'),
      team_id: p('team_id'),
      requester_id: p('requester_id'),
      priority: p('priority'),
      created_at: p('now'),
      updated_at: p('now'),
      resolved_at: p('resolved_at'),
    })
    .returning(),
);
const insertValue = prepared((db) =>
  db.insert(ticketCustomValues).values({ ticket_id: p('ticket_id'), field_id: p('field_id'), value: p('value') }),
);
const touchTicket = prepared((db) =>
  db
    .update(tickets)
    .set({ updated_at: sql`${p('now')}` })
    .where(eq(tickets.id, p('id'))),
);

/** `notify`: the settings of the app the change comes through (docs/decisions/045), for its notifications. */
export async function createTicket(
  db: Db,
  actor: Actor,
  input: CreateTicketInput,
  notify: NotifySettings,
): Promise<CustomerTicketChange> {
  if (!isStaff(actor)) {
    for (const k of ['owner_id', 'team_id', 'requester_id', 'status', 'priority', 'requesters', 'admin_cc'] as const) {
      if (input[k] !== undefined) throw forbidden(`Requesters cannot set ${k}`);
    }
    // The mail gateway keeps a message's Cc; a signed-in requester Ccs people by mail.
    if (input.cc !== undefined && !actor.viaMail) throw forbidden('Requesters cannot set cc');
  }
  // The files stored first, outside the ticket's unit of work (decision 061); attached in it.
  return withStagedFiles(db, input.attachments, (attachments) =>
    createInUnitOfWork(db, actor, { ...input, attachments }, notify),
  );
}

async function createInUnitOfWork(
  db: Db,
  actor: Actor,
  input: CreateTicketInput,
  notify: NotifySettings,
): Promise<CustomerTicketChange> {
  return transaction(
    db,
    async (tx) => {
      const queue = await getQueueRow(tx, input.queue_id);
      if (!queue) throw invalid('queue_id', `Queue ${input.queue_id} does not exist`);
      // SPEC D6: a signed-in customer opens requests only where the admin let them (mail goes anywhere).
      if (!worksAnyTicket(actor) && !queue.portal_create)
        throw forbidden('New requests cannot be opened in this queue');
      await checkOwner(tx, input.owner_id);
      await checkTeam(tx, input.team_id);
      if (input.requester_id !== undefined && !(await getUserRow(tx, input.requester_id)))
        throw invalid('requester_id', `User ${input.requester_id} does not exist`);
      const named = (await resolvePeople(tx, input.requesters ?? [], 'requesters', { own: notify.ownAddresses })).map(
        (u) => u.id,
      );
      // SPEC B3 stays: no requester named, the creator is the requester.
      const requesterIds = [...new Set([...(input.requester_id === undefined ? [] : [input.requester_id]), ...named])];
      if (requesterIds.length === 0) requesterIds.push(actor.id);
      const requesterId = requesterIds[0];
      const ccIds = (await resolvePeople(tx, input.cc ?? [], 'cc', { own: notify.ownAddresses }))
        .map((u) => u.id)
        .filter((id) => !requesterIds.includes(id));
      const adminCc = await resolvePeople(tx, input.admin_cc ?? [], 'admin_cc', { own: notify.ownAddresses });
      adminCc.forEach((u, i) => {
        if (u.role === 'requester' || u.disabled)
          throw invalid(`admin_cc.${i}`, `${u.email} is not an active agent or administrator`);
      });
      // Mail cannot fill custom fields: a required one must not turn an incoming message away.
      const cfValues = checkCustomFields(
        await allCustomFields(tx),
        queue.id,
        input.custom_fields ?? {},
        !actor.viaMail && !input.split,
      );
      const now = nowIso(db);
      // SPEC D3: a status of the queue's lifecycle; none named, its initial one.
      const lc = await lifecycleOf(tx, queue.id);
      if (input.status !== undefined) requireStatusOf(lc, input.status);
      const status = input.status ?? namesIn(lc, 'initial')[0];
      const row = (await insertTicket(tx).get({
        queue_id: queue.id,
        subject: input.subject,
        status,
        owner_id: input.owner_id ?? null,
        // SPEC A: no team_id in the body -> the queue's team; an explicit null stays null.
        team_id: input.team_id !== undefined ? input.team_id : queue.team_id,
        requester_id: requesterId,
        priority: input.priority ?? 0,
        now,
        resolved_at: resolvedAtAfter(lc, namesIn(lc, 'initial')[0], status, null, now),
      }))!;
      await addInitialWatchers(tx, row.id, 'requester', requesterIds, now);
      await addInitialWatchers(tx, row.id, 'cc', ccIds, now);
      await addInitialWatchers(
        tx,
        row.id,
        'admin_cc',
        adminCc.map((u) => u.id),
        now,
      );
      const values: Record<string, string | number> = {};
      for (const [field, value] of [...cfValues].sort(([a], [b]) => a.id - b.id)) {
        // by field, as ticketsJson reads them
        if (value === null) continue;
        await insertValue(tx).run({ ticket_id: row.id, field_id: field.id, value });
        values[field.key] = customValueJson(field.type, value);
      }
      const { scrip_results, status_set } = await recordTransactions(
        tx,
        row.id,
        actor.id,
        [
          {
            type: 'Create',
            body: input.description || null,
            message_id: input.message_id ?? null,
            attachments: input.attachments,
          },
        ],
        now,
        {
          autoSubmitted: input.auto_submitted,
          alreadySent: input.already_sent,
          notify,
          queueId: queue.id,
          actorRole: actor.role,
        },
      );
      // Answered from what was written; the row is read again only when a scrip set the status.
      return changeFor(actor, {
        ticket: ticketJson(
          status_set ? (await getTicketRow(tx, row.id))! : row,
          input.description || '',
          values,
          { requesters: requesterIds, cc: ccIds, admin_cc: adminCc.map((u) => u.id) },
          undefined, // a new ticket has no link yet (a split links it afterwards, and answers it read again)
          // A new ticket has no tag but what its scrips added (SPEC D3 add_tag): read only then.
          status_set ? await tagsOfTicket(tx, row.id) : [],
        ),
        scrip_results,
      });
    },
    { op: 'createTicket' },
  );
}

export interface UpdateTicketInput {
  subject?: string;
  status?: string;
  owner_id?: number | null;
  team_id?: number | null;
  queue_id?: number;
  priority?: number;
  custom_fields?: Record<string, unknown>;
  /** SPEC D6: taking (owner ← me) a ticket another agent owns needs their id here, as asked. */
  confirm_owner_id?: number | null;
  /** SPEC D2: snooze until then (stalled until it wakes); null wakes it now. */
  snoozed_until?: string | null;
  /** SPEC D2: whether a requester's or Cc's message wakes it at once (default true). */
  unsnooze_on_reply?: boolean;
  /** SPEC D3: move to an inactive status even while the ticket depends on tickets not done. */
  force?: boolean;
}

export interface UpdateOptions {
  /** A bulk change names its owner from a list for many tickets at once: it does not ask (decision 052). */
  takeWithoutAsking?: boolean;
}

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** The plain ticket fields a PATCH may change, and the transaction type each change records. */
const FIELD_TRANSACTIONS = [
  ['queue_id', 'SetQueue'],
  ['subject', 'SetSubject'],
  ['status', 'Status'],
  ['owner_id', 'SetOwner'],
  ['team_id', 'SetTeam'],
  ['priority', 'SetPriority'],
] as const satisfies readonly (readonly [keyof UpdateTicketInput & keyof TicketRow, NewTransaction['type']])[];

/** PATCH: one transaction per changed field, none when nothing changed (SPEC B3). */
export async function updateTicket(
  db: Db,
  actor: Actor,
  id: number,
  input: UpdateTicketInput,
  notify: NotifySettings,
  opts: UpdateOptions = {},
): Promise<TicketChange> {
  return transaction(db, async (tx) => {
    // First: a second change to this ticket waits, then reads what this one wrote (the row comes with the lock).
    const current = await visibleTicket(tx, actor, id, (await lockAndReadTicket(tx, id)) ?? null);
    if (!isStaff(actor)) throw forbidden('Requesters cannot change tickets');
    // SPEC D6: Take from a colleague asks first (checked in this unit of work: the owner as it is now).
    if (
      !opts.takeWithoutAsking &&
      input.owner_id === actor.id &&
      current.owner_id !== null &&
      current.owner_id !== actor.id &&
      input.confirm_owner_id !== current.owner_id
    ) {
      const owner = await getUserRow(tx, current.owner_id);
      throw new TakeFromError(id, {
        id: current.owner_id,
        name: owner ? owner.name.trim() || owner.email : `user #${current.owner_id}`,
      });
    }
    if (input.queue_id !== undefined && !(await getQueueRow(tx, input.queue_id)))
      throw invalid('queue_id', `Queue ${input.queue_id} does not exist`);
    // Only a new owner is checked: re-sending the current one (since disabled) changes nothing.
    if (input.owner_id !== current.owner_id) await checkOwner(tx, input.owner_id);
    await checkTeam(tx, input.team_id);
    // No custom field named: nothing to check or compare, nothing to read (decision 066).
    const cfInput = input.custom_fields ?? {};
    const anyCf = Object.keys(cfInput).length > 0;
    const cfValues = anyCf
      ? checkCustomFields(await allCustomFields(tx), input.queue_id ?? current.queue_id, cfInput, false)
      : new Map<CustomFieldJson, string | null>();

    const now = nowIso(db);
    // SPEC D3: a person's status is one of the lifecycle of the queue the ticket ends in, allowed
    // from its current one; a queue move alone keeps a status of the same name, else takes the
    // first of the same category (not bound by transitions: an automatic move).
    const lcFrom = await lifecycleOf(tx, current.queue_id);
    const moving = input.queue_id !== undefined && input.queue_id !== current.queue_id;
    const lc = moving ? await lifecycleOf(tx, input.queue_id as number) : lcFrom;
    if (input.status !== undefined) {
      if (moving && lc.id !== lcFrom.id) requireStatusOf(lc, input.status);
      else requireAllowedMove(lc, current.status, input.status);
    }
    // SPEC D2 snooze (decision 071): its row fields, its entries and the status it implies.
    const snooze = planSnooze(current, input, now, actor.timezone, lc);
    const mapped = moving && lc.id !== lcFrom.id ? mapStatus(lcFrom, lc, current.status) : current.status;
    const implied = snooze?.status ?? (mapped !== current.status ? mapped : undefined);
    const fields = implied && input.status === undefined ? { ...input, status: implied } : input;
    const patch: Partial<TicketRow> = { ...snooze?.patch };
    const entries: NewTransaction[] = [...(snooze?.before ?? [])];
    for (const [field, type] of FIELD_TRANSACTIONS) {
      const next = fields[field];
      if (next === undefined || next === current[field]) continue;
      Object.assign(patch, { [field]: next });
      entries.push({ type, field, old_value: str(current[field]), new_value: str(next) });
    }
    entries.push(...(snooze?.after ?? []));
    if (patch.status !== undefined) {
      patch.resolved_at = resolvedAtAfter(lc, current.status, patch.status, current.resolved_at, now);
      await checkDependencies(tx, id, patch.queue_id ?? current.queue_id, patch.status, input.force);
    }

    const existing = new Map(
      (anyCf ? await tx.select().from(ticketCustomValues).where(eq(ticketCustomValues.ticket_id, id)) : []).map((v) => [
        v.field_id,
        v.value,
      ]),
    );
    for (const [field, value] of cfValues) {
      const old = existing.get(field.id) ?? null;
      if (old === value) continue;
      const where = and(eq(ticketCustomValues.ticket_id, id), eq(ticketCustomValues.field_id, field.id));
      if (value === null) await tx.delete(ticketCustomValues).where(where);
      else
        await tx
          .insert(ticketCustomValues)
          .values({ ticket_id: id, field_id: field.id, value })
          .onConflictDoUpdate({ target: [ticketCustomValues.ticket_id, ticketCustomValues.field_id], set: { value } });
      entries.push({ type: 'CustomField', field: field.key, old_value: old, new_value: value });
    }
    if (entries.length === 0) return { ticket: (await ticketsJson(tx, [current]))[0], scrip_results: [] };
    const [updated] = await tx
      .update(tickets)
      .set({ ...patch, updated_at: now })
      .where(eq(tickets.id, id))
      .returning();
    if (snooze) await applySnoozeTimer(tx, id, snooze);
    const { scrip_results, status_set } = await recordTransactions(tx, id, actor.id, entries, now, {
      notify,
      queueId: updated.queue_id,
      actorRole: actor.role,
    });
    // The row as written (RETURNING), read again only when a scrip set the status (decision 066).
    return {
      ticket: (await ticketsJson(tx, [status_set ? (await getTicketRow(tx, id))! : updated]))[0],
      scrip_results,
    };
  });
}

export interface CommentInput {
  body: string;
  internal?: boolean;
  creator_id?: number;
  message_id?: string | null;
  attachments?: NewAttachment[];
  auto_submitted?: boolean;
  already_sent?: string[];
  /** SPEC C4: a status to set with the message (a canned response's), in the same unit of work. */
  set_status?: string;
  /**
   * SPEC C5: the id of the newest history entry the writer had loaded. When the ticket has
   * correspondence by someone else after it, nothing is written and a `stale` error (409)
   * carries the newer entries, unless `force`. Without it (mail, scripts) no check is made.
   */
  seen_transaction_id?: number;
  force?: boolean;
  /** Set by the mail intake: the merged ticket whose thread the mail arrived through (SPEC D3). */
  merged_from?: number | null;
  /** SPEC D4: minutes worked, entered with the message (staff; decision 081). */
  time_minutes?: number;
}

export interface CommentOptions {
  /** The settings of the app the change comes through, for its notifications. */
  notify: NotifySettings;
  /** The most bytes the files may have in all (MAX_ATTACHMENT_BYTES); more is 413 and nothing is written. */
  maxAttachmentBytes?: number;
}

const sizeText = (n: number) =>
  n >= 1024 * 1024
    ? `${+(n / 1024 / 1024).toFixed(1)} MiB`
    : n >= 1024
      ? `${+(n / 1024).toFixed(1)} KiB`
      : `${n} bytes`;
const bytesText = (n: number) => `${n.toLocaleString('en')} bytes`;

/**
 * SPEC C5, docs/decisions/038: refuses a message written without knowing of newer mail. What
 * counts is correspondence (Create, Correspond) by someone other than the writer after the
 * marker; internal notes, property changes and the writer's own messages do not. The marker is
 * a position in the change log (ids only grow): one above the ticket's newest entry, or another
 * ticket's, just means "nothing on this ticket after that point". The error carries every entry
 * after the marker that the writer may see, as their history shows it. Runs inside the unit of
 * work of the write, after it locked the ticket (one writer at a time per ticket on both stores),
 * so no message slips in between check and write.
 */
async function refuseIfStale(tx: Conn, actor: Actor, id: number, seen: number): Promise<void> {
  const newer = await transactionsOfTicket(tx, id, { includeComments: isStaff(actor), after: seen });
  const mail = newer.filter((t) => (t.type === 'Correspond' || t.type === 'Create') && t.creator_id !== actor.id);
  if (mail.length === 0) return;
  const n = mail.length === 1 ? 'A new message' : `${mail.length} new messages`;
  throw new StaleError(
    `${n} arrived on ticket #${id} after you loaded it: read ${mail.length === 1 ? 'it' : 'them'} first, or send again with force: true to send anyway`,
    transactionsFor(actor, newer),
  );
}

/** POST /tickets/:id/comment: internal note by default; a public reply with internal=false. */
export async function commentOnTicket(
  db: Db,
  actor: Actor,
  id: number,
  input: CommentInput,
  opts: CommentOptions,
): Promise<CustomerComment> {
  let internal = input.internal ?? true;
  if (!worksAnyTicket(actor)) {
    if (input.internal === true) throw forbidden('Requesters cannot write internal notes');
    internal = false;
  }
  if (input.set_status !== undefined && !isStaff(actor)) throw forbidden('Requesters cannot change the status');
  if (input.time_minutes !== undefined) {
    if (!isStaff(actor)) throw forbidden('Only staff record time worked');
    checkMinutes(input.time_minutes, 'time_minutes');
  }
  const files = input.attachments ?? [];
  const size = files.reduce((n, a) => n + a.content.length, 0);
  if (opts.maxAttachmentBytes !== undefined && size > opts.maxAttachmentBytes) {
    const why = `${bytesText(size)} in all; at most ${bytesText(opts.maxAttachmentBytes)} (${sizeText(opts.maxAttachmentBytes)}) may be sent with one message`;
    throw new AppError('too_large', `The attachments are ${why}`, [{ path: 'attachments', message: why }]);
  }
  // The files stored first, outside the ticket's lock (decision 061); attached in the unit of work.
  return withStagedFiles(db, files, (attachments) =>
    commentInUnitOfWork(db, actor, id, { ...input, attachments }, opts, internal),
  );
}

async function commentInUnitOfWork(
  db: Db,
  actor: Actor,
  id: number,
  input: CommentInput,
  opts: CommentOptions,
  internal: boolean,
): Promise<CustomerComment> {
  return transaction(
    db,
    async (tx) => {
      // First: the staleness check and the message see every change before it (the row comes with the lock).
      const ticket = await visibleTicket(tx, actor, id, (await lockAndReadTicket(tx, id)) ?? null);
      // SPEC D6 (decision 052): a deleted ticket takes no public reply from the web or the API (409:
      // restore it first). Mail is still kept, as it comes; an internal note may say why it was deleted.
      if (ticket.status === 'deleted' && !internal && !actor.viaMail)
        throw conflict(`Ticket #${id} is deleted: restore it before replying (nothing was sent)`);
      // SPEC D3: a canned response's status must be one of the ticket's lifecycle (checked before anything is written).
      if (input.set_status !== undefined)
        requireStatusOf(await lifecycleOf(tx, ticket.queue_id), input.set_status, 'set_status');
      let creatorId = actor.id;
      if (input.creator_id !== undefined && input.creator_id !== actor.id) {
        if (!isAdmin(actor)) throw forbidden('Only administrators can write on behalf of another user');
        if (!(await getUserRow(tx, input.creator_id)))
          throw invalid('creator_id', `User ${input.creator_id} does not exist`);
        creatorId = input.creator_id;
      }
      if (input.seen_transaction_id !== undefined && !input.force)
        await refuseIfStale(tx, actor, id, input.seen_transaction_id);
      // SPEC C3: a public reply written by staff on the web or through the API closes with their
      // signature and the queue's, stored as sent. Mail keeps what the sender wrote; notes go unsigned.
      const writer = creatorId === actor.id ? actor : await getUserRow(tx, creatorId);
      const body =
        !internal && !actor.viaMail && writer && isStaff(writer)
          ? await signReply(tx, id, creatorId, input.body, ticket)
          : input.body;
      const now = nowIso(tx);
      await touchTicket(tx).run({ now, id });
      // SPEC D4: the sum first, so that the message's scrips see the ticket with its time (decision 081).
      if (input.time_minutes !== undefined)
        await addTimeBeforeMessage(tx, actor, {
          ticketId: id,
          current: ticket.time_worked_minutes,
          minutes: input.time_minutes,
        });
      // SPEC D6: the staff a note @mentions become AdminCc first, so the note's scrips tell them of it.
      const mentioned =
        internal && writer && isStaff(writer) ? await addMentioned(tx, creatorId, id, body, opts.notify) : [];
      const { transactions, scrip_results } = await recordTransactions(
        tx,
        id,
        creatorId,
        [
          {
            type: internal ? 'Comment' : 'Correspond',
            body,
            message_id: input.message_id ?? null,
            attachments: input.attachments,
            merged_from: input.merged_from ?? null,
          },
        ],
        now,
        {
          autoSubmitted: input.auto_submitted,
          alreadySent: input.already_sent,
          notify: opts.notify,
          queueId: ticket.queue_id,
          actorRole: creatorId === actor.id ? actor.role : undefined,
        },
      );
      // SPEC D6: the writer's draft goes with the message it became (kept when the send fails), and
      // what they answered is read (decision 054).
      if (isStaff(actor) && !actor.viaMail) {
        await clearDraftIn(tx, actor.id, id);
        await markSeenIn(tx, actor.id, id, transactions[transactions.length - 1].id);
      }
      scrip_results.unshift(...mentioned);
      // SPEC D4: the time worked that came with the message, by its writer, tied to it (decision 081).
      if (input.time_minutes !== undefined)
        await addTimeOfMessage(tx, actor, {
          ticketId: id,
          writerId: creatorId,
          minutes: input.time_minutes,
          transactionId: transactions[0].id,
        });
      // The status a canned response asks for, after the message (which may have reopened the ticket).
      if (input.set_status !== undefined) {
        const changed = await updateTicket(
          tx,
          actor,
          id,
          { status: input.set_status, force: input.force },
          opts.notify,
        );
        scrip_results.push(...changed.scrip_results);
      }
      return commentFor(actor, { transaction: transactions[0], scrip_results });
    },
    { op: 'commentOnTicket' },
  );
}

/**
 * SPEC D0: mail from someone who is not on the ticket (not a requester or Cc, not staff), threaded
 * to it by its subject tag or a Message-ID. It is kept as an internal Comment marked
 * `outside_sender`, by that sender, with its files; its scrips tell the ticket's staff as of a
 * customer's reply, and nothing else changes (no watcher, no customer mail, no status). The mail
 * intake decided the ticket: no visibility check (the sender cannot see the ticket, by definition).
 */
export async function recordOutsideMail(
  tx: Conn,
  senderId: number,
  ticketId: number,
  input: {
    body: string;
    message_id: string | null;
    attachments: NewAttachment[];
    auto_submitted: boolean;
    merged_from?: number | null;
  },
  notify: NotifySettings,
): Promise<{ transaction: TransactionJson; scrip_results: ScripResult[] }> {
  await lockTicket(tx, ticketId);
  const now = nowIso(tx);
  await touchTicket(tx).run({ now, id: ticketId });
  const { transactions, scrip_results } = await recordTransactions(
    tx,
    ticketId,
    senderId,
    [
      {
        type: 'Comment',
        body: input.body,
        message_id: input.message_id,
        attachments: input.attachments,
        outside_sender: true,
        merged_from: input.merged_from ?? null,
      },
    ],
    now,
    { autoSubmitted: input.auto_submitted, notify },
  );
  return { transaction: transactions[0], scrip_results };
}
