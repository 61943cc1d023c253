import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';
import { signedPath } from './helpers/portal.js';

// The one clock (src/domain/clock.ts, docs/decisions/047): a server given a test clock reads its
// business time from it and nowhere else — stored times, session, link and throttle expiry, the
// words "2 h ago" on a page — and a second server in the same process keeps its own time.

const START = '2031-03-04T09:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();
const MINUTE = 60_000;
const DAY = 86_400_000;

describe('the test clock', () => {
  it('stands still, moves forwards only, and says the instant it holds', () => {
    const clock = testClock(START);
    expect(clock.now()).toBe(Date.parse(START));
    clock.advance(1500);
    expect(clock.now()).toBe(Date.parse(START) + 1500);
    clock.set(at(1500)); // the same instant is fine
    expect(() => clock.set(START)).toThrow(/only moves forwards/);
    expect(() => clock.advance(-1)).toThrow(/only moves forwards/);
    expect(() => clock.set('not a time')).toThrow(/Not an instant/);
    clock.set(at(DAY));
    expect(new Date(clock.now()).toISOString()).toBe(at(DAY));
  });
});

describe('a server on a test clock', () => {
  const clock = testClock(START);
  let s: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    s = await startServer({ SESSION_DAYS: '1', LOGIN_MAX_FAILURES: '2' }, { clock });
    other = await startServer();
  });
  afterAll(async () => {
    await s?.close();
    await other?.close();
  });

  it('stamps tickets and transactions with its time, and only that', async () => {
    const created = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Stamped by the clock' } });
    expect(created.status, created.text).toBe(201);
    const t0 = clock.now();
    expect(created.body.ticket.created_at).toBe(new Date(t0).toISOString());
    expect(created.body.ticket.updated_at).toBe(new Date(t0).toISOString());

    clock.advance(90_000);
    const changed = await s.api('PATCH', `/tickets/${created.body.ticket.id}`, { body: { priority: 40 } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.ticket.updated_at).toBe(new Date(t0 + 90_000).toISOString());
    expect(changed.body.ticket.created_at).toBe(new Date(t0).toISOString());
    const history = (await s.api('GET', `/tickets/${created.body.ticket.id}/transactions`)).body.transactions as {
      type: string;
      created_at: string;
    }[];
    expect(history.map((x) => x.created_at)).toEqual([new Date(t0).toISOString(), new Date(t0 + 90_000).toISOString()]);

    // The other server in this process reads the real time.
    const before = Date.now();
    const real = await other.api('POST', '/tickets', { body: { queue_id: 1, subject: 'On the real clock' } });
    expect(real.status, real.text).toBe(201);
    const stamped = Date.parse(real.body.ticket.created_at);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });

  it('ends a session when its clock passes SESSION_DAYS', async () => {
    const cookie = await signIn(s, ADMIN_EMAIL, ADMIN_PASSWORD);
    const me = () => s.api('GET', '/me', { token: null, headers: { cookie } });
    expect((await me()).status).toBe(200);
    clock.advance(DAY - MINUTE);
    expect((await me()).status).toBe(200);
    clock.advance(MINUTE);
    expect((await me()).status).toBe(401);
  });

  it('counts sign-in failures in a window of its time', async () => {
    const u = await s.user('agent');
    const wrong = () =>
      s.api('POST', '/login', { token: null, body: { email: u.email, password: 'not-the-password' } });
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(429);
    clock.advance(15 * MINUTE - 1000);
    expect((await wrong()).status).toBe(429);
    clock.advance(1000);
    expect((await wrong()).status).toBe(401);
  });

  it('honours a portal link until its expiry by its time', async () => {
    const requester = await s.user('requester');
    const created = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Through the portal', requesters: [requester.id] },
    });
    expect(created.status, created.text).toBe(201);
    // Expired by the real time long ago (2031 is ahead of it), valid for one more minute by the server's.
    const link = await signedPath(s, {
      ticketId: created.body.ticket.id,
      userId: requester.id,
      expires: Math.floor(clock.now() / 1000) + 60,
    });
    const open = () => s.api('GET', link, { token: null });
    expect((await open()).status).toBe(200);
    clock.advance(MINUTE);
    const expired = await open();
    expect(expired.status).toBe(403);
    expect(expired.body.error.message).toMatch(/expired/i);
  });

  it('says how long ago by its time on the pages', async () => {
    const created = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Aged on the page' } });
    expect(created.status, created.text).toBe(201);
    const stamp = created.body.ticket.created_at as string;
    clock.advance(3 * 60 * MINUTE);
    const page = await s.api('GET', `/tickets/${created.body.ticket.id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(new RegExp(`<time datetime="${stamp}"[^>]*>3 h ago</time>`));
  });
});
