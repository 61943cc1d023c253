import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, startPostgres, type PgCluster } from './helpers/postgres.js';
import { logAppend, logHorizon, transaction } from '../src/db/port.js';
import { transactions } from '../src/db/tables.js';
import { closeDb } from '../src/db/store.js';
import { openPostgres } from '../src/db/postgres/store.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, killAll, processScope, type ServerProcess, send } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';
import { openSse, type SseMessage, type SseStream } from './helpers/sse.js';

// SPEC C5 across processes (decision 030): two real server processes (node src/server.ts) on one
// PostgreSQL database of a throwaway cluster, nothing else shared. Over HTTP: a stream on one
// process hears what was written on the other (LISTEN/NOTIFY), presence and typing cross too
// and a closed stream's viewer goes at once, and a stream that comes back on the OTHER process
// with Last-Event-ID is caught up from the change log exactly: every entry after its id, in
// order, once. PostgreSQL is its subject: it runs once (vitest.config.ts lists it with the other
// pg-* files) and starts its own cluster.

const { children, dataDir, serve } = processScope('pg-live');

describe.skipIf(!pgAvailable())('live updates across two server processes on one PostgreSQL database', () => {
  let cluster: PgCluster;
  let url = '';
  let sql: pg.Pool;
  let p1: ServerProcess;
  let p2: ServerProcess;
  let admin = '';
  const agents: { id: number; name: string; token: string }[] = [];
  let queueId = 0;
  const open: SseStream[] = [];

  async function stream(
    base: string,
    token: string,
    query = '',
    headers: Record<string, string> = {},
  ): Promise<SseStream> {
    const st = await openSse(`${base}/events${query}`, { authorization: `Bearer ${token}`, ...headers });
    open.push(st);
    expect(st.status).toBe(200);
    await st.next((m) => m.event === 'hello', { timeoutMs: 10_000 });
    return st;
  }
  const ticketMsg = (id: number, type?: string) => (m: SseMessage) =>
    m.event === 'ticket' &&
    JSON.parse(m.data).ticket_id === id &&
    (type === undefined || JSON.parse(m.data).types.includes(type));
  async function newTicket(base: string, subject: string): Promise<number> {
    const res = await send(
      base,
      'POST',
      '/tickets',
      { queue_id: queueId, subject, description: 'Hello' },
      { token: admin },
    );
    expect(res.status).toBe(201);
    return res.body.ticket.id;
  }
  const comment = (base: string, id: number, body: string, internal: boolean, token = admin) =>
    send(base, 'POST', `/tickets/${id}/comment`, { body, internal }, { token });

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createMigratedDatabase();
    sql = new pg.Pool({ connectionString: url, max: 2 });
    const serveShared = () =>
      serve({ DATABASE_URL: url, DATA_DIR: dataDir() }, { LOGIN_MAX_ATTEMPTS_PER_IP: '100000' });
    // Both start at once on the empty database (one seeds it).
    [p1, p2] = await Promise.all([serveShared(), serveShared()]);
    admin = await tokenFor(p1.base, ADMIN_EMAIL, ADMIN_PASSWORD, 'pg-live');
    for (const name of ['Ada Process', 'Bo Process']) {
      const email = `${name.split(' ')[0].toLowerCase()}@example.com`;
      const u = await send(
        p1.base,
        'POST',
        '/users',
        { email, name, role: 'agent', password: 'agent-password-123' },
        { token: admin },
      );
      expect(u.status).toBe(201);
      agents.push({ id: u.body.id, name, token: await tokenFor(p2.base, email, 'agent-password-123', 'pg-live') });
    }
    const queues = await send(p2.base, 'GET', '/queues', undefined, { token: admin });
    queueId = (queues.body.queues ?? queues.body).find((q: { name: string }) => q.name === 'General').id;
  }, 120_000);

  afterAll(async () => {
    for (const o of open) o.close();
    killAll(children.map((c) => c.child));
    await Promise.all(children.map((c) => c.exit));
    await sql?.end();
    await cluster?.stop();
  });

  it('a stream on one process hears a reply made on the other, both ways', async () => {
    const id = await newTicket(p1.base, 'Across processes');
    const on1 = await stream(p1.base, agents[0].token);
    const on2 = await stream(p2.base, agents[1].token);
    expect((await comment(p2.base, id, 'Written on process 2', false)).status).toBe(201);
    await on1.next(ticketMsg(id, 'Correspond'), { timeoutMs: 10_000 });
    expect((await comment(p1.base, id, 'Written on process 1', true)).status).toBe(201);
    await on2.next(ticketMsg(id, 'Comment'), { timeoutMs: 10_000 });
    // Each stream heard both writes (the one of its own process too), the same events in log order.
    await on1.next(ticketMsg(id, 'Comment'), { timeoutMs: 10_000 });
    await on2.next(ticketMsg(id, 'Correspond'), { timeoutMs: 10_000 });
    const ids = (st: SseStream) => st.messages.filter(ticketMsg(id)).map((m) => Number(m.id));
    expect(ids(on1)).toHaveLength(2);
    expect(ids(on1)).toEqual(ids(on2));
    expect(ids(on1)[0]).toBeLessThan(ids(on1)[1]);
    on1.close();
    on2.close();
  });

  it("shows a viewer on process 2 to process 1's stream of the ticket, their typing, and forgets them when their stream closes", async () => {
    const id = await newTicket(p2.base, 'Who is here');
    const [ada, bo] = agents;
    const viewer1 = await stream(p1.base, ada.token, `?ticket=${id}`);
    const viewer2 = await stream(p2.base, bo.token, `?ticket=${id}`);
    await viewer1.next((m) => m.event === 'presence' && m.data.includes(`data-user-id="${bo.id}"`), {
      timeoutMs: 10_000,
    });
    await viewer2.next((m) => m.event === 'presence' && m.data.includes(`data-user-id="${ada.id}"`), {
      timeoutMs: 10_000,
    });
    const n = viewer1.messages.length;
    expect((await send(p2.base, 'POST', `/tickets/${id}/typing`, undefined, { token: bo.token })).status).toBe(204);
    const typing = await viewer1.next((m) => m.event === 'presence' && m.data.includes('typing a reply'), {
      from: n,
      timeoutMs: 10_000,
    });
    expect(typing.data).toContain(`${bo.name} is typing a reply`);
    const m = viewer1.messages.length;
    viewer2.close();
    const gone = await viewer1.next((x) => x.event === 'presence' && !x.data.includes(`data-user-id="${bo.id}"`), {
      from: m,
      timeoutMs: 10_000,
    });
    expect(gone.data).not.toContain('Also here');
    viewer1.close();
  });

  it('a stream reconnecting to the OTHER process with Last-Event-ID is caught up exactly: no gap, no repeat', async () => {
    const a = await newTicket(p1.base, 'Catch-up A');
    const b = await newTicket(p2.base, 'Catch-up B');
    const first = await stream(p1.base, agents[0].token);
    expect((await comment(p1.base, a, 'seen', true)).status).toBe(201);
    const seen = await first.next(ticketMsg(a, 'Comment'), { timeoutMs: 10_000 });
    first.close();
    // While no stream is open: writes on both processes, on two tickets and a new one.
    expect((await comment(p2.base, b, 'missed 1', false)).status).toBe(201);
    expect((await comment(p1.base, a, 'missed 2', true)).status).toBe(201);
    expect((await send(p2.base, 'PATCH', `/tickets/${b}`, { priority: 5 }, { token: admin })).status).toBe(200);
    const c = await newTicket(p1.base, 'Catch-up C');
    expect((await comment(p2.base, a, 'missed 3', false)).status).toBe(201);

    // What the log holds after the last id the stream had: one event per ticket, at its last entry, in log order.
    const { rows } = await sql.query<{ id: number; ticket_id: number; type: string }>(
      'SELECT id, ticket_id, type FROM transactions WHERE id > $1 ORDER BY id',
      [Number(seen.id)],
    );
    const expected = new Map<number, { id: number; ticket_id: number; types: Set<string> }>();
    for (const r of rows) {
      const e = expected.get(r.ticket_id) ?? { id: 0, ticket_id: r.ticket_id, types: new Set<string>() };
      e.id = r.id;
      e.types.add(r.type);
      expected.set(r.ticket_id, e);
    }
    const want = [...expected.values()]
      .sort((x, y) => x.id - y.id)
      .map((e) => ({ id: e.id, ticket_id: e.ticket_id, types: [...e.types].sort() }));
    expect(want.map((e) => e.ticket_id).sort()).toEqual([a, b, c].sort());

    const again = await stream(p2.base, agents[0].token, '', { 'last-event-id': seen.id! });
    await again.next(ticketMsg(want[want.length - 1].ticket_id), { timeoutMs: 10_000 });
    const got = () =>
      again.messages
        .filter((m) => m.event === 'ticket')
        .map((m) => {
          const d = JSON.parse(m.data);
          expect(m.id).toBe(String(d.id));
          return { id: d.id, ticket_id: d.ticket_id, types: [...d.types].sort() };
        });
    expect(got()).toEqual(want);
    // Live from there on, with nothing repeated: the next write (on process 1) is the one more event.
    expect((await comment(p1.base, b, 'after', true)).status).toBe(201);
    const next = await again.next(ticketMsg(b, 'Comment'), {
      from: again.messages.findIndex((m) => m.id === String(want[want.length - 1].id)) + 1,
      timeoutMs: 10_000,
    });
    expect(Number(next.id)).toBeGreaterThan(want[want.length - 1].id);
    expect(got()).toEqual([...want, { id: Number(next.id), ticket_id: b, types: ['Comment'] }]);
    again.close();
  });

  // The change log without a writer lock (SPEC D1, src/db/postgres/logHorizon.ts): two stores on
  // the database (two processes, as far as PostgreSQL can tell). A unit of work that took log id
  // N and is still open does not hold up another's append: that one takes N+1 and commits first.
  // The readers' horizon stays below N until the first commits, so a stream never skips N: it
  // gets one event at N+1 with both entries' types, once.
  it('lets a second append commit while the first is open, and streams skip neither: the horizon waits for the first', async () => {
    const ticketId = await newTicket(p1.base, 'No order lock');
    const live = await stream(p1.base, agents[0].token);
    const [one, two] = (await Promise.all([openPostgres(url), openPostgres(url)])).map((s) => s.db);
    let commitFirst!: () => void;
    const held = new Promise<void>((r) => {
      commitFirst = r;
    });
    try {
      let firstId = 0;
      let appended!: () => void;
      const firstAppended = new Promise<void>((r) => {
        appended = r;
      });
      const append = async (tx: Parameters<Parameters<typeof transaction>[1]>[0], type: string) => {
        await logAppend(tx);
        const [row] = await tx
          .insert(transactions)
          .values({ ticket_id: ticketId, type, body: type, created_at: new Date().toISOString() })
          .returning({ id: transactions.id });
        return row.id;
      };
      const first = transaction(one, async (tx) => {
        firstId = await append(tx, 'Comment');
        appended();
        await held;
      });
      await firstAppended;
      // The second does not wait for the first: it commits while the first is open.
      const secondId = await transaction(two, (tx) => append(tx, 'Correspond'));
      expect(secondId).toBeGreaterThan(firstId);
      const horizon = await logHorizon(two);
      expect(horizon.upTo).toBeLessThan(firstId);
      expect(horizon.settled).toBe(false);
      commitFirst();
      await first;
      // Once the first committed, the horizon passes both (asked again, as the hub does).
      let after = await logHorizon(two);
      for (let i = 0; i < 5 && after.upTo < secondId; i++) after = await logHorizon(two);
      expect(after.upTo).toBeGreaterThanOrEqual(secondId);
      const event = await live.next(ticketMsg(ticketId, 'Correspond'), { timeoutMs: 10_000 });
      expect(Number(event.id)).toBe(secondId);
      const events = live.messages.filter((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === ticketId);
      // One event carrying both entries (neither skipped, nothing twice).
      expect(events.map((m) => JSON.parse(m.data).types.sort())).toEqual([['Comment', 'Correspond']]);
    } finally {
      commitFirst(); // a failed check must not leave the first unit of work open (closing waits for it)
      live.close();
      await Promise.all([closeDb(one), closeDb(two)]);
    }
  });
});
