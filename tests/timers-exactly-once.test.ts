import { describe, expect, it } from 'vitest';
import { type SharedStore, sharedStore } from './helpers/db.js';
import { pgAvailable } from './helpers/postgres.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, processScope, type ServerProcess, send, stopServer } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';
import { onlyOn } from './helpers/store.js';
import { waitUntil } from './helpers/wait.js';

// SPEC D2: each wake-up (the timers' exactly-once, with snooze as the kind) happens once per
// cycle — after a restart, after kill -9 in the middle of a run, with the process down when it
// fell due (it fires at start, marked late), and with two processes on one PostgreSQL database.
// Real server processes on the test clock (HXDESK_TEST_CLOCK=1); what fired is counted in the
// store: the Unsnooze entries of each ticket.

const T0 = '2026-12-21T08:00:00.000Z';
const T1 = '2026-12-21T09:00:00.000Z';
const T2 = '2026-12-21T10:00:00.000Z';
const PROCS = { timeoutMs: 120_000, intervalMs: 50 };
const { dataDir, serve } = processScope('timers-once');
const SETTINGS = { HXDESK_TEST_CLOCK: '1', TIMER_LEASE_MS: '1000' };

async function admin(s: ServerProcess) {
  return tokenFor(s.base, ADMIN_EMAIL, ADMIN_PASSWORD);
}
async function setClock(s: ServerProcess, token: string, now: string) {
  const r = await send(s.base, 'POST', '/test/clock', { now }, { token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}
/** `n` tickets snoozed until `until`. */
async function snoozed(s: ServerProcess, token: string, n: number, until: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = await send(s.base, 'POST', '/tickets', { queue_id: 1, subject: `Sleeper ${i}` }, { token });
    expect(t.status).toBe(201);
    const p = await send(s.base, 'PATCH', `/tickets/${t.body.ticket.id}`, { snoozed_until: until }, { token });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    ids.push(t.body.ticket.id);
  }
  return ids;
}
/** Each ticket's Unsnooze entries, as `new_value`s (in order). */
async function wakeUps(store: SharedStore, ids: number[]): Promise<Map<number, string[]>> {
  const rows = await store.query<{ ticket_id: number; new_value: string }>(
    `SELECT ticket_id, new_value FROM transactions WHERE type = 'Unsnooze' AND ticket_id IN (${ids.join(',')}) ORDER BY id`,
  );
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const r of rows) out.get(Number(r.ticket_id))!.push(r.new_value);
  return out;
}
const allWoken = (store: SharedStore, ids: number[]) =>
  waitUntil(
    `${ids.length} tickets to wake`,
    () => wakeUps(store, ids),
    (m) => [...m.values()].every((v) => v.length > 0),
    PROCS,
  );
const once = (m: Map<number, string[]>, reason: string) =>
  expect([...m.entries()].filter(([, v]) => v.length !== 1 || v[0] !== reason)).toEqual([]);

describe('timers fire once per cycle', { timeout: 180_000 }, () => {
  it('after a restart: fired before it, not again after', async () => {
    const store = await sharedStore(dataDir());
    const first = await serve(store.env, SETTINGS);
    const token = await admin(first);
    await setClock(first, token, T0);
    const a = await snoozed(first, token, 3, T1);
    const b = await snoozed(first, token, 1, T2);
    await setClock(first, token, T1);
    once(await allWoken(store, a), 'due');
    await stopServer(first);
    const second = await serve(store.env, SETTINGS);
    await setClock(second, token, T2);
    // The second life fired b (so its timer passes ran) and nothing of a again.
    once(await allWoken(store, b), 'due');
    once(await wakeUps(store, a), 'due');
    await stopServer(second);
  });

  it('with the process down when it fell due: at the next start, marked late', async () => {
    const store = await sharedStore(dataDir());
    const first = await serve(store.env, SETTINGS);
    const token = await admin(first);
    await setClock(first, token, T0);
    const ids = await snoozed(first, token, 2, T1);
    await stopServer(first);
    // Time passes while no process runs: the kept clock moves past the wake-up.
    expect(await store.run("UPDATE app_settings SET value = ? WHERE name = 'test_clock'", [T2])).toBe(1);
    const second = await serve(store.env, SETTINGS);
    once(await allWoken(store, ids), 'late');
    const history = await send(second.base, 'GET', `/tickets/${ids[0]}/transactions`, undefined, { token });
    const entry = history.body.transactions.find((x: { type: string }) => x.type === 'Unsnooze');
    expect(entry).toMatchObject({ old_value: T1, new_value: 'late', creator_id: null, created_at: T2 });
    await stopServer(second);
    const third = await serve(store.env, SETTINGS);
    const probe = await snoozed(third, token, 1, '2026-12-21T11:00:00.000Z');
    await setClock(third, token, '2026-12-21T11:00:00.000Z');
    once(await allWoken(store, probe), 'due');
    once(await wakeUps(store, ids), 'late');
    await stopServer(third);
  });

  it('after kill -9 in the middle of a run: every one once', async () => {
    const store = await sharedStore(dataDir());
    const first = await serve(store.env, SETTINGS);
    const token = await admin(first);
    await setClock(first, token, T0);
    const ids = await snoozed(first, token, 300, T1);
    await setClock(first, token, T1);
    // Killed as soon as the first wake-ups are committed, while the rest are claimed or due.
    await waitUntil(
      'the first wake-ups',
      () => wakeUps(store, ids),
      (m) => [...m.values()].some((v) => v.length > 0),
      PROCS,
    );
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exit;
    const at = [...(await wakeUps(store, ids)).values()].filter((v) => v.length > 0).length;
    expect(at).toBeGreaterThan(0);
    console.info(`kill -9 with ${at} of ${ids.length} woken`);
    const second = await serve(store.env, SETTINGS);
    const after = await allWoken(store, ids);
    // Those woken before the kill and those after: each once (before it: 'due'; after: the rest, late).
    expect([...after.entries()].filter(([, v]) => v.length !== 1)).toEqual([]);
    await stopServer(second);
  });
});

onlyOn('postgres')('two processes on one PostgreSQL database', { timeout: 180_000 }, () => {
  it.skipIf(!pgAvailable())('each wake-up once, whichever process fires it', async () => {
    const store = await sharedStore(dataDir());
    const a = await serve({ ...store.env, DATA_DIR: dataDir() }, SETTINGS);
    const b = await serve({ ...store.env, DATA_DIR: dataDir() }, SETTINGS);
    const token = await admin(a);
    await setClock(a, token, T0);
    const ids = [...(await snoozed(a, token, 150, T1)), ...(await snoozed(b, token, 150, T1))];
    await setClock(b, token, T1);
    once(await allWoken(store, ids), 'due');
    // Both still serve, and a later pass of either fires nothing again.
    const probe = await snoozed(a, token, 1, T2);
    await setClock(a, token, T2);
    once(await allWoken(store, probe), 'due');
    once(await wakeUps(store, ids), 'due');
    await stopServer(a);
    await stopServer(b);
  });
});
