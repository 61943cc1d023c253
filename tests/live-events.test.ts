import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedPath } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';
import { openSse, type SseStream } from './helpers/sse.js';

// SPEC C5: GET /events over real HTTP, on both stores. Events come after the unit of work
// commits, carry only what the reader may see, come back after a reconnect from Last-Event-ID
// without a gap or a repeat; presence and typing; the caps per user; bad input.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let other: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };
let stranger: { id: number; email: string; token: string };
const open: SseStream[] = [];

beforeAll(async () => {
  s = await startServer({ EVENTS_MAX_STREAMS_PER_USER: '3', EVENTS_HEARTBEAT_MS: '300' });
  agent = await s.user('agent');
  other = await s.user('agent');
  customer = await s.user('requester');
  stranger = await s.user('requester');
});
afterAll(async () => {
  for (const o of open) o.close();
  await s?.close();
});

async function stream(token: string, query = '', headers: Record<string, string> = {}) {
  const st = await openSse(`${s.url}/events${query}`, { authorization: `Bearer ${token}`, ...headers });
  open.push(st);
  if (st.status === 200) await st.next((m) => m.event === 'hello');
  return st;
}

let seq = 0;
async function ticket(requesterId = customer.id) {
  const res = await s.api('POST', '/tickets', {
    body: { queue_id: 1, subject: `Live ${++seq}`, description: 'Hello', requester_id: requesterId },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id as number;
}
const reply = (id: number, token: string, body: unknown) => s.api('POST', `/tickets/${id}/comment`, { token, body });
const ticketEvents = (st: SseStream, id: number) =>
  st.messages.filter((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id);

/**
 * Waits until `st` has brought the two entries made after `seenId` for ticket `id`, in one event
 * or more; returns every type they named (a type named twice would be a repeat) and the last id.
 */
async function caughtUp(st: SseStream, id: number, seenId: number) {
  const types: string[] = [];
  let lastId = seenId;
  let events = 0;
  while (types.length < 2) {
    const m = await st.next(
      (e) => e.event === 'ticket' && JSON.parse(e.data).ticket_id === id && Number(e.id) > lastId,
    );
    expect(Number(m.id)).toBeGreaterThan(lastId);
    lastId = Number(m.id);
    types.push(...(JSON.parse(m.data).types as string[]));
    events++;
  }
  return { types: types.sort(), lastId, events };
}

describe('GET /events', () => {
  it('keeps up while no stream is open: a later stream is caught up from its id, then goes live', async () => {
    expect(s.hub.streams).toBe(0);
    const id = await ticket();
    const seen = (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions.at(-1).id as number;
    expect((await reply(id, agent.token, { body: 'while nobody listened', internal: true })).status).toBe(201);
    const st = await stream(agent.token, `?after=${seen}`);
    const caught = await st.next((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id);
    expect(JSON.parse(caught.data).types).toEqual(['Comment']);
    expect((await s.api('PATCH', `/tickets/${id}`, { body: { priority: 3 } })).status).toBe(200);
    const live = await st.next(
      (m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id && Number(m.id) > Number(caught.id),
    );
    expect(JSON.parse(live.data).types).toEqual(['SetPriority']);
    st.close();
  });

  it('tells staff of a new ticket and of each change, with the log id and the kinds of entry', async () => {
    const st = await stream(agent.token);
    const id = await ticket();
    const created = await st.next((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id);
    expect(JSON.parse(created.data).types).toContain('Create');
    expect(Number(created.id)).toBeGreaterThan(0);
    // The same event, named for the ticket's page.
    await st.next((m) => m.event === `ticket-${id}`);
    const before = st.messages.length;
    expect((await reply(id, other.token, { body: 'On it', internal: true })).status).toBe(201);
    const note = await st.next((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id, { from: before });
    expect(JSON.parse(note.data).types).toEqual(['Comment']);
    expect(Number(note.id)).toBeGreaterThan(Number(created.id));
    // Published after the commit: what the event names is there for anyone who reads at once.
    const history = await s.api('GET', `/tickets/${id}/transactions`, { token: agent.token });
    expect(history.body.transactions.map((t: { id: number }) => t.id)).toContain(Number(note.id));
  });

  it("gives a customer their own tickets' public entries only", async () => {
    const mine = await stream(customer.token);
    const theirs = await stream(stranger.token);
    const id = await ticket();
    await mine.next((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id);
    const n = mine.messages.length;
    expect((await reply(id, agent.token, { body: 'internal only', internal: true })).status).toBe(201);
    expect((await reply(id, agent.token, { body: 'Dear customer', internal: false })).status).toBe(201);
    const pub = await mine.next((m) => m.event === 'ticket' && JSON.parse(m.data).ticket_id === id, { from: n });
    expect(JSON.parse(pub.data).types).toEqual(['Correspond']);
    // The note came first, and was not sent: the one event after the create is the reply.
    expect(ticketEvents(mine, id)).toHaveLength(2);
    expect(ticketEvents(theirs, id)).toHaveLength(0);
  });

  it('catches a reconnecting stream up from Last-Event-ID: nothing lost, nothing twice', async () => {
    const id = await ticket();
    const first = await stream(agent.token);
    expect((await reply(id, agent.token, { body: 'one', internal: true })).status).toBe(201);
    const seen = await first.next(
      (m) =>
        m.event === 'ticket' && JSON.parse(m.data).ticket_id === id && JSON.parse(m.data).types.includes('Comment'),
    );
    first.close();
    // Changes while no stream is open.
    expect((await reply(id, agent.token, { body: 'two', internal: true })).status).toBe(201);
    expect((await s.api('PATCH', `/tickets/${id}`, { body: { priority: 7 } })).status).toBe(200);
    const again = await stream(agent.token, '', { 'last-event-id': seen.id! });
    // The catch-up reaches the log's horizon; on PostgreSQL a unit of work still in flight anywhere
    // in the cluster may hold it back, and the rest then comes live: one event or two, never a gap.
    const caught = await caughtUp(again, id, Number(seen.id));
    expect(caught.types).toEqual(['Comment', 'SetPriority']);
    // And `?after=` does the same for a client that cannot send the header.
    const viaQuery = await stream(agent.token, `?after=${seen.id}`);
    const same = await caughtUp(viaQuery, id, Number(seen.id));
    expect(same.types).toEqual(['Comment', 'SetPriority']);
    expect(same.lastId).toBe(caught.lastId);
    // Nothing more for this ticket came on either: no repeats.
    await new Promise((r) => setTimeout(r, 200));
    expect(ticketEvents(again, id)).toHaveLength(caught.events);
    expect(ticketEvents(viaQuery, id)).toHaveLength(same.events);
    again.close();
    viaQuery.close();
  });

  it('shows who else views a ticket, who is typing, and forgets a closed tab at once', async () => {
    const id = await ticket();
    const a = await stream(agent.token, `?ticket=${id}`);
    const b = await stream(other.token, `?ticket=${id}`);
    const seesB = await a.next(
      (m) => m.event === 'presence' && m.data.includes('agent') && m.data.includes(`data-user-id="${other.id}"`),
    );
    expect(seesB.data).not.toContain(`data-user-id="${agent.id}"`); // never oneself
    await b.next((m) => m.event === 'presence' && m.data.includes(`data-user-id="${agent.id}"`));
    const n = a.messages.length;
    expect((await s.api('POST', `/tickets/${id}/typing`, { token: other.token })).status).toBe(204);
    const typing = await a.next((m) => m.event === 'presence' && m.data.includes('typing a reply'), { from: n });
    expect(typing.data).toMatch(/is typing a reply/);
    const m = a.messages.length;
    b.close();
    const gone = await a.next((x) => x.event === 'presence' && !x.data.includes(`data-user-id="${other.id}"`), {
      from: m,
    });
    expect(gone.data).not.toContain('Also here');
    a.close();
  });

  it('sends heartbeats', async () => {
    const st = await stream(agent.token);
    await new Promise((r) => setTimeout(r, 800));
    expect(st.pings).toBeGreaterThanOrEqual(2);
    st.close();
  });

  it('ends the stream of a token revoked meanwhile, at its next heartbeat', async () => {
    const made = await s.api('POST', '/tokens', { token: agent.token, body: { name: 'short-lived' } });
    expect(made.status, made.text).toBe(201);
    const st = await stream(made.body.token);
    expect(st.status).toBe(200);
    expect((await s.api('DELETE', `/tokens/${made.body.id}`, { token: agent.token })).status).toBe(204);
    await st.ended; // the server ended it (a heartbeat comes every 300 ms here)
  });

  it('caps the streams of one user (429) and frees the place when a tab closes', async () => {
    const u = await s.user('agent');
    const tabs = [await stream(u.token), await stream(u.token), await stream(u.token)];
    const fourth = await stream(u.token);
    expect(fourth.status).toBe(429);
    tabs[0].close();
    await expect
      .poll(
        async () => {
          const t = await stream(u.token);
          t.close();
          return t.status;
        },
        { timeout: 3000 },
      )
      .toBe(200);
  });

  it('refuses bad input and tickets the reader may not see, and strangers', async () => {
    const id = await ticket();
    expect((await s.api('GET', '/events?ticket=abc', { headers: { accept: 'text/event-stream' } })).status).toBe(422);
    expect((await s.api('GET', '/events?nope=1', { headers: { accept: 'text/event-stream' } })).status).toBe(422);
    expect(
      (await s.api('GET', `/events?ticket=${id}`, { token: stranger.token, headers: { accept: 'application/json' } }))
        .status,
    ).toBe(404);
    expect((await s.api('GET', '/events', { token: '', headers: { accept: 'application/json' } })).status).toBe(401);
    expect((await s.api('POST', `/tickets/${id}/typing`, { token: customer.token })).status).toBe(403);
  });
});

describe('places for customers (requesters and portal links): a fifth of EVENTS_MAX_STREAMS', () => {
  let t: TestServer;
  const tabs: SseStream[] = [];
  beforeAll(async () => {
    t = await startServer({ EVENTS_MAX_STREAMS: '10', EVENTS_HEARTBEAT_MS: '300' });
  });
  afterAll(async () => {
    for (const o of tabs) o.close();
    await t?.close();
  });

  const sse = async (path: string, token?: string) => {
    const st = await openSse(t.url + path, token ? { authorization: `Bearer ${token}` } : {});
    tabs.push(st);
    if (st.status === 200) await st.next((m) => m.event === 'hello');
    return st;
  };
  /** A customer with a ticket of their own and the link to it. */
  async function linkHolder(n: number) {
    const u = await t.user('requester');
    const res = await t.api('POST', '/tickets', {
      body: { queue_id: 1, subject: `Streams ${n}`, description: 'Hello', requesters: [u.id] },
    });
    expect(res.status, res.text).toBe(201);
    return { ...u, link: await signedPath(t, { ticketId: res.body.ticket.id, userId: u.id }) };
  }

  it('customers with links cannot take the places staff pages need; staff can open theirs; a closed customer tab frees a place', async () => {
    await fetch(`${t.url}/portal/not-a-link`); // the server makes its link key on first use
    const customers: Awaited<ReturnType<typeof linkHolder>>[] = [];
    for (let i = 0; i < 10; i++) customers.push(await linkHolder(i));
    // Every customer opens the live stream of their portal page: two (10 / 5) get a place.
    const opened = [];
    for (const c of customers) opened.push(await sse(`${c.link}/events`));
    expect(opened.map((o) => o.status)).toEqual([200, 200, 429, 429, 429, 429, 429, 429, 429, 429]);
    const refused = await fetch(`${t.url}${customers[2].link}/events`, { headers: { accept: 'application/json' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error).toEqual({
      code: 'rate_limited',
      message: 'Customers have 2 live streams open, the most this server gives them: try again later',
    });
    // A requester signed in is a customer too.
    expect((await sse('/events', customers[3].token)).status).toBe(429);
    // Staff have the other eight places.
    const staff = [await t.user('agent'), await t.user('agent')];
    const staffTabs = [];
    for (let i = 0; i < 8; i++) staffTabs.push(await sse('/events', staff[i % 2].token));
    expect(staffTabs.map((o) => o.status)).toEqual(Array(8).fill(200));
    expect(t.hub.streams).toBe(10);
    // Full: nobody else now.
    expect((await sse('/events', t.adminToken)).status).toBe(429);
    // A customer closes their tab: that place goes to a customer again.
    opened[0].close();
    await expect
      .poll(
        async () => {
          const o = await sse(`${customers[4].link}/events`);
          o.close();
          return o.status;
        },
        { timeout: 3000 },
      )
      .toBe(200);
  });
});
