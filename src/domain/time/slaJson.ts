// SPEC D2: what a ticket's SLA clocks look like in its JSON. The stored state (`tickets.sla`) may
// hold more (time spent, when a pause began); readers see only these fields.

/** One clock: when it falls due (null while paused), when a staff reply or a resolve met it, the due time it missed. */
export interface SlaClockJson {
  due_at: string | null;
  met_at: string | null;
  breached_at: string | null;
}

export interface SlaJson {
  policy_id: number;
  first_response: SlaClockJson | null;
  next_response: SlaClockJson | null;
  resolution: SlaClockJson | null;
  paused: boolean;
}

export const SLA_CLOCKS = ['first_response', 'next_response', 'resolution'] as const;
export type SlaClock = (typeof SLA_CLOCKS)[number];

const clockJson = (c: unknown): SlaClockJson | null => {
  if (!c || typeof c !== 'object') return null;
  const o = c as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v : null);
  return { due_at: s(o.due_at), met_at: s(o.met_at), breached_at: s(o.breached_at) };
};

/** The public shape of a stored `tickets.sla` (null: no policy applies). */
export function slaJson(stored: string | null): SlaJson | null {
  if (!stored) return null;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(stored) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!o || typeof o.policy_id !== 'number') return null;
  return {
    policy_id: o.policy_id,
    first_response: clockJson(o.first_response),
    next_response: clockJson(o.next_response),
    resolution: clockJson(o.resolution),
    paused: o.paused === true,
  };
}
