import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageUnavailable, transaction } from '../src/db/port.js';
import { testClock } from '../src/domain/clock.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';
import { signPortalToken } from '../src/scrips/portalLinks.js';
import { portalSecretOf } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';

// Decision 065: a store is an object handed to its app, and every handle it gives out carries it
// (`conn.store`); nothing about a store lives in a process-global. So two apps in one process,
// each on its own store — one SQLite file and one PostgreSQL database, or two SQLite files —
// each read their own driver's errors (a duplicate name is 409 naming the field on each: before,
// the store opened last read every store's errors, and a SQLite duplicate next to a PostgreSQL
// store was a 500), keep their own clock and portal link key, and their own prepared statements,
// lists and units of work.

const A_TIME = '2031-05-01T08:00:00.000Z';
const B_TIME = '2033-09-09T17:30:00.000Z';

const pairs: { name: string; second: () => Promise<Record<string, string>>; pg: boolean }[] = [
  {
    name: 'a SQLite file and a PostgreSQL database',
    second: async () => ({ DATABASE_URL: await createMigratedDatabase() }),
    pg: true,
  },
  { name: 'two SQLite files', second: async () => ({}), pg: false },
];

for (const pair of pairs) {
  describe.skipIf(pair.pg && !pgAvailable())(`two servers in one process on ${pair.name}`, () => {
    const clockA = testClock(A_TIME);
    const clockB = testClock(B_TIME);
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      // The SQLite one first: the PostgreSQL store, opened last, was the one every error went to.
      a = await startServer({}, { clock: clockA });
      b = await startServer(await pair.second(), { clock: clockB });
      expect(a.store).not.toBe(b.store);
      expect(a.store.dialect).toBe('sqlite');
      expect(b.store.dialect).toBe(pair.pg ? 'postgres' : 'sqlite');
    }, 120_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
      if (pair.pg) await releasePostgres();
    });

    it('a duplicate name is 409 naming the field on each, whichever store was opened last', async () => {
      // The same names on both: each store has its own rows, and its own unique indexes refuse the second.
      for (const s of [a, b]) {
        expect((await s.api('POST', '/teams', { body: { name: 'Tier 2' } })).status).toBe(201);
        const again = await s.api('POST', '/teams', { body: { name: 'TIER 2' } });
        expect(again.status, again.text).toBe(409);
        expect(again.body.error.code).toBe('conflict');
        expect(again.body.error.details?.[0]?.path).toBe('name');
      }
      for (const s of [a, b]) {
        const body = { email: 'twice@example.com', name: 'Once', role: 'agent' };
        expect((await s.api('POST', '/users', { body })).status).toBe(201);
        const again = await s.api('POST', '/users', { body: { ...body, name: 'Twice' } });
        expect(again.status, again.text).toBe(409);
        expect(again.body.error.details?.[0]?.path).toBe('email');
      }
    });

    it("each reads its own driver's errors: a storage failure of one is not the other's", async () => {
      const full = new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
      expect(storageUnavailable(a.db, full)?.storage).toBe('disk_full');
      if (pair.pg) expect(storageUnavailable(b.db, full)).toBeUndefined();
      else expect(storageUnavailable(b.db, full)?.storage).toBe('disk_full');
      // A failure already read stays what it is, whoever asks.
      const read = storageUnavailable(a.db, full)!;
      expect(storageUnavailable(b.db, read)).toBe(read);
    });

    it('the test clock set on one does not move the other', async () => {
      const one = await a.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Stamped by clock A' } });
      const two = await b.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Stamped by clock B' } });
      expect(one.body.ticket.created_at).toBe(new Date(clockA.now()).toISOString());
      expect(two.body.ticket.created_at).toBe(new Date(clockB.now()).toISOString());

      clockA.advance(3_600_000);
      const later = await a.api('PATCH', `/tickets/${one.body.ticket.id}`, { body: { priority: 30 } });
      expect(later.body.ticket.updated_at).toBe('2031-05-01T09:00:00.000Z');
      const still = await b.api('PATCH', `/tickets/${two.body.ticket.id}`, { body: { priority: 30 } });
      expect(still.body.ticket.updated_at).toBe(B_TIME);
    });

    it('each signs and checks portal links with its own key (kept per store)', async () => {
      const [keyA, keyB] = [await portalSecretOf(a), await portalSecretOf(b)];
      expect(keyA).not.toBe(keyB);
      for (const [s, clock, own, other] of [
        [a, clockA, keyA, keyB],
        [b, clockB, keyB, keyA],
      ] as const) {
        const requester = await s.user('requester');
        const created = await s.api('POST', '/tickets', {
          body: { queue_id: 1, subject: 'Through the portal', requesters: [requester.id] },
        });
        expect(created.status, created.text).toBe(201);
        const claims = {
          ticketId: created.body.ticket.id,
          userId: requester.id,
          epoch: 0,
          expires: Math.floor(clock.now() / 1000) + 3600,
        };
        const open = (key: string) => s.api('GET', `/portal/${signPortalToken(claims, key)}`, { token: null });
        expect((await open(own)).status).toBe(200);
        expect((await open(other)).status).toBe(403);
      }
    });

    it('each answers from its own store: lists, prepared reads and units of work do not cross', async () => {
      await a.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Only on store A' } });
      await b.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Only on store B' } });
      const subjects = async (s: TestServer) =>
        ((await s.api('GET', '/tickets?q=Only on store')).body.tickets as { subject: string }[]).map((t) => t.subject);
      expect(await subjects(a)).toEqual(['Only on store A']);
      expect(await subjects(b)).toEqual(['Only on store B']);
      // A unit of work runs on the store of the handle it is given, and hands out a handle of that store.
      const [ta, tb] = await Promise.all([
        transaction(a.db, async (tx) => tx.store),
        transaction(b.db, async (tx) => tx.store),
      ]);
      expect(ta).toBe(a.store);
      expect(tb).toBe(b.store);
    });
  });
}
