import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb } from '../src/db/store.js';
import { fuzz, MAILGATE_TOKEN, routesOf, type FuzzResult } from './helpers/fuzz.js';
import { startServer, type TestServer } from './helpers/server.js';

// A seeded, deterministic fuzz run over every route (tests/helpers/fuzz.ts): no answer may be a
// 5xx, a JSON error must have SPEC B5's shape, nothing may be logged as an unhandled error, and
// the server must be healthy afterwards. `npm run fuzz -- --requests 10000` runs the same fuzzer
// longer, with any seed.

const REQUESTS = 3000;
const SEED = 20261123;

let s: TestServer;
let result: FuzzResult;
beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN });
  result = await fuzz(s, { requests: REQUESTS, seed: SEED });
}, 180_000);
afterAll(async () => {
  await s.close();
});

describe(`fuzzing every route (${REQUESTS} requests, seed ${SEED})`, () => {
  it('sent every request and reached every route the app has', () => {
    expect(result.requests).toBe(REQUESTS);
    expect(result.byClass.none).toBeUndefined(); // every request got an answer
    const reached = new Set(Object.keys(result.byRoute));
    expect(
      routesOf(s)
        .map((r) => `${r.method} ${r.path}`)
        .filter((r) => !reached.has(r)),
    ).toEqual([]);
  });

  it('got past validation often enough to exercise the domain (2xx and 3xx answers)', () => {
    expect((result.byClass['2xx'] ?? 0) + (result.byClass['3xx'] ?? 0)).toBeGreaterThan(REQUESTS * 0.15);
    const writes = Object.entries(result.byRoute).filter(([route]) => /^(POST|PATCH|DELETE) /.test(route));
    const succeeded = writes.filter(([, statuses]) => Object.keys(statuses).some((st) => st.startsWith('2')));
    expect(succeeded.length).toBeGreaterThanOrEqual(15);
  });

  it('no 5xx, and every JSON error is { error: { code, message } }', () => {
    expect(result.failures).toEqual([]);
  });

  it('logged no unhandled error (no stack trace)', () => {
    const unhandled = s.logged.filter((l) => l.msg === 'unhandled error');
    expect(unhandled.map((l) => ({ ...l.fields, stack: undefined }))).toEqual([]);
  });

  it('is still healthy afterwards', async () => {
    expect((await s.api('GET', '/healthz', { token: null })).status).toBe(200);
    const me = await s.api('GET', '/me');
    expect(me.status).toBe(200);
    // (a ticket create may rightly fail now: the fuzz can have made a custom field required)
    expect((await s.api('GET', '/tickets?limit=5')).status).toBe(200);
    expect((await s.api('POST', '/tokens', { body: { name: 'after the fuzz' } })).status).toBe(201);
  });
});

describe('production mode: a real 500 says nothing about its cause', () => {
  let p: TestServer;
  beforeAll(async () => {
    p = await startServer({ NODE_ENV: 'production' });
    await closeDb(p.db); // every query now fails inside better-sqlite3: a genuine server error
  });
  afterAll(async () => {
    await p.close();
  });

  const INTERNAL = /stack|sqlite|database|connection|not open|TypeError|\.ts:\d+|\.js:\d+|node_modules/i;

  it('JSON: exactly { error: { code: internal, message: Internal server error (request <id>) } }', async () => {
    const res = await fetch(`${p.url}/teams`, { headers: { authorization: 'Bearer hxd_anything' } });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal', message: `Internal server error (request ${res.headers.get('x-request-id')})` },
    });
    expect(text).not.toMatch(INTERNAL);
  });

  it('a page and an htmx fragment: 500 without the cause', async () => {
    const page = await fetch(`${p.url}/teams`, {
      headers: { authorization: 'Bearer hxd_anything', accept: 'text/html' },
    });
    expect(page.status).toBe(500);
    const html = await page.text();
    expect(html).toContain('Internal server error');
    expect(html).not.toMatch(INTERNAL);
    const fragment = await fetch(`${p.url}/teams`, {
      headers: { authorization: 'Bearer hxd_anything', 'hx-request': 'true' },
    });
    expect(fragment.status).toBe(500);
    expect(await fragment.text()).not.toMatch(INTERNAL);
  });

  it('/healthz says 503 unavailable in words, without a stack or a path; the error itself goes to the log only', async () => {
    const health = await fetch(`${p.url}/healthz`);
    expect(health.status).toBe(503);
    const body = await health.json();
    expect(body).toEqual({ error: { code: 'unavailable', message: 'Not ready: the database connection is closed' } });
    expect(JSON.stringify(body)).not.toMatch(/stack|TypeError|\.ts:\d+|\.js:\d+|node_modules|\//);
    const logged = p.logged.filter((l) => l.msg === 'unhandled error');
    expect(logged.length).toBeGreaterThan(0);
    // The driver's own words (SQLite: the connection is not open; PostgreSQL: the pool has ended), not just the statement that failed.
    expect(String(logged[0].fields.error)).toMatch(/not open|pool after calling end/);
  });
});
