import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeStore, type Db, transaction } from '../src/db/port.js';
import { openPostgres } from '../src/db/postgres/store.js';
import { outbox } from '../src/db/tables.js';
import { openDb, poolOf, sqliteOf } from '../src/db/store.js';
import {
  claimDue,
  claimQuery,
  markFailed,
  markSent,
  releaseClaimed,
  renewClaims,
  TAKEN_OVER,
} from '../src/scrips/outboxClaims.js';
import { holdBatch } from '../src/scrips/claimLease.js';
import { INTERRUPTED_TOO_OFTEN, startDelivery } from '../src/scrips/delivery.js';
import { createMigratedDatabase } from './helpers/postgres.js';
import { itOn, testStore } from './helpers/store.js';
import { waitUntil } from './helpers/wait.js';

// Outbox claims with a lease (SPEC D1, decision 059), on the store the project runs: one
// statement claims due rows — queued and due, or `sending` under a lease that ended — and marks
// them with the claimer and the end of its lease. Time is the instant each call is given (the
// delivery schedule runs on the real time, decision 047): the test moves it, never waits for it.

const pg = testStore() === 'postgres';
const T0 = Date.parse('2030-01-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const LEASE = 60_000;
const KINDS = ['webhook' as const];

let db: Db;
/** A second store on the same database (PostgreSQL: its own pool, as another process has). */
let other: Db;
let dir = '';

beforeAll(async () => {
  if (pg) {
    const url = await createMigratedDatabase();
    [db, other] = (await Promise.all([openPostgres(url, { max: 4 }), openPostgres(url, { max: 4 })])).map((s) => s.db);
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-claims-'));
    db = openDb(path.join(dir, 'hxdesk.db'));
    other = db;
  }
}, 60_000);
afterAll(async () => {
  if (db) await closeStore(db);
  if (pg && other) await closeStore(other);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await transaction(db, (tx) => tx.delete(outbox));
});

/** `n` webhook rows due at `due`; their ids. */
async function queue(n: number, due: number, status: 'queued' | 'sending' | 'sent' = 'queued'): Promise<number[]> {
  const rows = await transaction(db, (tx) =>
    tx
      .insert(outbox)
      .values(
        Array.from({ length: n }, (_, i) => ({
          kind: 'webhook' as const,
          recipient: `http://127.0.0.1:9/hook/${i}`,
          body: '{}',
          headers: '{}',
          status,
          next_attempt_at: iso(due),
          created_at: iso(due),
        })),
      )
      .returning({ id: outbox.id }),
  );
  return rows.map((r) => r.id);
}
const rowsOf = (ids: number[]) => db.select().from(outbox).where(inArray(outbox.id, ids)).orderBy(outbox.id);
const claim = (owner: string, now: number, limit = 50, on: Db = db) =>
  claimDue(on, KINDS, limit, { owner, leaseMs: LEASE, now });

/** The claim as the worker runs it, its SQL with the parameters filled in. */
function claimSql(values: { now: string; limit: number; owner: string; until: string }): {
  sql: string;
  params: unknown[];
} {
  const q = claimQuery(db, KINDS).toSQL();
  return {
    sql: q.sql,
    params: q.params.map((p) =>
      p && typeof p === 'object' && 'name' in p ? values[(p as { name: keyof typeof values }).name] : p,
    ),
  };
}

describe('a claim', () => {
  it('takes due rows once, oldest due first, up to its limit, and marks them with its claimer and lease', async () => {
    const later = await queue(2, T0 + 3_600_000);
    const older = await queue(2, T0 - 1000);
    const due = await queue(3, T0);
    const first = await claim('worker-a', T0 + 1, 4);
    expect(first.map((r) => r.id)).toEqual([...older, due[0], due[1]].sort((a, b) => a - b));
    for (const r of first)
      expect(r).toMatchObject({
        status: 'sending',
        attempts: 1,
        claimed_by: 'worker-a',
        claimed_until: iso(T0 + 1 + LEASE),
        last_error: null,
      });
    // The rest that is due, once; the row due in an hour stays queued.
    expect((await claim('worker-b', T0 + 2)).map((r) => r.id)).toEqual([due[2]]);
    expect(await claim('worker-c', T0 + 3)).toEqual([]);
    expect((await rowsOf(later)).map((r) => r.status)).toEqual(['queued', 'queued']);
  });

  it('skips rows whose lease is alive, and takes them over once it ended', async () => {
    const ids = await queue(3, T0);
    await claim('worker-a', T0);
    // One millisecond before the lease ends: still worker-a's.
    expect(await claim('worker-b', T0 + LEASE - 1)).toEqual([]);
    // At its end, too (taken only after it).
    expect(await claim('worker-b', T0 + LEASE)).toEqual([]);
    const taken = await claim('worker-b', T0 + LEASE + 1);
    expect(taken.map((r) => r.id)).toEqual(ids);
    for (const r of taken)
      expect(r).toMatchObject({
        status: 'sending',
        attempts: 2,
        claimed_by: 'worker-b',
        claimed_until: iso(T0 + LEASE + 1 + LEASE),
        last_error: TAKEN_OVER,
      });
    // The claimer that lost them can no longer renew, fail or release them…
    expect([...(await renewClaims(db, ids, { owner: 'worker-a', leaseMs: LEASE, now: T0 + LEASE + 2 }))]).toEqual([]);
    await markFailed(db, { ...taken[0], claimed_by: 'worker-a' }, 'connection refused', {
      maxAttempts: 8,
      retryBaseMs: 1000,
      now: T0 + LEASE + 2,
    });
    await releaseClaimed(db, ids, 'worker-a');
    expect((await rowsOf(ids)).map((r) => [r.status, r.claimed_by, r.last_error])).toEqual(
      ids.map(() => ['sending', 'worker-b', TAKEN_OVER]),
    );
    // … while their new claimer records the outcome: the claim is gone with it.
    await markSent(db, ids[0]);
    await markFailed(db, taken[1], 'connection refused', { maxAttempts: 8, retryBaseMs: 1000, now: T0 + LEASE + 3 });
    await releaseClaimed(db, [ids[2]], 'worker-b');
    expect(
      (await rowsOf(ids)).map((r) => [r.status, r.attempts, r.claimed_by, r.claimed_until, r.next_attempt_at]),
    ).toEqual([
      ['sent', 2, null, null, iso(T0)],
      ['queued', 2, null, null, iso(T0 + LEASE + 3 + 2000)],
      ['queued', 1, null, null, iso(T0)],
    ]);
  });

  it('a renewed lease keeps the rows; they are taken only after the renewed end', async () => {
    const ids = await queue(2, T0);
    await claim('worker-a', T0);
    const renewed = await renewClaims(db, ids, { owner: 'worker-a', leaseMs: LEASE, now: T0 + 50_000 });
    expect([...renewed].sort((a, b) => a - b)).toEqual(ids);
    expect((await rowsOf(ids)).map((r) => r.claimed_until)).toEqual([iso(T0 + 110_000), iso(T0 + 110_000)]);
    expect(await claim('worker-b', T0 + LEASE + 1)).toEqual([]);
    expect(await claim('worker-b', T0 + 110_000)).toEqual([]);
    expect((await claim('worker-b', T0 + 110_001)).map((r) => r.id)).toEqual(ids);
  });

  it('a `sending` row without a lease (claimed before leases existed) is taken at once', async () => {
    const ids = await queue(1, T0, 'sending');
    await transaction(db, (tx) =>
      tx.update(outbox).set({ attempts: 1, claimed_by: 'old' }).where(eq(outbox.id, ids[0])),
    );
    const [row] = await claim('worker-a', T0);
    expect(row).toMatchObject({ id: ids[0], attempts: 2, claimed_by: 'worker-a', last_error: TAKEN_OVER });
  });

  it('claimers at the same moment never get the same row (PostgreSQL: two pools, as two processes)', async () => {
    const ids = await queue(300, T0);
    const got: number[][] = [];
    // Eight claimers, four on each store, each claiming batches of seven until nothing is left.
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const mine: number[] = [];
        for (;;) {
          const batch = await claim(`worker-${i}`, T0 + 1, 7, i % 2 ? other : db);
          if (batch.length === 0) break;
          mine.push(...batch.map((r) => r.id));
        }
        got[i] = mine;
      }),
    );
    const all = got.flat().sort((a, b) => a - b);
    expect(all).toEqual(ids);
    const rows = await rowsOf(ids);
    expect(rows.every((r) => r.status === 'sending' && r.attempts === 1)).toBe(true);
    // Each row names the claimer that got it.
    const owner = new Map(rows.map((r) => [r.id, r.claimed_by]));
    got.forEach((mine, i) => {
      for (const id of mine) expect(owner.get(id)).toBe(`worker-${i}`);
    });
  }, 60_000);

  itOn('postgres')(
    'the statement alone, under READ COMMITTED on two pools, never gives one row twice',
    async () => {
      const ids = await queue(300, T0);
      const got: number[][] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const pool = poolOf(i % 2 ? other : db);
          const q = claimSql({ now: iso(T0 + 1), limit: 7, owner: `worker-${i}`, until: iso(T0 + LEASE) });
          const mine: number[] = [];
          for (;;) {
            // One statement on its own (autocommit): PostgreSQL's default READ COMMITTED.
            const { rows } = await pool.query<{ id: number }>(q.sql, q.params);
            if (rows.length === 0) break;
            mine.push(...rows.map((r) => r.id));
          }
          got[i] = mine;
        }),
      );
      expect(got.flat().sort((a, b) => a - b)).toEqual(ids);
    },
    60_000,
  );
});

