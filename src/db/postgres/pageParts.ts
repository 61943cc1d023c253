import { sql } from 'drizzle-orm';
import { type Db, idsIn, prepared } from '../port.js';
import type { PageParts, PartsWanted } from '../shared/pageParts.js';
import { addedOrder, PART, type PartRow, partSelects, partsUnion } from '../shared/partsUnion.js';

// What a list page shows beside its tickets' rows, read by the PostgreSQL store right after the
// page, in one statement (decision 112): the parts of src/db/shared/partsUnion.ts, with the
// reader's read marks and the requesters. The domain read them in three statements side by side
// (the parts, the read marks, the requesters), each holding a connection of the reads' share and
// costing the process the socket's write, the pool and the reply's parsing: one client waits as
// long either way, eight callers at once are answered more often with one.

/** A row of one part, as the SQLite store reads it. */
type Of<K extends keyof PageParts> = NonNullable<PageParts[K]>[number];

type Listed = { id: number; requester_id: number | null; customer_txn_id: number | null };

/** The statement for each kind of page (what it asks for), built and compiled once (decision 112). */
const statements = new Map<string, ReturnType<typeof compiled>>();
const compiled = (want: PartsWanted) =>
  prepared((db) => {
    const on = (name: string) => (column: unknown) => idsIn(db, column, sql.placeholder(name));
    const selects = [partSelects.tags(db, on('ids'))];
    if (want.read === 'all')
      selects.push(
        partSelects.descriptions(db, on('ids')),
        partSelects.values(db, on('ids')),
        partSelects.watchers(db, on('ids')),
        partSelects.linksFrom(db, on('ids')),
        partSelects.linksTo(db, on('ids')),
      );
    if (want.seenBy !== undefined) selects.push(partSelects.seen(db, on('wrote'), sql.placeholder('user')));
    if (want.requesters) selects.push(partSelects.requesters(db, on('people')));
    return partsUnion(selects);
  });

/** What `want` asks for beside `rows` (a page of a list, not empty), in one statement. */
export async function readPageParts(db: Db, rows: Listed[], want: PartsWanted): Promise<PageParts> {
  const key = `${want.read} ${want.seenBy !== undefined} ${want.requesters}`;
  let statement = statements.get(key);
  if (!statement) statements.set(key, (statement = compiled(want)));
  const ids = rows.map((r) => r.id);
  const param = db.store.queries.idsParam;
  const found = await statement(db).all({
    ids: param(ids),
    // Only a ticket a customer wrote on can be unread (tickets.customer_txn_id, decision 054).
    wrote: param(rows.filter((r) => r.customer_txn_id !== null).map((r) => r.id)),
    user: want.seenBy ?? 0,
    people: param([...new Set(rows.flatMap((r) => (r.requester_id === null ? [] : [r.requester_id])))]),
  });
  return pageParts(new Set(ids), found as PartRow[], want);
}

/** The rows of readPageParts's statement as the parts the SQLite store reads (src/db/sqlite/pageParts.ts). */
function pageParts(ids: Set<number>, rows: PartRow[], want: PartsWanted): PageParts {
  const parts: Required<PageParts> = {
    tags: [],
    descriptions: [],
    values: [],
    watchers: [],
    links: [],
    seen: [],
    requesters: [],
  };
  const watchers: (Of<'watchers'> & { position: number; added: string })[] = [];
  for (const r of rows) {
    const t = Number(r.t);
    switch (Number(r.part)) {
      case PART.tag:
        parts.tags.push({ part: 1, ticket_id: t, body: r.s1 });
        break;
      case PART.description:
        parts.descriptions.push({ part: 0, ticket_id: t, body: r.s1 });
        break;
      case PART.value:
        parts.values.push({ ticket_id: t, key: r.s1!, type: r.s2 as Of<'values'>['type'], value: r.s3! });
        break;
      case PART.watcher:
        watchers.push({
          ticket: t,
          role: r.s1 as Of<'watchers'>['role'],
          user: Number(r.n1),
          position: Number(r.n2),
          added: r.s2 ?? '',
        });
        break;
      case PART.linkFrom:
        parts.links.push({ base_id: t, type: r.s1 as Of<'links'>['type'], target_id: Number(r.n1) });
        break;
      case PART.linkTo:
        // A link between two tickets of the page is read from both ends: kept once, as its base's.
        if (!ids.has(Number(r.n1)))
          parts.links.push({ base_id: Number(r.n1), type: r.s1 as Of<'links'>['type'], target_id: t });
        break;
      case PART.seen:
        parts.seen.push({ ticket_id: t, seen: Number(r.n1) });
        break;
      case PART.requester:
        parts.requesters.push({ id: t, name: r.s1!, email: r.s2!, role: r.s3 as Of<'requesters'>['role'] });
        break;
    }
  }
  // In the order they were added (decision 048), as watcherRolesQuery reads them.
  parts.watchers = watchers.sort(addedOrder).map(({ ticket, role, user }) => ({ ticket, role, user }));
  const { tags, descriptions, values, links, seen, requesters } = parts;
  return {
    tags,
    ...(want.read === 'all' ? { descriptions, values, watchers: parts.watchers, links } : {}),
    ...(want.seenBy !== undefined ? { seen } : {}),
    ...(want.requesters ? { requesters } : {}),
  };
}
