import type { Conn } from '../../db/port.js';

// SPEC D3: what a status means, whatever its name. Every rule that cares whether a ticket is
// waiting, done or still to do (built-in lists, the SLA pause, a customer's reply, the link check,
// the Spam action, reports) asks here by category, never by comparing status names. A queue
// without a lifecycle has RT's default one (SPEC B3).

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

/** The lifecycle of queue `queueId` (RT's default until lifecycles are read: SPEC D3 part 1). */
export async function lifecycleOf(_conn: Conn, _queueId: number): Promise<Lifecycle> {
  return DEFAULT_LIFECYCLE;
}

/** The category of `status` in queue `queueId`'s lifecycle (undefined: not a status of it). */
export async function categoryOf(conn: Conn, queueId: number, status: string): Promise<Category | undefined> {
  return (await lifecycleOf(conn, queueId)).statuses.find((s) => s.name === status)?.category;
}

/** The statuses of `category` in queue `queueId`'s lifecycle, in the lifecycle's order. */
export async function statusesIn(conn: Conn, queueId: number, category: Category): Promise<string[]> {
  return (await lifecycleOf(conn, queueId)).statuses.filter((s) => s.category === category).map((s) => s.name);
}
