import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import {
  broadcast,
  changes,
  claimRows,
  type Db,
  dialectOf,
  errorMessage,
  listenStore,
  lockAndReadTicket,
  prepared,
  storageUnavailable,
  transaction,
} from '../../db/port.js';
import { throttled, type Throttled } from '../../log.js';
import { timers } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import { clockOf, nowIso } from '../clock.js';
import { TIMER_HANDLERS } from './timerKinds.js';
import { onArmed, type TimerKind, type TimerRow } from './timers.js';

// The timer worker (SPEC D2, decision 069). It claims due timers as the delivery worker claims
// outbox rows (SPEC D1, decision 059): one statement marks a batch as this worker's until its
// lease ends (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so two processes take different rows),
// and fires each in a unit of work of its ticket: the ticket locked, the timer marked fired only
// while it is still due and unfired for the cycle it was claimed in, then its kind's handler
// writes its entry. So each fires once per cycle: a second process, a restart, a lease that ran
// out mid-batch all find it fired. A crash before the commit leaves it unfired, and it fires
// again after the lease ends (a minute) — or at once at the next start, marked late when it fell
// due before that start.
//
// Due times are read on the store's clock (business time, decision 047); leases on the real
// time, as the outbox's: a test clock standing still must not keep a dead worker's claims, nor
// one set forwards end a live worker's. The worker sleeps until the next due time it knows of
// (at most IDLE_WAIT_MS), and wakes when this process arms a timer, on the store's change signal
// (a committed change of any ticket, in any process) and on the 'timers' broadcast (the test
// clock set, a scrip enabled): an idle server looks at the timers at most once a second.

/** How long a claim on a batch lasts by default (real time; TIMER_LEASE_MS); a batch fires in far less. */
export const TIMER_LEASE_MS = 10_000;
/** A timer that fell due more than this before the worker started fired late (no process was running). */
export const TIMER_LATE_MS = 2_000;
/** The longest the worker sleeps without a look (a lost signal, another process's lease that ended). */
const IDLE_WAIT_MS = 30_000;
/** The shortest time between two looks that found nothing to claim (due timers another process holds). */
const MIN_LOOK_MS = 1_000;
const BATCH = 200;
/** The broadcast that wakes every process's timer worker. */
export const TIMERS_SIGNAL = 'timers';

const iso = (ms: number) => new Date(ms).toISOString();
// real time: the claims' leases (decision 069, as the outbox's: decision 047).
const realNow = () => Date.now();

const dueQuery = (db: Db) =>
  db
    .select({ id: timers.id })
    .from(timers)
    .where(
      and(
        isNull(timers.fired_at),
        lte(timers.due_at, sql.placeholder('now')),
        sql`coalesce(${timers.claimed_until}, '') < ${sql.placeholder('real')}`,
      ),
    )
    .orderBy(asc(timers.due_at), asc(timers.id))
    .limit(sql.placeholder('limit'));
const lookDue = prepared(dueQuery);
const claimDue = prepared((db) =>
  db
    .update(timers)
    .set({ claimed_by: sql`${sql.placeholder('owner')}`, claimed_until: sql`${sql.placeholder('until')}` })
    .where(inArray(timers.id, claimRows(db, dueQuery(db))))
    .returning(),
);
const nextDue = prepared((db) =>
  db
    .select({ at: sql<string | null>`min(${timers.due_at})` })
    .from(timers)
    .where(isNull(timers.fired_at)),
);
const markFired = prepared((db) =>
  db
    .update(timers)
    .set({
      fired_at: sql`${sql.placeholder('now')}`,
      claimed_by: sql`NULL`,
      claimed_until: sql`NULL`,
    })
    .where(
      and(
        eq(timers.id, sql.placeholder('id')),
        isNull(timers.fired_at),
        eq(timers.cycle, sql.placeholder('cycle')),
        lte(timers.due_at, sql.placeholder('now')),
      ),
    ),
);
const release = prepared((db) =>
  db
    .update(timers)
    .set({ claimed_by: sql`NULL`, claimed_until: sql`NULL` })
    .where(and(eq(timers.id, sql.placeholder('id')), eq(timers.claimed_by, sql.placeholder('owner')))),
);

export interface TimerWorker {
  /** One pass now: claims and fires every due timer (tests may await it); how many fired. */
  runDue(): Promise<number>;
  /** Look again soon (the clock moved, timers were armed outside a ticket change). */
  wake(): void;
  stop(): Promise<void>;
}

export interface TimerWorkerOptions {
  /** The app's settings' notify part (read when a timer first fires). */
  notify: () => Promise<NotifySettings>;
  /** How long a claim lasts (TIMER_LEASE_MS): a dead process's claimed timers fire that long after it died. */
  leaseMs?: number;
  log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** The worker's own failures, each cause at most once per 10 s (decision 042); `log` when not given. */
  say?: Throttled;
  /** Before each pass (the test clock of several processes reads the store's time). */
  beforePass?: () => Promise<void>;
}

/** Fires one claimed timer in a unit of work of its ticket; whether it fired (false: fired already, re-armed, gone). */
async function fire(db: Db, t: TimerRow, opts: TimerWorkerOptions, startedAt: number): Promise<boolean> {
  const handler = TIMER_HANDLERS[t.kind as TimerKind];
  return await transaction(
    db,
    async (tx) => {
      const ticket = await lockAndReadTicket(tx, t.ticket_id);
      if (!ticket) return false;
      const now = nowIso(tx);
      // Still due, unfired, and of the cycle it was claimed in: marked fired with what it does.
      if (changes(await markFired(tx).run({ id: t.id, cycle: t.cycle, now })) === 0) return false;
      if (!handler) {
        opts.log('warn', 'timers: no handler for this kind of timer; marked fired', { id: t.id, kind: t.kind });
        return true;
      }
      const late = Date.parse(t.due_at) < startedAt - TIMER_LATE_MS;
      await handler({ tx, timer: t, ticket, now, late, notify: await opts.notify() });
      return true;
    },
    { op: `timer.${t.kind}` },
  );
}

