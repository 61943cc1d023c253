import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { teamMembers, ticketCustomValues, tickets } from '../../db/schema.js';
import { ticketTextMatch } from '../../db/search.js';
import { type Actor, isStaff } from '../actor.js';
import { allCustomFields } from '../customFields.js';
import { invalid } from '../errors.js';
import { getSavedViewFilters } from '../savedViews.js';
import type { TicketFilter, TicketListQuery } from './query.js';
import { ticketsJson, type TicketJson } from './serialize.js';

export interface TicketList { tickets: TicketJson[]; total: number; limit: number; offset: number }

const SORT_COLUMNS = { id: tickets.id, created: tickets.created_at, updated: tickets.updated_at, priority: tickets.priority };

/** Builds the WHERE conditions for a filter. Authorization is part of the query itself. */
function conditions(db: Db, actor: Actor, f: TicketFilter): SQL[] {
  const conds: SQL[] = [];
  if (!isStaff(actor)) conds.push(eq(tickets.requester_id, actor.id));
  if (f.queue_id !== undefined) conds.push(eq(tickets.queue_id, f.queue_id));
  if (f.status && f.status.length > 0) conds.push(f.status.length === 1 ? eq(tickets.status, f.status[0]) : inArray(tickets.status, f.status));
  if (f.owner_id === 'none') conds.push(isNull(tickets.owner_id));
  else if (f.owner_id !== undefined) conds.push(eq(tickets.owner_id, f.owner_id));
  if (f.team_id !== undefined) {
    conds.push(inArray(tickets.owner_id, db.select({ id: teamMembers.user_id }).from(teamMembers).where(eq(teamMembers.team_id, f.team_id))));
  }
  if (f.ticket_team_id !== undefined) conds.push(eq(tickets.team_id, f.ticket_team_id));
  if (f.requester_id !== undefined) conds.push(eq(tickets.requester_id, f.requester_id));
  if (f.q) conds.push(ticketTextMatch(f.q, { includeComments: isStaff(actor) }));
  if (f.cf) {
    const fields = allCustomFields(db);
    for (const [key, raw] of Object.entries(f.cf)) {
      const field = fields.find((x) => x.key === key);
      if (!field) throw invalid(`cf.${key}`, `No custom field with key "${key}"`);
      let value = raw.trim();
      if (field.type === 'number') {
        if (value === '' || !Number.isFinite(Number(value))) throw invalid(`cf.${key}`, `${field.name} must be a number`);
        value = String(Number(value));
      }
      conds.push(inArray(tickets.id, db.select({ id: ticketCustomValues.ticket_id }).from(ticketCustomValues)
        .where(and(eq(ticketCustomValues.field_id, field.id), eq(ticketCustomValues.value, value)))));
    }
  }
  return conds;
}

/** The filters in force: a saved view's first, explicit parameters over them (cf.<key> by key). */
export function effectiveFilter(db: Db, actor: Actor, query: TicketListQuery): TicketFilter {
  const { view_id, ...explicit } = query;
  const view = view_id !== undefined ? getSavedViewFilters(db, actor, view_id) : {};
  const f: TicketFilter = { ...view, ...explicit };
  if (view.cf || explicit.cf) f.cf = { ...view.cf, ...explicit.cf };
  return f;
}

/** GET /tickets (SPEC B4). */
export function listTickets(db: Db, actor: Actor, query: TicketListQuery): TicketList {
  return listByFilter(db, actor, effectiveFilter(db, actor, query));
}

/** The two statements behind a list: the page and the total. Exposed so their plans can be checked. */
export function listQueries(db: Db, actor: Actor, f: TicketFilter) {
  const limit = f.limit ?? 50;
  const offset = f.offset ?? 0;
  const where = and(...conditions(db, actor, f));
  const sortKey = (f.sort ?? '-updated').replace(/^-/, '') as keyof typeof SORT_COLUMNS;
  const dir = (f.sort ?? '-updated').startsWith('-') ? desc : asc;
  return {
    limit, offset,
    page: db.select().from(tickets).where(where).orderBy(dir(SORT_COLUMNS[sortKey]), dir(tickets.id)).limit(limit).offset(offset),
    total: db.select({ n: sql<number>`count(*)` }).from(tickets).where(where),
  };
}

export function listByFilter(db: Db, actor: Actor, f: TicketFilter): TicketList {
  const q = listQueries(db, actor, f);
  const rows = q.page.all();
  return { tickets: ticketsJson(db, rows), total: q.total.get()!.n, limit: q.limit, offset: q.offset };
}
