import type { Conn } from '../db/client.js';

/** The outcome of one scrip whose condition matched a transaction (SPEC B6). */
export interface ScripResult {
  scrip_id: number;
  key: string;
  action: string;
  ok: boolean;
  notifications: number;
  error?: string;
}

/** What the engine sees of a freshly written transaction. */
export interface ScripEvent {
  ticketId: number;
  transactionId: number;
  type: string;
  actorId: number | null;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
}

/**
 * Runs the scrips for one transaction inside the caller's SQL transaction and returns their
 * results. The engine itself (conditions, actions, templates, outbox) is its own piece of
 * work; until it lands no scrip matches and the result is empty.
 */
export function runScrips(_conn: Conn, _event: ScripEvent): ScripResult[] {
  return [];
}
