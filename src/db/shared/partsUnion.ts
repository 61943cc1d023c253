import { and, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
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

// What is stored beside tickets, as rows of one shape, so that a store with a round trip per
// statement reads all of it in one (PostgreSQL: decision 097 for a ticket and a batch, decision 112
// for a list's page with the reader's read marks and the requesters). Each row is one part of
// ticket `t`; `part` says which, and which of the text (s1–s3) and number (n1, n2) columns it
// fills. The queries of src/db/shared/pageParts.ts read the same, a part a statement.

/** Which part a row is, and the columns it fills. */
export const PART = {
  /** The description: s1 the body of the Create transaction. */
  description: 0,
  /** A custom value: s1 the field's key, s2 its type, s3 the value. */
  value: 1,
  /** One of the ticket's own watchers: s1 the role, s2 when added, n1 the user, n2 the position. */
  watcher: 2,
  /** A tag: s1. */
  tag: 3,
  /** A link of the ticket's own: s1 its type, n1 its target. */
  linkFrom: 4,
  /** A link naming the ticket as its target: s1 its type, n1 its base. */
  linkTo: 5,
  /** The reader's read mark: n1 the last transaction they saw. */
  seen: 6,
  /** The requester `t` (a user, not a ticket): s1 the name, s2 the e-mail, s3 the role. */
  requester: 7,
} as const;

/** A handle to build queries on (as in ./pageParts.ts). */
type Builder = Pick<BaseSQLiteDatabase<'async' | 'sync', unknown, typeof schema>, 'select'>;
/** The rows a branch reads: those whose column `on` holds. */
type On = (column: unknown) => SQL;

// Every column typed in every branch: PostgreSQL types a union's columns from its first branch,
// and a bare NULL there would be taken for text.
const text = (value?: unknown) => (value ? sql<string | null>`${value}` : sql<string | null>`CAST(NULL AS text)`);
const number = (value?: unknown) => (value ? sql<number | null>`${value}` : sql<number | null>`CAST(NULL AS integer)`);

/** One part's columns: its ticket (or user), the part, then its texts and numbers (the rest NULL). */
const partRow = (t: unknown, part: number, s: unknown[] = [], n: unknown[] = []) => ({
  t: sql<number>`${t}`,
  part: sql<number>`${sql.raw(String(part))}`,
  s1: text(s[0]),
  s2: text(s[1]),
  s3: text(s[2]),
  n1: number(n[0]),
  n2: number(n[1]),
});

const tagsSelect = (db: Builder, on: On) =>
  db
    .select(partRow(ticketTags.ticket_id, PART.tag, [ticketTags.tag]))
    .from(ticketTags)
    .where(on(ticketTags.ticket_id));
/** A part's select, seen as any other's (they differ in their tables alone). */
type PartSelect = ReturnType<typeof tagsSelect>;
const asPart = (select: unknown) => select as PartSelect;

/** Each part as a select of partRow's columns. */
export const partSelects = {
  watchers: (db: Builder, on: On) =>
    asPart(
      db
        .select(
          partRow(
            ticketWatchers.ticket_id,
            PART.watcher,
            [ticketWatchers.role, ticketWatchers.created_at],
            [ticketWatchers.user_id, ticketWatchers.position],
          ),
        )
        .from(ticketWatchers)
        .where(on(ticketWatchers.ticket_id)),
    ),
  descriptions: (db: Builder, on: On) =>
    asPart(
      db
        .select(partRow(transactions.ticket_id, PART.description, [transactions.body]))
        .from(transactions)
        // Written out, not a parameter: the partial index of the Create transactions (decision 112).
        .where(and(on(transactions.ticket_id), sql`${transactions.type} = 'Create'`)),
    ),
  values: (db: Builder, on: On) =>
    asPart(
      db
        .select(
          partRow(ticketCustomValues.ticket_id, PART.value, [
            customFields.key,
            customFields.type,
            ticketCustomValues.value,
          ]),
        )
        .from(ticketCustomValues)
        .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
        .where(on(ticketCustomValues.ticket_id)),
    ),
  tags: tagsSelect,
  // SPEC D3 links (decision 075): the ticket's own, and those naming it as their target.
  linksFrom: (db: Builder, on: On) =>
    asPart(
      db
        .select(partRow(ticketLinks.base_id, PART.linkFrom, [ticketLinks.type], [ticketLinks.target_id]))
        .from(ticketLinks)
        .where(on(ticketLinks.base_id)),
    ),
  linksTo: (db: Builder, on: On) =>
    asPart(
      db
        .select(partRow(ticketLinks.target_id, PART.linkTo, [ticketLinks.type], [ticketLinks.base_id]))
        .from(ticketLinks)
        .where(on(ticketLinks.target_id)),
    ),
  /** A user's read marks of some tickets (SPEC D6), by the primary key (user_id, ticket_id). */
  seen: (db: Builder, on: On, userId: number | Placeholder) =>
    asPart(
      db
        .select(partRow(ticketReads.ticket_id, PART.seen, [], [ticketReads.seen_txn_id]))
        .from(ticketReads)
        .where(and(eq(ticketReads.user_id, userId), on(ticketReads.ticket_id))),
    ),
  /** Some people (the listed tickets' requesters, SPEC D6), by primary key. */
  requesters: (db: Builder, on: On) =>
    asPart(
      db
        .select(partRow(users.id, PART.requester, [users.name, users.email, users.role]))
        .from(users)
        .where(on(users.id)),
    ),
};

/** The parts as one statement: the selects' rows, one after the other. */
export function partsUnion(selects: PartSelect[]) {
  const [first, ...rest] = selects;
  return rest.reduce<PartSelect>((union, next) => union.unionAll(next) as unknown as PartSelect, first);
}

/** A row of partsUnion. */
export type PartRow = Awaited<PartSelect>[number];

/** Watchers in the order they were added (decision 048): position, then when added, then the user (as SQL's addedOrder). */
export const addedOrder = (
  a: { position: number; added: string; user: number },
  b: { position: number; added: string; user: number },
): number => a.position - b.position || (a.added < b.added ? -1 : a.added > b.added ? 1 : 0) || a.user - b.user;
