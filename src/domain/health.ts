import { type Db, writeRetries, type WriteRetries } from '../db/port.js';
import { type Actor, isAdmin } from './actor.js';

/**
 * What an administrator's `GET /healthz?verbose=1` adds (SPEC D1, decision 058): per operation,
 * how often this process ran a unit of work again after a deadlock or serialization failure, and
 * gave one up. Anyone else (or no one signed in) gets the plain answer: undefined.
 */
export function healthDetails(db: Db, actor: Actor | null): { write_retries: WriteRetries } | undefined {
  if (!actor || !isAdmin(actor)) return undefined;
  return { write_retries: writeRetries(db) };
}
