import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStore, first, lockName, lockTicket, transaction, type Db } from '../src/db/port.js';
import { loginThrottle, queues, tickets } from '../src/db/tables.js';
import { openPostgres, sqlState } from '../src/db/postgres/store.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';

// Units of work of the PostgreSQL store with several stores on one database, as several
// processes have (decisions 030, 058): each store is its own pool, and units of work run side by
// side under READ COMMITTED. One that asks for SERIALIZABLE runs as if alone and runs again when
// the database reports a conflict; a ticket's lock (lockTicket) and a named lock (lockName) make
// READ COMMITTED ones take turns; a statement that failed inside one fails it even when the
// caller caught the error. The table is login_throttle used as a plain counter (read, then write
// what was read plus one), and tickets for the row lock.

describe.skipIf(!pgAvailable())('units of work of several PostgreSQL stores on one database', () => {
  let one: Db;
  let two: Db;
  beforeAll(async () => {
    const url = await createMigratedDatabase();
    [one, two] = (await Promise.all([openPostgres(url, { max: 4 }), openPostgres(url, { max: 4 })])).map((s) => s.db);
  }, 120_000);
  afterAll(async () => {
    if (one) await closeStore(one);
    if (two) await closeStore(two);
    await releasePostgres();
  });

  const read = async (key: string) =>
    (await first(one.select().from(loginThrottle).where(eq(loginThrottle.key, key))))?.failures;

  it('read-then-write from two stores at once loses no increment when SERIALIZABLE', async () => {
    const now = new Date().toISOString();
    await transaction(one, (tx) =>
      tx.insert(loginThrottle).values({ key: 'counter', failures: 0, window_start: now, window_end: now }),
    );
    const increment = (db: Db) =>
      transaction(
        db,
        async (tx) => {
          const row = await first(tx.select().from(loginThrottle).where(eq(loginThrottle.key, 'counter')));
          // What was read, plus one: two interleaved units of work would both write the same number.
          await tx
            .update(loginThrottle)
            .set({ failures: row!.failures + 1 })
            .where(eq(loginThrottle.key, 'counter'));
        },
        { serializable: true },
      );
    // Two at a time, one from each store: the one that loses runs again (a hot row under
    // SERIALIZABLE with many at once is what the row locks are for).
    for (let i = 0; i < 30; i++) await Promise.all([increment(one), increment(two)]);
    expect(await read('counter')).toBe(60);
  }, 60_000);

  it("read-then-write of a ticket under READ COMMITTED loses no change once the ticket's row is locked first", async () => {
    const now = new Date().toISOString();
    const [queue] = await transaction(one, (tx) =>
      tx.insert(queues).values({ name: 'Locks', created_at: now, updated_at: now }).returning(),
    );
    const [ticket] = await transaction(one, (tx) =>
      tx
        .insert(tickets)
        .values({
          queue_id: queue.id,
          subject: 'Counter',
          status: 'new',
          priority: 0,
          created_at: now,
          updated_at: now,
        })
        .returning(),
    );
    const bump = (db: Db) =>
      transaction(db, async (tx) => {
        await lockTicket(tx, ticket.id);
        const row = await first(tx.select().from(tickets).where(eq(tickets.id, ticket.id)));
        await tx
          .update(tickets)
          .set({ priority: row!.priority + 1 })
          .where(eq(tickets.id, ticket.id));
      });
    await Promise.all(Array.from({ length: 60 }, (_, i) => bump(i % 2 === 0 ? one : two)));
    expect((await first(one.select().from(tickets).where(eq(tickets.id, ticket.id))))!.priority).toBe(60);
  }, 60_000);

  it('check-then-insert from two stores at once inserts once and answers both, under a named lock', async () => {
    const ensure = (db: Db, key: string) =>
      transaction(db, async (tx) => {
        await lockName(tx, key);
        const found = await first(tx.select().from(loginThrottle).where(eq(loginThrottle.key, key)));
        if (found) return 'found';
        const now = new Date().toISOString();
        await tx.insert(loginThrottle).values({ key, failures: 1, window_start: now, window_end: now });
        return 'inserted';
      });
    for (let i = 0; i < 10; i++) {
      const answers = await Promise.all([ensure(one, `once-${i}`), ensure(two, `once-${i}`)]);
      expect(answers.sort()).toEqual(['found', 'inserted']);
    }
  }, 60_000);

  it('a failed statement the unit of work caught fails it, instead of a COMMIT that silently rolls back', async () => {
    const now = new Date().toISOString();
    const attempt = transaction(one, async (tx) => {
      // Division by zero: PostgreSQL aborts the transaction; SQLite would have gone on.
      await tx
        .select({ id: tickets.id })
        .from(tickets)
        .where(sql`1 / 0 = 1`)
        .catch(() => 'caught');
      await tx
        .insert(loginThrottle)
        .values({ key: 'after-a-failure', failures: 1, window_start: now, window_end: now })
        .catch(() => 'caught too');
      return 'done';
    });
    const error = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(sqlState(error)).toBe('22012');
    expect(await read('after-a-failure')).toBeUndefined();
  });
});
