import { DrizzleQueryError, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/port.js';
import { fastExecute, rowsOf } from '../src/db/postgres/rows.js';
import { sqlState } from '../src/db/postgres/storage.js';
import { customFields, ticketCustomValues, tickets } from '../src/db/tables.js';
import { closeDb, openStore, poolOf } from '../src/db/store.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';

// Decision 097: on PostgreSQL, compiled queries and a list's page map their rows with a function
// made once for their columns (src/db/postgres/rows.ts) instead of drizzle's mapper. The rows
// must be what drizzle gives (booleans, integers, nulls, `sql` expressions with and without
// `.mapWith`, joined columns), and a failing statement the error drizzle throws.

let db: Db;
describe.skipIf(!pgAvailable())('rows of a PostgreSQL query (fastExecute)', () => {
  beforeAll(async () => {
    db = (await openStore({ DATABASE_URL: await createMigratedDatabase(), dbPath: '' })).db;
    const pool = poolOf(db);
    const now = `'2026-11-28T10:00:00.000Z'`;
    await pool.query(
      `INSERT INTO users (email, name, role, created_at, updated_at) VALUES ('a@example.com', 'A', 'agent', ${now}, ${now})`,
    );
    await pool.query(`INSERT INTO queues (name, created_at, updated_at) VALUES ('Q', ${now}, ${now})`);
    await pool.query(`INSERT INTO tickets (queue_id, subject, status, owner_id, priority, created_at, updated_at, replied_while_snoozed)
      VALUES (1, 'One ✓', 'new', NULL, 0, ${now}, ${now}, false), (1, 'Two', 'open', 1, 3, ${now}, ${now}, true)`);
    await pool.query(
      `INSERT INTO custom_fields (key, name, type, created_at, updated_at) VALUES ('seats', 'Seats', 'number', ${now}, ${now})`,
    );
    await pool.query(`INSERT INTO ticket_custom_values (ticket_id, field_id, value) VALUES (1, 1, '12'), (2, 1, '7')`);
  });
  afterAll(async () => {
    if (db) await closeDb(db);
    await releasePostgres();
  });

  const h = () => db;
  const cases = {
    'every ticket column (booleans, integers, nulls)': () => h().select().from(tickets).orderBy(tickets.id),
    'sql expressions, with and without mapWith': () =>
      h()
        .select({
          id: tickets.id,
          n: sql<number>`${tickets.id} * 2`,
          count: sql<number>`count(*) over ()`.mapWith(Number),
          s: sql`${tickets.subject}`.mapWith(String),
          sid: sql`${tickets.id}`.mapWith(String),
          b: sql<boolean>`${tickets.replied_while_snoozed}`.mapWith(Boolean),
          none: sql<null>`NULL`,
        })
        .from(tickets)
        .orderBy(tickets.id),
    'a join with flat fields': () =>
      h()
        .select({ ticket_id: ticketCustomValues.ticket_id, key: customFields.key, value: ticketCustomValues.value })
        .from(ticketCustomValues)
        .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
        .orderBy(ticketCustomValues.ticket_id),
    'a nested selection (drizzle’s own mapping)': () =>
      h()
        .select({ t: { id: tickets.id, subject: tickets.subject }, owner: tickets.owner_id })
        .from(tickets)
        .orderBy(tickets.id),
  };
  for (const [name, build] of Object.entries(cases)) {
    it(`${name}: the same rows as drizzle's own mapping`, async () => {
      const mine = await rowsOf(build() as PromiseLike<unknown[]>);
      expect(mine).toEqual(await build());
      expect(mine).toHaveLength(2);
    });
  }

  it('the rows carry the decoded types (a boolean is a boolean, a number a number, a missing value null)', async () => {
    const rows = (await rowsOf(h().select().from(tickets).orderBy(tickets.id))) as {
      replied_while_snoozed: unknown;
      owner_id: unknown;
      priority: unknown;
    }[];
    expect(rows.map((r) => [r.replied_while_snoozed, r.owner_id, r.priority])).toEqual([
      [false, null, 0],
      [true, 1, 3],
    ]);
  });

  it('a placeholder is filled with each run’s value', async () => {
    const run = fastExecute(
      h()
        .select({ id: tickets.id, subject: tickets.subject })
        .from(tickets)
        .where(eq(tickets.id, sql.placeholder('id')))
        // On PostgreSQL at run time: drizzle's pg prepare, which takes the statement's name.
        .prepare(...(['pg_rows_by_id'] as unknown as [])) as never,
    );
    expect(await run({ id: 2 })).toEqual([{ id: 2, subject: 'Two' }]);
    expect(await run({ id: 1 })).toEqual([{ id: 1, subject: 'One ✓' }]);
  });

  it('a failing statement throws what drizzle throws: the driver’s error, with its SQLSTATE, as the cause', async () => {
    const q = h()
      .select({ n: sql<number>`(${tickets.subject})::int` })
      .from(tickets);
    const own = await q.then(
      () => undefined,
      (e: unknown) => e,
    );
    const mine = await rowsOf(q).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(own).toBeInstanceOf(DrizzleQueryError);
    expect(mine).toBeInstanceOf(DrizzleQueryError);
    expect(sqlState(mine)).toBe('22P02');
    expect(sqlState(mine)).toBe(sqlState(own));
    expect((mine as Error).message).toBe((own as Error).message);
  });
});
