import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, preparedForIds, type RowOf } from '../../db/port.js';
import {
  customFields,
  ticketCustomValues,
  ticketLinks,
  ticketTags,
  ticketWatchers,
  transactions,
} from '../../db/tables.js';
import { customValueJson } from '../customFields.js';
import { type LinkType, type LinksJson, noLinks, REVERSE_OF } from '../links.js';

// What is stored beside a ticket's row — its description, custom values, own watchers, tags and
// links — read in one statement for one ticket or a batch (decisions 067, 097). serialize.ts
// turns them into the ticket's API form.

const isCreate = eq(transactions.type, 'Create');

/**
 * What is stored beside tickets — the description, the custom values, the ticket's own watchers,
 * tags and links — in one statement, `on(column)` choosing the tickets: each row is one ticket's
 * (`t`) part: `part` 0 is the description (`s1`: the body), 1 a value (`s1` key, `s2` type, `s3`
 * value), 2 a watcher (`s1` role, `s2` when added, `n1` the user, `n2` the position), 3 a tag
 * (`s1`), 4 a link of the ticket's own (`s1` type, `n1` its target), 5 a link naming the ticket
 * as its target (`s1` type, `n1` its base).
 */
const extrasQuery = (db: Db, on: (column: unknown) => SQL) =>
  // The watchers first: their columns give each column its type (PostgreSQL types a union's
  // columns branch by branch, and a NULL in the first two would be taken for text).
  db
    .select({
      t: ticketWatchers.ticket_id,
      part: sql<number>`2`,
      s1: sql<string | null>`${ticketWatchers.role}`,
      s2: sql<string | null>`${ticketWatchers.created_at}`,
      s3: sql<string | null>`NULL`,
      n1: sql<number | null>`${ticketWatchers.user_id}`,
      n2: sql<number | null>`${ticketWatchers.position}`,
    })
    .from(ticketWatchers)
    .where(on(ticketWatchers.ticket_id))
    .unionAll(
      db
        .select({
          t: transactions.ticket_id,
          part: sql<number>`0`,
          s1: sql<string | null>`${transactions.body}`,
          s2: sql<string | null>`NULL`,
          s3: sql<string | null>`NULL`,
          n1: sql<number | null>`NULL`,
          n2: sql<number | null>`NULL`,
        })
        .from(transactions)
        .where(and(on(transactions.ticket_id), isCreate)),
    )
    .unionAll(
      db
        .select({
          t: ticketCustomValues.ticket_id,
          part: sql<number>`1`,
          s1: sql<string | null>`${customFields.key}`,
          s2: sql<string | null>`${customFields.type}`,
          s3: sql<string | null>`${ticketCustomValues.value}`,
          n1: sql<number | null>`NULL`,
          n2: sql<number | null>`NULL`,
        })
        .from(ticketCustomValues)
        .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
        .where(on(ticketCustomValues.ticket_id)),
    )
    .unionAll(
      db
        .select({
          t: ticketTags.ticket_id,
          part: sql<number>`3`,
          s1: sql<string | null>`${ticketTags.tag}`,
          s2: sql<string | null>`NULL`,
          s3: sql<string | null>`NULL`,
          n1: sql<number | null>`NULL`,
          n2: sql<number | null>`NULL`,
        })
        .from(ticketTags)
        .where(on(ticketTags.ticket_id)),
    )
    // SPEC D3 links (decision 075): the ticket's own (4), and those naming it as their target (5).
    .unionAll(
      db
        .select({
          t: ticketLinks.base_id,
          part: sql<number>`4`,
          s1: sql<string | null>`${ticketLinks.type}`,
          s2: sql<string | null>`NULL`,
          s3: sql<string | null>`NULL`,
          n1: sql<number | null>`${ticketLinks.target_id}`,
          n2: sql<number | null>`NULL`,
        })
        .from(ticketLinks)
        .where(on(ticketLinks.base_id)),
    )
    .unionAll(
      db
        .select({
          t: ticketLinks.target_id,
          part: sql<number>`5`,
          s1: sql<string | null>`${ticketLinks.type}`,
          s2: sql<string | null>`NULL`,
          s3: sql<string | null>`NULL`,
          n1: sql<number | null>`${ticketLinks.base_id}`,
          n2: sql<number | null>`NULL`,
        })
        .from(ticketLinks)
        .where(on(ticketLinks.target_id)),
    );

/** One ticket's extras (decision 067: every write answers with its ticket). */
const extrasOfOne = prepared((db) => extrasQuery(db, (column) => eq(column as never, sql.placeholder('id'))));
/**
 * A batch's extras, on PostgreSQL: one round trip, where ticketsJson's four separate reads took
 * four (decision 097). SQLite has no round trip to save, and reads them apart.
 */
const extrasOfMany = preparedForIds((db, inIds) => extrasQuery(db, inIds));

type ExtraRow = RowOf<ReturnType<typeof extrasQuery>>;
export interface Extras {
  description: string;
  values: Record<string, string | number>;
  watchers: { role: string; user: number; position: number; added: string }[];
  tags: string[];
  links: LinksJson;
}

/** Each ticket's (of `ids`) API parts from extrasQuery's rows, in the orders the separate reads give. */
function extrasByTicket(ids: readonly number[], rows: ExtraRow[]): Map<number, Extras> {
  const out = new Map<number, Extras>();
  for (const id of ids) out.set(id, { description: '', values: {}, watchers: [], tags: [], links: noLinks() });
  for (const x of rows) {
    const e = out.get(Number(x.t));
    if (!e) continue;
    const part = Number(x.part);
    if (part === 0) e.description = x.s1 ?? '';
    else if (part === 1) e.values[x.s1!] = customValueJson(x.s2!, x.s3!);
    else if (part === 3) e.tags.push(x.s1!);
    else if (part === 4) e.links[x.s1 as LinkType].push(Number(x.n1));
    else if (part === 5) e.links[REVERSE_OF[x.s1 as LinkType]].push(Number(x.n1));
    else e.watchers.push({ role: x.s1!, user: Number(x.n1), position: Number(x.n2), added: x.s2 ?? '' });
  }
  return out;
}

/** What is stored beside ticket `id`, read by its id alone (one statement). */
export async function extrasOf(conn: Conn, id: number): Promise<Extras> {
  return extrasByTicket([id], await extrasOfOne(conn).all({ id })).get(id)!;
}

/** What is stored beside each ticket of a batch, in one statement (PostgreSQL's list pages, decision 097). */
export async function extrasOfBatch(conn: Conn, ids: readonly number[]): Promise<Map<number, Extras>> {
  return extrasByTicket(ids, await extrasOfMany(conn, ids));
}
