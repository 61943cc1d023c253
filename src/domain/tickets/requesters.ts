import { type Db, preparedForIds } from '../../db/port.js';
import { peopleQuery } from '../../db/shared/pageParts.js';
import { type Actor, isStaff } from '../actor.js';
import type { TicketJson } from './serialize.js';

// SPEC D6 "Lists that show who wrote in": each listed ticket with its requester's name and
// address (decision 055). Read for the page's rows only, in one query by primary key.

export interface RequesterJson {
  id: number;
  name: string;
  email: string;
}
/** A ticket as lists show it: with who wrote in. */
export type ListedTicket = TicketJson & { requester: RequesterJson | null };

const usersOfMany = preparedForIds((db, inIds) => peopleQuery(db, { inIds }));

/**
 * The tickets with their requesters. A customer reads a staff member's name only, as the portal
 * shows staff (src/domain/lookups.ts customerView): a staff address is not theirs to see.
 */
export async function withRequesters<T extends Pick<TicketJson, 'requester_id'> = TicketJson>(
  db: Db,
  actor: Actor,
  tickets: T[],
): Promise<(T & { requester: RequesterJson | null })[]> {
  return withRequestersFrom(
    tickets,
    await requestersById(
      db,
      actor,
      tickets.map((t) => t.requester_id),
    ),
  );
}

/**
 * withRequesters's read alone, by the requesters' ids (for a caller that reads it beside others),
 * or from `read`: the people the store read with the page (decision 105).
 */
export async function requestersById(
  db: Db,
  actor: Actor,
  requesterIds: (number | null)[],
  read?: { id: number; name: string; email: string; role: string }[],
): Promise<Map<number, RequesterJson>> {
  const rows = read ?? (await usersOfMany(db, [...new Set(requesterIds.filter((id): id is number => id !== null))]));
  const staff = isStaff(actor);
  return new Map(
    rows.map((u) => [
      u.id,
      { id: u.id, name: u.name, email: staff || u.role === 'requester' || u.id === actor.id ? u.email : '' },
    ]),
  );
}

/**
 * The tickets with their requesters from requestersById, set on the tickets themselves: every
 * caller hands over tickets made for its own answer (a copy of each cost more than the rest of
 * this, issue 32).
 */
export function withRequestersFrom<T extends Pick<TicketJson, 'requester_id'>>(
  tickets: T[],
  byId: Map<number, RequesterJson>,
): (T & { requester: RequesterJson | null })[] {
  const out = tickets as (T & { requester: RequesterJson | null })[];
  for (const t of out) t.requester = (t.requester_id !== null && byId.get(t.requester_id)) || null;
  return out;
}
