import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTokens, loginThrottle } from '../src/db/tables.js';
import { actorFromToken } from '../src/domain/auth.js';
import { checkThrottle, clearThrottle, countAttempt } from '../src/domain/throttle.js';
import { expectSuccess, runCli } from './helpers/cli.js';
import { sharedStore } from './helpers/db.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, login, processScope, send, serverEnv, stopServer } from './helpers/process.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C6: "sign-in rate limits and token bookkeeping live in the database" (decision 028).
// The brake is a row per key in login_throttle, counted with one atomic upsert: it outlives a
// restart, every process serving the database shares it, and `hxdesk reset-password` lifts it.
// The processes here are real servers (the compiled server) on one database: the SQLite file of
// a DATA_DIR, or (in the postgres project) one PostgreSQL database.

const LIMIT = 3;
const { dataDir, serve } = processScope('throttle');
/** A new store for processes to share: DATA_DIR (and DATABASE_URL on PostgreSQL). */
const newStore = async (): Promise<Record<string, string>> => (await sharedStore(dataDir())).env;
/** The brake's settings of every process here (and of the commands run beside them). */
const BRAKE = { LOGIN_MAX_FAILURES: String(LIMIT), LOGIN_MAX_ATTEMPTS_PER_IP: '1000' };

/** Makes an agent with a password through the admin's session on `base`. */
let agents = 0;
async function agent(base: string, password: string): Promise<string> {
  const admin = await login(base, ADMIN_EMAIL, ADMIN_PASSWORD);
  expect(admin.status).toBe(200);
  const email = `agent${++agents}@example.com`;
  const res = await send(
    base,
    'POST',
    '/users',
    { email, name: `Agent ${agents}`, role: 'agent', password },
    { cookie: admin.cookie },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return email;
}

describe('the sign-in brake lives in the database', () => {
  it('a lockout survives a restart of the server on the same database', async () => {
    const dir = await newStore();
    const first = await serve(dir, BRAKE);
    for (let i = 0; i < LIMIT; i++) expect((await login(first.base, ADMIN_EMAIL, `wrong-${i}`)).status).toBe(401);
    const locked = await login(first.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('rate_limited');
    expect(locked.retryAfter).toMatch(/^\d+$/);
    await stopServer(first);

    const again = await serve(dir, BRAKE);
    const still = await login(again.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(still.status).toBe(429);
    expect(still.cookie).toBeUndefined();
    await stopServer(again);
  }, 120_000);

  it('two servers on one database share the count: failures alternating between them lock the account on both', async () => {
    const dir = await newStore();
    const a = await serve(dir, BRAKE);
    const b = await serve(dir, BRAKE);
    const password = 'the right password!';
    const email = await agent(a.base, password);

    // One failure short of the limit, alternately; a success on either clears the count for both.
    expect((await login(a.base, email, 'wrong-a')).status).toBe(401);
    expect((await login(b.base, email, 'wrong-b')).status).toBe(401);
    expect((await login(a.base, email, password)).status).toBe(200);
    for (let i = 0; i < LIMIT - 1; i++) expect((await login(b.base, email, `again-${i}`)).status).toBe(401);
    expect((await login(a.base, email, password)).status).toBe(200);

    // LIMIT failures alternating between the two; then both refuse even the right password.
    for (let i = 0; i < LIMIT; i++)
      expect((await login(i % 2 === 0 ? a.base : b.base, email, `guess-${i}`)).status).toBe(401);
    expect((await login(a.base, email, password)).status).toBe(429);
    expect((await login(b.base, email, password)).status).toBe(429);

    // Guesses fired at both at once: of all of them, exactly LIMIT are checked, counted atomically.
    const other = await agent(b.base, password);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => login(i % 2 === 0 ? a.base : b.base, other, `burst-${i}`)),
    );
    expect(answers.filter((x) => x.status === 401)).toHaveLength(LIMIT);
    expect(answers.filter((x) => x.status === 429)).toHaveLength(24 - LIMIT);

    // The current-password brake of settings is shared too.
    const session = await login(a.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    const change = { password: 'a new password for admin', current_password: 'not the current one' };
    for (let i = 0; i < LIMIT; i++) {
      const res = await send(i % 2 === 0 ? a.base : b.base, 'PATCH', '/settings', change, { cookie: session.cookie });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
    }
    expect((await send(b.base, 'PATCH', '/settings', change, { cookie: session.cookie })).status).toBe(429);
    await stopServer(a);
    await stopServer(b);
  }, 120_000);

  it('hxdesk reset-password lifts the lockout for every running server', async () => {
    const dir = await newStore();
    const a = await serve(dir, BRAKE);
    const b = await serve(dir, BRAKE);
    for (let i = 0; i < LIMIT + 2; i++) await login(i % 2 === 0 ? a.base : b.base, ADMIN_EMAIL, `wrong-${i}`);
    expect((await login(a.base, ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(429);

    const chosen = 'a brand new password 42';
    const run = await runCli(['reset-password', ADMIN_EMAIL, '--password-stdin'], serverEnv(dir, BRAKE), `${chosen}\n`);
    expectSuccess(run);
    expect(run.stdout).toMatch(
      /^Password changed for admin@example\.com\.\nSigned out of \d+ sessions?\.\nLifted the account's sign-in lockout \(\d+ attempts in the current window; LOGIN_MAX_FAILURES=3\)\.\n$/,
    );
    expect((await login(b.base, ADMIN_EMAIL, chosen)).status).toBe(200);
    expect((await login(a.base, ADMIN_EMAIL, chosen)).status).toBe(200);

    // Not locked out: it says so.
    const calm = await runCli(
      ['reset-password', ADMIN_EMAIL, '--password-stdin'],
      serverEnv(dir, BRAKE),
      `${chosen}\n`,
    );
    expectSuccess(calm);
    expect(calm.stdout).toMatch(/\nThe account was not locked out of signing in\.\n$/);
    await stopServer(a);
    await stopServer(b);
  }, 120_000);
});

describe('throttle rows and token bookkeeping (domain)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it('a fixed window from the first attempt: over the limit until it ends, then a new window', async () => {
    const t0 = Date.parse('2030-01-01T00:00:00.000Z');
    const key = 'test:window';
    for (let i = 1; i <= 3; i++)
      expect(await countAttempt(s.db, key, 2, 60, t0 + i * 1000)).toMatchObject({ allowed: i <= 2, count: i });
    expect((await countAttempt(s.db, key, 2, 60, t0 + 30_000)).retryAfterSec).toBe(31); // the window began at t0 + 1 s
    expect(await checkThrottle(s.db, key, t0 + 59_000)).toEqual({ count: 4, windowEnd: '2030-01-01T00:01:01.000Z' });
    expect(await checkThrottle(s.db, key, t0 + 61_000)).toBeUndefined();
    expect(await countAttempt(s.db, key, 2, 60, t0 + 61_000)).toMatchObject({
      allowed: true,
      count: 1,
      retryAfterSec: 60,
    });
    expect(await clearThrottle(s.db, key)).toBe(1);
    expect(await checkThrottle(s.db, key, t0 + 62_000)).toBeUndefined();
  });

  it('rows whose windows ended are swept when a new window starts (at most 100 at a time)', async () => {
    const t0 = Date.parse('2031-01-01T00:00:00.000Z');
    for (let i = 0; i < 150; i++) await countAttempt(s.db, `test:old-${i}`, 5, 60, t0);
    const left = async () =>
      (await s.db.select().from(loginThrottle)).filter((r) => r.key.startsWith('test:old-')).length;
    expect(await left()).toBe(150);
    await countAttempt(s.db, 'test:new', 5, 60, t0 + 120_000);
    expect(await left()).toBe(50);
    await countAttempt(s.db, 'test:newer', 5, 60, t0 + 120_000);
    expect(await left()).toBe(0);
  });

  it("a token's last_used_at is written when it is a minute old or unset, conditionally (no per-process memory)", async () => {
    const u = await s.user('agent');
    const [token] = await s.db.select().from(apiTokens).where(eq(apiTokens.user_id, u.id));
    const lastUsed = async () =>
      (await s.db.select().from(apiTokens).where(eq(apiTokens.id, token.id)))[0].last_used_at;
    expect(await lastUsed()).toBeNull();
    expect((await actorFromToken(s.db, u.token))?.id).toBe(u.id);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    expect((await actorFromToken(s.db, u.token))?.id).toBe(u.id);
    expect(await lastUsed()).toBe(first); // within the minute: not written again

    // What another process wrote is what counts: a stale value is moved on, a fresh one kept.
    const { transaction } = await import('../src/db/port.js');
    const old = new Date(Date.now() - 5 * 60_000).toISOString();
    await transaction(s.db, (tx) => tx.update(apiTokens).set({ last_used_at: old }).where(eq(apiTokens.id, token.id)));
    await actorFromToken(s.db, u.token);
    expect(Date.parse((await lastUsed())!)).toBeGreaterThan(Date.parse(old) + 4 * 60_000);
  });
});
