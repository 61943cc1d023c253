import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotifySettings } from './config.js';

// Rating links (SPEC D4, decision 082): `/csat/<ticket>.<resolve>.<requester>.<expires>.<mac>`,
// an HMAC-SHA256 over the four numbers with the installation's link key, kept apart from portal
// links by its own prefix (`csat:`), so neither kind of link is ever the other. Bound to one
// ticket, one resolve (the Status entry that resolved it), and the requester it was mailed to;
// valid CSAT_LINK_DAYS.

export const CSAT_LINK_DAYS = 30;

export interface CsatClaims {
  ticketId: number;
  resolveTxnId: number;
  requesterId: number;
  /** Unix seconds. */
  expires: number;
}

const mac = (secret: string, body: string) => createHmac('sha256', secret).update(`csat:${body}`).digest('base64url');

export function signCsatToken(c: CsatClaims, secret: string): string {
  const body = `${c.ticketId}.${c.resolveTxnId}.${c.requesterId}.${c.expires}`;
  return `${body}.${mac(secret, body)}`;
}

/** The claims of a well-formed token whose MAC is right, or null. Expiry is the caller's to check. */
export function readCsatToken(token: string, secret: string): CsatClaims | null {
  const m = /^(\d{1,12})\.(\d{1,12})\.(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const body = `${m[1]}.${m[2]}.${m[3]}.${m[4]}`;
  const want = Buffer.from(mac(secret, body));
  const got = Buffer.from(m[5]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  return { ticketId: Number(m[1]), resolveTxnId: Number(m[2]), requesterId: Number(m[3]), expires: Number(m[4]) };
}

/** A rating link for this requester and this resolve, valid CSAT_LINK_DAYS from `now` (the store's clock, ms). */
export function csatUrl(
  settings: NotifySettings,
  ticketId: number,
  resolveTxnId: number,
  requesterId: number,
  now: number,
): string {
  const expires = Math.floor(now / 1000) + CSAT_LINK_DAYS * 86_400;
  return `${settings.publicUrl}/csat/${signCsatToken({ ticketId, resolveTxnId, requesterId, expires }, settings.portalSecret)}`;
}
