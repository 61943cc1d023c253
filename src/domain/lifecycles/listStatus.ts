import { and, asc, inArray, or, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/port.js';
import type { TicketListSpec } from '../../db/ticketListSpec.js';
import { queues, tickets } from '../../db/tables.js';
import { invalid } from '../errors.js';
import { STATUSES } from '../lifecycle.js';
import { type Category, DEFAULT_LIFECYCLE, type Lifecycle, lifecyclesInUse } from './categories.js';
import { anyStatusNames } from './statuses.js';

// SPEC D3 list filters (decision 073): `status` names statuses of any lifecycle; `status_category`
// becomes `status IN (names)` — the same query as before when every queue uses RT's default, and
// per queue only where a name means different categories in the lifecycles in use.

export interface StatusFilterInput {
  status?: string[];
  status_category?: Category[];
}

const DEFAULT_NAMES: readonly string[] = STATUSES;
const inCategories = (l: Lifecycle, cats: readonly Category[]) =>
  l.statuses.filter((s) => cats.includes(s.category)).map((s) => s.name);

/** `status` checked (each a status of some lifecycle), and `status_category` made statuses. */
export async function statusSpec(
  db: Db,
  f: StatusFilterInput,
  hidden?: string,
): Promise<Pick<TicketListSpec, 'status' | 'statusByQueue'>> {
  let status = f.status;
  if (status?.some((s) => !DEFAULT_NAMES.includes(s))) {
    const all = await anyStatusNames(db);
    const unknown = status.find((s) => !all.includes(s));
    if (unknown !== undefined)
      throw invalid(
        `status.${status.indexOf(unknown)}`,
        `Unknown status "${unknown}": no lifecycle has it (one of ${all.join(', ')})`,
      );
  }
  let statusByQueue: TicketListSpec['statusByQueue'];
  if (f.status_category) {
    const cats = f.status_category;
    const used = await lifecyclesInUse(db);
    const sets = used.map((l) => ({ l, names: inCategories(l, cats) }));
    const wanted = new Set(sets.flatMap((s) => s.names));
    // A name wanted in one lifecycle in use but another category in another: per queue.
    const ambiguous = sets.some(({ l, names }) =>
      l.statuses.some((s) => wanted.has(s.name) && !names.includes(s.name)),
    );
    const keep = (names: string[]) => (status ? names.filter((n) => status?.includes(n)) : names);
    if (!ambiguous) status = keep([...wanted]);
    else {
      const rows = await db
        .select({ id: queues.id, lifecycle_id: queues.lifecycle_id })
        .from(queues)
        .orderBy(asc(queues.id));
      statusByQueue = sets.map(({ l, names }) => ({
        queue_ids: rows.filter((q) => q.lifecycle_id === l.id).map((q) => q.id),
        status: keep(names),
      }));
      status = undefined;
      if (f.status) status = f.status;
    }
  }
  if (hidden !== undefined) {
    // A customer never sees a ticket in the hidden status (decision 050).
    status = (status ?? (await customerNames(db))).filter((s) => s !== hidden);
    statusByQueue = statusByQueue?.map((p) => ({ ...p, status: p.status.filter((s) => s !== hidden) }));
  }
  return { status, statusByQueue };
}

/** Every status a ticket may be in: RT's default ones unless a lifecycle is in use. */
async function customerNames(db: Db): Promise<string[]> {
  const used = await lifecyclesInUse(db);
  if (used.length === 1 && used[0] === DEFAULT_LIFECYCLE) return [...DEFAULT_NAMES];
  return [...new Set(used.flatMap((l) => l.statuses.map((s) => s.name)))];
}

/** The condition "not done" (initial, active or waiting in its queue's lifecycle), for counts and side lists. */
export async function notDoneCondition(db: Db): Promise<SQL> {
  return (await notDone(db)).condition();
}

/**
 * "Not done" as its statuses say it: `key` names them (the same key, the same condition) and
 * `condition` builds the SQL — for a query compiled once per key (the ticket page's side lists).
 */
export async function notDone(db: Db): Promise<{ key: string; condition: () => SQL }> {
  const { status, statusByQueue } = await statusSpec(db, { status_category: ['initial', 'active', 'waiting'] });
  return {
    key: JSON.stringify([status, statusByQueue]),
    condition: () =>
      !statusByQueue
        ? inArray(tickets.status, status ?? [])
        : (or(
            ...statusByQueue.map((p) => and(inArray(tickets.queue_id, p.queue_ids), inArray(tickets.status, p.status))),
          ) as SQL),
  };
}
