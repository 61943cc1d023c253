import { and, eq, gt, sql } from 'drizzle-orm';
import { type Conn, type Db, lockAndReadTicket, prepared, transaction } from '../db/port.js';
import { ticketRatings, tickets, transactions } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import { readCsatToken, type CsatClaims } from '../scrips/csatLinks.js';
import { nowIso, nowMs } from './clock.js';
import { HIDDEN_STATUS } from './customerView.js';
import { AppError } from './errors.js';
import { isReopening, lifecycleOf } from './lifecycles/categories.js';
import { portalSecret } from './portal.js';
import { getTicketRow, type CsatJson } from './tickets/serialize.js';
import { recordTransactions } from './transactions.js';
import { getUserRow } from './users.js';

// SPEC D4 satisfaction (decision 082). A requester rates a resolve through the signed link of the
// "Resolved" mail (src/scrips/csatLinks.ts). Opening the link (GET, HEAD: mail scanners do) reads
// only; its POST records a `Rating` entry by the requester (staff only: never in the portal),
// makes it the current rating of that resolve (ticket_ratings, one row per resolve) and the
// ticket's `csat`, all in one unit of work. After the ticket reopened from that resolve the link
// records nothing (410); a forged or expired link is not found (404), whichever check failed.

export const RATINGS = ['good', 'okay', 'bad'] as const;
export type Rating = (typeof RATINGS)[number];

export interface RatingInput {
  rating: Rating;
  comment?: string;
}

/** What a rating link shows: the ticket and the current rating of its resolve. */
export interface CsatLinkView {
  ticket: { id: number; subject: string };
  rating: CsatJson | null;
  expires_at: string;
}

export const REOPENED_MESSAGE =
  'This request was reopened after this link was sent, so it cannot be rated now. ' +
  'When it is resolved again, our e-mail brings a new link.';

const LINK_NOT_FOUND = 'This rating link is not valid or has expired';

/** The claims of a link that is well-formed, signed with our key and not expired; else 404 (never which check failed). */
async function claimsOf(db: Db, token: string): Promise<CsatClaims> {
  const claims = readCsatToken(token, await portalSecret(db));
  if (!claims || claims.expires * 1000 <= nowMs(db)) throw new AppError('not_found', LINK_NOT_FOUND);
  return claims;
}

const laterStatusMoves = prepared((db) =>
  db
    .select({ old: transactions.old_value, new: transactions.new_value })
    .from(transactions)
    .where(
      and(
        eq(transactions.ticket_id, sql.placeholder('ticket')),
        eq(transactions.type, 'Status'),
        gt(transactions.id, sql.placeholder('after')),
      ),
    ),
);

/** Whether the ticket moved from an inactive status to an active one after the entry `resolveTxnId` (a reopen). */
async function reopenedSince(conn: Conn, ticketId: number, queueId: number, resolveTxnId: number): Promise<boolean> {
  const moves = await laterStatusMoves(conn).all({ ticket: ticketId, after: resolveTxnId });
  if (moves.length === 0) return false;
  const lc = await lifecycleOf(conn, queueId);
  return moves.some((m) => m.new !== null && isReopening(lc, m.old, m.new));
}

const ratingOfResolve = prepared((db) =>
  db
    .select({ rating: ticketRatings.rating, comment: ticketRatings.comment, rated_at: ticketRatings.rated_at })
    .from(ticketRatings)
    .where(
      and(
        eq(ticketRatings.ticket_id, sql.placeholder('ticket')),
        eq(ticketRatings.resolve_txn_id, sql.placeholder('resolve')),
      ),
    ),
);

/** A ticket a rating link may reach: there, and not deleted (decision 050: deleted is hidden from customers). */
function shown<T extends { status: string }>(row: T | undefined): T {
  if (!row || row.status === HIDDEN_STATUS) throw new AppError('not_found', LINK_NOT_FOUND);
  return row;
}

const expiresAt = (c: CsatClaims) => new Date(c.expires * 1000).toISOString();

/** GET and HEAD of a rating link: reads only, whoever opens it (a person or a mail scanner); 410 once reopened. */
export async function csatLink(db: Db, token: string): Promise<CsatLinkView> {
  const claims = await claimsOf(db, token);
  const t = shown(await getTicketRow(db, claims.ticketId));
  if (await reopenedSince(db, t.id, t.queue_id, claims.resolveTxnId)) throw new AppError('gone', REOPENED_MESSAGE);
  const current = await ratingOfResolve(db).get({ ticket: t.id, resolve: claims.resolveTxnId });
  return {
    ticket: { id: t.id, subject: t.subject },
    rating: current ? { ...current, rating: current.rating as Rating } : null,
    expires_at: expiresAt(claims),
  };
}

/**
 * POST of a rating link: the requester's rating of that resolve, in one unit of work — a
 * `Rating` entry (its scrips run: on_rating, webhooks), the resolve's current rating replaced,
 * and the ticket's `csat`. Rating again replaces the current rating with a new entry.
 */
export async function rateByLink(
  db: Db,
  token: string,
  input: RatingInput,
  notify: NotifySettings,
): Promise<CsatLinkView & { transaction_id: number }> {
  const claims = await claimsOf(db, token);
  const comment = input.comment ?? '';
  return transaction(
    db,
    async (tx) => {
      const t = shown(await lockAndReadTicket(tx, claims.ticketId));
      if (await reopenedSince(tx, t.id, t.queue_id, claims.resolveTxnId)) throw new AppError('gone', REOPENED_MESSAGE);
      if (!(await getUserRow(tx, claims.requesterId))) throw new AppError('not_found', LINK_NOT_FOUND);
      const now = nowIso(tx);
      const { transactions: written } = await recordTransactions(
        tx,
        t.id,
        claims.requesterId,
        [{ type: 'Rating', field: 'csat', new_value: input.rating, body: comment }],
        now,
        { notify, queueId: t.queue_id },
      );
      const txnId = written[0].id;
      const row = {
        requester_id: claims.requesterId,
        rating: input.rating,
        comment,
        transaction_id: txnId,
        rated_at: now,
      };
      await tx
        .insert(ticketRatings)
        .values({ ticket_id: t.id, resolve_txn_id: claims.resolveTxnId, ...row })
        .onConflictDoUpdate({ target: [ticketRatings.ticket_id, ticketRatings.resolve_txn_id], set: row });
      const csat: CsatJson = { rating: input.rating, comment, rated_at: now };
      await tx
        .update(tickets)
        .set({ csat: JSON.stringify(csat), updated_at: now })
        .where(eq(tickets.id, t.id));
      return {
        ticket: { id: t.id, subject: t.subject },
        rating: csat,
        expires_at: expiresAt(claims),
        transaction_id: txnId,
      };
    },
    { op: 'rateByLink' },
  );
}
