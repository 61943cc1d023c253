import { eq, sql } from 'drizzle-orm';
import { configTransaction } from '../../db/configCache.js';
import { type Db, lockName, prepared } from '../../db/port.js';
import { appSettings } from '../../db/tables.js';
import { type Actor, requireAdmin } from '../actor.js';
import { type Clock, useClock } from '../clock.js';
import { invalid } from '../errors.js';
import { wakeTimerWorkers } from './worker.js';

// SPEC D2's test clock (decision 071). With HXDESK_TEST_CLOCK=1 the store's clock (decision 047)
// is the instant kept in the store (app_settings `test_clock`), so every process of one database
// reads the same time, and a restart finds it where it was. Each process keeps the instant it
// read last and reads it again at the start of each request and before each timer pass; setting
// it (POST /test/clock, admins) writes the row, moves this process's clock at once and wakes
// every process's timer worker (the 'timers' broadcast), whose pass reads the row first.
// Until the first set the clock is the real time; the first set may name any instant (a test
// starts where its story starts), and from then on the clock only moves forwards.

/** The app_settings row that keeps the test clock's instant. */
export const TEST_CLOCK_SETTING = 'test_clock';

const readRow = prepared((db) =>
  db
    .select({ value: appSettings.value })
    .from(appSettings)
    .where(eq(appSettings.name, sql.placeholder('name'))),
);

/** The store's test clock: the kept instant, or the real time while none was set. */
class StoredClock implements Clock {
  at: number | null = null;
  now(): number {
    // real time: a test clock never set yet reads the real time (decision 071).
    return this.at ?? Date.now();
  }
}

const clocks = new WeakMap<object, StoredClock>();

async function storedInstant(db: Db): Promise<number | null> {
  const row = await readRow(db).get({ name: TEST_CLOCK_SETTING });
  return row ? Date.parse(row.value) : null;
}

/** HXDESK_TEST_CLOCK=1: the store's clock becomes the stored test clock (before its workers start). */
export async function useTestClock(db: Db): Promise<void> {
  const clock = new StoredClock();
  clock.at = await storedInstant(db);
  clocks.set(db.store, clock);
  useClock(db, clock);
}

/** Reads the stored instant again (another process may have set it); nothing without the test clock. */
export async function refreshTestClock(db: Db): Promise<void> {
  const clock = clocks.get(db.store);
  if (!clock) return;
  const at = await storedInstant(db);
  // Only forwards: a read that raced a set of this process never moves it back.
  if (at !== null && (clock.at === null || at > clock.at)) clock.at = at;
}

/** POST /test/clock: sets the time every process of the database reads (admins; forwards only). */
export async function setTestClock(db: Db, actor: Actor, now: string): Promise<{ now: string }> {
  requireAdmin(actor);
  const clock = clocks.get(db.store);
  if (!clock) throw new Error('The test clock is off (HXDESK_TEST_CLOCK)');
  const next = Date.parse(now);
  const iso = new Date(next).toISOString();
  await configTransaction(
    db,
    async (tx) => {
      await lockName(tx, TEST_CLOCK_SETTING); // two sets at once: the second reads the first's
      const row = await readRow(tx).get({ name: TEST_CLOCK_SETTING });
      if (row && next < Date.parse(row.value))
        throw invalid('now', `The test clock only moves forwards: it is ${row.value}, not ${iso}`);
      await tx
        .insert(appSettings)
        .values({ name: TEST_CLOCK_SETTING, value: iso, updated_at: iso })
        .onConflictDoUpdate({ target: appSettings.name, set: { value: iso, updated_at: iso } });
    },
    { op: 'testClock.set' },
  );
  if (clock.at === null || next > clock.at) clock.at = next;
  // Timers that fell due now fire within 2 s, in whichever process (each reads the row first).
  await wakeTimerWorkers(db);
  return { now: iso };
}
