import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotifySettings } from './config.js';

// Portal links (SPEC C2): `/portal/<ticket>.<user>.<expires>.<epoch>.<mac>`, an HMAC-SHA256 over
// the four numbers with a server secret. Bound to one ticket and one user, valid until
// `expires` (Unix seconds), and revoked when the user's `portal_epoch` moves past `epoch`.

export interface PortalClaims {
  ticketId: number;
  userId: number;
  expires: number;
  epoch: number;
}

const mac = (secret: string, body: string) => createHmac('sha256', secret).update(`portal:${body}`).digest('base64url');

export function signPortalToken(c: PortalClaims, secret: string): string {
  const body = `${c.ticketId}.${c.userId}.${c.expires}.${c.epoch}`;
  return `${body}.${mac(secret, body)}`;
}

/** The claims of a well-formed token whose MAC is right, or null. Expiry and epoch are the caller's to check. */
export function readPortalToken(token: string, secret: string): PortalClaims | null {
  const m = /^(\d{1,12})\.(\d{1,12})\.(\d{1,12})\.(\d{1,9})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const body = `${m[1]}.${m[2]}.${m[3]}.${m[4]}`;
  const want = Buffer.from(mac(secret, body));
  const got = Buffer.from(m[5]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  return { ticketId: Number(m[1]), userId: Number(m[2]), expires: Number(m[3]), epoch: Number(m[4]) };
}

/** A fresh link for this user to this ticket, valid PORTAL_LINK_DAYS from `now` (the store's clock, ms), on this server's URL with its key. */
export function portalUrl(
  settings: NotifySettings,
  ticketId: number,
  userId: number,
  epoch: number,
  now: number,
): string {
  const expires = Math.floor(now / 1000) + settings.portalLinkDays * 86_400;
  return `${settings.publicUrl}/portal/${signPortalToken({ ticketId, userId, expires, epoch }, settings.portalSecret)}`;
}
