// SPEC D2 (decision 070): which SLA policy applies to a ticket, and what an entry of its history
// means to its clocks. Pure functions.

import type { SlaEvent, SlaTerms } from './slaClock.js';

/** A policy's `match` (empty: every ticket). `tags` wait for D3: ignored. */
export interface PolicyMatch {
  queue_ids?: number[] | null;
  priority_min?: number | null;
  priority_max?: number | null;
  cf?: Record<string, unknown> | null;
  tags?: unknown;
}

/** What the matching and the clocks need of a policy. */
export interface MatchablePolicy {
  id: number;
  name: string;
  match: PolicyMatch;
  calendar_id: number | null;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  warn_before_minutes: number;
}

/** What a policy is matched against: the ticket's queue, priority and custom field values (as stored). */
export interface TicketFacts {
  queue_id: number;
  priority: number;
  cf: Record<string, string>;
}

/** A custom field's stored value against the policy's: a number as a number, else as text; a list: any of them. */
function cfFits(stored: string | undefined, wanted: unknown): boolean {
  if (Array.isArray(wanted)) return wanted.some((w) => cfFits(stored, w));
  if (wanted === null) return stored === undefined || stored === '';
  if (stored === undefined) return false;
  if (typeof wanted === 'number') return Number(stored) === wanted;
  return stored === String(wanted);
}

export function policyFits(m: PolicyMatch, t: TicketFacts): boolean {
  if (m.queue_ids && m.queue_ids.length > 0 && !m.queue_ids.includes(t.queue_id)) return false;
  if (typeof m.priority_min === 'number' && t.priority < m.priority_min) return false;
  if (typeof m.priority_max === 'number' && t.priority > m.priority_max) return false;
  for (const [key, wanted] of Object.entries(m.cf ?? {})) if (!cfFits(t.cf[key], wanted)) return false;
  return true;
}

/** The first policy (the list is in position order) whose match fits; null: none. */
export function matchPolicy<P extends MatchablePolicy>(policies: readonly P[], t: TicketFacts): P | null {
  return policies.find((p) => policyFits(p.match ?? {}, t)) ?? null;
}

/** Whether any policy looks at custom fields (else they need not be read). */
export const matchesCustomFields = (policies: readonly MatchablePolicy[]): boolean =>
  policies.some((p) => Object.keys(p.match?.cf ?? {}).length > 0);

export const termsOf = (p: MatchablePolicy): SlaTerms => ({
  policy_id: p.id,
  calendar_id: p.calendar_id,
  first_response_minutes: p.first_response_minutes,
  next_response_minutes: p.next_response_minutes,
  resolution_minutes: p.resolution_minutes,
  warn_before_minutes: p.warn_before_minutes,
});

/** The entry types after which the policies are matched again. */
export const REMATCH_TYPES = new Set(['SetQueue', 'SetPriority', 'CustomField']);

export interface EntryFacts {
  type: string;
  created_at: string;
  new_value: string | null;
  /** The writer's role (undefined: nobody, or a deleted user). */
  role: string | undefined;
  /** Mail that announced itself as automatic (an autoreply). */
  autoSubmitted: boolean;
  outsideSender: boolean;
}

const STAFF = new Set(['admin', 'agent']);

/**
 * What an entry means to the clocks. Only a staff member's public reply meets a response clock:
 * not an autoreply, a note, a change of a field, nor a message of a requester or Cc (which
 * starts a next response); an outside sender's mail (kept as a note) is neither.
 */
export function slaEventOf(e: EntryFacts): SlaEvent | null {
  if (e.type === 'Status' && e.new_value !== null) return { kind: 'status', at: e.created_at, to: e.new_value };
  if (e.type !== 'Correspond' || e.autoSubmitted || e.outsideSender || e.role === undefined) return null;
  return STAFF.has(e.role) ? { kind: 'staff_reply', at: e.created_at } : { kind: 'customer_message', at: e.created_at };
}
