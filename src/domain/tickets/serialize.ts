import { eq, sql } from 'drizzle-orm';
import { type Conn, dialectOf, type Db, type IdsIn, notIndexed, prepared, preparedForIds } from '../../db/port.js';
import {
  customValuesQuery,
  descriptionsQuery,
  type PageParts,
  type PartsDialect,
  type PartsWanted,
  tagsQuery,
  valueCols,
} from '../../db/shared/pageParts.js';
import { customFields, ticketCustomValues, tickets } from '../../db/tables.js';
import { addedOrder } from '../../db/shared/partsUnion.js';
import { customValueJson } from '../customFields.js';
import { type Extras, extrasOf, extrasOfBatch } from './extras.js';
import { watchersFrom, watchersOf, type Watchers } from '../watchers.js';
import { LINK_NAMES, linksFrom, linksOf, type LinksJson, noLinks } from '../links.js';
import { sortTags } from '../tags/rows.js';
import { type Actor, requireStaff } from '../actor.js';
import type { CustomerShape, StaffTicketField } from '../customerView.js';
import { type SlaJson, slaJson } from '../time/slaJson.js';

export type TicketRow = typeof tickets.$inferSelect;
export interface TicketJson {
  id: number;
  queue_id: number;
  subject: string;
  description: string;
  status: string;
  owner_id: number | null;
  team_id: number | null;
  requester_id: number | null;
  priority: number;
  custom_fields: Record<string, string | number>;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  /** SPEC C2: the ticket's own watchers by role (user ids); the queue's Cc/AdminCc are on the queue. */
  requesters: number[];
  cc: number[];
  admin_cc: number[];
  /** SPEC D2: the ticket's SLA clocks (null: no policy applies), and the earliest unmet running due time. */
  sla: SlaJson | null;
  next_due_at: string | null;
  /** SPEC D2 snooze: when the ticket wakes (null: not snoozed), and whether a customer wrote while it slept on. */
  snoozed_until: string | null;
  replied_while_snoozed: boolean;
  /** SPEC D3: the tickets linked to this one by each name, ids sorted (decision 075). */
  links: LinksJson;
  /** SPEC D3: the ticket's tags, sorted (staff only, decision 074). */
  tags: string[];
  /** SPEC D4: the minutes worked on the ticket, all entries summed (staff only). */
  time_worked_minutes: number;
  /** SPEC D4: the requester's current rating (staff only), null when never rated. */
  csat: CsatJson | null;
  /** SPEC D6, staff lists only: a customer wrote since the reader last opened the ticket (decision 054). */
  unread?: boolean;
}

/** A ticket as a requester reads it: without the staff fields (decision 050). */
export type CustomerTicketJson = CustomerShape<TicketJson, StaffTicketField>;

/** Tickets read by staff have every field: staff screens take them through this (and refuse anyone else). */
export function staffTickets(actor: Actor, list: CustomerTicketJson[]): TicketJson[] {
  requireStaff(actor);
  return list as TicketJson[];
}

/** The dialect of the store of `db` for the queries of src/db/shared/pageParts.ts. */
export const partsDialect = (db: Db, inIds: IdsIn): PartsDialect => ({
  inIds,
  notIndexed: (column) => notIndexed(db, column),
});

// One ticket (every write answers with its ticket) is the common case: compiled once.
const valuesOfOne = prepared((db) =>
  db
    .select(valueCols)
    .from(ticketCustomValues)
    .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
    .where(eq(ticketCustomValues.ticket_id, sql.placeholder('id'))),
);

const descriptionsOfManyPrepared = preparedForIds((db, inIds) => descriptionsQuery(db, { inIds }));
const tagsOfManyPrepared = preparedForIds((db, inIds) => tagsQuery(db, { inIds }));
const customValuesOfMany = preparedForIds((db, inIds) => customValuesQuery(db, partsDialect(db, inIds)));

type DescriptionOrTag = NonNullable<PageParts['descriptions']>[number];

