import { eq, inArray } from 'drizzle-orm';
import { queues, teamMembers } from '../../db/tables.js';
import type { Db } from '../../db/port.js';
import { SearchTooBroad } from '../../db/storageErrors.js';
import type { TicketListSpec } from '../../db/ticketListSpec.js';
import type { PageParts, PartsWanted } from '../../db/shared/pageParts.js';
import { type Actor, isStaff, requireStaff } from '../actor.js';
import { allCustomFields, type CustomFieldJson } from '../customFields.js';
import { invalid } from '../errors.js';
import { getSavedViewFilters } from '../savedViews.js';
import { searchPeople } from '../users.js';
import { sortKeyOf, type SortKey, type TicketFilter, type TicketListQuery } from './query.js';
import { seenOfListed, withUnread } from './reads.js';
import {
  type CustomerTicketJson,
  ticketsJson,
  type TicketJson,
  type TicketParts,
  type TicketRow,
} from './serialize.js';
import { HIDDEN_STATUS, refuseStaffFilters, ticketFor } from '../customerView.js';
import { statusSpec } from '../lifecycles/listStatus.js';
import { sortRanks } from './sorts.js';
import { nowIso } from '../clock.js';
import {
  type ListedTicket,
  type RequesterJson,
  requestersById,
  withRequesters,
  withRequestersFrom,
} from './requesters.js';
import { resolvedIds } from '../reports/moves.js';

const shaped = (actor: Actor, list: TicketJson[]) => list.map((t) => ticketFor(actor, t));

export interface TicketList {
  /** As the reader may read them: a requester's without the staff fields (decision 050). */
  tickets: CustomerTicketJson[];
  /** The matching tickets; with `total_exact` false, at least this many (decision 085). */
  total: number;
  /** Whether `total` counted every matching ticket (always with `count=exact`). */
  total_exact: boolean;
  limit: number;
  offset: number;
}

/** Decision 085: a list's total is counted exactly up to a bound this many past its page, in steps of it. */
export const COUNT_STEP = 1000;
/**
 * How far a list counts: the next multiple of COUNT_STEP at least half a step past the end of
 * the page (1,000 for the first pages), so a total that reaches it ("1,000+") is always past
 * the page, and a client that pages while `offset + limit < total` reaches the end.
 */
export const countBound = (offset: number, limit: number): number =>
  COUNT_STEP * Math.ceil((offset + limit + COUNT_STEP / 2) / COUNT_STEP);

/** A cf.<key> filter's field and the value as stored. */
function cfValue(fields: CustomFieldJson[], key: string, raw: string): { field: CustomFieldJson; value: string } {
  const field = fields.find((x) => x.key === key);
  if (!field) throw invalid(`cf.${key}`, `No custom field with key "${key}"`);
  let value = raw.trim();
  if (field.type === 'number') {
    if (value === '' || !Number.isFinite(Number(value))) throw invalid(`cf.${key}`, `${field.name} must be a number`);
    value = String(Number(value));
  }
  return { field, value };
}

/** The filters in force: a saved view's first, explicit parameters over them (cf.<key> by key). */
export async function effectiveFilter(db: Db, actor: Actor, query: TicketListQuery): Promise<TicketFilter> {
  const { view_id, ...explicit } = query;
  const view = view_id !== undefined ? await getSavedViewFilters(db, actor, view_id) : {};
  const f: TicketFilter = { ...view, ...explicit };
  if (view.cf || explicit.cf) f.cf = { ...view.cf, ...explicit.cf };
  return f;
}

/**
 * What the store is asked for a filter (SPEC B4): names resolved (custom fields by key), and
 * authorization made part of the query — a customer sees the tickets they are a requester or Cc
 * of (SPEC C2), and no internal note's text finds a ticket for them.
 */
export async function listSpec(db: Db, actor: Actor, f: TicketFilter): Promise<TicketListSpec> {
  refuseStaffFilters(actor, f);
  const cf: TicketListSpec['cf'] = [];
  if (f.cf) {
    const fields = await allCustomFields(db);
    for (const [key, raw] of Object.entries(f.cf)) {
      const { field, value } = cfValue(fields, key, raw);
      cf.push({ field_id: field.id, value });
    }
  }
  const sort = f.sort ?? '-updated';
  // A customer never sees their deleted tickets (decision 050): asked for those alone, no ticket.
  const { status, statusByQueue } = await statusSpec(db, f, isStaff(actor) ? undefined : HIDDEN_STATUS);
  return {
    queue_ids: f.my_teams ? await myTeamsQueueIds(db, actor) : status?.length === 0 ? [] : undefined,
    customerId: isStaff(actor) ? undefined : actor.id,
    queue_id: f.queue_id,
    status,
    statusByQueue,
    owner_id: f.owner_id === 'me' ? actor.id : f.owner_id,
    owner_team_id: f.team_id,
    ticket_team_id: f.ticket_team_id,
    createdFrom: f.created_from,
    createdTo: f.created_to,
    idSet:
      f.resolved_from !== undefined || f.resolved_to !== undefined
        ? await resolvedIds(db, f.resolved_from, f.resolved_to)
        : undefined,
    untagged: f.untagged || undefined,
    requester_id: f.requester_id,
    requester_domain: f.requester_domain,
    sla: f.sla
      ? { breached: f.sla.includes('breached'), dueSoon: f.sla.includes('due_soon'), now: nowIso(db) }
      : undefined,
    snoozed: f.snoozed,
    tags: f.tag,
    tagsAny: f.tag_any,
    q: f.q || undefined,
    includeComments: isStaff(actor),
    cf,
    qRequesterIds: f.q && isStaff(actor) ? await requestersNamed(db, actor, f.q) : undefined,
    sort: sort.replace(/^-/, '') as TicketListSpec['sort'],
    ranks: await sortRanks(db, sort),
    desc: sort.startsWith('-'),
    limit: f.limit ?? 50,
    offset: f.offset ?? 0,
    countUpTo: f.count === 'exact' ? undefined : countBound(f.offset ?? 0, f.limit ?? 50),
  };
}

