import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { type Db, first, one, transaction, type Tx } from '../db/port.js';
import { loginThrottle } from '../db/tables.js';
import { nowMs } from './clock.js';

// Sign-in brakes kept in the database (SPEC C6, docs/decisions/028): every process serving the
// store counts in the same row, and a lockout outlives a restart. The rules are the ones the
// routes had with rate-limiter-flexible's in-memory limiter: a fixed window starts at the first
// counted attempt and lasts `windowSec`; every attempt in it is counted (also those refused);
// more than `limit` of them and the key is refused until the window ends; an attempt after the
// end starts a new window. A success clears the key.

/** The keys the routes count under. */
export const throttleKey = {
  /** Every sign-in attempt from one client address. */
  ip: (address: string) => `ip:${address}`,
  /** Sign-in attempts at one account (the e-mail as normalizeEmail gives it; unknown accounts too). */
  login: (email: string) => `login:${email}`,
  /** Guesses at the current password through a signed-in session (settings). */
  password: (userId: number) => `password:${userId}`,
  /** Replies one person sent through the portal (decision 041). */
  portalMessages: (userId: number) => `portal:${userId}`,
  /** Bytes of files one person sent through the portal (decision 041): `failures` holds bytes. */
  portalBytes: (userId: number) => `portal-bytes:${userId}`,
  /** Password-reset requests for one address (normalized; unknown addresses too; decision 056). */
  resetAddress: (email: string) => `reset:${email}`,
  /** Password-reset requests from one client address (decision 056). */
  resetClient: (address: string) => `reset-ip:${address}`,
};

export interface Attempt {
  /** Whether the attempt may go ahead (it was within the limit). */
  allowed: boolean;
  /** Attempts counted in the window so far, this one included. */
  count: number;
  /** Seconds until the window ends (at least 1). */
  retryAfterSec: number;
}

/** How many expired rows one sweep removes at most (the sweep runs when a new window starts). */
const SWEEP_BATCH = 100;

/**
 * Counts one attempt under `key` and says whether it is within `limit` for the current window.
 * One atomic upsert: concurrent attempts, from any number of processes, each get their own count.
 */
export async function countAttempt(
  db: Db,
  key: string,
  limit: number,
  windowSec: number,
  now = nowMs(db),
): Promise<Attempt> {
  const at = new Date(now).toISOString();
  const end = new Date(now + windowSec * 1000).toISOString();
  const t = loginThrottle;
  const over = sql`${t.window_end} <= ${at}`;
  const row = await transaction(db, (tx) =>
    one(
      tx
        .insert(t)
        .values({ key, failures: 1, window_start: at, window_end: end })
        .onConflictDoUpdate({
          target: t.key,
          set: {
            failures: sql`CASE WHEN ${over} THEN 1 ELSE ${t.failures} + 1 END`,
            window_start: sql`CASE WHEN ${over} THEN ${at} ELSE ${t.window_start} END`,
            window_end: sql`CASE WHEN ${over} THEN ${end} ELSE ${t.window_end} END`,
          },
        })
        .returning({ failures: t.failures, window_end: t.window_end }),
    ),
  );
  // A new window (a first attempt, or the first after a window ended) is rare enough to pay for
  // a bounded sweep of rows whose windows ended; it runs after the count is committed, in its
  // own unit of work, and a sweep that loses a race with another process's is simply skipped.
  if (row.failures === 1) await sweepExpired(db, at).catch(() => {});
  return {
    allowed: row.failures <= limit,
    count: row.failures,
    retryAfterSec: Math.max(1, Math.ceil((Date.parse(row.window_end) - now) / 1000)),
  };
}

/** How `key` stands now, without counting anything (undefined: no attempts in a current window). */
export async function checkThrottle(
  db: Db,
  key: string,
  now = nowMs(db),
): Promise<{ count: number; windowEnd: string } | undefined> {
  const row = await first(
    db
      .select()
      .from(loginThrottle)
      .where(and(eq(loginThrottle.key, key), gt(loginThrottle.window_end, new Date(now).toISOString()))),
  );
  return row && { count: row.failures, windowEnd: row.window_end };
}

/** Forgets the attempts counted under these keys (a success, or an administrator's reset). */
export async function clearThrottle(db: Db, ...keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const gone = await transaction(db, (tx) =>
    tx.delete(loginThrottle).where(inArray(loginThrottle.key, keys)).returning({ key: loginThrottle.key }),
  );
  return gone.length;
}

export interface Allowance {
  /** Whether `amount` fitted in what was left (it is then spent). */
  allowed: boolean;
  /** What is spent in the window now (this amount included when allowed). */
  used: number;
  /** Seconds until the window ends (at least 1). */
  retryAfterSec: number;
  /** This spend began a window: a sweep of ended ones is due after the commit (sweepThrottle). */
  newWindow: boolean;
}

/**
 * Spends `amount` of the `limit` allowed under `key` per window of `windowSec`, inside the
 * caller's unit of work (decision 041). Unlike countAttempt, what does not fit is not counted:
 * the row is read and locked with one upsert (which also starts a new window when the last one
 * ended), and written only when `amount` fits. Its lock is held to the caller's commit, so
 * spenders in any number of processes queue for the row and each sees what the others spent;
 * a caller that refuses throws, and its rollback takes the upsert back too.
 */
export async function spendAllowance(
  tx: Tx,
  key: string,
  amount: number,
  limit: number,
  windowSec: number,
  now = nowMs(tx),
): Promise<Allowance> {
  const at = new Date(now).toISOString();
  const end = new Date(now + windowSec * 1000).toISOString();
  const t = loginThrottle;
  const over = sql`${t.window_end} <= ${at}`;
  const row = await one(
    tx
      .insert(t)
      .values({ key, failures: 0, window_start: at, window_end: end })
      .onConflictDoUpdate({
        target: t.key,
        set: {
          failures: sql`CASE WHEN ${over} THEN 0 ELSE ${t.failures} END`,
          window_start: sql`CASE WHEN ${over} THEN ${at} ELSE ${t.window_start} END`,
          window_end: sql`CASE WHEN ${over} THEN ${end} ELSE ${t.window_end} END`,
        },
      })
      .returning({ used: t.failures, window_start: t.window_start, window_end: t.window_end }),
  );
  const allowed = row.used + amount <= limit;
  // Computed here, not in SQL: a sum past the column's 32 bits is never written, nor computed there.
  if (allowed && amount > 0)
    await tx
      .update(t)
      .set({ failures: row.used + amount })
      .where(eq(t.key, key));
  return {
    allowed,
    used: allowed ? row.used + amount : row.used,
    retryAfterSec: Math.max(1, Math.ceil((Date.parse(row.window_end) - now) / 1000)),
    newWindow: row.window_start === at,
  };
}

/** A sweep of ended windows after a unit of work that began one (spendAllowance's newWindow); best-effort. */
export async function sweepThrottle(db: Db, now = nowMs(db)): Promise<void> {
  await sweepExpired(db, new Date(now).toISOString()).catch(() => {});
}

/** Removes up to SWEEP_BATCH rows whose windows ended by `at`. */
async function sweepExpired(db: Db, at: string): Promise<void> {
  await transaction(db, (tx) =>
    tx
      .delete(loginThrottle)
      .where(
        inArray(
          loginThrottle.key,
          tx
            .select({ key: loginThrottle.key })
            .from(loginThrottle)
            .where(lte(loginThrottle.window_end, at))
            .limit(SWEEP_BATCH),
        ),
      ),
  );
}
