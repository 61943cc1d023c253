import { and, asc, count, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { type Db, prepared } from '../db/port.js';
import { appSettings, queues, tickets, users } from '../db/tables.js';
import { type Actor, isAdmin, isStaff } from './actor.js';

// SPEC D6 "First run": an empty install's landing page says what to do first (decision 055).

/** Past this many tickets the install is in use: the checklist is no longer shown, done or not. */
export const FIRST_RUN_TICKETS = 10;

export interface FirstRunState {
  /** A queue has a mail address, or the install has its own addresses (MAIL_ADDRESSES, IMAP_URL, the admin's list). */
  mail: boolean;
  /** Where a test mail goes: the first queue address, else the install's first address (null: none yet). */
  address: string | null;
  /** IMAP_URL is set: hxdesk fetches the mail itself. */
  imap: boolean;
  /** Staff besides the first administrator. */
  agents: boolean;
  /** A ticket exists. */
  ticket: boolean;
  /** The reader may do the admin steps (queues, people). */
  admin: boolean;
}

/**
 * The stores whose install was seen in use (FIRST_RUN_TICKETS tickets or more). No ticket is ever
 * removed (a deleted one is a status), so it stays in use: the list page stops counting (issue 32).
 */
const inUse = new WeakSet<object>();

/** The tickets, counted up to FIRST_RUN_TICKETS. */
const ticketsUpToBound = prepared((db) =>
  db.select({ n: count() }).from(sql`(SELECT 1 FROM ${tickets} LIMIT ${FIRST_RUN_TICKETS}) AS t`),
);

/** What the install's own mail settings are (from its environment; the route hands them over). */
export interface MailSetup {
  addresses: readonly string[];
  imap: boolean;
}

/**
 * The checklist for a staff reader while the install is new: shown while it has no ticket, and
 * past that while a step is left and it has fewer than FIRST_RUN_TICKETS tickets. Null otherwise.
 */
export async function firstRunState(db: Db, actor: Actor, mail: MailSetup): Promise<FirstRunState | null> {
  if (!isStaff(actor) || inUse.has(db.store)) return null;
  const [{ n: ticketCount }] = await ticketsUpToBound(db).all();
  if (Number(ticketCount) >= FIRST_RUN_TICKETS) {
    inUse.add(db.store);
    return null;
  }
  const aliases = await db
    .select({ alias: queues.mail_alias })
    .from(queues)
    .where(isNotNull(queues.mail_alias))
    .orderBy(asc(queues.id));
  const kept = await keptAddresses(db);
  const own = [...mail.addresses, ...kept];
  const [{ n: staff }] = await db
    .select({ n: count() })
    .from(users)
    .where(and(inArray(users.role, ['admin', 'agent']), eq(users.disabled, false)));
  const state: FirstRunState = {
    mail: aliases.length > 0 || own.length > 0 || mail.imap,
    address: aliases[0]?.alias ?? own[0] ?? null,
    imap: mail.imap,
    agents: Number(staff) > 1,
    ticket: Number(ticketCount) > 0,
    admin: isAdmin(actor),
  };
  return !state.ticket || !state.mail || !state.agents ? state : null;
}

/** The addresses admins keep in the admin area (app_settings `mail_addresses`, SPEC D6), if any. */
async function keptAddresses(db: Db): Promise<string[]> {
  const [row] = await db
    .select({ value: appSettings.value })
    .from(appSettings)
    .where(eq(appSettings.name, 'mail_addresses'));
  if (!row) return [];
  try {
    const v: unknown = JSON.parse(row.value);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