/** The queues whose team the actor is a member of (the built-in list "Unassigned in my teams' queues"). */
async function myTeamsQueueIds(db: Db, actor: Actor): Promise<number[]> {
  const rows = await db
    .select({ id: queues.id })
    .from(queues)
    .where(
      inArray(
        queues.team_id,
        db.select({ id: teamMembers.team_id }).from(teamMembers).where(eq(teamMembers.user_id, actor.id)),
      ),
    );
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** The most people a `q` finds tickets of as their requester (decision 035). */
export const Q_PEOPLE_MAX = 50;

/**
 * The people whose name or address contains q, for staff lists: the bounded people search
 * (decision 023: addresses by prefix through the e-mail index, staff, and names and addresses
 * among the newest users), at most Q_PEOPLE_MAX of them. A ticket number (`#123`) names no one.
 */
async function requestersNamed(db: Db, actor: Actor, q: string): Promise<number[] | undefined> {
  if (TICKET_NUMBER.test(q) || q.trim().length < 2) return undefined;
  const people = await searchPeople(db, actor, q, Q_PEOPLE_MAX);
  return people.length ? people.map((u) => u.id).sort((a, b) => a - b) : undefined;
}

/** GET /tickets (SPEC B4). */
export async function listTickets(db: Db, actor: Actor, query: TicketListQuery): Promise<TicketList> {
  return listByFilter(db, actor, await effectiveFilter(db, actor, query));
}

const tooBroad = () =>
  invalid(
    'q',
    'Too broad to search: this text repeats itself, and too much text contains its pieces to check it all. Add more distinctive words',
  );

async function fromStore(db: Db, spec: TicketListSpec) {
  try {
    return await db.store.queries.listTickets(db, spec);
  } catch (e) {
    throw e instanceof SearchTooBroad ? tooBroad() : e;
  }
}

/**
 * A list's tickets in API form, each marked unread or not for a staff reader (SPEC D6), from the
 * parts the store read with the page (decision 105), or read here.
 */
const rowsJson = async (db: Db, actor: Actor, rows: TicketRow[], read: TicketParts = 'all', parts?: PageParts) => {
  // Side by side: on PostgreSQL each read is a round trip (decision 094).
  const [list, seen] = await Promise.all([
    ticketsJson(db, rows, read, parts),
    seenOfListed(db, actor, rows, parts?.seen),
  ]);
  return withUnread(rows, list, seen);
};

/** What a list asks its store to read beside the page (decision 105): what rowsJson and the requesters need. */
const partsFor = (actor: Actor, read: TicketParts, requesters: boolean): PartsWanted => ({
  read,
  seenBy: isStaff(actor) ? actor.id : undefined,
  requesters,
});

/** A `q` that names a ticket by its number: `123` or `#123` (SPEC C4). */
const TICKET_NUMBER = /^#?(\d{1,9})$/;

/**
 * A list by its filters. `read: 'row'` (the list page, which shows a row per ticket) leaves out
 * what no row shows — descriptions, custom values, watchers, links — read for each ticket of
 * the page otherwise (issue 32: pages that read only what they show; see ticketsJson).
 */
export async function listByFilter(
  db: Db,
  actor: Actor,
  f: TicketFilter,
  read: TicketParts = 'all',
): Promise<TicketList> {
  const { rows, parts, ...counted } = await foundRows(db, actor, f, partsFor(actor, read, false));
  return { ...counted, tickets: shaped(actor, await rowsJson(db, actor, rows, read, parts)) };
}

/**
 * listByFilter with each ticket's requester (the list screens and GET /tickets; SPEC D6), read
 * beside the tickets' other parts: on PostgreSQL one round trip less in the list's chain (decision 094).
 */
export async function listWithRequesters(
  db: Db,
  actor: Actor,
  f: TicketFilter,
  read: TicketParts = 'all',
): Promise<Omit<TicketList, 'tickets'> & { tickets: (CustomerTicketJson & { requester: RequesterJson | null })[] }> {
  const { rows, parts, ...counted } = await foundRows(db, actor, f, partsFor(actor, read, true));
  const [tickets, requesters] = await Promise.all([
    rowsJson(db, actor, rows, read, parts),
    requestersById(
      db,
      actor,
      rows.map((r) => r.requester_id),
      parts?.requesters,
    ),
  ]);
  return { ...counted, tickets: withRequestersFrom(shaped(actor, tickets), requesters) };
}

/**
 * The rows of a list's page and its count (a `q` naming a ticket's number: that ticket first),
 * and the parts `wanted` beside them if the store read them with the page (decision 105; not
 * for a page of two lists, the pinned ticket's and the rest).
 */
async function foundRows(
  db: Db,
  actor: Actor,
  f: TicketFilter,
  wanted: PartsWanted,
): Promise<Omit<TicketList, 'tickets'> & { rows: TicketRow[]; parts?: PageParts }> {
  const spec = await listSpec(db, actor, f);
  const number = spec.q ? TICKET_NUMBER.exec(spec.q) : null;
  // `q` = a ticket's number: that ticket first, if the reader may see it and it passes the other
  // filters, then the text matches as for any q (a `123` may also be written in messages),
  // without it. The list stays one list: totals and offsets count the ticket once, first.
  const pinned = number
    ? (await fromStore(db, { ...spec, q: undefined, id: Number(number[1]), offset: 0, limit: 1 })).rows[0]
    : undefined;
  if (!pinned) {
    const found = await fromStore(db, { ...spec, parts: wanted });
    return {
      rows: found.rows,
      parts: found.parts,
      total: found.total,
      total_exact: found.exact,
      limit: spec.limit,
      offset: spec.offset,
    };
  }
  const first = spec.offset === 0;
  const rest = await fromStore(db, {
    ...spec,
    exceptId: pinned.id,
    offset: first ? 0 : spec.offset - 1,
    limit: first ? spec.limit - 1 : spec.limit,
  });
  return {
    rows: first ? [pinned, ...rest.rows] : rest.rows,
    total: rest.total + 1,
    total_exact: rest.exact,
    limit: spec.limit,
    offset: spec.offset,
  };
}

// ---- live lists (SPEC C5) ------------------------------------------------------------------

/** The most ticket ids one live question may name (the page asks in batches of changed tickets). */
export const LIVE_IDS_MAX = 100;

/**
 * One changed ticket, asked about under a list's filters: whether it is in the list now, its
 * row as the reader may see it (also when it left the list: the page shows it changed, marked,
 * until it loads the list again), and its sort key. A ticket the reader may not see is only
 * `{ id, visible: false, matches: false }`.
 */
export interface LiveRow {
  id: number;
  visible: boolean;
  matches: boolean;
  ticket?: ListedTicket;
  sort_key?: SortKey;
}

/**
 * Which of `ids` are in the list of filters `f` now (SPEC C5: the list page asks about the
 * tickets its live stream named). The same list query as the page, narrowed to one ticket:
 * text search, custom fields, "me", "my teams" and the reader's own permissions all apply.
 */
export async function liveRows(
  db: Db,
  actor: Actor,
  f: TicketFilter,
  ids: number[],
): Promise<{ sort: string; rows: LiveRow[] }> {
  // A live list is the staff list page's (SPEC C5); customers' lists are the portal's (decision 050).
  requireStaff(actor);
  const spec = await listSpec(db, actor, f);
  const number = spec.q ? TICKET_NUMBER.exec(spec.q) : null;
  // Only the reader's own permissions: the ticket as they may see it, in or out of this list.
  const seen: TicketListSpec = {
    customerId: spec.customerId,
    includeComments: spec.includeComments,
    cf: [],
    sort: 'id',
    desc: false,
    limit: 1,
    offset: 0,
  };
  const sort = f.sort ?? '-updated';
  const rows: LiveRow[] = [];
  for (const id of ids) {
    // The list's own query first: a ticket in the list is one the reader may see (its
    // permissions are part of the query), so only a ticket not in it needs the second read.
    const one = { ...spec, id, offset: 0, limit: 1 };
    let row =
      (await fromStore(db, one)).rows[0] ??
      (number !== null && Number(number[1]) === id
        ? (await fromStore(db, { ...one, q: undefined })).rows[0]
        : undefined);
    const matches = row !== undefined;
    row ??= (await fromStore(db, { ...seen, id })).rows[0];
    if (!row) {
      rows.push({ id, visible: false, matches: false });
      continue;
    }
    const [ticket] = await withRequesters(db, actor, await rowsJson(db, actor, [row]));
    rows.push({ id, visible: true, matches, ticket, sort_key: sortKeyOf(ticket, sort, spec.ranks) });
  }
  return { sort, rows };
}
