import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { type Conn, inUnitOfWork, logAppend, prepared, preparedForIds, first } from '../db/port.js';
import { userById } from '../scrips/people.js';
import { attachments, tickets, transactions, users } from '../db/tables.js';
import { lifecycleOf, resolvedAtAfter } from './lifecycles/categories.js';
import type { NotifySettings } from '../scrips/config.js';
import { runScrips } from '../scrips/engine.js';
import type { ScripResult } from '../scrips/kinds.js';
import { forgetThread } from '../scrips/thread.js';
import { parseJson } from './actor.js';
import { attachFiles, type NewAttachment } from './stagedFiles.js';
import { afterEntry, type EntryWrite } from './time/afterEntry.js';
import { insertTag, touchTicket } from './tags/rows.js';
import { tagOrNone } from './tags/normalize.js';
import type { AttachmentJson, TransactionJson } from './transactionJson.js';

export const TRANSACTION_TYPES = [
  'Create',
  'Correspond',
  'Comment',
  'Status',
  'SetOwner',
  'SetTeam',
  'SetQueue',
  'SetSubject',
  'SetPriority',
  'CustomField',
  'AddWatcher',
  'DelWatcher',
  // SPEC D2: written by timers (a clock's warning or breach, a snoozed ticket's wake-up, an idle scrip's firing).
  'SLA',
  'Unsnooze',
  'Idle',
  // SPEC D2: a ticket snoozed (field snoozed_until, or unsnooze_on_reply), decision 071.
  'Snooze',
  // SPEC D3: a link added or removed (field: the name this ticket sees it by; the other ticket's id), decision 075.
  'AddLink',
  'DelLink',
  // SPEC D3 merge (decision 076): on the target ("#id merged into this ticket") and, undone, on both.
  'Merge',
  'Unmerge',
  // SPEC D3: a tag added to or removed from a ticket (field `tag`, new_value / old_value the tag).
  'AddTag',
  'DelTag',
  // SPEC D4: a requester's satisfaction rating (new_value good|okay|bad, body the comment): staff only (decision 082).
  'Rating',
  // SPEC D4: time worked entered on its own (field `time_worked`, new_value the minutes, old_value
  // the date worked on; by the one who worked), decision 081. Staff only, as internal notes are.
  'TimeWorked',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export type { NewAttachment };
export interface NewTransaction {
  type: TransactionType;
  body?: string | null;
  field?: string | null;
  old_value?: string | null;
  new_value?: string | null;
  message_id?: string | null;
  attachments?: NewAttachment[];
  /** SPEC D0: mail from someone not on the ticket, kept as an internal Comment. */
  outside_sender?: boolean;
  /** SPEC D3: mail that arrived through the thread of this merged ticket (decision 076). */
  merged_from?: number | null;
}

export type { AttachmentJson, TransactionJson };

type Row = typeof transactions.$inferSelect;

const attachmentCols = {
  id: attachments.id,
  transaction_id: attachments.transaction_id,
  filename: attachments.filename,
  content_type: attachments.content_type,
  size: attachments.size,
};
const attachmentsOfOne = prepared((db) =>
  db
    .select(attachmentCols)
    .from(attachments)
    .where(eq(attachments.transaction_id, sql.placeholder('id')))
    .orderBy(asc(attachments.id)),
);
// A batch's attachments in one batch of ids each (each entry's stay together, in id order).
const attachmentsOfMany = preparedForIds((db, inIds) =>
  db.select(attachmentCols).from(attachments).where(inIds(attachments.transaction_id)).orderBy(asc(attachments.id)),
);
// A ticket's history (from an entry on): compiled once, it is read on every ticket page.
const historyOf = prepared((db) =>
  db
    .select()
    .from(transactions)
    .where(and(eq(transactions.ticket_id, sql.placeholder('ticket')), gt(transactions.id, sql.placeholder('after'))))
    .orderBy(asc(transactions.id)),
);

/** `noFiles`: the caller knows the rows have no attachments (it just wrote them): nothing to read. */
export async function transactionsJson(conn: Conn, rows: Row[], noFiles = false): Promise<TransactionJson[]> {
  if (rows.length === 0) return [];
  const atts = noFiles
    ? []
    : rows.length === 1
      ? await attachmentsOfOne(conn).all({ id: rows[0].id })
      : await attachmentsOfMany(
          conn,
          rows.map((r) => r.id),
        );
  return rows.map((r) => ({
    id: r.id,
    ticket_id: r.ticket_id,
    type: r.type,
    creator_id: r.creator_id,
    body: r.body,
    field: r.field,
    old_value: r.old_value,
    new_value: r.new_value,
    message_id: r.message_id,
    attachments: atts.filter((a) => a.transaction_id === r.id).map(({ transaction_id: _, ...a }) => a),
    scrip_results: parseJson<ScripResult[]>(r.scrip_results, []),
    outside_sender: r.outside_sender,
    merged_from: r.merged_from,
    created_at: r.created_at,
  }));
}

/** What only staff see of a history: internal notes, and who was made AdminCc (a staff role). */
const staffOnly = (r: Row) =>
  r.type === 'Comment' ||
  r.type === 'Rating' ||
  r.type === 'TimeWorked' ||
  ((r.type === 'AddWatcher' || r.type === 'DelWatcher') && r.field === 'admin_cc');

/** A ticket's history as a reader sees it; `after`: only the entries with a greater id. */
export async function transactionsOfTicket(
  conn: Conn,
  ticketId: number,
  opts: { includeComments: boolean; after?: number },
): Promise<TransactionJson[]> {
  const rows = await historyOf(conn).all({ ticket: ticketId, after: opts.after ?? 0 });
  return transactionsJson(conn, opts.includeComments ? rows : rows.filter((r) => !staffOnly(r)));
}

export interface RecordOptions {
  /** The settings of the app the change came through, for its scrips' notifications (docs/decisions/045). */
  notify: NotifySettings;
  /** Inbound mail that announced itself as automatic: scrips send it no autoreply. */
  autoSubmitted?: boolean;
  /** Inbound mail: the addresses it was sent to, who need no copy of it from us. */
  alreadySent?: string[];
  /** The ticket's queue, when the caller has its row (after its change): the scrips then need no read to find it. */
  queueId?: number;
  /** The role of the writer (`actorId`), when the caller knows it (the signed-in user writes): not read again. */
  actorRole?: string;
}

/**
 * The one way a transaction comes into being. Must be called inside the SQL transaction of
 * the ticket change: it writes each transaction with its attachments, runs the scrip engine
 * on it, stores that transaction's scrip results on the row, and applies what the scrips ask
 * for (a status change) as a further transaction by nobody that runs no scrips (no
 * recursion). So the change, its history, its scrip results and its notifications commit (or
 * roll back) together.
 */
export async function recordTransactions(
  conn: Conn,
  ticketId: number,
  actorId: number | null,
  entries: NewTransaction[],
  now: string,
  opts: RecordOptions,
): Promise<{ transactions: TransactionJson[]; scrip_results: ScripResult[]; status_set: boolean }> {
  const written: Row[] = [];
  let statusSet = false;
  let withFiles = false; // whether insertTransaction attached any file (else the answer reads none)
  const allResults: ScripResult[] = [];
  for (const e of entries) {
    const inserted = await insertTransaction(conn, ticketId, actorId, e, now);
    let row = inserted.row;
    if (inserted.files > 0) withFiles = true;
    const { results, effects, actorRole, ticket } = await runScrips(conn, {
      ticketId,
      transactionId: row.id,
      type: row.type,
      actorId,
      field: row.field,
      oldValue: row.old_value,
      newValue: row.new_value,
      outsideSender: row.outside_sender,
      autoSubmitted: opts.autoSubmitted,
      alreadySent: opts.alreadySent,
      notify: opts.notify,
      queueId: opts.queueId,
      transactionRow: row,
      noFiles: inserted.files === 0,
      actorRole: opts.actorRole,
    });
    if (results.length > 0) {
      row = { ...row, scrip_results: JSON.stringify(results) };
      await setScripResults(conn).run({ id: row.id, results: row.scrip_results });
      allResults.push(...results);
    }
    written.push(row);
    if (
      CUSTOMER_WRITES.has(row.type) &&
      (actorRole !== undefined ? actorRole === 'requester' : await isCustomer(conn, actorId))
    )
      await setCustomerTxn(conn).run({ id: ticketId, txn: row.id });
    let role: string | undefined | null = actorRole !== undefined ? actorRole : (opts.actorRole ?? null);
    const actorRoleOf = async () => (role === null ? (role = (await userById(conn, actorId))?.role) : role);
    const entry = {
      ticketId,
      actorId,
      actorRole: actorRoleOf,
      autoSubmitted: opts.autoSubmitted === true,
      now,
      record: async (more: EntryWrite[]) => {
        await recordTransactions(conn, ticketId, null, more, now, { notify: opts.notify, queueId: opts.queueId });
      },
    };
    // A step that changed the ticket's row (its clocks): a caller answering with the ticket reads it again.
    const created = row.type === 'Create' ? ticket : undefined;
    if (await afterEntry(conn, { ...entry, row, created, byScrip: false, notify: opts.notify })) statusSet = true;
    if (effects.setStatus) {
      const statusRow = await applyScripStatus(conn, ticketId, effects.setStatus, now, ticket);
      if (statusRow) {
        statusSet = true;
        await afterEntry(conn, {
          ...entry,
          row: statusRow,
          actorId: null,
          actorRole: async () => undefined,
          byScrip: true,
          notify: opts.notify,
        });
      }
    }
    // SPEC D3: a scrip's add_tag (decision 074). Its AddTag is an entry by nobody that runs the
    // scrips in turn (on_tag_added sees it, and a webhook with it); that ends, as a tag the ticket
    // has already is no change and no entry, and the scrips name finitely many tags.
    for (const raw of effects.addTags ?? []) {
      const tag = tagOrNone(raw);
      if (tag === undefined || (await insertTag(conn).run({ ticket: ticketId, tag, now })).changes === 0) continue;
      await touchTicket(conn).run({ ticket: ticketId, now });
      statusSet = true;
      const more = await recordTransactions(
        conn,
        ticketId,
        null,
        [{ type: 'AddTag', field: 'tag', new_value: tag }],
        now,
        { notify: opts.notify, queueId: opts.queueId },
      );
      allResults.push(...more.scrip_results);
    }
  }
  return {
    transactions: await transactionsJson(conn, written, !withFiles),
    scrip_results: allResults,
    // A scrip changed the ticket's status or tags, or a step of the clock its row: a caller answering with the ticket reads it again.
    status_set: statusSet,
  };
}

/** The entries that make a ticket unread to staff when a customer writes them (SPEC D6, decision 054). */
const CUSTOMER_WRITES = new Set<string>(['Create', 'Correspond', 'Comment']);
const roleOf = prepared((db) =>
  db
    .select({ role: users.role })
    .from(users)
    .where(eq(users.id, sql.placeholder('id'))),
);
/** Whether the writer is a customer (a requester, a Cc, an outside sender: anyone who is not staff). */
async function isCustomer(conn: Conn, userId: number | null): Promise<boolean> {
  if (userId === null) return false;
  // Inside a unit of work the scrips may have read the user already (decision 067).
  if (inUnitOfWork(conn)) return (await userById(conn, userId))?.role === 'requester';
  return (await roleOf(conn).get({ id: userId }))?.role === 'requester';
}
const setCustomerTxn = prepared((db) =>
  db
    .update(tickets)
    .set({ customer_txn_id: sql`${sql.placeholder('txn')}` })
    .where(eq(tickets.id, sql.placeholder('id'))),
);

const setScripResults = prepared((db) =>
  db
    .update(transactions)
    .set({ scrip_results: sql`${sql.placeholder('results')}` })
    .where(eq(transactions.id, sql.placeholder('id'))),
);
const insertRow = prepared((db) =>
  db
    .insert(transactions)
    .values({
      ticket_id: sql.placeholder('ticket_id'),
      type: sql.placeholder('type'),
      creator_id: sql.placeholder('creator_id'),
      body: sql.placeholder('body'),
      field: sql.placeholder('field'),
      old_value: sql.placeholder('old_value'),
      new_value: sql.placeholder('new_value'),
      message_id: sql.placeholder('message_id'),
      outside_sender: sql.placeholder('outside_sender'),
      merged_from: sql.placeholder('merged_from'),
      created_at: sql.placeholder('created_at'),
    })
    .returning(),
);

async function insertTransaction(
  conn: Conn,
  ticketId: number,
  actorId: number | null,
  e: NewTransaction,
  now: string,
): Promise<{ row: Row; files: number }> {
  await logAppend(conn); // the change log's order, and live updates once committed (SPEC C5)
  forgetThread(ticketId); // it may carry a Message-ID: the ticket's thread is read afresh
  const row = (await insertRow(conn).get({
    ticket_id: ticketId,
    type: e.type,
    creator_id: actorId,
    body: e.body ?? null,
    field: e.field ?? null,
    old_value: e.old_value ?? null,
    new_value: e.new_value ?? null,
    message_id: e.message_id ?? null,
    outside_sender: e.outside_sender ?? false,
    merged_from: e.merged_from ?? null,
    created_at: now,
  }))!;
  // How many files this attaches: the answer of recordTransactions reads them only when there are some (decision 066).
  const files = e.attachments ?? [];
  await attachFiles(conn, row.id, files, now);
  return { row, files: files.length };
}

const statusOf = prepared((db) =>
  db
    .select({ status: tickets.status, resolved_at: tickets.resolved_at, queue_id: tickets.queue_id })
    .from(tickets)
    .where(eq(tickets.id, sql.placeholder('id'))),
);
const setStatus = prepared((db) =>
  db
    .update(tickets)
    .set({
      status: sql`${sql.placeholder('status')}`,
      resolved_at: sql`${sql.placeholder('resolved_at')}`,
      updated_at: sql`${sql.placeholder('now')}`,
    })
    .where(eq(tickets.id, sql.placeholder('id'))),
);

/** A scrip-made status change (open_inactive, set_status): a Status transaction by nobody, no scrips. */
async function applyScripStatus(
  conn: Conn,
  ticketId: number,
  status: string,
  now: string,
  known?: { status: string; resolved_at: string | null; queue_id: number },
): Promise<Row | null> {
  // `known`: the ticket as the scrips read it, after this entry (nothing they do changes it): not read again (decision 067).
  const t = known ?? (await statusOf(conn).get({ id: ticketId }));
  if (!t || t.status === status) return null;
  await setStatus(conn).run({
    id: ticketId,
    status,
    resolved_at: resolvedAtAfter(await lifecycleOf(conn, t.queue_id), t.status, status, t.resolved_at, now),
    now,
  });
  const { row } = await insertTransaction(
    conn,
    ticketId,
    null,
    { type: 'Status', field: 'status', old_value: t.status, new_value: status },
    now,
  );
  return row;
}

/** An attachment's bytes, for download; the caller checks the ticket is visible. */
export async function attachmentWithTicket(conn: Conn, id: number) {
  return await first(
    conn
      .select({
        id: attachments.id,
        filename: attachments.filename,
        content_type: attachments.content_type,
        content: attachments.content,
        ticket_id: transactions.ticket_id,
        type: transactions.type,
      })
      .from(attachments)
      .innerJoin(transactions, eq(transactions.id, attachments.transaction_id))
      .where(eq(attachments.id, id)),
  );
}
