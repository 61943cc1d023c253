import type { TicketListSpec } from '../ticketListSpec.js';

// A word search newest first (decision 092; PostgreSQL's form in decision 093): which lists may
// hold their word search from the newest matches down, on either store.

/** The sorts a newest-first word search serves: a column whose newest values are the newest tickets'. */
export const NEWEST_SORTS = ['updated', 'created', 'id'] as const;
export type NewestSort = (typeof NEWEST_SORTS)[number];

/** Older tickets that sort onto the page a newest-first search tests against their text, at most. */
export const MAX_OLD_CANDIDATES = 256;

/**
 * Whether a list may hold its word search newest first: staff (a customer's own tickets are read
 * directly), sorted newest first by a column, counted up to a bound its page lies within, and no
 * tag or custom value set.
 */
export function newestFirst(f: TicketListSpec, hasValueSets: boolean): boolean {
  return (
    f.customerId === undefined &&
    f.countUpTo !== undefined &&
    f.desc &&
    (NEWEST_SORTS as readonly string[]).includes(f.sort) &&
    !hasValueSets &&
    f.offset + f.limit <= f.countUpTo
  );
}
