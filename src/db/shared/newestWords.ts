import type { TicketListSpec } from '../port.js';

/** Held past the bound, for merged tickets among the newest (a list's count takes them away). */
const NEWEST_SLACK = 64;

/**
 * How many of a word search's newest tickets a store reads first (decision 087), or undefined:
 * read them all. Only for a bounded count (decision 085) and an order that follows the ids
 * closely — newest first by update, creation or id — with no `cf.` or tag set (those are counted
 * in their own index, not in the held set).
 */
export function newestFirst(f: TicketListSpec): number | undefined {
  if (f.countUpTo === undefined || !f.desc || !['updated', 'created', 'id'].includes(f.sort)) return undefined;
  if (f.cf.length > 0 || (f.tags?.length ?? 0) > 0) return undefined;
  return f.countUpTo + NEWEST_SLACK;
}
