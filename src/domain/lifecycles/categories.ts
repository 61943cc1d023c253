import { eq, sql } from 'drizzle-orm';
import { cachedConfig } from '../../db/configCache.js';
import { type Conn, prepared } from '../../db/port.js';
import { lifecycles, queues } from '../../db/tables.js';

// SPEC D3: what a status means, whatever its name. Every rule that cares whether a ticket is
// waiting, done or still to do (built-in lists, the SLA pause, a customer's reply, the link check,
// the Spam action, reports) asks here by category, never by comparing status names. A queue
// without a lifecycle has RT's default one (SPEC B3). Read per process through the configuration
// cache (decision 067): a queue's row and a lifecycle by id; written by ./admin.ts in
// configTransaction (decision 073).

export const CATEGORIES = ['initial', 'active', 'waiting', 'inactive'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface LifecycleStatus {
  name: string;
  category: Category;
  /** A CSS color for the status's badge and menu entry (#rrggbb). */
  color: string;
}

export interface Lifecycle {
  /** null: RT's default lifecycle (a queue with no lifecycle_id). */
  id: number | null;
  name: string;
  statuses: LifecycleStatus[];
  /** From a status to the statuses it may move to; null: any to any. */
  transitions: Record<string, string[]> | null;
  /** The status a waiting or inactive ticket moves to when a requester writes; null: the first active one. */
  on_customer_reply: string | null;
}

/** RT's default lifecycle (SPEC B3): new, open, stalled, resolved, rejected, deleted; any to any. */
export const DEFAULT_LIFECYCLE: Lifecycle = {
  id: null,
  name: 'Default',
  statuses: [
    { name: 'new', category: 'initial', color: '#1d4ed8' },
    { name: 'open', category: 'active', color: '#15803d' },
    { name: 'stalled', category: 'waiting', color: '#b45309' },
    { name: 'resolved', category: 'inactive', color: '#4b5563' },
    { name: 'rejected', category: 'inactive', color: '#6b7280' },
    { name: 'deleted', category: 'inactive', color: '#991b1b' },
  ],
  transitions: null,
  on_customer_reply: null,
};
Object.freeze(DEFAULT_LIFECYCLE);

export type LifecycleRow = typeof lifecycles.$inferSelect;

/** A stored row as the domain reads it (the JSON columns parsed). */
export function lifecycleFromRow(row: LifecycleRow): Lifecycle {
  return {
    id: row.id,
    name: row.name,
    statuses: JSON.parse(row.statuses) as LifecycleStatus[],
    transitions: row.transitions === null ? null : (JSON.parse(row.transitions) as Record<string, string[]>),
    on_customer_reply: row.on_customer_reply,
  };
}

// The whole queue row, as src/domain/queues.ts's getQueueRow keeps it under the same key.
const queueById = prepared((db) =>
  db
    .select()
    .from(queues)
    .where(eq(queues.id, sql.placeholder('id'))),
);
const lifecycleById = prepared((db) =>
  db
    .select()
    .from(lifecycles)
    .where(eq(lifecycles.id, sql.placeholder('id'))),
);

/** Lifecycle `id` (undefined: none such), through the process's configuration cache. */
export async function lifecycleWithId(conn: Conn, id: number): Promise<Lifecycle | undefined> {
  return await cachedConfig(conn, `lifecycle:${id}`, async () => {
    const row = await lifecycleById(conn).get({ id });
    return row ? lifecycleFromRow(row) : undefined;
  });
}

/** The lifecycle of queue `queueId` (RT's default for a queue without one, or no such queue). */
export async function lifecycleOf(conn: Conn, queueId: number): Promise<Lifecycle> {
  const q = await cachedConfig(conn, `queue:${queueId}`, async () => await queueById(conn).get({ id: queueId }));
  if (!q || q.lifecycle_id === null) return DEFAULT_LIFECYCLE;
  return (await lifecycleWithId(conn, q.lifecycle_id)) ?? DEFAULT_LIFECYCLE;
}

/** The category of `status` in queue `queueId`'s lifecycle (undefined: not a status of it). */
export async function categoryOf(conn: Conn, queueId: number, status: string): Promise<Category | undefined> {
  return categoryIn(await lifecycleOf(conn, queueId), status);
}

/** The statuses of `category` in queue `queueId`'s lifecycle, in the lifecycle's order. */
export async function statusesIn(conn: Conn, queueId: number, category: Category): Promise<string[]> {
  return namesIn(await lifecycleOf(conn, queueId), category);
}

export const categoryIn = (l: Lifecycle, status: string): Category | undefined =>
  l.statuses.find((s) => s.name === status)?.category;
export const namesIn = (l: Lifecycle, category: Category): string[] =>
  l.statuses.filter((s) => s.category === category).map((s) => s.name);

/** The statuses a person may move a ticket to from `from` (every other status when no transitions). */
export function allowedFrom(l: Lifecycle, from: string): string[] {
  const others = l.statuses.map((s) => s.name).filter((n) => n !== from);
  if (l.transitions === null) return others;
  const to = l.transitions[from];
  // A status the lifecycle does not know (a ticket moved in before a change): anywhere.
  if (to === undefined && categoryIn(l, from) === undefined) return others;
  return others.filter((n) => (to ?? []).includes(n));
}

/** A move that resolves the ticket (resolved_at, on_resolve): see resolvedAtAfter. */
export const isResolving = (l: Lifecycle, from: string, to: string): boolean =>
  l.id === null
    ? to === 'resolved' && from !== 'resolved'
    : categoryIn(l, to) === 'inactive' && categoryIn(l, from) !== 'inactive';

/** A reopen (SPEC D4, docs/metrics.md): a move from an inactive status to an initial, active or waiting one. */
export function isReopening(l: Lifecycle, from: string | null, to: string): boolean {
  if (from === null || categoryIn(l, from) !== 'inactive') return false;
  const category = categoryIn(l, to);
  return category !== undefined && category !== 'inactive';
}

/**
 * resolved_at after a move from `from` to `to`: set on resolving, cleared on reopening (an initial,
 * active or waiting status), kept otherwise. RT's default lifecycle resolves in `resolved` only, as
 * before (rejected and deleted keep what there was); another lifecycle in any of its inactive
 * statuses, entered from outside the category (decision 073).
 */
export function resolvedAtAfter(l: Lifecycle, from: string, to: string, current: string | null, now: string) {
  const to_ = categoryIn(l, to);
  if (isResolving(l, from, to)) return now;
  if (to_ !== undefined && to_ !== 'inactive') return null;
  return current;
}

/** The status a requester's message moves a waiting or inactive ticket to. */
export const replyStatus = (l: Lifecycle): string | undefined => l.on_customer_reply ?? namesIn(l, 'active')[0];

/**
 * The lifecycles the queues use (RT's default among them when a queue has none, or there are no
 * queues): what a list's `status_category` becomes. One small read.
 */
const inUse = prepared((db) =>
  db
    .selectDistinct({ id: queues.lifecycle_id, l: lifecycles })
    .from(queues)
    .leftJoin(lifecycles, eq(lifecycles.id, queues.lifecycle_id)),
);

/** Through the process's configuration cache (a list's `status_category`, the ticket page's side lists; issue 32). */
export async function lifecyclesInUse(conn: Conn): Promise<readonly Lifecycle[]> {
  return await cachedConfig(conn, 'lifecycles:in-use', async () => {
    const rows = await inUse(conn).all();
    const out = rows.flatMap((r) => (r.l ? [lifecycleFromRow(r.l)] : []));
    if (out.length < rows.length || out.length === 0) out.unshift(DEFAULT_LIFECYCLE);
    return out;
  });
}

/** Every lifecycle there is (RT's default first): a view's colors and an admin's lists. */
export async function allLifecycles(conn: Conn): Promise<readonly Lifecycle[]> {
  // Through the process's configuration cache: every list page reads it (issue 32).
  return await cachedConfig(conn, 'lifecycles:all', async () => {
    const rows = await conn.select().from(lifecycles).orderBy(lifecycles.id);
    return [DEFAULT_LIFECYCLE, ...rows.map(lifecycleFromRow)];
  });
}
