import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { type Db, transaction } from '../db/port.js';
import { sessions, users } from '../db/tables.js';
import { enqueueAccountMail } from '../scrips/accountMail.js';
import type { Actor } from './actor.js';
import { nowIso, nowMs } from './clock.js';
import { AppError, invalid, TryLater } from './errors.js';
import { appSecret, hashPassword, sha256 } from './secrets.js';
import { clearThrottle, countAttempt, throttleKey } from './throttle.js';
import { findUserByEmail, getUserRow, normalizeEmail, type UserRow } from './users.js';

// Forgot password (SPEC D6, docs/decisions/056). A reset link is `/password-reset/<user>.<expires>.<mac>`:
// an HMAC-SHA256, with the installation's `password-reset` key, over the user id, the expiry (Unix
// seconds, an hour after it was asked for by the store's clock) and a fingerprint of the account as
// it was then — its address and its password hash. No table: a link dies when the password changes
// (any way: this link, another one, settings, an admin), so using it once is what ends it; and it
// dies when the address changes. Asking answers the same whether or not the address is an
// account's; the brakes are the sign-in brakes' table (decision 028).

/** How long a link is valid. */
export const RESET_LINK_SECONDS = 60 * 60;
/** The window both brakes count in. */
const BRAKE_WINDOW_SECONDS = 60 * 60;

/** What every request is answered, whatever happened (a mail, no account, a braked address). */
export const RESET_REQUESTED =
  'If that address belongs to an account, a mail with a link to choose a new password is on its way. The link works once, for one hour.';

export interface ResetRequest {
  email: string;
  /** The client's network address (the per-client brake). */
  client: string;
}

export interface ResetOptions {
  /** PUBLIC_URL (no trailing slash): where the link points. */
  publicUrl: string;
  /** MAIL_FROM: the sender. */
  mailFrom: string;
  maxPerAddress: number;
  maxPerClient: number;
}

const macOf = (secret: string, user: UserRow, expires: number) =>
  createHmac('sha256', secret)
    .update(`password-reset:${user.id}.${expires}.${sha256(`${user.email}\0${user.password_hash ?? ''}`)}`)
    .digest('base64url');

const secretOf = (db: Db) => appSecret(db, 'password-reset');

/**
 * POST /password-reset: mails a reset link to the account with this address, if there is one that
 * may sign in. Braked per client (429 after `maxPerClient` an hour: counted before anything is
 * looked up, so it says nothing about the address) and per address (past `maxPerAddress` an hour
 * no more mail goes out, and the answer stays the same). Disabled accounts get no mail.
 */
export async function requestPasswordReset(db: Db, req: ResetRequest, opts: ResetOptions): Promise<string> {
  const client = await countAttempt(db, throttleKey.resetClient(req.client), opts.maxPerClient, BRAKE_WINDOW_SECONDS);
  if (!client.allowed)
    throw new TryLater(
      'rate_limited',
      'Too many password-reset requests from this network; try again later',
      client.retryAfterSec,
    );
  const email = normalizeEmail(req.email);
  const address = await countAttempt(db, throttleKey.resetAddress(email), opts.maxPerAddress, BRAKE_WINDOW_SECONDS);
  if (!address.allowed) return RESET_REQUESTED;
  const user = await findUserByEmail(db, email);
  if (!user || user.disabled) return RESET_REQUESTED;
  const expires = Math.floor(nowMs(db) / 1000) + RESET_LINK_SECONDS;
  const token = `${user.id}.${expires}.${macOf(await secretOf(db), user, expires)}`;
  const link = `${opts.publicUrl}/password-reset/${token}`;
  const what = user.password_hash ? 'reset the password of' : 'set a password for';
  await transaction(db, (tx) =>
    enqueueAccountMail(tx, {
      to: { name: user.name, address: user.email },
      from: { name: 'hxdesk', address: opts.mailFrom },
      subject: user.password_hash ? 'Reset your hxdesk password' : 'Set your hxdesk password',
      body: [
        `Someone (probably you) asked to ${what} the hxdesk account ${user.email} at ${opts.publicUrl}.`,
        '',
        'To choose a new password, open this link within an hour:',
        '',
        link,
        '',
        'The link works once. If you did not ask for it, ignore this mail: nothing changes.',
      ].join('\n'),
    }),
  );
  return RESET_REQUESTED;
}

/** A reset link that cannot be used: answered 404 with a page that offers to ask again. */
export class ResetLinkRefused extends AppError {
  constructor(readonly reason: 'expired' | 'invalid') {
    super(
      'not_found',
      reason === 'expired'
        ? 'This password-reset link has expired: links are valid for one hour. Ask for a new one.'
        : 'This password-reset link is not valid: it was used already, the password or address changed since it was sent, or it is incomplete. Ask for a new one.',
    );
  }
  get headline(): string {
    return this.reason === 'expired' ? 'This link has expired' : 'This link is no longer valid';
  }
}

/** The account a link is for, when the link is still good (signed for the account as it is now, not expired). */
async function holder(db: Db, token: string): Promise<{ user: UserRow; expires: number }> {
  const m = /^(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw new ResetLinkRefused('invalid');
  const [id, expires] = [Number(m[1]), Number(m[2])];
  const user = await getUserRow(db, id);
  if (!user || user.disabled) throw new ResetLinkRefused('invalid');
  const want = Buffer.from(macOf(await secretOf(db), user, expires));
  const got = Buffer.from(m[3]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw new ResetLinkRefused('invalid');
  if (expires * 1000 <= nowMs(db)) throw new ResetLinkRefused('expired');
  return { user, expires };
}

export interface ResetLinkJson {
  email: string;
  expires_at: string;
}

/** GET /password-reset/<token>: whose link it is and until when, or ResetLinkRefused. */
export async function checkResetLink(db: Db, token: string): Promise<ResetLinkJson> {
  const { user, expires } = await holder(db, token);
  return { email: user.email, expires_at: new Date(expires * 1000).toISOString() };
}

export interface NewPassword {
  password: string;
  /** When sent, must repeat `password`. */
  password_confirm?: string;
}

/**
 * POST /password-reset/<token>: sets the new password and signs the account out everywhere
 * (the caller starts the new session). The write is conditional on the password hash the link
 * was signed over, so of two uses of one link at once only one sets a password. Lifts the
 * account's sign-in brakes, as `hxdesk reset-password` does.
 */
export async function resetPassword(db: Db, token: string, input: NewPassword): Promise<Actor> {
  const { user } = await holder(db, token);
  if (input.password_confirm !== undefined && input.password_confirm !== input.password)
    throw invalid('password_confirm', 'Does not match the new password');
  const hash = await hashPassword(input.password);
  const done = await transaction(db, async (tx) => {
    const changed = await tx
      .update(users)
      .set({ password_hash: hash, updated_at: nowIso(tx) })
      .where(
        and(
          eq(users.id, user.id),
          user.password_hash === null ? isNull(users.password_hash) : eq(users.password_hash, user.password_hash),
          eq(users.email, user.email),
        ),
      )
      .returning({ id: users.id });
    if (changed.length === 0) return false;
    await tx.delete(sessions).where(eq(sessions.user_id, user.id));
    return true;
  });
  if (!done) throw new ResetLinkRefused('invalid');
  await clearThrottle(db, throttleKey.login(normalizeEmail(user.email)), throttleKey.password(user.id));
  return { id: user.id, email: user.email, name: user.name, role: user.role, timezone: user.timezone };
}