/**
 * The descriptions (Create transaction bodies) and the tags (SPEC D3) of a batch of tickets
 * (decision 074), in two statements: on SQLite they cost less than their union. (PostgreSQL reads
 * them with the rest of a page's parts in one statement: extras.ts, decision 097.)
 */
async function descriptionsAndTagsOf(
  conn: Conn,
  ids: number[],
): Promise<{ descriptions: Map<number, string>; tags: Map<number, string[]> }> {
  return descriptionsAndTagsFrom(ids, [
    ...(await descriptionsOfManyPrepared(conn, ids)),
    ...(await tagsOfManyPrepared(conn, ids)),
  ]);
}

/** descriptionsAndTagsOf's maps from its rows. */
function descriptionsAndTagsFrom(ids: number[], rows: DescriptionOrTag[]) {
  const descriptions = new Map<number, string>();
  const tags = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const r of rows) {
    if (Number(r.part) === 0) descriptions.set(r.ticket_id, r.body ?? '');
    else tags.get(r.ticket_id)?.push(r.body!);
  }
  for (const [id, list] of tags) tags.set(id, sortTags(list));
  return { descriptions, tags };
}

/** Custom field values of a batch of tickets, by ticket: `{ key: value }` in API form. */
export async function customValuesOf(conn: Conn, ids: number[]): Promise<Map<number, Record<string, string | number>>> {
  return customValuesFrom(
    ids.length === 1 ? await valuesOfOne(conn).all({ id: ids[0] }) : await customValuesOfMany(conn, ids),
  );
}

/** customValuesOf's map from its rows. */
function customValuesFrom(values: NonNullable<PageParts['values']>): Map<number, Record<string, string | number>> {
  const byTicket = new Map<number, Record<string, string | number>>();
  for (const v of values) {
    let obj = byTicket.get(v.ticket_id);
    if (!obj) byTicket.set(v.ticket_id, (obj = {}));
    obj[v.key] = customValueJson(v.type, v.value);
  }
  return byTicket;
}

/** One ticket in API form from its row and its extras. */
function withExtras(r: TicketRow, e: Extras): TicketJson {
  // The order watchersOf reads them in: position, then when added, then the user.
  e.watchers.sort(addedOrder);
  const w: Watchers = { requesters: [], cc: [], admin_cc: [] };
  for (const x of e.watchers) w[x.role === 'requester' ? 'requesters' : (x.role as 'cc' | 'admin_cc')].push(x.user);
  for (const name of LINK_NAMES) e.links[name].sort((a, b) => a - b);
  return ticketJson(r, e.description, e.values, w, e.links, sortTags(e.tags));
}

/** One ticket in API form with one read for what is stored beside it. */
async function oneTicketJson(conn: Conn, r: TicketRow): Promise<TicketJson> {
  return withExtras(r, await extrasOf(conn, r.id));
}

/**
 * Ticket `id` in API form, its row from `row` (the read that refuses a reader who may not see it)
 * and what is stored beside it read at the same time, by the id alone: on PostgreSQL a round trip
 * less for every ticket read alone (decision 097). If `row` fails, the parts read are dropped.
 */
export async function ticketJsonBeside(conn: Conn, id: number, row: Promise<TicketRow>): Promise<TicketJson> {
  const extras = extrasOf(conn, id);
  // Handled at once: a failure of either, while the other is still out, is never an unhandled rejection.
  extras.catch(() => undefined);
  return withExtras(await row, await extras);
}

/**
 * What is read beside each ticket's row: `all` (the API's tickets), or `row` — the tags alone,
 * what a list page's row shows besides the ticket's own columns. With `row`, `description` is
 * '', `custom_fields` {}, the watchers the requester alone and `links` empty: not read, not
 * absent (issue 32; the list page's view reads none of them, and the JSON list is always `all`).
 */
export type TicketParts = PartsWanted['read'];

/**
 * Serializes tickets with their custom field values and descriptions, one query each for the
 * batch, or from `parts`: what the store read beside the page in its snapshot (decision 105).
 */
