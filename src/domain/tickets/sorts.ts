import { asc } from 'drizzle-orm';
import type { Db } from '../../db/port.js';
import { queues } from '../../db/tables.js';
import { allLifecycles, CATEGORIES } from '../lifecycles/categories.js';
import { staffQuery } from '../lookups.js';
import type { SortRanks } from './query.js';

// The list's ranked sorts (SPEC D6 "Status, Owner and Queue headers sort too"; decision 055):
// statuses in their lifecycle order (new, open, stalled, resolved, rejected, deleted), owners and
// queues by name, A→Z ignoring case. Staff and queues are small tables: they are ordered here, once
// per list, and the store orders tickets by each one's place (src/db/listSort.ts), so SQLite and
// PostgreSQL give the same order whatever their collations. Unowned tickets come last in either
// direction: an agent sorting by owner looks for whose tickets they are.

const byText = (a: { key: string; id: number }, b: { key: string; id: number }) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.id - b.id;

/** The order of a ranked sort (`status`, `-owner`, …); undefined for the other sorts. */
export async function sortRanks(db: Db, sort: string): Promise<SortRanks | undefined> {
  const desc = sort.startsWith('-');
  const by = sort.replace(/^-/, '');
  if (by === 'status') return { values: await statusOrder(db), nullRank: 0 };
  if (by === 'queue') {
    const rows = await db.select({ id: queues.id, name: queues.name }).from(queues).orderBy(asc(queues.id));
    return { values: order(rows.map((q) => ({ id: q.id, key: q.name.toLowerCase() }))), nullRank: 0 };
  }
  if (by === 'owner') {
    const staff = await staffQuery(db);
    const values = order(staff.map((u) => ({ id: u.id, key: (u.name || u.email).toLowerCase() })));
    // Past every name (and past an owner who is no longer staff, at values.length) whichever way.
    return { values, nullRank: desc ? -1 : values.length + 1 };
  }
  return undefined;
}

const order = (rows: { id: number; key: string }[]) => rows.sort(byText).map((r) => r.id);

/**
 * SPEC D3: statuses by category (initial, active, waiting, inactive), each category in its
 * lifecycles' order (RT's default first): new, open, stalled, resolved, rejected, deleted when
 * there is no other lifecycle.
 */
async function statusOrder(db: Db): Promise<string[]> {
  const all = (await allLifecycles(db)).flatMap((l) => l.statuses);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of CATEGORIES)
    for (const s of all)
      if (s.category === c && !seen.has(s.name)) {
        seen.add(s.name);
        out.push(s.name);
      }
  return out;
}
