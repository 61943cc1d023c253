import { sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import {
  customValuesQuery,
  descriptionsQuery,
  linksQuery,
  type PageParts,
  type PartsDialect,
  type PartsWanted,
  peopleQuery,
  readsQuery,
  tagsQuery,
  watcherRolesQuery,
} from '../shared/pageParts.js';
import type { Db } from './handle.js';
import { fastPrepared, type SyncPrepared } from './rows.js';
import { perConnection } from './textHold.js';
import { keepParts, keptOn, keptParts, partVersions, type TicketParts } from './partsKept.js';

// What a list page shows beside its tickets' rows, read by the SQLite store in the list's own
// transaction, on the thread that read the page (decision 105): under load the HTTP thread is
// what saturates, and these reads were a fifth of its work; read in the page's snapshot, the parts
// also always belong to the page. The queries are the domain's own (src/db/shared/pageParts.ts).

/** `column IN` a batch of ids given as one JSON array (`ids`), as the store's port says it (./client.ts). */
export const idsInJson = (column: unknown, ids: unknown) =>
  sql`${column as SQLiteColumn} IN (SELECT value FROM json_each(${ids}))`;
/** A column kept from driving the plan through its index. */
export const unindexed = (column: unknown) => sql`+${column as SQLiteColumn}`;

const dialect: PartsDialect = {
  inIds: (column) => idsInJson(column, sql.placeholder('ids')),
  notIndexed: unindexed,
};
const compiled = (build: (db: Db) => { prepare(): unknown }) =>
  perConnection((db): SyncPrepared => fastPrepared(build(db).prepare() as Parameters<typeof fastPrepared>[0]));

const statements = {
  descriptions: compiled((db) => descriptionsQuery(db, dialect)),
  tags: compiled((db) => tagsQuery(db, dialect)),
  values: compiled((db) => customValuesQuery(db, dialect)),
  watchers: compiled((db) => watcherRolesQuery(db, dialect)),
  links: compiled((db) => linksQuery(db, dialect)),
  seen: compiled((db) => readsQuery(db, sql.placeholder('user'), dialect)),
  requesters: compiled((db) => peopleQuery(db, dialect)),
};

type Listed = { id: number; requester_id: number | null; customer_txn_id: number | null };
const all = <K extends keyof PageParts>(db: Db, part: K & keyof typeof statements, params: Record<string, unknown>) =>
  statements[part](db).all(params) as NonNullable<PageParts[K]>;

/** What `want` asks for beside `rows` (a page of a list), read now: call it in the list's transaction. */
export function readPageParts(db: Db, rows: Listed[], want: PartsWanted): PageParts {
  const ids = JSON.stringify(rows.map((r) => r.id));
  // A list page reads the tags alone: cheaper than the versions that would tell what is kept.
  const k = want.read === 'all' ? keptOn(db) : undefined;
  const parts: PageParts = k
    ? fromKept(db, k, rows, ids)
    : want.read === 'all'
      ? ticketParts(db, ids)
      : { tags: all(db, 'tags', { ids }) };
  if (want.seenBy !== undefined) {
    // Only a ticket a customer wrote on can be unread (tickets.customer_txn_id, decision 054).
    const wrote = rows.filter((r) => r.customer_txn_id !== null).map((r) => r.id);
    parts.seen = wrote.length === 0 ? [] : all(db, 'seen', { ids: JSON.stringify(wrote), user: want.seenBy });
  }
  if (want.requesters) {
    const people = [...new Set(rows.flatMap((r) => (r.requester_id === null ? [] : [r.requester_id])))];
    parts.requesters = people.length === 0 ? [] : all(db, 'requesters', { ids: JSON.stringify(people) });
  }
  return parts;
}

/** The descriptions, tags, values, watchers and links of the tickets `ids` (a JSON array), read now. */
const ticketParts = (db: Db, ids: string) => ({
  descriptions: all(db, 'descriptions', { ids }),
  tags: all(db, 'tags', { ids }),
  values: all(db, 'values', { ids }),
  watchers: all(db, 'watchers', { ids }),
  links: all(db, 'links', { ids }),
});

/**
 * The page's descriptions, tags, values, watchers and links from what connection `db` keeps
 * (decision 113), read for the tickets it keeps none of at their versions, and kept.
 */
function fromKept(db: Db, k: NonNullable<ReturnType<typeof keptOn>>, rows: Listed[], ids: string): PageParts {
  const { versions, config } = partVersions(db, ids);
  const found = new Map<number, TicketParts>();
  const missing: number[] = [];
  for (const { id } of rows) {
    const p = keptParts(k, id, versions.get(id) ?? 0, config);
    if (p) found.set(id, p);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const read = ticketParts(db, JSON.stringify(missing));
    const byTicket = new Map<number, TicketParts>(
      missing.map((id) => [
        id,
        { version: versions.get(id) ?? 0, config, descriptions: [], tags: [], values: [], watchers: [], links: [] },
      ]),
    );
    for (const r of read.descriptions) byTicket.get(r.ticket_id)?.descriptions.push(r);
    for (const r of read.tags) byTicket.get(r.ticket_id)?.tags.push(r);
    for (const r of read.values) byTicket.get(r.ticket_id)?.values.push(r);
    for (const r of read.watchers) byTicket.get(r.ticket)?.watchers.push(r);
    for (const r of read.links) {
      byTicket.get(r.base_id)?.links.push(r);
      if (r.target_id !== r.base_id) byTicket.get(r.target_id)?.links.push(r);
    }
    for (const [id, p] of byTicket) {
      keepParts(k, id, p);
      found.set(id, p);
    }
  }
  const page = rows.map((r) => found.get(r.id)!);
  // A link between two tickets of the page is kept by both: listed once.
  const links = new Map(page.flatMap((p) => p.links.map((l) => [`${l.base_id} ${l.type} ${l.target_id}`, l])));
  return {
    tags: page.flatMap((p) => p.tags),
    descriptions: page.flatMap((p) => p.descriptions),
    values: page.flatMap((p) => p.values),
    watchers: page.flatMap((p) => p.watchers),
    links: [...links.values()],
  };
}
