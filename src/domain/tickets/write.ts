import { and, eq, sql } from 'drizzle-orm';
import { type Db, lockAndReadTicket, prepared, transaction } from '../../db/port.js';
import { ticketCustomValues, tickets } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/kinds.js';
import { type Actor, isStaff, worksAnyTicket } from '../actor.js';
import { nowIso } from '../clock.js';
import { allCustomFields, customValueJson, type CustomFieldJson } from '../customFields.js';
import { forbidden, invalid, TakeFromError } from '../errors.js';
import { getQueueRow } from '../queues.js';
import { recordTransactions, type NewAttachment, type NewTransaction } from '../transactions.js';
import { withStagedFiles } from '../stagedFiles.js';
import { getUserRow } from '../users.js';
import { addInitialWatchers, resolvePeople, type PersonRef } from '../watchers.js';
import { applySnoozeTimer, planSnooze } from '../time/snooze.js';
import { tagsOfTicket } from '../tags/rows.js';
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
import { scripResultsFor, ticketFor } from '../customerView.js';

import { visibleTicket } from './read.js';
import { checkCustomFields, checkOwner, checkTeam } from './checks.js';
export interface TicketChange {
  ticket: TicketJson;
  scrip_results: ScripResult[];
}
/** A write's answer as its writer may read it: a requester's has no staff fields and no scrip results (decision 050). */
export interface CustomerTicketChange {
  ticket: CustomerTicketJson;
  scrip_results?: ScripResult[];
}
// The mail gateway acting for a sender is no reader: its callers get the whole change.
const changeFor = (actor: Actor, c: TicketChange): CustomerTicketChange =>
  worksAnyTicket(actor) ? c : scripResultsFor(actor, { ...c, ticket: ticketFor(actor, c.ticket) });
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
export const touchTicket = prepared((db) =>
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
