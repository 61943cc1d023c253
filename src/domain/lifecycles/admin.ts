import { and, asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { STATUS_NAME } from '../lifecycle.js';
import { MERGED_STATUS } from '../merge/guard.js';
import { configTransaction } from '../../db/configCache.js';
import { type Db, first, one } from '../../db/port.js';
import { lifecycles, queues, tickets } from '../../db/tables.js';
import { type Actor, requireAdmin, requireStaff } from '../actor.js';
import { nowIso } from '../clock.js';
import { AppError, conflict, notFound } from '../errors.js';
import { unique } from '../unique.js';
import {
  CATEGORIES,
  type Category,
  type Lifecycle,
  lifecycleFromRow,
  type LifecycleRow,
  type LifecycleStatus,
} from './categories.js';

// SPEC D3 lifecycles for admins (decision 073): CRUD, every refusal naming its field, and the
// queues that use each one. Written in configTransaction (decision 067): the rules read them
// through ./categories.ts's cache.

/** A status name: lower-case letters and `_`, as the list's status sort writes them into SQL (src/db/shared/listSort.ts). */
export const COLOR = /^#[0-9a-fA-F]{6}$/;

export interface LifecycleInput {
  name: string;
  statuses: LifecycleStatus[];
  transitions?: Record<string, string[]> | null;
  on_customer_reply?: string | null;
}

export type LifecycleJson = Lifecycle & {
  id: number;
  /** The queues that use it, by id. */
  queue_ids: number[];
  created_at: string;
  updated_at: string;
};

async function toJson(db: Db, rows: LifecycleRow[]): Promise<LifecycleJson[]> {
  const ids = rows.map((r) => r.id);
  const used =
    ids.length === 0
      ? []
      : await db
          .select({ id: queues.id, lifecycle_id: queues.lifecycle_id })
          .from(queues)
          .where(inArray(queues.lifecycle_id, ids))
          .orderBy(asc(queues.id));
  return rows.map((r) => ({
    ...lifecycleFromRow(r),
    id: r.id,
    queue_ids: used.filter((q) => q.lifecycle_id === r.id).map((q) => q.id),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

async function rowOf(db: Db, id: number): Promise<LifecycleRow> {
  const row = await first(db.select().from(lifecycles).where(eq(lifecycles.id, id)));
  if (!row) throw notFound('Lifecycle', id);
  return row;
}

export async function listLifecycles(db: Db, actor: Actor): Promise<LifecycleJson[]> {
  requireStaff(actor);
  return toJson(db, await db.select().from(lifecycles).orderBy(asc(lifecycles.name), asc(lifecycles.id)));
}

export async function getLifecycle(db: Db, actor: Actor, id: number): Promise<LifecycleJson> {
  requireStaff(actor);
  return (await toJson(db, [await rowOf(db, id)]))[0];
}

const list = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

/**
 * The faults of a lifecycle, each naming its field (422): exactly one initial status, at least one
 * active and one inactive, no name twice, transitions and on_customer_reply between its statuses.
 */
export function checkLifecycle(l: Omit<LifecycleInput, 'name'>): void {
  const faults: { path: string; message: string }[] = [];
  const names = l.statuses.map((s) => s.name);
  l.statuses.forEach((s, i) => {
    if (!STATUS_NAME.test(s.name))
      faults.push({
        path: `statuses.${i}.name`,
        message: `Status "${s.name}": use 1–40 lower-case letters or _, starting with a letter`,
      });
    if (s.name === MERGED_STATUS)
      faults.push({
        path: `statuses.${i}.name`,
        message: `Status "${s.name}" is reserved: it is what a merged ticket is left with (SPEC D3)`,
      });
    if (names.indexOf(s.name) !== i)
      faults.push({ path: `statuses.${i}.name`, message: `Status "${s.name}" is named twice` });
    if (!(CATEGORIES as readonly string[]).includes(s.category))
      faults.push({
        path: `statuses.${i}.category`,
        message: `Unknown category "${s.category}" of status "${s.name}": one of ${CATEGORIES.join(', ')}`,
      });
    if (!COLOR.test(s.color))
      faults.push({
        path: `statuses.${i}.color`,
        message: `Color of status "${s.name}": a #rrggbb color, not "${s.color}"`,
      });
  });
  const of = (c: Category) => l.statuses.filter((s) => s.category === c).map((s) => s.name);
  const initial = of('initial');
  if (initial.length !== 1)
    faults.push({
      path: 'statuses',
      message:
        initial.length === 0
          ? 'A lifecycle needs exactly one initial status; it has none'
          : `A lifecycle needs exactly one initial status; it has ${initial.length}: ${list(initial)}`,
    });
  if (of('active').length === 0) faults.push({ path: 'statuses', message: 'A lifecycle needs an active status' });
  if (of('inactive').length === 0) faults.push({ path: 'statuses', message: 'A lifecycle needs an inactive status' });
  for (const [from, tos] of Object.entries(l.transitions ?? {})) {
    if (!names.includes(from))
      faults.push({ path: `transitions.${from}`, message: `A transition from unknown status "${from}"` });
    tos.forEach((to, i) => {
      if (!names.includes(to))
        faults.push({
          path: `transitions.${from}.${i}`,
          message: `A transition from "${from}" to unknown status "${to}"`,
        });
    });
  }
  const reply = l.on_customer_reply;
  if (reply != null) {
    const s = l.statuses.find((x) => x.name === reply);
    if (!s) faults.push({ path: 'on_customer_reply', message: `on_customer_reply: unknown status "${reply}"` });
    else if (s.category !== 'active')
      faults.push({
        path: 'on_customer_reply',
        message: `on_customer_reply must be an active status; "${reply}" is ${s.category}`,
      });
  }
  if (faults.length > 0)
    throw new AppError(
      'validation_failed',
      faults.length === 1 ? faults[0].message : faults.map((f) => f.message).join('; '),
      faults,
    );
}

/** Transitions as kept: each target list without repeats, in the lifecycle's order; null stays null. */
function normalTransitions(l: Omit<LifecycleInput, 'name'>): string | null {
  if (l.transitions == null) return null;
  const names = l.statuses.map((s) => s.name);
  const out: Record<string, string[]> = {};
  for (const s of names) {
    const to = l.transitions[s];
    if (to) out[s] = names.filter((n) => n !== s && to.includes(n));
  }
  return JSON.stringify(out);
}

const columns = (l: LifecycleInput) => ({
  name: l.name,
  statuses: JSON.stringify(
    l.statuses.map((s) => ({ name: s.name, category: s.category, color: s.color.toLowerCase() })),
  ),
  transitions: normalTransitions(l),
  on_customer_reply: l.on_customer_reply ?? null,
});

export async function createLifecycle(db: Db, actor: Actor, input: LifecycleInput): Promise<LifecycleJson> {
  requireAdmin(actor);
  checkLifecycle(input);
  const now = nowIso(db);
  const row = await unique(db, input, () =>
    configTransaction(db, (tx) =>
      one(
        tx
          .insert(lifecycles)
          .values({ ...columns(input), created_at: now, updated_at: now })
          .returning(),
      ),
    ),
  );
  return (await toJson(db, [row]))[0];
}

export async function updateLifecycle(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<LifecycleInput>,
): Promise<LifecycleJson> {
  requireAdmin(actor);
  const row = await unique(db, input, () =>
    configTransaction(db, async (tx) => {
      const current = lifecycleFromRow(await rowOf(tx, id));
      const next: LifecycleInput = {
        name: input.name ?? current.name,
        statuses: input.statuses ?? current.statuses,
        transitions: input.transitions !== undefined ? input.transitions : current.transitions,
        on_customer_reply: input.on_customer_reply !== undefined ? input.on_customer_reply : current.on_customer_reply,
      };
      // Statuses given anew: the transitions of a removed status go with it (unless given too).
      if (input.statuses && input.transitions === undefined && next.transitions) {
        const names = next.statuses.map((s) => s.name);
        next.transitions = Object.fromEntries(
          Object.entries(next.transitions)
            .filter(([from]) => names.includes(from))
            .map(([from, to]) => [from, to.filter((t) => names.includes(t))]),
        );
      }
      checkLifecycle(next);
      if (input.statuses)
        await refuseOrphans(
          tx,
          id,
          next.statuses.map((s) => s.name),
        );
      return one(
        tx
          .update(lifecycles)
          .set({ ...columns(next), updated_at: nowIso(db) })
          .where(eq(lifecycles.id, id))
          .returning(),
      );
    }),
  );
  return (await toJson(db, [row]))[0];
}

/** A status that tickets of a queue using the lifecycle are in cannot be taken away (409 naming it). */
async function refuseOrphans(tx: Db, id: number, names: string[]): Promise<void> {
  const left = await first(
    tx
      .select({ status: tickets.status, n: sql<number>`count(*)` })
      .from(tickets)
      .innerJoin(queues, eq(queues.id, tickets.queue_id))
      .where(and(eq(queues.lifecycle_id, id), notInArray(tickets.status, names)))
      .groupBy(tickets.status)
      .limit(1),
  );
  if (left)
    throw conflict(
      `Status "${left.status}" is still held by ${Number(left.n)} ticket(s) in queues using this lifecycle: move them first`,
    );
}

/** Deletes a lifecycle no queue uses (409 naming the queues otherwise). */
export async function deleteLifecycle(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await configTransaction(db, async (tx) => {
    await rowOf(tx, id);
    const using = await tx
      .select({ name: queues.name })
      .from(queues)
      .where(eq(queues.lifecycle_id, id))
      .orderBy(asc(queues.name));
    if (using.length > 0)
      throw conflict(
        `Lifecycle ${id} is used by the queue(s) ${list(using.map((q) => q.name))}: give them another first`,
      );
    await tx.delete(lifecycles).where(eq(lifecycles.id, id));
  });
}
