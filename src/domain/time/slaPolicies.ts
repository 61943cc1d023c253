import { asc } from 'drizzle-orm';
import { cachedConfig } from '../../db/configCache.js';
import { type Conn, prepared } from '../../db/port.js';
import { slaPolicies } from '../../db/tables.js';
import { parseJson } from '../actor.js';

// SPEC D2 SLA policies (docs/decisions/068): matched in `position` order (lower first, then the
// older), the first whose match fits a ticket applies (src/domain/time/sla.ts decides that).
// Admins write them, agents read them (./slaPolicyAdmin.ts). This file is what the write path
// reads (the SLA clocks): it imports nothing that imports the write path back.

export type SlaPolicyRow = typeof slaPolicies.$inferSelect;

/**
 * Which tickets a policy is for; every part given must fit, an empty match fits every ticket.
 * `cf` values are as the ticket JSON shows them (numbers for number fields, text otherwise),
 * checked against the field when saved. `tags` are kept for SPEC D3 and not matched yet.
 */
export interface SlaMatch {
  queue_ids?: number[];
  priority_min?: number;
  priority_max?: number;
  cf?: Record<string, string | number>;
  tags?: string[];
}

export interface SlaPolicy {
  id: number;
  name: string;
  position: number;
  match: SlaMatch;
  /** null: around the clock. */
  calendar_id: number | null;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  warn_before_minutes: number;
  created_at: string;
  updated_at: string;
}

export interface SlaPolicyInput {
  name: string;
  position?: number;
  match?: SlaMatch;
  calendar_id?: number | null;
  first_response_minutes?: number | null;
  next_response_minutes?: number | null;
  resolution_minutes?: number | null;
  warn_before_minutes?: number;
}

export const toPolicy = (r: SlaPolicyRow): SlaPolicy => ({
  id: r.id,
  name: r.name,
  position: r.position,
  match: parseJson(r.match, {}),
  calendar_id: r.calendar_id,
  first_response_minutes: r.first_response_minutes,
  next_response_minutes: r.next_response_minutes,
  resolution_minutes: r.resolution_minutes,
  warn_before_minutes: r.warn_before_minutes,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const inOrder = [asc(slaPolicies.position), asc(slaPolicies.id)];

/** Every policy in the order they are matched in; kept per configuration version (decision 067). */
const policyRows = prepared((db) =>
  db
    .select()
    .from(slaPolicies)
    .orderBy(...inOrder),
);

export async function policiesInOrder(conn: Conn): Promise<SlaPolicy[]> {
  return cachedConfig(conn, 'sla-policies', async () => (await policyRows(conn).all()).map(toPolicy));
}
