import { forbidden } from './errors.js';

export const ROLES = ['admin', 'agent', 'requester'] as const;
export type Role = (typeof ROLES)[number];

/** The signed-in user (or token owner) on whose behalf a domain function runs. */
export interface Actor {
  id: number;
  email: string;
  name: string;
  role: Role;
  /**
   * Set when the e-mail gateway acts for the sender of a message: the channel itself was
   * authenticated (mailgate token, IMAP account), so the sender may write on any ticket the
   * mail addresses, as an RT mail gateway does.
   */
  viaMail?: boolean;
  /** The user's IANA time zone (settings page), for showing times on screens; UTC when unset. */
  timezone?: string;
}

export const isAdmin = (a: Actor) => a.role === 'admin';
export const isStaff = (a: Actor) => a.role === 'admin' || a.role === 'agent';
/** May work on any ticket: staff, or the mail gateway on a sender's behalf. */
export const worksAnyTicket = (a: Actor) => isStaff(a) || a.viaMail === true;

export function requireAdmin(a: Actor): void {
  if (!isAdmin(a)) throw forbidden('Only administrators can do this');
}
export function requireStaff(a: Actor): void {
  if (!isStaff(a)) throw forbidden('Only agents and administrators can do this');
}

/** Parses a JSON column, tolerating (and hiding) damage rather than failing a whole read. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
