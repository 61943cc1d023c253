import { and, eq } from 'drizzle-orm';
import type { Conn } from '../db/client.js';
import { customFields, queues, teams, ticketCustomValues, tickets, transactions, users } from '../db/schema.js';
import { notifySettings } from './config.js';

// The variables a template sees (SPEC B3): `ticket` (with queue, owner, team, requester, url),
// `transaction` (with creator) and `scrip`. Plain data only: no functions, no secrets.

export interface Person { id: number; name: string; email: string }
export interface TicketScope {
  id: number; subject: string; description: string; status: string; priority: number;
  created_at: string; updated_at: string; resolved_at: string | null; custom_fields: Record<string, string | number>;
  queue: { id: number; name: string; description: string; mail_alias: string | null };
  owner: Person | null; team: { id: number; name: string; description: string } | null; requester: Person | null; url: string;
}
export interface TransactionScope {
  id: number; type: string; body: string | null; field: string | null; old_value: string | null; new_value: string | null;
  created_at: string; creator: Person | null;
}
export interface Scope { ticket: TicketScope; transaction: TransactionScope | null; scrip: { id: number; key: string; description: string } | null }

/** A ticket's description is the body of its Create transaction. */
function descriptionOf(conn: Conn, ticketId: number): string {
  return conn.select({ body: transactions.body }).from(transactions)
    .where(and(eq(transactions.ticket_id, ticketId), eq(transactions.type, 'Create'))).get()?.body ?? '';
}

function person(conn: Conn, id: number | null): Person | null {
  if (id === null) return null;
  const u = conn.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, id)).get();
  return u ?? null;
}

export function ticketScope(conn: Conn, ticketId: number): TicketScope {
  const t = conn.select().from(tickets).where(eq(tickets.id, ticketId)).get();
  if (!t) throw new Error(`ticket ${ticketId} not found`);
  const q = conn.select().from(queues).where(eq(queues.id, t.queue_id)).get()!;
  const team = t.team_id === null ? undefined : conn.select().from(teams).where(eq(teams.id, t.team_id)).get();
  const cf: Record<string, string | number> = {};
  for (const v of conn.select({ key: customFields.key, type: customFields.type, value: ticketCustomValues.value }).from(ticketCustomValues)
    .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id)).where(eq(ticketCustomValues.ticket_id, ticketId)).all()) {
    cf[v.key] = v.type === 'number' ? Number(v.value) : v.value;
  }
  return {
    id: t.id, subject: t.subject, description: descriptionOf(conn, t.id), status: t.status, priority: t.priority,
    created_at: t.created_at, updated_at: t.updated_at, resolved_at: t.resolved_at, custom_fields: cf,
    queue: { id: q.id, name: q.name, description: q.description, mail_alias: q.mail_alias },
    owner: person(conn, t.owner_id), team: team ? { id: team.id, name: team.name, description: team.description } : null,
    requester: person(conn, t.requester_id), url: `${notifySettings().publicUrl}/tickets/${t.id}`,
  };
}

export function transactionScope(conn: Conn, transactionId: number): TransactionScope | null {
  const x = conn.select().from(transactions).where(eq(transactions.id, transactionId)).get();
  if (!x) return null;
  return {
    id: x.id, type: x.type, body: x.body, field: x.field, old_value: x.old_value, new_value: x.new_value, created_at: x.created_at,
    creator: person(conn, x.creator_id),
  };
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
    },
    transaction: {
      id: 456, type: 'Correspond', body: 'We are on it.', field: 'status', old_value: 'new', new_value: 'open', created_at: now,
      creator: someone(2, 'Olivia'),
    },
    scrip: { id: 1, key: 'sample_scrip', description: 'A sample scrip' },
  };
}
