import { eq, inArray } from 'drizzle-orm';
import type { Conn } from '../../db/client.js';
import { customFields, ticketCustomValues, tickets } from '../../db/schema.js';
import { customValueJson } from '../customFields.js';

export type TicketRow = typeof tickets.$inferSelect;
export interface TicketJson {
  id: number; queue_id: number; subject: string; description: string; status: string; owner_id: number | null;
  team_id: number | null; requester_id: number | null; priority: number; custom_fields: Record<string, string | number>;
  created_at: string; updated_at: string; resolved_at: string | null;
}

/** Serializes tickets with their custom field values, loaded in one query for the batch. */
export function ticketsJson(conn: Conn, rows: TicketRow[]): TicketJson[] {
  if (rows.length === 0) return [];
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
    id: r.id, queue_id: r.queue_id, subject: r.subject, description: r.description, status: r.status, owner_id: r.owner_id,
    team_id: r.team_id, requester_id: r.requester_id, priority: r.priority, custom_fields: byTicket.get(r.id) ?? {},
    created_at: r.created_at, updated_at: r.updated_at, resolved_at: r.resolved_at,
  }));
}

export function getTicketRow(conn: Conn, id: number): TicketRow | undefined {
  return conn.select().from(tickets).where(eq(tickets.id, id)).get();
}
