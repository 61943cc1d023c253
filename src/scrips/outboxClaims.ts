import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { claimRows, type Conn, type Db, type Prepared, prepared, type RowOf, transaction } from '../db/port.js';
import { outbox } from '../db/tables.js';
import { nowIso } from '../domain/clock.js';
import type { OutboxRow } from './outbox.js';

// The delivery worker's claims on outbox rows (SPEC D1, decision 059). A worker claims due rows
// in one statement: they become `sending`, the attempt counted, `claimed_by` the worker and
// `claimed_until` the end of its lease. While it holds them it renews the lease; a row whose
// lease ended (its claimer died, or stalled past it) is due again and the next claim by any
// worker takes it over. Sent, failed and released rows drop the claim.
//
// Leases run on the real time, as the rest of the delivery schedule does (decision 047): a test
// clock set forwards must not end a live worker's leases, nor one standing still keep a dead
// worker's mail. Every function takes `now` (milliseconds) so a test can say which instant it means.

/** How long a claim lasts unless renewed (OUTBOX_LEASE_MS). */
export const DEFAULT_LEASE_MS = 120_000;

/**
 * What a row taken over from a claimer whose lease ended says until its attempt ends (the admin's
 * outbox view): the attempt before was cut short, and whether its mail reached the server is not known.
 */
export const TAKEN_OVER =
  'Tried again: the process delivering it stopped before recording the outcome (its claim ran out)';

const iso = (ms: number) => new Date(ms).toISOString();
// real time: the delivery schedule (decision 047).
const realNow = () => Date.now();

/** A query compiled once per database and per set of kinds (a worker always asks for the same ones). */
function forKinds<Q extends PromiseLike<unknown>>(
  build: (db: Db, kinds: OutboxRow['kind'][]) => Q,
): (conn: Conn, kinds: OutboxRow['kind'][]) => Prepared<RowOf<Q>> {
  const byKinds = new Map<string, (conn: Conn) => Prepared<RowOf<Q>>>();
  return (conn, kinds) => {
    const key = kinds.join(',');
    let q = byKinds.get(key);
    if (!q) byKinds.set(key, (q = prepared((db) => build(db, kinds))));
    return q(conn);
  };
}

/**
 * Rows due for an attempt: queued and due by `next_attempt_at`, or `sending` under a lease that
 * ended (no lease at all: a claim from before leases, taken for an ended one). Each branch is
 * read through `outbox_due_idx` (status, kind, next_attempt_at); `sending` rows are few (the
 * batches in flight), so the lease is checked on the rows that index finds.
 */
const dueQuery = (db: Db, kinds: OutboxRow['kind'][]) =>
  db
    .select({ id: outbox.id })
    .from(outbox)
    .where(
      or(
        and(
          eq(outbox.status, 'queued'),
          inArray(outbox.kind, kinds),
          lte(outbox.next_attempt_at, sql.placeholder('now')),
        ),
        and(
          eq(outbox.status, 'sending'),
          inArray(outbox.kind, kinds),
          lt(sql`coalesce(${outbox.claimed_until}, '')`, sql.placeholder('now')),
        ),
      ),
    )
    .orderBy(asc(outbox.next_attempt_at), asc(outbox.id))
    .limit(sql.placeholder('limit'));
// The worker looks after every write that answered (a kick): most looks find nothing due, and
// a look is a read, while a claim is a write (SQLite's one writer).
const dueIds = forKinds(dueQuery);

/**
 * The claim, one statement: `UPDATE outbox SET … WHERE id IN (SELECT … LIMIT n FOR UPDATE SKIP
 * LOCKED) RETURNING *` on PostgreSQL — a worker claiming at the same moment skips the rows this
 * one locked, and a row another claim changed meanwhile is checked again against the due
 * condition and left out (its new lease is alive) —; SQLite (one writer) the same without the
 * locking clause.
 */
export const claimQuery = (db: Db, kinds: OutboxRow['kind'][]) =>
  db
    .update(outbox)
    .set({
      status: 'sending',
      attempts: sql`${outbox.attempts} + 1`,
      claimed_by: sql`${sql.placeholder('owner')}`,
      claimed_until: sql`${sql.placeholder('until')}`,
      last_error: sql`CASE WHEN ${outbox.status} = 'sending' THEN ${TAKEN_OVER} ELSE ${outbox.last_error} END`,
    })
    .where(inArray(outbox.id, claimRows(db, dueQuery(db, kinds))))
    .returning();
const claimStatement = forKinds(claimQuery);

