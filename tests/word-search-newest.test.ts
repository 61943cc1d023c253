import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushSearch } from '../src/db/sqlite/search.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { rawQuery, rawRun } from './helpers/db.js';
import { releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';
import { testStore } from './helpers/store.js';

// Decision 087 (issue 32), on both stores: a word search reads its page and its bounded count
// from the newest tickets of the word index, yet its pages are those of the whole set in the
// list's order — an old ticket updated lately is on page 1, merged ones on none, ties at the
// page's edge fall as the order says — and paging reaches every match.

let s: TestServer;
let queue: number;
let other: number;
const N = 2_000;
/** The tickets whose subject holds "gadget", unmerged, in the order of the same set by `order`. */
let expected: (order: string) => Promise<number[]>;

const list = async (query: string) => {
  const r = await s.api('GET', `/tickets?${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body as { tickets: { id: number }[]; total: number; total_exact: boolean; limit: number };
};

beforeAll(async () => {
  s = await startServer();
  queue = (await s.api('POST', '/queues', { body: { name: 'Gadgets' } })).body.id;
  other = (await s.api('POST', '/queues', { body: { name: 'Elsewhere' } })).body.id;
  // Tickets a second apart, a day ago; three in four say "gadget" (1,500: past the bound of 1,000).
  const base = Date.now() - 86_400_000;
  for (let from = 1; from <= N; from += 200) {
    const rows = Array.from({ length: 200 }, (_, k) => from + k);
    await rawRun(
      s,
      `INSERT INTO tickets (queue_id, subject, status, priority, created_at, updated_at) VALUES ${rows.map(() => "(?, ?, 'open', 0, ?, ?)").join(', ')}`,
      rows.flatMap((i) => {
        const at = new Date(base + i * 1000).toISOString();
        return [queue, i % 4 === 0 ? `Other thing ${i}` : `Gadget report ${i}`, at, at];
      }),
    );
  }
  if (testStore() === 'sqlite') flushSearch(writerHandle(s.db), 100_000);
  expected = async (order) =>
    (
      await rawQuery<{ id: number }>(
        s,
        `SELECT id FROM tickets WHERE subject LIKE 'Gadget%' AND merged_into IS NULL ORDER BY ${order}`,
      )
    ).map((r) => Number(r.id));
  const byUpdate = await expected('updated_at DESC, id DESC');
  const oldest = byUpdate.slice(-3);
  // The oldest match is moved to another queue now (through the API): it leads the list by update.
  expect((await s.api('PATCH', `/tickets/${oldest[2]}`, { body: { queue_id: other } })).status).toBe(200);
  // The next oldest takes the 50th's update time: a tie that its lower id puts 51st.
  await rawRun(s, 'UPDATE tickets SET updated_at = (SELECT updated_at FROM tickets WHERE id = ?) WHERE id = ?', [
    byUpdate[49],
    oldest[1],
  ]);
  // The third oldest is merged into the newest, updated now too: on no page.
  await rawRun(
    s,
    "UPDATE tickets SET status = 'merged', merged_into = ?, updated_at = (SELECT updated_at FROM tickets WHERE id = ?) WHERE id = ?",
    [byUpdate[0], oldest[2], oldest[0]],
  );
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

describe('a word search by the newest tickets of its index', () => {
  it('page 1 is the whole set in the order of the last update, an old ticket updated lately first', async () => {
    const order = await expected('updated_at DESC, id DESC');
    expect(order.length).toBe(N * 0.75 - 1);
    const r = await list('q=gadget');
    expect(r.tickets.map((t) => t.id)).toEqual(order.slice(0, 50));
    expect({ total: r.total, exact: r.total_exact }).toEqual({ total: 1000, exact: false });
    // The tie at the page's edge is the first of page 2; the prefix finds the same.
    expect((await list('q=gadg&offset=50&limit=50')).tickets.map((t) => t.id)).toEqual(order.slice(50, 100));
    expect((await list('q=gadget&count=exact&limit=1')).total).toBe(order.length);
  });

  it('other orders newest first and filters give what the whole set gives', async () => {
    for (const [sort, order] of [
      ['-created', 'created_at DESC, id DESC'],
      ['-id', 'id DESC'],
      ['updated', 'updated_at, id'],
    ]) {
      const r = await list(`q=gadget&sort=${sort}&limit=100`);
      expect(
        r.tickets.map((t) => t.id),
        sort,
      ).toEqual((await expected(order)).slice(0, 100));
    }
    // A filter that leaves fewer than the bound: the whole set, counted exactly; one that leaves more.
    const moved = await list(`q=gadget&queue_id=${other}`);
    expect({ ids: moved.tickets.map((t) => t.id), total: moved.total, exact: moved.total_exact }).toEqual({
      ids: [(await expected('updated_at DESC, id DESC'))[0]],
      total: 1,
      exact: true,
    });
    const stayed = await list(`q=gadget&queue_id=${queue}`);
    expect(stayed.tickets.map((t) => t.id)).toEqual((await expected('updated_at DESC, id DESC')).slice(1, 51));
    expect({ total: stayed.total, exact: stayed.total_exact }).toEqual({ total: 1000, exact: false });
  });

  it('paging while offset + limit < total reaches every match once, in order', async () => {
    const seen: number[] = [];
    let offset = 0;
    for (;;) {
      const r = await list(`q=gadget&limit=200&offset=${offset}`);
      seen.push(...r.tickets.map((t) => t.id));
      if (offset + r.limit >= r.total) break;
      offset += r.limit;
    }
    expect(seen).toEqual(await expected('updated_at DESC, id DESC'));
  });
});
