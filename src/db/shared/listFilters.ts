import { eq, gte, inArray, isNotNull, isNull, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { TicketListSpec } from '../ticketListSpec.js';
import { tickets, ticketTags, ticketWatchers, users } from '../tables.js';
import { OLDEST_FIRST } from './listSort.js';

// The conditions of a ticket list filter (SPEC B4) that both stores write alike, written once:
// authorization, queue, status, owner, team, requester and the requester's domain, the ticket
// itself. What differs stays with each store: `q` (SQLite's FTS5 and its held set, PostgreSQL's
// trigram ILIKE), `cf.<key>` (how each planner is best led to the value's tickets), and the
// owner's team (a planner hint on PostgreSQL), handed in as `ownerTeam`.

/** The reserved status of a merged ticket (src/domain/merge/guard.ts). */
const MERGED_STATUS = 'merged';
/**
 * The condition a list with no status filter gets: not a merged ticket. One object, so a store
 * can tell it from the others and count without it (SQLite's ticketList.ts).
 */
export const NOT_MERGED: SQL = ne(tickets.status, MERGED_STATUS);

export interface ListDialect {
  /** Owned by a member of the team `teamId`. */
  ownerTeam(teamId: number): SQL;
}

/**
 * The WHERE conditions of `f` but `q` and `cf`, in one order for both stores. Without a status
 * filter, `status <> 'merged'`: no list shows a merged ticket (SPEC D3, decision 076).
 */
export function listFilters(
  f: TicketListSpec,
  dialect: ListDialect,
  /**
   * `countsMerged`: leave merged tickets in (a store's count that takes them away itself).
   * `tagsApart`: leave `tags` and `tagsAny` out (a store that reads each tag, and the tags of
   * `tagsAny` together, as a set of its own, as `cf.<key>`).
   */
  opts: { countsMerged?: boolean; tagsApart?: boolean } = {},
): SQL[] {
  const conds: SQL[] = [];
  // A customer sees the tickets they are a requester or Cc of (SPEC C2).
  if (f.customerId !== undefined) {
    conds.push(
      sql`${tickets.id} IN (SELECT ${ticketWatchers.ticket_id} FROM ${ticketWatchers} WHERE ${ticketWatchers.user_id} = ${f.customerId} AND ${ticketWatchers.role} IN ('requester', 'cc'))`,
    );
  }
  if (f.queue_id !== undefined) conds.push(eq(tickets.queue_id, f.queue_id));
  if (f.queue_ids !== undefined)
    conds.push(f.queue_ids.length === 0 ? sql`1 = 0` : inArray(tickets.queue_id, f.queue_ids));
  if (f.status && f.status.length > 0)
    conds.push(
      f.status.length === 1 ? eq(tickets.status, f.status[0] as never) : inArray(tickets.status, f.status as never[]),
    );
  // SPEC D3 (decision 073): categories across lifecycles whose names mean different things, per queue.
  else if (f.statusByQueue)
    conds.push(
      f.statusByQueue.length === 0
        ? sql`1 = 0`
        : sql`(${sql.join(
            f.statusByQueue.map((p) =>
              p.queue_ids.length === 0 || p.status.length === 0
                ? sql`1 = 0`
                : sql`(${inArray(tickets.queue_id, p.queue_ids)} AND ${inArray(tickets.status, p.status as never[])})`,
            ),
            sql` OR `,
          )})`,
    );
  // SPEC D3 (decision 076): a merged ticket (a tombstone) has the reserved status `merged`, in no
  // lifecycle: a list by status leaves it out as it is; a list by no status says so here.
  else if (!opts.countsMerged) conds.push(NOT_MERGED);
  if (f.owner_id === 'none') conds.push(isNull(tickets.owner_id));
  else if (f.owner_id !== undefined) conds.push(eq(tickets.owner_id, f.owner_id));
  if (f.owner_team_id !== undefined) conds.push(dialect.ownerTeam(f.owner_team_id));
  if (f.ticket_team_id === 'none') conds.push(isNull(tickets.team_id));
  else if (f.ticket_team_id !== undefined) conds.push(eq(tickets.team_id, f.ticket_team_id));
  // SPEC D4 drill-down (decision 079): the period's created tickets through tickets_created_idx,
  // a resolved set the domain worked out, the untagged ones.
  if (f.createdFrom !== undefined) conds.push(gte(tickets.created_at, f.createdFrom));
  if (f.createdTo !== undefined) conds.push(lt(tickets.created_at, f.createdTo));
  // With the condition of the partial (status | queue, created_at) indexes (decision 109): a period
  // after a status is a range of tickets_status_created_idx, counted there alone.
  if (f.createdFrom !== undefined || f.createdTo !== undefined) conds.push(OLDEST_FIRST);
  if (f.idSet !== undefined) conds.push(f.idSet.length === 0 ? sql`1 = 0` : inArray(tickets.id, f.idSet));
  if (f.untagged)
    conds.push(sql`NOT EXISTS (SELECT 1 FROM ${ticketTags} WHERE ${ticketTags.ticket_id} = ${tickets.id})`);
  if (f.requester_id !== undefined) conds.push(eq(tickets.requester_id, f.requester_id));
  // The people at a domain (decision 055): addresses are stored lower-case, and the domain is
  // checked (letters, digits, dots, hyphens: nothing LIKE reads as a wildcard). A scan of users:
  // no index serves an address's end.
  if (f.requester_domain !== undefined)
    conds.push(
      sql`${tickets.requester_id} IN (SELECT ${users.id} FROM ${users} WHERE ${users.email} LIKE ${`%@${f.requester_domain}`})`,
    );
  // SPEC D2: a running clock past its due time, or inside its warning window (each from its partial index).
  if (f.sla) {
    const breached = sql`${tickets.next_due_at} <= ${f.sla.now}`;
    const dueSoon = sql`(${tickets.next_warn_at} <= ${f.sla.now} AND ${tickets.next_due_at} > ${f.sla.now})`;
    conds.push(
      f.sla.breached && f.sla.dueSoon
        ? sql`(${breached} OR ${dueSoon})`
        : f.sla.breached
          ? breached
          : f.sla.dueSoon
            ? dueSoon
            : sql`1 = 0`,
    );
  }
  // SPEC D3 tags, each through the index (tag, ticket_id): every tag of `tags` (one IN each), and
  // any of `tagsAny` (one IN for them all).
  for (const tag of opts.tagsApart ? [] : (f.tags ?? []))
    conds.push(
      sql`${tickets.id} IN (SELECT ${ticketTags.ticket_id} FROM ${ticketTags} WHERE ${ticketTags.tag} = ${tag})`,
    );
  if (!opts.tagsApart && f.tagsAny && f.tagsAny.length > 0)
    conds.push(
      sql`${tickets.id} IN (SELECT ${ticketTags.ticket_id} FROM ${ticketTags} WHERE ${inArray(ticketTags.tag, f.tagsAny)})`,
    );
  if (f.snoozed !== undefined) conds.push(f.snoozed ? isNotNull(tickets.snoozed_until) : isNull(tickets.snoozed_until));
  if (f.id !== undefined) conds.push(eq(tickets.id, f.id));
  if (f.exceptId !== undefined) conds.push(ne(tickets.id, f.exceptId));
  return conds;
}
