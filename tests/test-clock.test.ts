import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConfigRun, type SharedStore, sharedStore } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { pgAvailable, releasePostgres } from './helpers/postgres.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, processScope, runServerToExit, send, stopServer } from './helpers/process.js';
import { startServer, type TestServer } from './helpers/server.js';
import { tokenFor } from './helpers/session.js';
import { onlyOn } from './helpers/store.js';
import { until } from './helpers/wait.js';

// SPEC D2 "A clock for tests" (decision 071): with HXDESK_TEST_CLOCK=1, POST /test/clock (admins)
// sets the time the whole server reads, forwards only, kept in the store (a restart finds it),
// the same for every process of one database; without the flag the route does not exist, and
// the server refuses to start with it in production.

const T = '2026-12-23T15:00:00.000Z';

afterAll(async () => {
  await releasePostgres();
});

describe('POST /test/clock in a server', () => {
  let s: TestServer;
  let plain: TestServer;
  beforeAll(async () => {
    s = await startServer({ HXDESK_TEST_CLOCK: '1' });
    plain = await startServer();
  });
  afterAll(async () => {
    await s?.close();
    await plain?.close();
  });

  it('does not exist without HXDESK_TEST_CLOCK (404)', async () => {
    await s.api('GET', '/tickets'); // the file's OpenAPI checks read this server's document (it has the route)
    // Straight, not through api(): the document of this file's checks is the flagged server's.
    const r = await fetch(`${plain.url}/test/clock`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${plain.adminToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ now: T }),
    });
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('sets the time everything reads; it stands still; forwards only; admins only', async () => {
    const agent = await s.user('agent');
    expectError(await s.api('POST', '/test/clock', { token: agent.token, body: { now: T } }), 403, 'forbidden');
    const r = await s.api('POST', '/test/clock', { body: { now: '2026-12-23T16:00:00+01:00' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ now: T });
    const t = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'At three' } });
    expect(t.body.ticket.created_at).toBe(T);
    expect(t.body.ticket.updated_at).toBe(T);
    // The same instant is fine; an earlier one is refused, and the clock stays.
    expect((await s.api('POST', '/test/clock', { body: { now: T } })).status).toBe(200);
    expectError(
      await s.api('POST', '/test/clock', { body: { now: '2026-12-23T14:59:59.999Z' } }),
      422,
      'validation_failed',
      'now',
    );
    expectError(await s.api('POST', '/test/clock', { body: { now: 'tomorrow' } }), 422, 'validation_failed', 'now');
    expectError(await s.api('POST', '/test/clock', { body: {} }), 422, 'validation_failed', 'now');
    const again = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Still three' } });
    expect(again.body.ticket.created_at).toBe(T);
    // Another process of the database moved it on (here: a write behind this server's back): each request reads it.
    const later = '2026-12-23T15:30:00.000Z';
    expect(await rawConfigRun(s, "UPDATE app_settings SET value = ? WHERE name = 'test_clock'", [later])).toBe(1);
    const third = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Half past' } });
    expect(third.body.ticket.created_at).toBe(later);
  });
});

describe('the test clock across processes', { timeout: 120_000 }, () => {
  const { dataDir, serve } = processScope('test-clock');

  it('is refused in production: the server does not start', async () => {
    const run = await runServerToExit({
      DATA_DIR: dataDir(),
      NODE_ENV: 'production',
      HXDESK_TEST_CLOCK: '1',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      MAILGATE_TOKEN: 'a-mailgate-token-long-enough',
    });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('HXDESK_TEST_CLOCK must not be set in production');
  });

  it('is kept in the store: a restart finds it where it was', async () => {
    const store: SharedStore = await sharedStore(dataDir());
    const first = await serve(store.env, { HXDESK_TEST_CLOCK: '1' });
    const token = await tokenFor(first.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect((await send(first.base, 'POST', '/test/clock', { now: T }, { token })).status).toBe(200);
    await stopServer(first);
    const second = await serve(store.env, { HXDESK_TEST_CLOCK: '1' });
    const t = await send(second.base, 'POST', '/tickets', { queue_id: 1, subject: 'After a restart' }, { token });
    expect(t.status).toBe(201);
    expect(t.body.ticket.created_at).toBe(T);
    expectError(
      await send(second.base, 'POST', '/test/clock', { now: '2026-12-23T14:00:00.000Z' }, { token }),
      422,
      'validation_failed',
      'now',
    );
    await stopServer(second);
  });
});

onlyOn('postgres')('two processes on one PostgreSQL database', { timeout: 120_000 }, () => {
  const { dataDir, serve } = processScope('test-clock-pg');
  it.skipIf(!pgAvailable())('the clock set through one is the clock of both, and a timer fires in either', async () => {
    const store = await sharedStore(dataDir());
    const a = await serve({ ...store.env, DATA_DIR: dataDir() }, { HXDESK_TEST_CLOCK: '1' });
    const b = await serve({ ...store.env, DATA_DIR: dataDir() }, { HXDESK_TEST_CLOCK: '1' });
    const token = await tokenFor(a.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect((await send(a.base, 'POST', '/test/clock', { now: T }, { token })).status).toBe(200);
    const t = await send(b.base, 'POST', '/tickets', { queue_id: 1, subject: 'Through B' }, { token });
    expect(t.body.ticket.created_at).toBe(T);
    // Snoozed through B, woken by the clock set through A: within 2 s, by whichever process.
    const wake = '2026-12-23T16:00:00.000Z';
    const id = t.body.ticket.id as number;
    const snoozed = await send(b.base, 'PATCH', `/tickets/${id}`, { snoozed_until: wake }, { token });
    expect(snoozed.status).toBe(200);
    expect((await send(a.base, 'POST', '/test/clock', { now: wake }, { token })).status).toBe(200);
    const woken = await until('the ticket to wake', async () => {
      const r = await send(b.base, 'GET', `/tickets/${id}`, undefined, { token });
      return r.body.snoozed_until === null && r.body;
    });
    expect(woken.status).toBe('open');
    const unsnoozed = (
      await send(a.base, 'GET', `/tickets/${id}/transactions`, undefined, { token })
    ).body.transactions.filter((x: { type: string }) => x.type === 'Unsnooze');
    expect(unsnoozed).toHaveLength(1);
    expect(unsnoozed[0].created_at).toBe(wake);
  });
});
