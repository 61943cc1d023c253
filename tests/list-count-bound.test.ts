import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_STEP, countBound } from '../src/domain/tickets/list.js';
import { rawRun } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';

// Decision 085 (issue 32), on both stores: a list counts its total exactly up to a bound past its
// page (1,000 for the first pages); past it `total` is "at least" (total_exact false), the page
// says "1,000+", and a client that pages while offset + limit < total still reaches every ticket.
// count=exact counts them all. Merged tickets never count.

let s: TestServer;
let big: number;
let small: number;
const BIG = 1_100;

beforeAll(async () => {
  s = await startServer();
  big = (await s.api('POST', '/queues', { body: { name: 'Big' } })).body.id;
  small = (await s.api('POST', '/queues', { body: { name: 'Small' } })).body.id;
  const now = new Date().toISOString();
  // 1,100 tickets in one statement (both dialects), and 3 of them merged into the first.
  await rawRun(
    s,
    `INSERT INTO tickets (queue_id, subject, status, priority, created_at, updated_at)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BIG + 3})
     SELECT ?, 'Bulk ' || i, 'open', 0, ?, ? FROM n`,
    [big, now, now],
  );
  await rawRun(
    s,
    `UPDATE tickets SET status = 'merged', merged_into = (SELECT min(id) FROM tickets WHERE queue_id = ?)
     WHERE id IN (SELECT id FROM tickets WHERE queue_id = ? ORDER BY id DESC LIMIT 3)`,
    [big, big],
  );
  for (const subject of ['One', 'Two'])
    expect((await s.api('POST', '/tickets', { body: { queue_id: small, subject } })).status).toBe(201);
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

const list = async (query: string) => {
  const r = await s.api('GET', `/tickets?${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body as { tickets: { id: number }[]; total: number; total_exact: boolean; limit: number; offset: number };
};

describe('the bound', () => {
  it('is the next thousand at least half a thousand past the page', () => {
    expect(COUNT_STEP).toBe(1000);
    expect(countBound(0, 50)).toBe(1000);
    expect(countBound(0, 500)).toBe(1000);
    expect(countBound(450, 50)).toBe(1000);
    expect(countBound(500, 50)).toBe(2000);
    expect(countBound(950, 50)).toBe(2000);
    expect(countBound(1_000_000, 500)).toBe(1_001_000);
  });
});

describe('GET /tickets total', () => {
  it('past the bound: at least the bound, not exact; the page is read as ever', async () => {
    for (const query of [`queue_id=${big}`, `queue_id=${big}&status=open`]) {
      const r = await list(query);
      expect(r, query).toMatchObject({ total: 1000, total_exact: false, limit: 50, offset: 0 });
      expect(r.tickets).toHaveLength(50);
    }
  });

  it('count=exact counts every ticket, merged ones left out', async () => {
    expect(await list(`queue_id=${big}&count=exact`)).toMatchObject({ total: BIG, total_exact: true });
    expect(await list(`queue_id=${big}&status=open&count=exact`)).toMatchObject({ total: BIG, total_exact: true });
    expectError(await s.api('GET', `/tickets?count=all`), 422, 'validation_failed', ['count']);
  });

  it('below the bound it is exact, also deep in the list', async () => {
    expect(await list(`queue_id=${small}`)).toMatchObject({ total: 2, total_exact: true });
    const deep = await list(`queue_id=${big}&offset=1050`);
    expect(deep).toMatchObject({ total: BIG, total_exact: true });
    expect(deep.tickets).toHaveLength(50);
  });

  it('a client paging while offset + limit < total gets every ticket once', async () => {
    const seen = new Set<number>();
    let offset = 0;
    for (;;) {
      const r = await list(`queue_id=${big}&limit=500&offset=${offset}`);
      for (const t of r.tickets) seen.add(t.id);
      if (offset + r.limit >= r.total) break;
      offset += r.limit;
    }
    expect(seen.size).toBe(BIG);
  });

  it('the list page says 1,000+ and offers the next page', async () => {
    const r = await s.api('GET', `/tickets?queue_id=${big}`, { headers: { accept: 'text/html' } });
    expect(r.text).toContain('1–50 of 1,000+');
    expect(r.text).toMatch(/offset=50[^"]*"[^>]*>\s*Next/);
  });
});