describe("a worker's hold on its batch", () => {
  // The worker's lease runs on the real time: these claims are dated from it.
  const quiet = () => {};

  it('renews a lease in its last third before an attempt, and keeps the rows', async () => {
    const ids = await queue(2, Date.now() - 10 * LEASE);
    const claimedAt = Date.now() - 45_000;
    await claim('worker-a', claimedAt);
    const lease = holdBatch(db, ids, { owner: 'worker-a', leaseMs: LEASE, claimedAt }, quiet);
    try {
      const before = Date.now();
      expect(await lease.keep(ids[0])).toBe(true);
      const until = (await rowsOf(ids)).map((r) => Date.parse(r.claimed_until!));
      for (const u of until) expect(u).toBeGreaterThanOrEqual(before + LEASE);
      lease.done(ids[0]);
      expect(lease.ids()).toEqual([ids[1]]);
    } finally {
      lease.stop();
    }
  });

  it('skips a row another worker took over once its lease ended (the worker stalled past it)', async () => {
    const ids = await queue(2, Date.now() - 10 * LEASE);
    const claimedAt = Date.now() - LEASE - 1000;
    await claim('worker-a', claimedAt);
    // worker-a stood still past its lease; worker-b's ordinary claim takes the rows.
    expect((await claim('worker-b', Date.now())).map((r) => r.id)).toEqual(ids);
    const lease = holdBatch(db, ids, { owner: 'worker-a', leaseMs: LEASE, claimedAt }, quiet);
    try {
      expect(await lease.keep(ids[0])).toBe(false);
      expect(await lease.keep(ids[1])).toBe(false);
      expect(lease.ids()).toEqual([]);
    } finally {
      lease.stop();
    }
    expect((await rowsOf(ids)).map((r) => r.claimed_by)).toEqual(['worker-b', 'worker-b']);
  });
});

