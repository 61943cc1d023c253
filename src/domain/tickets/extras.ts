import { eq, type SQL, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, preparedForIds, type RowOf } from '../../db/port.js';
import { PART, partSelects, partsUnion } from '../../db/shared/partsUnion.js';
import { customValueJson } from '../customFields.js';
import { type LinkType, type LinksJson, noLinks, REVERSE_OF } from '../links.js';

// What is stored beside a ticket's row — its description, custom values, own watchers, tags and
// links — read in one statement for one ticket or a batch (decisions 067, 097). serialize.ts
// turns them into the ticket's API form.

/**
 * What is stored beside tickets — the description, the custom values, the ticket's own watchers,
 * tags and links — in one statement, `on(column)` choosing the tickets: the rows of
 * src/db/shared/partsUnion.ts, one part each.
 */
const extrasQuery = (db: Db, on: (column: unknown) => SQL) =>
  partsUnion([
    partSelects.watchers(db, on),
    partSelects.descriptions(db, on),
    partSelects.values(db, on),
    partSelects.tags(db, on),
    partSelects.linksFrom(db, on),
    partSelects.linksTo(db, on),
  ]);

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
    if (part === PART.description) e.description = x.s1 ?? '';
    else if (part === PART.value) e.values[x.s1!] = customValueJson(x.s2!, x.s3!);
    else if (part === PART.tag) e.tags.push(x.s1!);
    else if (part === PART.linkFrom) e.links[x.s1 as LinkType].push(Number(x.n1));
    else if (part === PART.linkTo) e.links[REVERSE_OF[x.s1 as LinkType]].push(Number(x.n1));
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
