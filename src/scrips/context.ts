import { and, eq, sql } from 'drizzle-orm';
import { type Conn, prepared } from '../db/client.js';
import { customFields, queues, teams, ticketCustomValues, tickets, ticketWatchers, transactions, users } from '../db/schema.js';
import { notifySettings } from './config.js';

// The variables a template sees (SPEC B3): `ticket` (with queue, owner, team, requester, url),
// `transaction` (with creator) and `scrip`. Plain data only: no functions, no secrets.

export interface Person { id: number; name: string; email: string }
export interface TicketScope {
  id: number; subject: string; description: string; status: string; priority: number;
  created_at: string; updated_at: string; resolved_at: string | null; custom_fields: Record<string, string | number>;
  queue: { id: number; name: string; description: string; mail_alias: string | null };
  owner: Person | null; team: { id: number; name: string; description: string } | null; requester: Person | null; url: string;
  requesters: Person[]; cc: Person[]; admin_cc: Person[];
}
export interface TransactionScope {
  id: number; type: string; body: string | null; field: string | null; old_value: string | null; new_value: string | null;
  created_at: string; creator: Person | null;
}
export interface Scope {
  ticket: TicketScope; transaction: TransactionScope | null; scrip: { id: number; key: string; description: string } | null;
  /** The person this copy of a mail goes to (absent for webhooks). */
  recipient?: Person;
}

// Compiled once: the scope is built for every notification a change sends.
const id = sql.placeholder('id');
const descriptionQuery = prepared((db) => db.select({ body: transactions.body }).from(transactions)
  .where(and(eq(transactions.ticket_id, id), eq(transactions.type, 'Create'))).prepare());
const personQuery = prepared((db) => db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, id)).prepare());
const ticketQuery = prepared((db) => db.select().from(tickets).where(eq(tickets.id, id)).prepare());
const queueQuery = prepared((db) => db.select().from(queues).where(eq(queues.id, id)).prepare());
const teamQuery = prepared((db) => db.select().from(teams).where(eq(teams.id, id)).prepare());
const valuesQuery = prepared((db) => db.select({ key: customFields.key, type: customFields.type, value: ticketCustomValues.value })
  .from(ticketCustomValues).innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
  .where(eq(ticketCustomValues.ticket_id, id)).prepare());
const watchersQuery = prepared((db) => db.select({ id: users.id, name: users.name, email: users.email }).from(ticketWatchers)
  .innerJoin(users, eq(users.id, ticketWatchers.user_id))
  .where(and(eq(ticketWatchers.ticket_id, id), eq(ticketWatchers.role, sql.placeholder('role')))).orderBy(ticketWatchers.created_at, users.id).prepare());
const transactionQuery = prepared((db) => db.select().from(transactions).where(eq(transactions.id, id)).prepare());

/** A ticket's description is the body of its Create transaction. */
function descriptionOf(conn: Conn, ticketId: number): string {
  return descriptionQuery(conn).get({ id: ticketId })?.body ?? '';
}

function person(conn: Conn, userId: number | null): Person | null {
  if (userId === null) return null;
  return personQuery(conn).get({ id: userId }) ?? null;
}

/**
 * Defines `obj[key]` as computed on first read, then kept. A template reads a few variables of
 * the scope: the others (a description, custom fields, people) are never looked up.
 * Enumerable own properties, so Liquid (ownPropertyOnly) and JSON.stringify (webhooks) see them.
 */
function lazy<T extends object, K extends keyof T>(obj: T, key: K, get: () => T[K]): void {
  Object.defineProperty(obj, key, {
    enumerable: true, configurable: true,
    get() {
      const value = get();
      Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
  });
}

export function ticketScope(conn: Conn, ticketId: number): TicketScope {
  const t = ticketQuery(conn).get({ id: ticketId });
  if (!t) throw new Error(`ticket ${ticketId} not found`);
  const q = queueQuery(conn).get({ id: t.queue_id })!;
  const scope = {
    id: t.id, subject: t.subject, status: t.status, priority: t.priority,
    created_at: t.created_at, updated_at: t.updated_at, resolved_at: t.resolved_at,
    queue: { id: q.id, name: q.name, description: q.description, mail_alias: q.mail_alias },
    url: `${notifySettings().publicUrl}/tickets/${t.id}`,
  } as TicketScope;
  lazy(scope, 'description', () => descriptionOf(conn, t.id));
  lazy(scope, 'custom_fields', () => {
    const cf: Record<string, string | number> = {};
    for (const v of valuesQuery(conn).all({ id: ticketId })) cf[v.key] = v.type === 'number' ? Number(v.value) : v.value;
    return cf;
  });
  lazy(scope, 'owner', () => person(conn, t.owner_id));
  lazy(scope, 'team', () => {
    const team = t.team_id === null ? undefined : teamQuery(conn).get({ id: t.team_id });
    return team ? { id: team.id, name: team.name, description: team.description } : null;
  });
  lazy(scope, 'requester', () => person(conn, t.requester_id));
  const role = (r: 'requester' | 'cc' | 'admin_cc') => () => watchersQuery(conn).all({ id: ticketId, role: r });
  lazy(scope, 'requesters', role('requester'));
  lazy(scope, 'cc', role('cc'));
  lazy(scope, 'admin_cc', role('admin_cc'));
  return scope;
}

/** The same ticket scope with another `url` (customer mail links to the reader's portal page), lazy values kept lazy. */
export function withUrl(ticket: TicketScope, url: string): TicketScope {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ticket)) as TicketScope;
  Object.defineProperty(copy, 'url', { value: url, enumerable: true, configurable: true, writable: true });
  return copy;
}

export function transactionScope(conn: Conn, transactionId: number): TransactionScope | null {
  const x = transactionQuery(conn).get({ id: transactionId });
  if (!x) return null;
  const scope = {
    id: x.id, type: x.type, body: x.body, field: x.field, old_value: x.old_value, new_value: x.new_value, created_at: x.created_at,
  } as TransactionScope;
  lazy(scope, 'creator', () => person(conn, x.creator_id));
  return scope;
}

/** A complete scope with every variable present, for checking templates when they are saved. */
export function sampleScope(customFieldKeys: string[]): Scope {
  const someone = (id: number, name: string): Person => ({ id, name, email: `${name.toLowerCase()}@example.com` });
  const now = new Date().toISOString();
  return {
    ticket: {
      id: 123, subject: 'Printer on fire', description: 'It smokes.', status: 'open', priority: 10, created_at: now, updated_at: now,
      resolved_at: now, custom_fields: Object.fromEntries(customFieldKeys.map((k) => [k, 'value'])),
      queue: { id: 1, name: 'General', description: 'Default queue', mail_alias: 'support@example.com' },
      owner: someone(2, 'Olivia'), team: { id: 1, name: 'Support', description: 'First line' }, requester: someone(3, 'Rita'),
      url: `${notifySettings().publicUrl}/tickets/123`,
      requesters: [someone(3, 'Rita')], cc: [someone(4, 'Carl')], admin_cc: [someone(5, 'Ada')],
    },
    transaction: {
      id: 456, type: 'Correspond', body: 'We are on it.', field: 'status', old_value: 'new', new_value: 'open', created_at: now,
      creator: someone(2, 'Olivia'),
    },
    scrip: { id: 1, key: 'sample_scrip', description: 'A sample scrip' },
    recipient: someone(3, 'Rita'),
  };
}
