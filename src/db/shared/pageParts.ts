import { and, asc, eq, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type * as schema from '../tables.js';
import {
  customFields,
  ticketCustomValues,
  ticketLinks,
  ticketReads,
  ticketTags,
  ticketWatchers,
  transactions,
  users,
} from '../tables.js';

// What a list page reads beside its tickets' rows — descriptions, tags, custom values, watchers,
// links, the reader's read marks, the requesters — written once: the domain reads them with
// these (src/domain/tickets/serialize.ts and its neighbours), and a SQLite store reads them in
// the list's own snapshot, on the thread that read the page (decision 105), with the same SQL.

/** `column IN` the page's ids (one parameter), and a column kept from driving the plan: the store's dialect. */
export interface PartsDialect {
  inIds: (column: unknown) => SQL;
  notIndexed: (column: unknown) => SQL;
}
/** A handle to build queries on: the port's QueryBuilder, or a SQLite store's own drizzle handle (not imported: the port imports this file). */
type Builder = Pick<BaseSQLiteDatabase<'async' | 'sync', unknown, typeof schema>, 'select'>;

// Written out, not a parameter: a generic plan then reads the description through
// transactions_create_idx (partial, `type = 'Create'`), one entry a ticket, where a parameter has it
// read every transaction (decision 112).
const isCreate = sql`${transactions.type} = 'Create'`;

/** The descriptions (Create transaction bodies) of a batch of tickets, as `part` 0 rows. */
export const descriptionsQuery = (db: Builder, d: Pick<PartsDialect, 'inIds'>) =>
  db
    .select({ part: sql<number>`0`, ticket_id: transactions.ticket_id, body: sql<string | null>`${transactions.body}` })
    .from(transactions)
    .where(and(d.inIds(transactions.ticket_id), isCreate));

/** The tags (SPEC D3) of a batch of tickets, as `part` 1 rows (the shape of descriptionsQuery's). */
export const tagsQuery = (db: Builder, d: Pick<PartsDialect, 'inIds'>) =>
  db
    .select({ part: sql<number>`1`, ticket_id: ticketTags.ticket_id, body: sql<string | null>`${ticketTags.tag}` })
    .from(ticketTags)
    .where(d.inIds(ticketTags.ticket_id));

export const valueCols = {
  ticket_id: ticketCustomValues.ticket_id,
  key: customFields.key,
  type: customFields.type,
  value: ticketCustomValues.value,
};

/**
 * The custom values of a batch of tickets. Read by ticket (the primary key), each value's field
 * by its id: the join column is kept off the lookup index (field_id, value, ticket_id), which
 * covers this query and would otherwise tempt SQLite to read every ticket's value of every
 * field — 30 ms a list page at 100k tickets instead of 0.2 ms (docs/performance-history.md).
 */
export const customValuesQuery = (db: Builder, d: PartsDialect) =>
  db
    .select(valueCols)
    .from(ticketCustomValues)
    .innerJoin(customFields, eq(customFields.id, d.notIndexed(ticketCustomValues.field_id)))
    .where(d.inIds(ticketCustomValues.ticket_id));

/** The order people were added in (decision 048): `position`, never their ids. */
export const addedOrder = [asc(ticketWatchers.position), asc(ticketWatchers.created_at), asc(ticketWatchers.user_id)];

/** The tickets' own watchers (not the queue's), ids in the order they were added. */
export const watcherRolesQuery = (db: Builder, d: Pick<PartsDialect, 'inIds'>) =>
  db
    .select({ ticket: ticketWatchers.ticket_id, role: ticketWatchers.role, user: ticketWatchers.user_id })
    .from(ticketWatchers)
    .where(d.inIds(ticketWatchers.ticket_id))
    .orderBy(...addedOrder);

/** The links (SPEC D3) a batch of tickets is either end of. */
export const linksQuery = (db: Builder, d: Pick<PartsDialect, 'inIds'>) =>
  db
    .select({ base_id: ticketLinks.base_id, type: ticketLinks.type, target_id: ticketLinks.target_id })
    .from(ticketLinks)
    .where(or(d.inIds(ticketLinks.base_id), d.inIds(ticketLinks.target_id)));

/** A user's read rows of some tickets (SPEC D6): one probe of the primary key (user_id, ticket_id) each. */
export const readsQuery = (db: Builder, userId: number | Placeholder, d: Pick<PartsDialect, 'inIds'>) =>
  db
    .select({ ticket_id: ticketReads.ticket_id, seen: ticketReads.seen_txn_id })
    .from(ticketReads)
    .where(and(eq(ticketReads.user_id, userId), d.inIds(ticketReads.ticket_id)));

/** The people of a batch of ids (the listed tickets' requesters, SPEC D6), by primary key. */
export const peopleQuery = (db: Builder, d: Pick<PartsDialect, 'inIds'>) =>
  db
    .select({ id: users.id, name: users.name, email: users.email, role: users.role })
    .from(users)
    .where(d.inIds(users.id));

type RowsOf<F extends (...a: never[]) => PromiseLike<unknown>> = Awaited<ReturnType<F>>;

/**
 * What a list asks its store to read beside its page (decision 105): `all` (the JSON list: every
 * part) or `row` (the list page: the tags alone), `seenBy` a staff reader's id for their read
 * marks, and whether to read the requesters.
 */
export interface PartsWanted {
  read: 'all' | 'row';
  seenBy?: number;
  requesters: boolean;
}

/**
 * The parts of a page, as these queries give their rows. A part not asked for is undefined.
 * `seen` holds the reader's rows for the page's tickets a customer wrote on (the others cannot be
 * unread).
 */
export interface PageParts {
  descriptions?: RowsOf<typeof descriptionsQuery>;
  tags: RowsOf<typeof tagsQuery>;
  values?: RowsOf<typeof customValuesQuery>;
  watchers?: RowsOf<typeof watcherRolesQuery>;
  links?: RowsOf<typeof linksQuery>;
  seen?: RowsOf<typeof readsQuery>;
  requesters?: RowsOf<typeof peopleQuery>;
}
