import { and, asc, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/port.js';
import { tickets, transactions } from '../../db/tables.js';
import {
  categoryIn,
  isReopening,
  type Lifecycle,
  lifecycleOf,
  lifecyclesInUse,
  namesIn,
} from '../lifecycles/categories.js';
import { invalid } from '../errors.js';

// SPEC D4 (decision 079, docs/metrics.md): the status moves of a period, read from the Status
// entries of the history — `resolved` (a ticket's last move into an inactive status in the period
// landed in a resolving status) and `reopened` (a move from an inactive to an active status).
// Nothing is precomputed: a merge, an unmerge or a reopen changes the entries, and the next read
// counts what they say. The period's Status entries are read through their partial index
// (transactions_status_at_idx, migration sqlite 0031 / pg 0018).

export interface Move {
  ticket_id: number;
  at: string;
}

/**
 * A status a ticket counts as resolved in: RT's default lifecycle resolves in `resolved` only
 * (rejected and deleted do not), another lifecycle in any of its inactive statuses (decision 073).
 */
export const resolvesIn = (l: Lifecycle, status: string): boolean =>
  l.id === null ? status === 'resolved' : categoryIn(l, status) === 'inactive';

export interface PeriodMoves {
  /** Each resolved ticket once, at its counted move (the last move into an inactive status). */
  resolved: Map<number, string>;
  /** Every move from an inactive to an active status (a ticket may have several). */
  reopens: Move[];
}

export async function periodMoves(db: Db, from: string, to: string): Promise<PeriodMoves> {
  // Only moves into or out of an inactive status matter: the names that are inactive in any
  // lifecycle in use narrow the read (each move is still judged by its own queue's lifecycle).
  const inactive = [...new Set((await lifecyclesInUse(db)).flatMap((l) => namesIn(l, 'inactive')))];
  if (inactive.length === 0) return { resolved: new Map(), reopens: [] };
  const rows = await db
    .select({
      ticket_id: transactions.ticket_id,
      queue_id: tickets.queue_id,
      old_value: transactions.old_value,
      new_value: transactions.new_value,
      at: transactions.created_at,
    })
    .from(transactions)
    .innerJoin(tickets, eq(tickets.id, transactions.ticket_id))
    // The literal type, so both stores read the partial index transactions_status_at_idx.
    .where(
      and(
        sql`${transactions.type} = 'Status'`,
        gte(transactions.created_at, from),
        lt(transactions.created_at, to),
        or(inArray(transactions.new_value, inactive), inArray(transactions.old_value, inactive)),
      ),
    )
    .orderBy(asc(transactions.id));
  const lastInactive = new Map<number, { status: string; at: string; resolves: boolean }>();
  const reopens: Move[] = [];
  const lcs = new Map<number, Lifecycle>();
  for (const r of rows) {
    if (r.new_value === null || r.new_value === r.old_value) continue;
    let lc = lcs.get(r.queue_id);
    if (!lc) {
      lc = await lifecycleOf(db, r.queue_id);
      lcs.set(r.queue_id, lc);
    }
    if (categoryIn(lc, r.new_value) === 'inactive')
      lastInactive.set(r.ticket_id, { status: r.new_value, at: r.at, resolves: resolvesIn(lc, r.new_value) });
    else if (isReopening(lc, r.old_value, r.new_value)) reopens.push({ ticket_id: r.ticket_id, at: r.at });
  }
  const resolved = new Map<number, string>();
  for (const [id, m] of lastInactive) if (m.resolves) resolved.set(id, m.at);
  return { resolved, reopens };
}

/** The most tickets a `resolved_from`/`resolved_to` list names (their ids go to the store). */
export const RESOLVED_LIST_MAX = 20_000;

/** The tickets resolved in [from, to), for a list's `resolved_from`/`resolved_to` (drill-down). */
export async function resolvedIds(db: Db, from: string | undefined, to: string | undefined): Promise<number[]> {
  if (from === undefined || to === undefined)
    throw invalid(from === undefined ? 'resolved_from' : 'resolved_to', 'Give both resolved_from and resolved_to');
  if (to <= from) throw invalid('resolved_to', 'Must be after resolved_from');
  const ids = [...(await periodMoves(db, from, to)).resolved.keys()];
  if (ids.length > RESOLVED_LIST_MAX)
    throw invalid(
      'resolved_from',
      `More than ${RESOLVED_LIST_MAX} tickets were resolved then: choose a shorter period`,
    );
  return ids.sort((a, b) => a - b);
}
