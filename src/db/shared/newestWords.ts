import type { TicketListSpec } from '../ticketListSpec.js';

// A word search newest first (decision 092; PostgreSQL's form in decision 093): which lists may
// hold their word search from the newest matches down, on either store.

/** The sorts a newest-first word search serves: a column whose newest values are the newest tickets'. */
export const NEWEST_SORTS = ['updated', 'created', 'id'] as const;
export type NewestSort = (typeof NEWEST_SORTS)[number];

/** Older tickets that sort onto the page a newest-first search tests against their text, at most. */
export const MAX_OLD_CANDIDATES = 256;
/**
 * Older tickets that sort onto the page a newest-first search tests, at most, in the list's order,
 * before it holds the whole set instead (decisions 114 and 116): it stops as soon as the page is
 * settled. Only when the word's share of the held tickets says the page fills within them;
 * otherwise at most MAX_OLD_CANDIDATES, counted before any is tested (decisions 092 and 093).
 */
export const MAX_OLD_WALK = 1_024;
/** The older tickets read and tested at a time. */
export const OLD_CHUNK = 64;

/**
 * Whether to walk the older tickets (up to MAX_OLD_WALK) rather than count them first (up to
 * MAX_OLD_CANDIDATES): when the word's share of the `held` tickets, over the ids from `from` to the
 * newest held one (not to the newest ticket: the newest tickets may all lack the word), says
 * `need` of them fill the page within MAX_OLD_WALK.
 */
export const walksOlder = (need: number, from: number, newest: number, held: number): boolean =>
  need * (newest - from + 1) <= held * MAX_OLD_WALK;

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
