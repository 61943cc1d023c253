import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, giveOut, type Store } from '../src/db/port.js';
import * as pgSchema from '../src/db/postgres/schema.js';
import { checkThrottle, clearThrottle, countAttempt } from '../src/domain/throttle.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';

// The sign-in brake's SQL (domain/throttle.ts, decision 028) on PostgreSQL: the upsert with
// CASE arithmetic, the bounded sweep and the delete, on a database made by the PostgreSQL
// migrations. The handle is a plain drizzle pool standing in for the PostgreSQL store (each
// statement on its own, which is what the upsert needs to be atomic): concurrent attempts
// through several connections each get their own count. Skipped without PostgreSQL binaries.

describe.skipIf(!pgAvailable())('login_throttle on PostgreSQL', () => {
  let pool: pg.Pool;
  let db: Db;
  // An idle connection the server ends (a session killed under the file) is a failure said here
  // with its message, not an unhandled 'error' event of the pool.
  const lost: string[] = [];
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await createMigratedDatabase(), max: 10 });
    pool.on('error', (e) => lost.push(e.message));
    // A stand-in store: every statement on its own (isTx: a transaction() call runs the function as it is).
    db = giveOut(
      { dialect: 'postgres', work: { isTx: () => true } } as unknown as Store,
      drizzle(pool, { schema: pgSchema }),
    );
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await releasePostgres();
    expect(lost).toEqual([]);
  });

  it('40 attempts at once through 10 connections: counts 1 to 40, the first 5 allowed', async () => {
    const r = await Promise.all(
      Array.from({ length: 40 }, () => countAttempt(db, 'login:someone@example.com', 5, 900)),
    );
    expect(r.map((x) => x.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(r.filter((x) => x.allowed)).toHaveLength(5);
    expect((await checkThrottle(db, 'login:someone@example.com'))?.count).toBe(40);
    expect(await clearThrottle(db, 'login:someone@example.com', 'login:nobody@example.com')).toBe(1);
    expect(await checkThrottle(db, 'login:someone@example.com')).toBeUndefined();
  });

  it('a new window after the old one ends; ended rows swept 100 at a time', async () => {
    const t0 = Date.parse('2031-01-01T00:00:00.000Z');
    for (let i = 1; i <= 3; i++)
      expect(await countAttempt(db, 'test:w', 2, 60, t0 + i)).toMatchObject({ allowed: i <= 2, count: i });
    expect(await countAttempt(db, 'test:w', 2, 60, t0 + 61_000)).toMatchObject({
      allowed: true,
      count: 1,
      retryAfterSec: 60,
    });
    await clearThrottle(db, 'test:w');
    for (let i = 0; i < 120; i++) await countAttempt(db, `test:old-${i}`, 5, 60, t0 + 62_000);
    const left = async () =>
      (await pool.query("SELECT count(*)::int AS n FROM login_throttle WHERE key LIKE 'test:old-%'")).rows[0].n;
    expect(await left()).toBe(120);
    await countAttempt(db, 'test:new', 5, 60, t0 + 300_000);
    expect(await left()).toBe(20);
  });
});
