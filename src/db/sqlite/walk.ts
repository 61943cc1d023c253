import type { TicketListSpec } from '../ticketListSpec.js';

// Walk or sort (issue 32): a list whose tickets are a set (a word's, a tag's, a value's) is read
// either by walking a sort index and testing each ticket against the set, or by reading the set
// and sorting it. Which is cheaper depends on how dense the set is among all tickets. A list by
// priority is read the same two ways, along the priority index or sorted (decision 108).

/** Index entries a walk may read, on average, before it is cheaper to sort the set instead. */
export const WALK_BUDGET = 10_000;

/**
 * Walk or sort? A set of `total` tickets among `count` is met every count/total entries of a
 * sort index, so a page ending at offset+limit is reached after about (offset+limit)·count/total
 * entries. A dense set (a common word, a frequent value: thousands of tickets) is found that way
 * in a few hundred reads, where sorting it would read every ticket of the set; a sparse one is
 * cheaper to read and sort.
 */
export function shouldWalk(total: number, count: number, end: number): boolean {
  return total > 0 && (end * count) / total <= WALK_BUDGET;
}

/**
 * A walk needs a set of at least end·count/WALK_BUDGET tickets; a bounded count (decision 085)
 * that stopped below that says only "at least": then it is asked once more, up to what a walk
 * needs (at most WALK_PROOF_MAX). At 1M tickets a tag on a tenth of them was counted "1,000+",
 * judged sparse, and its 100,000 tickets read and sorted for a page of 50 (200 ms).
 */
export const WALK_PROOF_MAX = 50_000;

export function walkOrSort(
  q: { atLeast(n: number): boolean | undefined },
  c: { counted: number; merged: number; exact: boolean },
  count: number,
  end: number,
): boolean {
  const dense = shouldWalk(c.counted - c.merged, count, end);
  if (c.exact || dense) return dense;
  // Dense enough to walk if it holds what the walk needs: past WALK_PROOF_MAX, a walk reads at
  // most end·count/WALK_PROOF_MAX entries, still fewer than reading and sorting the set.
  const needed = Math.min(Math.ceil((end * count) / WALK_BUDGET), WALK_PROOF_MAX) + c.merged;
  return q.atLeast(needed) ?? false;
}

/**
 * A list sorted by priority whose page SQLite reads and sorts (decision 108): no index serves both
 * its conditions and the order (`status=open&sort=-priority`: the 25,099 open tickets read and
 * sorted for 50, 24 ms at 100k). Its walk reads the priority index instead and tests each
 * ticket's row. Both read a row per ticket: the walk about end·count/total of them, the sort all
 * `total`. So the walk is the cheaper when the list holds more than √(end·count) tickets; a
 * bounded count below that is asked once more, up to it.
 *
 * Only conditions that do not follow a ticket's age are walked (`PRIORITY_WALKED`): a walk in an
 * order its condition follows passes the tickets that do not match first (a month's tickets
 * walked along `updated`: 32 ms instead of 4). The id and time orders are therefore not walked:
 * the open tickets of a real helpdesk are its newest.
 */
export function walkOrSortPlain(
  q: { atLeast(n: number): boolean | undefined },
  c: { counted: number; merged: number; exact: boolean },
  count: number,
  end: number,
): boolean {
  const needed = Math.ceil(Math.sqrt(end * count));
  if (c.counted - c.merged >= needed) return true;
  if (c.exact) return false;
  return q.atLeast(needed + c.merged) ?? false;
}

/** What a list's spec may hold besides its order and page for its walk along priority: these conditions, nothing else. */
const PRIORITY_WALKED = new Set([
  'queue_id',
  'queue_ids',
  'status',
  'statusByQueue',
  'owner_id',
  'owner_team_id',
  'ticket_team_id',
  // Not conditions.
  'sort',
  'desc',
  'limit',
  'offset',
  'countUpTo',
  'includeComments',
  'parts',
  'ranks',
  'cf',
]);

/** Whether a list may be walked along the priority index (walkOrSortPlain): sorted by priority, with only PRIORITY_WALKED conditions. */
export const priorityWalked = (f: TicketListSpec): boolean =>
  f.sort === 'priority' &&
  f.cf.length === 0 &&
  Object.entries(f).every(([key, v]) => v === undefined || PRIORITY_WALKED.has(key));
