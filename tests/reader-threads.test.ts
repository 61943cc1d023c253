import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestsInFlight } from '../src/db/requestLoad.js';
import { openSse } from './helpers/sse.js';
import { waitUntil } from './helpers/wait.js';
import type { TicketListSpec } from '../src/db/ticketListSpec.js';
import type { PageParts } from '../src/db/shared/pageParts.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { listTickets } from '../src/db/sqlite/ticketList.js';
import { readerStats } from '../src/db/store.js';
import { startServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/expect.js';

// SQLite's reader threads (decision 031): lists and searches outside a unit of work run on
// worker threads with their own read-only connections. They must give the answers the HTTP
// thread's own connection gives, see every committed change at once, and carry a search that
// is too broad back as the same 422.

describe('reader threads (SQLite)', () => {
  let s: TestServer;
  let severity: number;
  const withAb4: number[] = []; // tickets whose description holds 'abababab'
  beforeAll(async () => {
    s = await startServer({ READ_THREADS: '2' });
    const f = await s.api('POST', '/custom-fields', {
      body: { key: 'severity', name: 'Severity', type: 'select', options: ['low', 'high'] },
    });
    expect(f.status).toBe(201);
    severity = f.body.id;
    for (let i = 0; i < 40; i++) {
      const r = await s.api('POST', '/tickets', {
        body: {
          queue_id: 1,
          subject: `${i % 3 ? 'Printer' : 'Scanner'} trouble ${i}`,
          description: `Ticket ${i}: ${'ab'.repeat(i % 5)} zörk`,
          priority: (i * 7) % 100,
          status: ['new', 'open', 'stalled', 'resolved'][i % 4],
          custom_fields: { severity: i % 2 ? 'high' : 'low' },
        },
      });
      expect(r.status).toBe(201);
      if (i % 5 === 4) withAb4.push(r.body.ticket.id);
    }
  });
  afterAll(() => s?.close());

  const base: TicketListSpec = { includeComments: true, cf: [], sort: 'updated', desc: true, limit: 7, offset: 0 };

  /**
   * A page's parts ticket by ticket: a reader thread keeps them by ticket (decision 113) and hands
   * them over in the page's order, a connection that keeps none in the statements' order. Within a
   * ticket the order is the statements' (the order watchers were added); links in any order.
   */
  const inTicketOrder = (parts: PageParts | undefined) => {
    if (!parts) return parts;
    const key = (r: { ticket_id?: number; ticket?: number; id?: number }) => r.ticket_id ?? r.ticket ?? r.id ?? 0;
    const out: Record<string, unknown[]> = {};
    for (const [name, rows] of Object.entries(parts) as [string, { ticket_id?: number }[] | undefined][])
      if (rows)
        out[name] =
          name === 'links'
            ? [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
            : [...rows].sort((a, b) => key(a) - key(b));
    return out;
  };

  it("answers every filter, sort and page as the HTTP thread's own connection does", async () => {
    const specs: TicketListSpec[] = [
      base,
      { ...base, status: ['new', 'open'], offset: 7 },
      { ...base, q: 'printer', sort: 'priority' },
      { ...base, q: 'zö', sort: 'id', desc: false },
      { ...base, cf: [{ field_id: severity, value: 'high' }], status: ['open'] },
      { ...base, owner_id: 'none', sort: 'created', offset: 14 },
      // With what the page shows beside its rows (decision 105): read on the thread, the same parts.
      { ...base, status: ['new', 'open'], parts: { read: 'all', seenBy: 1, requesters: true } },
      { ...base, q: 'printer', parts: { read: 'row', requesters: true } },
    ];
    const before = readerStats(s.db)!.lists;
    for (const spec of specs) {
      const threaded = await s.store.queries.listTickets(s.db, spec);
      const local = listTickets(writerHandle(s.db), spec);
      expect(threaded.total).toBeGreaterThan(0);
      expect({ total: threaded.total, ids: threaded.rows.map((r) => r.id) }).toEqual({
        total: local.total,
        ids: local.rows.map((r) => r.id),
      });
      expect(threaded.rows[0]).toEqual(local.rows[0]);
      expect(inTicketOrder(threaded.parts)).toEqual(inTicketOrder(local.parts));
      if (spec.parts?.read === 'all') {
        const byId = (a: number[], b: number[]) => a[0] - b[0];
        expect(
          threaded.parts?.descriptions?.map((d) => [d.ticket_id, Number(d.body?.startsWith('Ticket '))]).sort(byId),
        ).toEqual(threaded.rows.map((r) => [r.id, 1]).sort(byId));
        expect(threaded.parts?.values).toHaveLength(threaded.rows.length);
        expect(threaded.parts?.requesters).toEqual([
          { id: 1, name: expect.any(String), email: expect.any(String), role: 'admin' },
        ]);
      } else if (spec.parts) expect(threaded.parts).toEqual({ tags: [], requesters: expect.any(Array) });
      else expect(threaded.parts).toBeUndefined();
    }
    expect(readerStats(s.db)).toEqual({ threads: 2, lists: before + specs.length });
  });

  it('serves GET /tickets from the threads, seeing a change the moment it is committed', async () => {
    const before = readerStats(s.db)!.lists;
    for (let i = 0; i < 5; i++) {
      const created = await s.api('POST', '/tickets', {
        body: { queue_id: 1, subject: `Fresh widget ${i}`, description: 'x' },
      });
      const found = await s.api('GET', '/tickets?q=fresh%20widget&sort=id');
      expect(found.status).toBe(200);
      expect(found.body.total).toBe(i + 1);
      expect(found.body.tickets.at(-1).id).toBe(created.body.ticket.id);
    }
    expect(readerStats(s.db)!.lists).toBe(before + 5);
  });

  it('runs a plain list on the HTTP thread when it is the one request being answered (decision 098)', async () => {
    const before = readerStats(s.db)!.lists;
    const plain = await s.api('GET', '/tickets?status=open&sort=priority');
    expect(plain.status).toBe(200);
    expect(plain.body.total).toBe(10);
    const page = await s.api('GET', '/tickets?limit=7&offset=7');
    expect(page.body.tickets).toHaveLength(7);
    expect(readerStats(s.db)!.lists).toBe(before);
    // A search, an exact total and a deep page still go to a thread.
    expect((await s.api('GET', '/tickets?q=printer')).status).toBe(200);
    expect((await s.api('GET', '/tickets?count=exact')).status).toBe(200);
    expect((await s.api('GET', '/tickets?offset=1000')).status).toBe(200);
    expect(readerStats(s.db)!.lists).toBe(before + 3);
  });

  it('sends a plain list to a thread while another request is being answered (decision 098)', async () => {
    // A request held open: its body is promised and not sent yet, so its handler is still waiting.
    const body = JSON.stringify({ queue_id: 1, subject: 'Held open', description: 'x' });
    const held = http.request(`${s.url}/tickets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.adminToken}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      held.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      held.on('error', reject);
    });
    held.write(body.slice(0, 10));
    await waitUntil('the held request counted', requestsInFlight, (n) => n >= 1);
    const before = readerStats(s.db)!.lists;
    const list = await s.api('GET', '/tickets?status=open&sort=priority');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(10);
    expect(readerStats(s.db)!.lists).toBe(before + 1);
    held.end(body.slice(10));
    expect(await answered).toBe(201);
    // The held request has been answered: the next list has the process to itself again.
    await waitUntil('no request in flight', requestsInFlight, (n) => n === 0);
    await s.api('GET', '/tickets?status=open&sort=priority');
    expect(readerStats(s.db)!.lists).toBe(before + 1);
  });

  it('does not count an open live stream as a request in flight: lists run inline beside it (decision 098)', async () => {
    const live = await openSse(`${s.url}/events`, { authorization: `Bearer ${s.adminToken}` });
    try {
      expect(live.status).toBe(200);
      await waitUntil('the stream opened and no longer counted', requestsInFlight, (n) => n === 0);
      const before = readerStats(s.db)!.lists;
      const list = await s.api('GET', '/tickets?status=open&sort=priority');
      expect(list.body.total).toBe(10);
      expect(readerStats(s.db)!.lists).toBe(before);
    } finally {
      live.close();
    }
  });

  it('answers a bad filter with the same 422, and a search the index only narrows down exactly', async () => {
    const bad = await s.api('GET', '/tickets?cf.nope=1');
    expectError(bad, 422, 'validation_failed', ['cf.nope']);
    const many = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'aaaa', description: 'a'.repeat(200) },
    });
    expect(many.status).toBe(201);
    // A repeated trigram: the index only narrows it down and the thread checks the text
    // (search-bounds.test.ts, also on a reader thread, has the budgets and the 422 past them).
    const r = await s.api('GET', `/tickets?q=${'ab'.repeat(4)}&sort=id&limit=100`);
    expect(r.status).toBe(200);
    expect(r.body.tickets.map((t: { id: number }) => t.id)).toEqual(withAb4);
    expect((await s.api('GET', `/tickets?q=${'ab'.repeat(5)}`)).body.total).toBe(0);
    const r2 = await s.api('GET', `/tickets?q=${'a'.repeat(150)}`);
    expect(r2.body.tickets.map((t: { id: number }) => t.id)).toEqual([many.body.ticket.id]);
  });
});

describe('READ_THREADS=0', () => {
  it('runs lists on the HTTP thread, with no reader threads', async () => {
    const s = await startServer({ READ_THREADS: '0' });
    try {
      const r = await s.api('GET', '/tickets');
      expect(r.status).toBe(200);
      expect(readerStats(s.db)).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
