import { and, count, desc, eq, ne, not, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { type Db, emailDomain, prepared } from '../../db/port.js';
import { tickets, users } from '../../db/tables.js';
import { type Actor, isStaff } from '../actor.js';
import { notDone } from '../lifecycles/listStatus.js';
import { MERGED_STATUS } from '../merge/guard.js';
import type { TicketJson } from './serialize.js';

// SPEC D6 "Who is this customer" (decision 055): beside a ticket, staff see its requester's other
// tickets — open ones first, then the most recent, five at most, with a link to all — and their
// organization: the domain of their address, when other requesters share it and it is not a
// free-mail provider's.

/** How many of the requester's other tickets the panel shows. */
export const OTHER_TICKETS_SHOWN = 5;

/**
 * Mail domains anyone can have an address at: people there share a provider, not an organization.
 * Exact names, and providers' country variants by their first label (`yahoo.*`, `gmx.*`, …).
 */
export const FREE_MAIL_DOMAINS: readonly string[] = [
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'tutanota.com',
  'zoho.com',
  'mail.com',
  'gmx.net',
  'web.de',
  't-online.de',
  'mail.ru',
  'yandex.ru',
  'qq.com',
  '163.com',
  '126.com',
  'naver.com',
  'fastmail.com',
];
const FREE_MAIL_FAMILIES = ['yahoo', 'ymail', 'hotmail', 'outlook', 'live', 'gmx', 'yandex', 'libero', 'orange'];

/** Whether an address at this domain says nothing about an organization. */
export function isFreeMail(domain: string): boolean {
  const d = domain.toLowerCase();
  return FREE_MAIL_DOMAINS.includes(d) || FREE_MAIL_FAMILIES.includes(d.split('.')[0]);
}

/** An address's domain (addresses are stored lower-case); null without one. */
export function domainOf(email: string): string | null {
  const at = email.lastIndexOf('@');
  const d = at < 0 ? '' : email.slice(at + 1).toLowerCase();
  return /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/.test(d) ? d : null;
}

export interface CustomerTicket {
  id: number;
  subject: string;
  status: string;
  updated_at: string;
}
export interface CustomerContext {
  requester: { id: number; name: string; email: string };
  /** Their other tickets: active ones first, each group most recently updated first. */
  others: CustomerTicket[];
  /** All their tickets, this one included (what "All N tickets" lists: `requester_id`). */
  total: number;
  /** Their address's domain and how many requesters have an address there (them included), when others do. */
  /** `people`: counted up to ORGANIZATION_PEOPLE_COUNTED; `more`: there are more than that. */
  organization: { domain: string; people: number; more: boolean } | null;
}

const cols = { id: tickets.id, subject: tickets.subject, status: tickets.status, updated_at: tickets.updated_at };

// Compiled once: the ticket page reads them on every view.
const requesterRow = prepared((db) =>
  db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(eq(users.id, sql.placeholder('id'))),
);
const ticketsOfRequester = prepared((db) =>
  db
    .select({ n: count() })
    .from(tickets)
    .where(and(eq(tickets.requester_id, sql.placeholder('id')), ne(tickets.status, MERGED_STATUS))),
);
const peopleAtDomain = prepared((db) => {
  const atDomain = db
    .select({ one: users.id })
    .from(users)
    .where(and(eq(emailDomain(db, users.email), sql.placeholder('domain')), eq(users.role, 'requester')))
    .limit(ORGANIZATION_PEOPLE_COUNTED + 1)
    .as('at_domain');
  return db.select({ n: count() }).from(atDomain);
});

/**
 * The requester's other tickets, not done (`active`) and done (`rest`), newest first, `n` at most:
 * compiled once per "not done" (its statuses change only with the lifecycles in use), for the
 * first few of those; past them (an install whose lifecycles changed often) built per call.
 */
const othersByNotDone = new Map<string, OtherTickets>();
const OTHERS_COMPILED = 16;
type Params = { requester: number; ticket: number; n: number };
type OtherTickets = Record<'active' | 'rest', (db: Db, params: Params) => Promise<CustomerTicket[]>>;
function otherTickets(notDone: { key: string; condition: () => SQL }): OtherTickets {
  const known = othersByNotDone.get(notDone.key);
  if (known) return known;
  if (othersByNotDone.size >= OTHERS_COMPILED) {
    const built = (done: boolean) => async (db: Db, p: Params) =>
      otherTicketsQuery(db, notDone.condition, done, p.requester, p.ticket, p.n);
    return { active: built(false), rest: built(true) };
  }
  const compiled = (done: boolean) => {
    const stmt = prepared((db) =>
      otherTicketsQuery(
        db,
        notDone.condition,
        done,
        sql.placeholder('requester'),
        sql.placeholder('ticket'),
        sql.placeholder('n'),
      ),
    );
    return async (db: Db, p: Params) => stmt(db).all(p);
  };
  const q = { active: compiled(false), rest: compiled(true) };
  othersByNotDone.set(notDone.key, q);
  return q;
}
function otherTicketsQuery(
  db: Db,
  notDone: () => SQL,
  done: boolean,
  requester: number | Placeholder,
  ticket: number | Placeholder,
  n: number | Placeholder,
) {
  return db
    .select(cols)
    .from(tickets)
    .where(
      and(
        eq(tickets.requester_id, requester),
        ne(tickets.id, ticket),
        // SPEC D3: never a merged ticket (a tombstone).
        ne(tickets.status, MERGED_STATUS),
        done ? not(notDone()) : notDone(),
      ),
    )
    .orderBy(desc(tickets.updated_at), desc(tickets.id))
    .limit(n);
}

/**
 * The panel's content for a ticket, for staff (null for anyone else, and for a ticket without a
 * requester). Each read goes through an index: the requester's tickets by
 * tickets_requester_updated_idx, read newest first; the people at a domain through
 * users_email_domain_idx (issue 32), counted up to a bound.
 */
export async function customerContext(db: Db, actor: Actor, ticket: TicketJson): Promise<CustomerContext | null> {
  if (!isStaff(actor) || ticket.requester_id === null) return null;
  // Side by side (on PostgreSQL each read is a round trip; issue 32): the requester, then their
  // domain's people, beside their tickets not done, then the done ones when those fall short.
  const id = ticket.requester_id;
  const params = { requester: id, ticket: ticket.id };
  const requesterRead = Promise.resolve(requesterRow(db).get({ id }));
  const [requester, organization, others, n] = await Promise.all([
    requesterRead,
    requesterRead.then((r) => (r ? organizationOf(db, r.email) : null)),
    notDone(db).then(async (notDone) => {
      const q = otherTickets(notDone);
      const active = await q.active(db, { ...params, n: OTHER_TICKETS_SHOWN });
      if (active.length >= OTHER_TICKETS_SHOWN) return active;
      return [...active, ...(await q.rest(db, { ...params, n: OTHER_TICKETS_SHOWN - active.length }))];
    }),
    ticketsOfRequester(db).get({ id }),
  ]);
  if (!requester) return null;
  return { requester, others, total: Number(n?.n ?? 0), organization };
}

/** The people at a domain the panel counts exactly; beyond it says "1000+" (a big company's domain holds tens of thousands). */
export const ORGANIZATION_PEOPLE_COUNTED = 1000;

/** The organization an address stands for: its domain, when it is no free-mail provider's and other requesters share it. */
async function organizationOf(db: Db, email: string): Promise<CustomerContext['organization']> {
  const domain = domainOf(email);
  if (!domain || isFreeMail(domain)) return null;
  // Through users_email_domain_idx: the index entries of the domain alone (issue 32).
  const people = Number((await peopleAtDomain(db).get({ domain }))?.n ?? 0);
  if (people < 2) return null;
  const more = people > ORGANIZATION_PEOPLE_COUNTED;
  return { domain, people: more ? ORGANIZATION_PEOPLE_COUNTED : people, more };
}
