import { type Conn, type Db, lockAndReadTicket, lockTicket, transaction } from '../../db/port.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/kinds.js';
import { signReply } from '../../scrips/signature.js';
import { type Actor, isAdmin, isStaff, worksAnyTicket } from '../actor.js';
import { nowIso } from '../clock.js';
import { AppError, conflict, forbidden, invalid, StaleError } from '../errors.js';
import { recordTransactions, transactionsOfTicket, type NewAttachment, type TransactionJson } from '../transactions.js';
import { addMentioned } from '../mentions.js';
import { withStagedFiles } from '../stagedFiles.js';
import { getUserRow } from '../users.js';
import { clearDraftIn } from './drafts.js';
import { markSeenIn } from './reads.js';
import { addTimeBeforeMessage, addTimeOfMessage, checkMinutes } from '../timeWorked/entries.js';
import { lifecycleOf } from '../lifecycles/categories.js';
import { requireStatusOf } from '../lifecycles/statuses.js';
import { scripResultsFor, transactionsFor } from '../customerView.js';
import { visibleTicket } from './read.js';
import { touchTicket, updateTicket } from './write.js';

// A message on a ticket: a reply or an internal note (SPEC A, C5), and mail recorded as sent outside hxdesk.

export interface CustomerComment {
  transaction: TransactionJson;
  scrip_results?: ScripResult[];
}
const commentFor = (
  actor: Actor,
  c: { transaction: TransactionJson; scrip_results: ScripResult[] },
): CustomerComment =>
  worksAnyTicket(actor)
    ? c
    : scripResultsFor(actor, { ...c, transaction: transactionsFor(actor, [c.transaction])[0] ?? c.transaction });

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
