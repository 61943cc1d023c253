import { and, eq, inArray } from 'drizzle-orm';
import type { Conn } from '../../db/client.js';
import { customFields, ticketCustomValues, tickets, transactions } from '../../db/schema.js';
import { customValueJson } from '../customFields.js';

export type TicketRow = typeof tickets.$inferSelect;
export interface TicketJson {
  id: number; queue_id: number; subject: string; description: string; status: string; owner_id: number | null;
  team_id: number | null; requester_id: number | null; priority: number; custom_fields: Record<string, string | number>;
  created_at: string; updated_at: string; resolved_at: string | null;
}

/** The descriptions (Create transaction bodies) of a batch of tickets. */
export function descriptionsOf(conn: Conn, ids: number[]): Map<number, string> {
  const rows = conn.select({ ticket_id: transactions.ticket_id, body: transactions.body }).from(transactions)
    .where(and(inArray(transactions.ticket_id, ids), eq(transactions.type, 'Create'))).all();
  return new Map(rows.map((r) => [r.ticket_id, r.body ?? '']));
}

/** Serializes tickets with their custom field values and descriptions, one query each for the batch. */
export function ticketsJson(conn: Conn, rows: TicketRow[]): TicketJson[] {
  if (rows.length === 0) return [];
  const descriptions = descriptionsOf(conn, rows.map((r) => r.id));
  const values = conn.select({ ticket_id: ticketCustomValues.ticket_id, key: customFields.key, type: customFields.type, value: ticketCustomValues.value })
    .from(ticketCustomValues).innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
    .where(inArray(ticketCustomValues.ticket_id, rows.map((r) => r.id))).all();
  const byTicket = new Map<number, Record<string, string | number>>();
  for (const v of values) {
    const obj = byTicket.get(v.ticket_id) ?? {};
    obj[v.key] = customValueJson(v.type, v.value);
    byTicket.set(v.ticket_id, obj);
  }
  return rows.map((r) => ({
    id: r.id, queue_id: r.queue_id, subject: r.subject, description: descriptions.get(r.id) ?? '', status: r.status, owner_id: r.owner_id,
    team_id: r.team_id, requester_id: r.requester_id, priority: r.priority, custom_fields: byTicket.get(r.id) ?? {},
    created_at: r.created_at, updated_at: r.updated_at, resolved_at: r.resolved_at,
  }));
}

export function getTicketRow(conn: Conn, id: number): TicketRow | undefined {
  return conn.select().from(tickets).where(eq(tickets.id, id)).get();
}