export async function ticketsJson(
  conn: Conn,
  rows: TicketRow[],
  read: TicketParts = 'all',
  parts?: PageParts,
): Promise<TicketJson[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  if (read === 'row') {
    const tags = new Map<number, string[]>(ids.map((id) => [id, []]));
    for (const r of parts?.tags ?? (await tagsOfManyPrepared(conn, ids))) tags.get(r.ticket_id)?.push(r.body!);
    return rows.map((r) => ticketJson(r, '', {}, undefined, undefined, sortTags(tags.get(r.id)!)));
  }
  if (parts?.descriptions && parts.values && parts.watchers && parts.links) {
    const { descriptions, tags } = descriptionsAndTagsFrom(ids, [...parts.descriptions, ...parts.tags]);
    return allParts(
      rows,
      descriptions,
      customValuesFrom(parts.values),
      watchersFrom(ids, parts.watchers),
      linksFrom(ids, parts.links),
      tags,
    );
  }
  if (rows.length === 1) return [await oneTicketJson(conn, rows[0])];
  // PostgreSQL: every part in one statement, one round trip (decision 097).
  if (dialectOf(conn) === 'postgres') {
    const extras = await extrasOfBatch(conn, ids);
    return rows.map((r) => withExtras(r, extras.get(r.id)!));
  }
  // SQLite: a statement per part, each cheaper than their union (no round trip to save).
  const [{ descriptions, tags }, values, watchers, links] = await Promise.all([
    descriptionsAndTagsOf(conn, ids),
    customValuesOf(conn, ids),
    watchersOf(conn, ids),
    linksOf(conn, ids),
  ]);
  return allParts(rows, descriptions, values, watchers, links, tags);
}

/** The tickets in API form from their parts by ticket. */
const allParts = (
  rows: TicketRow[],
  descriptions: Map<number, string>,
  values: Map<number, Record<string, string | number>>,
  watchers: Map<number, Watchers>,
  links: Map<number, LinksJson>,
  tags: Map<number, string[]>,
) =>
  rows.map((r) =>
    ticketJson(
      r,
      descriptions.get(r.id) ?? '',
      values.get(r.id) ?? {},
      watchers.get(r.id),
      links.get(r.id),
      tags.get(r.id),
    ),
  );

/** SPEC D4: a ticket's current rating (tickets.csat). */
export interface CsatJson {
  rating: 'good' | 'okay' | 'bad';
  comment: string;
  rated_at: string;
}

/** One ticket in API form, from its row and what is stored beside it. */
export function ticketJson(
  r: TicketRow,
  description: string,
  customFields: Record<string, string | number>,
  w?: Watchers,
  links?: LinksJson,
  tags: string[] = [],
): TicketJson {
  return {
    id: r.id,
    queue_id: r.queue_id,
    subject: r.subject,
    description,
    status: r.status,
    owner_id: r.owner_id,
    team_id: r.team_id,
    requester_id: r.requester_id,
    priority: r.priority,
    custom_fields: customFields,
    created_at: r.created_at,
    updated_at: r.updated_at,
    resolved_at: r.resolved_at,
    requesters: w?.requesters ?? (r.requester_id === null ? [] : [r.requester_id]),
    cc: w?.cc ?? [],
    admin_cc: w?.admin_cc ?? [],
    sla: slaJson(r.sla),
    next_due_at: r.next_due_at,
    snoozed_until: r.snoozed_until,
    replied_while_snoozed: r.replied_while_snoozed,
    links: links ?? noLinks(),
    tags,
    time_worked_minutes: r.time_worked_minutes,
    csat: r.csat ? (JSON.parse(r.csat) as CsatJson) : null,
  };
}

const ticketById = prepared((db) =>
  db
    .select()
    .from(tickets)
    .where(eq(tickets.id, sql.placeholder('id'))),
);

export async function getTicketRow(conn: Conn, id: number): Promise<TicketRow | undefined> {
  return await ticketById(conn).get({ id });
}