export function startTimerWorker(db: Db, opts: TimerWorkerOptions): TimerWorker {
  const self = `${hostname()}:${process.pid}:${randomUUID()}`;
  const leaseMs = opts.leaseMs ?? TIMER_LEASE_MS;
  const clock = clockOf(db);
  // What was due before this instant (by the store's clock) fell due while no process of ours ran.
  const startedAt = clock.now();
  // Several tickets' timers at once, each its own unit of work: on PostgreSQL on several
  // connections; on SQLite (one writer) they share a group commit (decision 013).
  const parallel = dialectOf(db) === 'postgres' ? 4 : 8;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeAt = Number.POSITIVE_INFINITY;
  let running: Promise<number> | null = null;
  let again = false;
  let lastEmptyLook = 0;

  async function pass(): Promise<number> {
    await opts.beforePass?.();
    let fired = 0;
    for (;;) {
      const real = realNow();
      const params = { now: nowIso(db), real: iso(real), limit: BATCH, owner: self, until: iso(real + leaseMs) };
      // Most looks find nothing due: look before taking the write lock.
      if ((await lookDue(db).all(params)).length === 0) break;
      const batch = await transaction(db, async (tx) => await claimDue(tx).all(params), { op: 'timer.claim' });
      if (batch.length === 0) break;
      batch.sort((a, b) => (a.due_at < b.due_at ? -1 : a.due_at > b.due_at ? 1 : a.id - b.id));
      let next = 0;
      const lane = async () => {
        while (next < batch.length && !stopped) {
          const t = batch[next++];
          try {
            if (await fire(db, t, opts, startedAt)) fired++;
          } catch (e) {
            // Left claimed: it is due again when the lease ends (and at once after a restart).
            opts.log('error', 'timers: a timer failed to fire; it is tried again when its claim ends', {
              id: t.id,
              kind: t.kind,
              ticket_id: t.ticket_id,
              error: errorMessage(e),
            });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, batch.length) }, lane));
      // Stopping: what this batch did not reach is let go at once (not at the lease's end).
      for (const t of batch.slice(next)) await release(db).run({ id: t.id, owner: self });
      if (stopped || batch.length < BATCH) break;
    }
    return fired;
  }

  /** A pass or a plan that failed: said once per cause per 10 s (a full disk, a lost database). */
  const say = opts.say ?? throttled(opts.log);
  function failed(e: unknown): void {
    const storage = storageUnavailable(db, e);
    say(
      `timers:${storage?.storage ?? errorMessage(e)}`,
      'error',
      storage ? `timers: ${storage.message}; trying again` : 'timers: worker error',
      {
        error: errorMessage(e),
      },
    );
  }

  function schedule(at: number): void {
    if (stopped || at >= wakeAt) return;
    clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(
      () => {
        wakeAt = Number.POSITIVE_INFINITY;
        void tick();
      },
      Math.max(0, at - realNow()),
    );
    timer.unref();
  }

  /** After a pass: sleep until the next due time (on the store's clock), at most IDLE_WAIT_MS. */
  async function plan(firedNone: boolean): Promise<void> {
    const due = (await nextDue(db).get())?.at ?? null;
    const real = realNow();
    if (firedNone) lastEmptyLook = real;
    let wait = IDLE_WAIT_MS;
    if (due !== null) wait = Math.min(wait, Math.max(0, Date.parse(due) - clock.now()));
    // Due timers that another process holds (or that failed): looked at again no sooner than a second.
    if (firedNone && wait < MIN_LOOK_MS) wait = MIN_LOOK_MS;
    schedule(real + wait);
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    let fired = 0;
    running = pass();
    try {
      fired = await running;
    } catch (e) {
      failed(e);
    } finally {
      running = null;
    }
    if (stopped) return;
    if (again) {
      again = false;
      return void tick();
    }
    await plan(fired === 0).catch((e) => {
      failed(e);
      schedule(realNow() + IDLE_WAIT_MS);
    });
  }

  /** A look soon, but no sooner than a second after a look that found nothing. */
  const soon = () => schedule(Math.max(realNow() + 20, lastEmptyLook + MIN_LOOK_MS));

  // This process armed a timer: once its unit of work commits (a moment), look again if it is due
  // before the worker would wake anyway.
  onArmed(db.store, (dueAt) => {
    const at = Date.parse(dueAt) - clock.now() + realNow();
    if (at < wakeAt) schedule(Math.max(at, realNow() + 50));
  });
  const unlisten = listenStore(db, (s) => {
    if (s.kind === 'log' || (s.kind === 'message' && s.payload === TIMERS_SIGNAL)) soon();
  });

  void tick();
  return {
    async runDue() {
      while (running) await running.catch(() => 0);
      running = pass();
      try {
        return await running;
      } finally {
        running = null;
        void plan(false).catch(() => {});
      }
    },
    wake: () => schedule(realNow()),
    async stop() {
      stopped = true;
      unlisten();
      clearTimeout(timer);
      await running?.catch(() => 0);
    },
  };
}

/** Wakes the timer workers of every process of the store (after a commit that armed timers without a ticket change). */
export async function wakeTimerWorkers(db: Db): Promise<void> {
  await broadcast(db, TIMERS_SIGNAL);
}
