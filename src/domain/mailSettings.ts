import { configTransaction } from '../db/configCache.js';
import { and, asc, countDistinct, eq, inArray, isNotNull, ne } from 'drizzle-orm';
import type { Db } from '../db/port.js';
import { appSettings, queues, tickets, ticketWatchers, users, type WATCHER_ROLES } from '../db/tables.js';
import { adminMailAddressesRow, MAIL_ADDRESSES_SETTING } from '../scrips/ownAddresses.js';
import { type Actor, requireAdmin, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { invalid } from './errors.js';

// SPEC D6: the addresses hxdesk receives mail at are never requesters or Cc and never mailed.
// Besides the environment's (MAIL_FROM, MAIL_ADDRESSES, the IMAP user) and the queue aliases,
// admins keep a list of their own in the admin area (`mail_addresses`, stored in app_settings and
// read by every process where it is used: src/scrips/ownAddresses.ts). Decision 051.

/** At most this many addresses in the admins' list. */
export const MAIL_ADDRESSES_MAX = 50;
/** Tickets the warning lists by name (the count covers them all). */
const LISTED_TICKETS = 50;

/** An address of ours that is not the admins' to change here, and where it comes from. */
export interface OtherAddress {
  address: string;
  /** E.g. `MAIL_FROM`, `MAIL_ADDRESSES`, `IMAP_URL user`, `alias of queue Billing`. */
  from: string[];
}

/** A ticket on which one of our addresses is a requester, Cc or AdminCc (left from before it was ours). */
export interface TicketWithOurAddress {
  ticket_id: number;
  subject: string;
  address: string;
  role: (typeof WATCHER_ROLES)[number];
}

export interface MailSettingsJson {
  /** The admins' list, lower-cased. */
  mail_addresses: string[];
  /** When the list was last saved; null when never. */
  updated_at: string | null;
  /** Our other addresses, read-only here: from the environment and the queues' aliases. */
  other_addresses: OtherAddress[];
  /** Tickets that still name one of our addresses as a person: they are never mailed, but staff should remove them. */
  tickets_with_our_addresses: { total: number; tickets: TicketWithOurAddress[] };
}

/** The environment's addresses of ours, with where each comes from (src/env.ts `configuredOwnAddresses`). */
export type Configured = { address: string; from: string }[];

async function otherAddresses(db: Db, configured: Configured): Promise<OtherAddress[]> {
  const out = new Map<string, string[]>();
  const add = (address: string, from: string) => {
    const a = address.toLowerCase();
    out.set(a, [...(out.get(a) ?? []), from]);
  };
  for (const c of configured) add(c.address, c.from);
  const aliased = await db
    .select({ alias: queues.mail_alias, name: queues.name })
    .from(queues)
    .where(isNotNull(queues.mail_alias))
    .orderBy(asc(queues.name));
  for (const q of aliased) add(q.alias!, `alias of queue ${q.name}`);
  return [...out].map(([address, from]) => ({ address, from }));
}

async function ticketsWithOurAddresses(
  db: Db,
  ours: string[],
): Promise<MailSettingsJson['tickets_with_our_addresses']> {
  if (ours.length === 0) return { total: 0, tickets: [] };
  const where = and(inArray(users.email, ours), ne(tickets.status, 'deleted'));
  const from = () =>
    db
      .select({
        ticket_id: tickets.id,
        subject: tickets.subject,
        address: users.email,
        role: ticketWatchers.role,
      })
      .from(ticketWatchers)
      .innerJoin(users, eq(users.id, ticketWatchers.user_id))
      .innerJoin(tickets, eq(tickets.id, ticketWatchers.ticket_id));
  const rows = await from().where(where).orderBy(asc(tickets.id), asc(users.email)).limit(LISTED_TICKETS);
  const [count] = await db
    .select({ n: countDistinct(ticketWatchers.ticket_id) })
    .from(ticketWatchers)
    .innerJoin(users, eq(users.id, ticketWatchers.user_id))
    .innerJoin(tickets, eq(tickets.id, ticketWatchers.ticket_id))
    .where(where);
  return { total: Number(count?.n ?? 0), tickets: rows };
}

/** The mail-address settings (staff may read them: which addresses are ours is no secret to them). */
export async function getMailSettings(db: Db, actor: Actor, configured: Configured): Promise<MailSettingsJson> {
  requireStaff(actor);
  const { addresses, updated_at } = await adminMailAddressesRow(db);
  const other = await otherAddresses(db, configured);
  const ours = [...new Set([...addresses, ...other.map((o) => o.address)])];
  return {
    mail_addresses: addresses,
    updated_at,
    other_addresses: other,
    tickets_with_our_addresses: await ticketsWithOurAddresses(db, ours),
  };
}

/**
 * Replaces the admins' list (admins only). `addresses` comes validated, lower-cased and without
 * repeats (the route's schema). A staff member's address is refused: it would never be mailed
 * again. A requester's is taken: the tickets that name it are listed in the answer's warning.
 */
export async function updateMailSettings(
  db: Db,
  actor: Actor,
  addresses: string[],
  configured: Configured,
): Promise<MailSettingsJson> {
  requireAdmin(actor);
  await configTransaction(db, async (tx) => {
    if (addresses.length > 0) {
      const staff = await tx
        .select({ email: users.email, name: users.name })
        .from(users)
        .where(and(inArray(users.email, addresses), ne(users.role, 'requester')));
      if (staff.length > 0) {
        const who = staff.map((s) => (s.name ? `${s.email} (${s.name})` : s.email)).join(', ');
        throw invalid(
          'mail_addresses',
          `${who} ${staff.length === 1 ? 'is a staff member' : 'are staff members'}: hxdesk never mails its own addresses, so they would get no mail`,
        );
      }
    }
    const at = nowIso(tx);
    const value = JSON.stringify(addresses);
    await tx
      .insert(appSettings)
      .values({ name: MAIL_ADDRESSES_SETTING, value, updated_at: at })
      .onConflictDoUpdate({ target: appSettings.name, set: { value, updated_at: at } });
  });
  return getMailSettings(db, actor, configured);
}