export interface ClaimOptions {
  /** The worker claiming (`claimed_by`). */
  owner: string;
  /** How long the claim lasts unless renewed. */
  leaseMs: number;
  /** The instant of the claim (ms; default: now, real time). */
  now?: number;
}

/**
 * Claims up to `limit` due rows of the given kinds for `owner` (see `claimQuery`): the longest
 * due, given in id order. Rows taken over from an ended lease carry `TAKEN_OVER` as their last error.
 */
export async function claimDue(
  db: Db,
  kinds: OutboxRow['kind'][],
  limit: number,
  opts: ClaimOptions,
): Promise<OutboxRow[]> {
  if (kinds.length === 0) return [];
  const now = opts.now ?? realNow();
  const params = { now: iso(now), limit, owner: opts.owner, until: iso(now + opts.leaseMs) };
  // Most kicks find nothing due: look first without taking the write lock.
  if ((await dueIds(db, kinds).all(params)).length === 0) return [];
  const rows = await transaction(db, async (tx) => await claimStatement(tx, kinds).all(params));
  return rows.sort((a, b) => a.id - b.id);
}

/**
 * Extends `owner`'s lease on rows it still holds to `now + leaseMs`; returns the ids still its
 * own (a row missing was taken over after the lease ended, or an admin put it back: not this
 * worker's to send any more).
 */
export async function renewClaims(db: Db, ids: number[], opts: ClaimOptions): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const until = iso((opts.now ?? realNow()) + opts.leaseMs);
  const rows = await transaction(db, (tx) =>
    tx
      .update(outbox)
      .set({ claimed_until: until })
      .where(and(inArray(outbox.id, ids), eq(outbox.status, 'sending'), eq(outbox.claimed_by, opts.owner)))
      .returning({ id: outbox.id }),
  );
  return new Set(rows.map((r) => r.id));
}

/** Puts claimed rows that were never attempted (the worker is stopping) back, attempt uncounted. */
export async function releaseClaimed(db: Db, ids: number[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await transaction(db, (tx) =>
    tx
      .update(outbox)
      .set({ status: 'queued', attempts: sql`${outbox.attempts} - 1`, claimed_by: null, claimed_until: null })
      .where(and(inArray(outbox.id, ids), eq(outbox.status, 'sending'), eq(outbox.claimed_by, owner))),
  );
}

/**
 * The row went out. `note`: what the admin should know about it (files that were no longer
 * there). Recorded whoever holds the row now: a mail the server accepted is sent.
 */
export async function markSent(db: Db, id: number, note: string | null = null): Promise<void> {
  await transaction(db, (tx) =>
    tx
      .update(outbox)
      .set({ status: 'sent', sent_at: nowIso(db), last_error: note, claimed_by: null, claimed_until: null })
      .where(eq(outbox.id, id)),
  );
}

/**
 * Records a failed attempt: back to the queue after an exponential backoff, or `failed` for
 * good. Only while the row is still this attempt's claim (`row.claimed_by`): a row another worker
 * took over (or an admin put back) is theirs, and this failure must not queue it again.
 */
export async function markFailed(
  db: Db,
  row: OutboxRow,
  error: string,
  opts: { maxAttempts: number; retryBaseMs: number; now?: number },
): Promise<void> {
  const final = row.attempts >= opts.maxAttempts;
  const delay = opts.retryBaseMs * 2 ** (row.attempts - 1);
  const now = opts.now ?? realNow();
  await transaction(db, (tx) =>
    tx
      .update(outbox)
      .set({
        status: final ? 'failed' : 'queued',
        last_error: error.slice(0, 1000),
        claimed_by: null,
        claimed_until: null,
        next_attempt_at: iso(final ? now : now + delay),
      })
      .where(
        and(
          eq(outbox.id, row.id),
          eq(outbox.status, 'sending'),
          row.claimed_by === null ? isNull(outbox.claimed_by) : eq(outbox.claimed_by, row.claimed_by),
        ),
      ),
  );
}

const firstDue = forKinds((db, kinds) =>
  db
    .select({ at: sql<string | null>`min(${outbox.next_attempt_at})` })
    .from(outbox)
    .where(and(eq(outbox.status, 'queued'), inArray(outbox.kind, kinds))),
);

/** When the next queued row falls due (a lease that ends is found by the worker's poll). */
export async function nextDueAt(db: Db, kinds: OutboxRow['kind'][]): Promise<string | null> {
  if (kinds.length === 0) return null;
  return (await firstDue(db, kinds).get())?.at ?? null;
}