describe('the delivery worker', () => {
  it("takes over a dead worker's claims once their lease ended; gives up one whose attempts are used up", async () => {
    const hits: string[] = [];
    const receiver = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // real time: the worker's delivery schedule.
    const past = Date.now() - 10 * LEASE;
    const [alive, interrupted, usedUp] = await queue(3, past, 'sending');
    const dead = { claimed_by: 'host:1:dead', claimed_until: iso(past + LEASE) };
    await transaction(db, async (tx) => {
      await tx
        .update(outbox)
        .set({
          ...dead,
          claimed_until: iso(past + 20 * LEASE),
          claimed_by: 'host:2:alive',
          attempts: 1,
          recipient: `${base}/alive`,
        })
        .where(eq(outbox.id, alive));
      await tx
        .update(outbox)
        .set({ ...dead, attempts: 1, recipient: `${base}/interrupted` })
        .where(eq(outbox.id, interrupted));
      await tx
        .update(outbox)
        .set({ ...dead, attempts: 3, recipient: `${base}/used-up` })
        .where(eq(outbox.id, usedUp));
    });
    const logged: string[] = [];
    const worker = await startDelivery(db, {
      pollMs: 20,
      retryBaseMs: 1000,
      maxAttempts: 3,
      leaseMs: LEASE,
      log: (_level, msg, fields) => logged.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    });
    try {
      await waitUntil(
        "the dead worker's rows settled",
        () => rowsOf([interrupted, usedUp]),
        (rows) => rows.every((r) => r.status !== 'sending'),
      );
    } finally {
      await worker.stop();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
    const rows = await rowsOf([alive, interrupted, usedUp]);
    expect(rows.map((r) => [r.status, r.attempts, r.claimed_by, r.last_error])).toEqual([
      ['sending', 1, 'host:2:alive', null],
      ['sent', 2, null, null],
      ['failed', 4, null, INTERRUPTED_TOO_OFTEN],
    ]);
    expect(hits).toEqual(['/interrupted']);
    expect(logged.filter((l) => /took over deliveries whose claim ran out .*\{"count":2\}/.test(l))).toHaveLength(1);
  });
});

describe('the plan of the claim', () => {
  it('reads both branches (queued and due; sending under an ended lease) through outbox_due_idx', async () => {
    // A table as a busy install has it: mostly sent rows, a few queued, a batch in flight.
    await transaction(db, async (tx) => {
      for (let i = 0; i < 20; i++)
        await tx.insert(outbox).values(
          Array.from({ length: 1000 }, (_, j) => ({
            kind: j % 5 ? ('email' as const) : ('webhook' as const),
            recipient: `r${i}-${j}@example.com`,
            body: '',
            headers: '{}',
            status: 'sent' as const,
            next_attempt_at: iso(T0 - 1_000_000 + j),
            created_at: iso(T0),
          })),
        );
    });
    await queue(5, T0);
    await queue(5, T0 + 60_000);
    await claim('w', T0 - 10);
    const { sql: text, params } = claimSql({ now: iso(T0), limit: 20, owner: 'w', until: iso(T0 + LEASE) });
    let plan: string;
    if (pg) {
      await poolOf(db).query('ANALYZE outbox');
      plan = (await poolOf(db).query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).not.toMatch(/Seq Scan on outbox/);
      // Each branch an index condition on outbox_due_idx (status, kind, …); the rows updated by the primary key.
      expect(
        plan.match(/Index (Only )?Scan on outbox_due_idx|Bitmap Index Scan on outbox_due_idx/g)?.length,
        plan,
      ).toBe(2);
      expect(plan).toMatch(/LockRows/);
    } else {
      sqliteOf(db).exec('ANALYZE');
      plan = (
        sqliteOf(db)
          .prepare(`EXPLAIN QUERY PLAN ${text}`)
          .all(...params) as { detail: string }[]
      )
        .map((r) => r.detail)
        .join('\n');
      expect(plan).not.toMatch(/SCAN outbox\b(?! USING)/);
      expect(plan.match(/SEARCH outbox USING INDEX outbox_due_idx/g)?.length, plan).toBe(2);
    }
    await transaction(db, (tx) => tx.delete(outbox).where(eq(outbox.status, 'sent')));
  }, 60_000);
});
