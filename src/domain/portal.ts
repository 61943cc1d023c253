import { liveTicketId } from './merge/guard.js';
import { and, asc, count, desc, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import { changes, type Conn, type Db, first, lockTicket, transaction } from '../db/port.js';
import { tickets, ticketWatchers, transactions, users } from '../db/tables.js';
import { writtenHere } from '../markdown.js';
import type { NotifySettings } from '../scrips/config.js';
import { readPortalToken } from '../scrips/portalLinks.js';
import { type Actor, requireStaff } from './actor.js';
import { nowMs } from './clock.js';
import { AppError, invalid, notFound, TryLater } from './errors.js';
import { appSecret } from './secrets.js';
import { spendAllowance, sweepThrottle, throttleKey } from './throttle.js';
import { getTicketRow } from './tickets/serialize.js';
import { HIDDEN_STATUS } from './customerView.js';
import { commentOnTicket } from './tickets/comment.js';
import { withStagedFiles } from './stagedFiles.js';
import { attachmentWithTicket, transactionsJson, type AttachmentJson, type NewAttachment } from './transactions.js';
import { getUserRow, type UserRow } from './users.js';
import { isCustomerOf } from './watchers.js';

// The requester portal (SPEC C2, docs/decisions/020-portal.md). A customer reaches one ticket
// through a signed link from our mail (`/portal/<token>`), or all of their tickets signed in
// with a password. Either way they see the public history only (Create and Correspond, their
// files) and can add a public reply. Everything a portal page shows goes through this file.

/** The transaction types a customer sees: what was written to them or by them. */
export const PUBLIC_TYPES = ['Create', 'Correspond'] as const;

/** Why a link was refused; said in words, never which check failed beyond expiry. */
export type RefusalReason = 'invalid' | 'expired' | 'revoked';

const REFUSAL: Record<RefusalReason, string> = {
  invalid: 'This link is not valid.',
  expired: 'This link has expired.',
  revoked: 'This link is no longer valid.',
};
export const NEW_LINK_HINT =
  'To reach your request again, reply to any e-mail from us about it: your reply is added to the request, ' +
  'and our next e-mail to you brings a new link.';

/** A refused portal link: 403 with a sentence a customer understands. */
export class PortalRefused extends AppError {
  constructor(readonly reason: RefusalReason) {
    super('forbidden', `${REFUSAL[reason]} ${NEW_LINK_HINT}`);
  }
  get headline(): string {
    return REFUSAL[this.reason];
  }
}

/**
 * Who may see which ticket: one user and one ticket. A link's grant remembers the epoch it was
 * signed with, so a reply re-checks it inside its own SQL transaction.
 */
export interface PortalGrant {
  ticketId: number;
  user: UserRow;
  epoch?: number;
}

const secrets = new WeakMap<object, string>();
/** The installation's link key (app_secrets `portal`), read once per database. */
export async function portalSecret(db: Db): Promise<string> {
  const store = db.store;
  let s = secrets.get(store);
  if (s === undefined) {
    s = await appSecret(db, 'portal');
    secrets.set(store, s);
  }
  return s;
}

/**
 * A deleted ticket is not shown to its customers at all (decision 050): not found, as another
 * person's ticket is, whether reached by a link or signed in.
 */
async function shownTicket(conn: Conn, ticketId: number) {
  const row = await getTicketRow(conn, ticketId);
  if (!row || row.status === HIDDEN_STATUS) throw notFound('Ticket', ticketId);
  return row;
}

/** The one place a link's user is checked again: still active, not revoked, still on the ticket. */
async function stillGranted(
  conn: Conn,
  ticketId: number,
  userId: number,
  epoch: number | undefined,
): Promise<UserRow | null> {
  const user = await getUserRow(conn, userId);
  if (!user || user.disabled) return null;
  if (epoch !== undefined && user.portal_epoch !== epoch) return null;
  return (await isCustomerOf(conn, ticketId, user.id)) ? user : null;
}

/**
 * A link's grant, or a refusal: the MAC must be right (tampered, malformed and other-ticket
 * links all fail it), the link not expired, signed at the user's current `portal_epoch`, the
 * user not disabled, and still a requester or Cc of the ticket.
 */
export async function grantFromToken(db: Db, token: string, now = nowMs(db)): Promise<PortalGrant> {
  const claims = readPortalToken(token, await portalSecret(db));
  if (!claims) throw new PortalRefused('invalid');
  if (claims.expires * 1000 <= now) throw new PortalRefused('expired');
  // SPEC D3: a link to a merged ticket opens the ticket it was merged into (its people moved there).
  const ticketId = (await liveTicketId(db, claims.ticketId)) ?? claims.ticketId;
  const user = await stillGranted(db, ticketId, claims.userId, claims.epoch);
  if (!user) throw new PortalRefused('revoked');
  await shownTicket(db, ticketId);
  return { ticketId, user, epoch: claims.epoch };
}

/** A signed-in customer's own ticket; any other ticket is not found (as on /tickets). */
export async function grantFromSession(conn: Conn, actor: Actor, id: number): Promise<PortalGrant> {
  const ticketId = (await liveTicketId(conn, id)) ?? id; // SPEC D3: a merged ticket's page is its target's
  const user = await stillGranted(conn, ticketId, actor.id, undefined);
  if (!user) throw notFound('Ticket', ticketId);
  await shownTicket(conn, ticketId);
  return { ticketId, user };
}

export interface PortalTicketJson {
  id: number;
  subject: string;
  status: string;
  created_at: string;
  updated_at: string;
}
export interface PortalTransactionJson {
  id: number;
  type: (typeof PUBLIC_TYPES)[number];
  /** A name to show: staff by their name only (never their address), customers by name or address. */
  author: { name: string; staff: boolean };
  body: string;
  /** SPEC D6: the body is Markdown written in hxdesk (web, API, portal), not plain text from mail. */
  markdown: boolean;
  created_at: string;
  attachments: AttachmentJson[];
}
export interface PortalView {
  ticket: PortalTicketJson;
  transactions: PortalTransactionJson[];
}

const ticketPublic = (t: {
  id: number;
  subject: string;
  status: string;
  created_at: string;
  updated_at: string;
}): PortalTicketJson => ({
  id: t.id,
  subject: t.subject,
  status: t.status,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

/** The staff's name where one is missing: their address is internal. */
const STAFF_NAME = 'Support team';

async function authors(conn: Conn, ids: number[]): Promise<Map<number, { name: string; staff: boolean }>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await conn
    .select({ id: users.id, name: users.name, email: users.email, role: users.role })
    .from(users)
    .where(inArray(users.id, unique));
  return new Map(
    rows.map((u) => {
      const staff = u.role !== 'requester';
      return [u.id, { name: u.name.trim() || (staff ? STAFF_NAME : u.email), staff }];
    }),
  );
}

async function publicTransactions(
  conn: Conn,
  rows: (typeof transactions.$inferSelect)[],
): Promise<PortalTransactionJson[]> {
  const names = await authors(
    conn,
    rows.flatMap((r) => (r.creator_id === null ? [] : [r.creator_id])),
  );
  return (await transactionsJson(conn, rows)).map((t) => ({
    id: t.id,
    type: t.type as PortalTransactionJson['type'],
    author: (t.creator_id !== null && names.get(t.creator_id)) || { name: STAFF_NAME, staff: true },
    body: t.body ?? '',
    markdown: writtenHere(t),
    created_at: t.created_at,
    attachments: t.attachments,
  }));
}

/**
 * What the portal shows of the granted ticket: its subject and status, and the public history
 * (with `after`, only its entries after that id: the live update, SPEC C5).
 */
export async function portalView(conn: Conn, grant: PortalGrant, opts: { after?: number } = {}): Promise<PortalView> {
  const row = await shownTicket(conn, grant.ticketId);
  const rows = await conn
    .select()
    .from(transactions)
    .where(
      and(
        eq(transactions.ticket_id, grant.ticketId),
        inArray(transactions.type, [...PUBLIC_TYPES]),
        opts.after === undefined ? undefined : gt(transactions.id, opts.after),
      ),
    )
    .orderBy(asc(transactions.id));
  return { ticket: ticketPublic(row), transactions: await publicTransactions(conn, rows) };
}

/** An attachment of a public transaction of the granted ticket; anything else is not found. */
export async function portalAttachment(conn: Conn, grant: PortalGrant, id: number) {
  const a = await attachmentWithTicket(conn, id);
  if (!a || a.ticket_id !== grant.ticketId || !(PUBLIC_TYPES as readonly string[]).includes(a.type))
    throw notFound('Attachment', id);
  return a;
}

/** A page of a customer's list. */
export const PORTAL_PAGE = 25;

export interface PortalList {
  tickets: PortalTicketJson[];
  total: number;
  limit: number;
  offset: number;
}

/**
 * GET /portal: a signed-in customer's tickets (requester or Cc), every status but deleted,
 * newest first (by number: a page does not shift when an older request is answered), a page at a
 * time (decision 050).
 */
export async function portalTickets(
  conn: Conn,
  actor: Actor,
  page: { limit?: number; offset?: number } = {},
): Promise<PortalList> {
  const limit = page.limit ?? PORTAL_PAGE;
  const offset = page.offset ?? 0;
  const own = conn
    .select({ id: ticketWatchers.ticket_id })
    .from(ticketWatchers)
    .where(and(eq(ticketWatchers.user_id, actor.id), inArray(ticketWatchers.role, ['requester', 'cc'])));
  const where = and(inArray(tickets.id, own), ne(tickets.status, HIDDEN_STATUS));
  const rows = await conn
    .select({
      id: tickets.id,
      subject: tickets.subject,
      status: tickets.status,
      created_at: tickets.created_at,
      updated_at: tickets.updated_at,
    })
    .from(tickets)
    .where(where)
    .orderBy(desc(tickets.id))
    .limit(limit)
    .offset(offset);
  const total = (await first(conn.select({ n: count() }).from(tickets).where(where)))?.n ?? 0;
  return { tickets: rows, total: Number(total), limit, offset };
}

export interface PortalReplyInput {
  body: string;
  attachments: NewAttachment[];
}
/** Files one reply may carry. */
export const MAX_REPLY_FILES = 20;

/** What one person may send through the portal (decision 041); the route passes the settings. */
export interface PortalLimits {
  /** MAX_MAIL_BYTES: the files of one reply, in all. */
  maxBytes: number;
  /** MAIL_SENDER_MAX_PER_HOUR: replies one person may send in an hour (link and session together). */
  messagesPerHour: number;
  /** PORTAL_MAX_BYTES_PER_DAY: bytes of files one person may send in a day. */
  bytesPerDay: number;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

const mib = (n: number) => (n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);
/** How long until the brake lets go, in words: "a minute", "42 minutes", "5 hours". */
function wait(sec: number): string {
  if (sec <= 60) return 'a minute';
  if (sec < 90 * 60) return `${Math.ceil(sec / 60)} minutes`;
  return `${Math.ceil(sec / 3600)} hours`;
}

/** The files of one message within the limits, before the database is asked; their size. */
export function checkFiles(files: NewAttachment[], limits: PortalLimits): number {
  if (files.length > MAX_REPLY_FILES) throw invalid('attachments', `At most ${MAX_REPLY_FILES} files`);
  const size = files.reduce((n, a) => n + a.content.length, 0);
  if (size > limits.maxBytes)
    throw new AppError('too_large', `The files are larger than ${mib(limits.maxBytes)} in all`);
  if (size > limits.bytesPerDay)
    throw new AppError('too_large', `${perDay(limits)}, and these files are ${mib(size)}.`);
  return size;
}
const perDay = (limits: PortalLimits) => `We take at most ${mib(limits.bytesPerDay)} of files a day from one person`;

/**
 * One message of a person through the portal (a reply or a new request) counted against their
 * brakes (decision 041), inside its unit of work: a refusal throws and the rollback takes the
 * count back. True when a new window began (ended ones are then swept after the commit).
 */
export async function spendBrakes(
  tx: Conn,
  userId: number,
  size: number,
  limits: PortalLimits,
  now: number,
): Promise<boolean> {
  const sent = await spendAllowance(tx, throttleKey.portalMessages(userId), 1, limits.messagesPerHour, HOUR, now);
  if (!sent.allowed) {
    throw new TryLater(
      'rate_limited',
      `You have sent ${limits.messagesPerHour} messages within the hour, as many as we take from one person. ` +
        `You can write again in ${wait(sent.retryAfterSec)}.`,
      sent.retryAfterSec,
    );
  }
  let sweep = sent.newWindow;
  if (size > 0) {
    const spent = await spendAllowance(tx, throttleKey.portalBytes(userId), size, limits.bytesPerDay, DAY, now);
    if (!spent.allowed) {
      throw new TryLater(
        'too_large',
        `${perDay(limits)}: these files (${mib(size)}) are more than the ${mib(limits.bytesPerDay - spent.used)} you have left. ` +
          `You can send more files in ${wait(spent.retryAfterSec)}; a message without files can be sent now.`,
        spent.retryAfterSec,
      );
    }
    sweep ||= spent.newWindow;
  }
  return sweep;
}

/**
 * A customer's reply: a public Correspond by the granted user, with its files, in one unit of
 * work with its scrips. The grant is checked again inside the SQL transaction, so a link
 * revoked (or a person taken off the ticket) a moment before cannot still write.
 *
 * Brakes per person (decision 041), counted in that unit of work in the person's rows of
 * login_throttle: `messagesPerHour` replies an hour (429), `bytesPerDay` of files a day (413).
 * A refusal throws, so the rollback takes back everything, the count included: nothing of a
 * refused reply is stored. `now` moves the windows (tests).
 */
export async function portalReply(
  db: Db,
  grant: PortalGrant,
  input: PortalReplyInput,
  limits: PortalLimits,
  notify: NotifySettings,
  now = nowMs(db),
): Promise<PortalTransactionJson> {
  const body = input.body.trim() === '' ? '' : input.body;
  if (body === '' && input.attachments.length === 0) throw invalid('body', 'Write a message or attach a file');
  const size = checkFiles(input.attachments, limits);
  let sweep = false;
  // The files stored first, outside the ticket's lock (decision 061); a refusal deletes them.
  const reply = await withStagedFiles(db, input.attachments, (attachments) =>
    transaction(db, async (tx) => {
      await lockTicket(tx, grant.ticketId); // first: the grant and the ticket as they are after any change in flight
      const user = await stillGranted(tx, grant.ticketId, grant.user.id, grant.epoch);
      if (!user) throw grant.epoch === undefined ? notFound('Ticket', grant.ticketId) : new PortalRefused('revoked');
      await shownTicket(tx, grant.ticketId);
      sweep = await spendBrakes(tx, user.id, size, limits, now);
      const actor: Actor = { id: user.id, email: user.email, name: user.name, role: user.role };
      // Always public: a staff member who is also a requester writes here as the customer does.
      const { transaction } = await commentOnTicket(
        tx,
        actor,
        grant.ticketId,
        { body, internal: false, attachments },
        { notify },
      );
      const row = (await first(tx.select().from(transactions).where(eq(transactions.id, transaction.id))))!;
      return (await publicTransactions(tx, [row]))[0];
    }),
  );
  // A new window began: ended ones are swept in a unit of work of their own, as sign-ins do (decision 028).
  if (sweep) await sweepThrottle(db, now);
  return reply;
}

/** POST /users/:id/portal-links/revoke: every link handed to this user so far stops working. */
export async function revokePortalLinks(db: Db, actor: Actor, userId: number): Promise<void> {
  requireStaff(actor);
  const res = await transaction(db, (tx) =>
    tx
      .update(users)
      .set({ portal_epoch: sql`${users.portal_epoch} + 1` })
      .where(eq(users.id, userId)),
  );
  if (changes(res) === 0) throw notFound('User', userId);
}
