import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCount } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';

// Every unsafe request that rides on the session cookie — JSON included — must come from our
// own origin (decision 016). Bearer tokens and /mailgate are exempt; so are signed-out JSON posts
// (no ambient credential: `curl … /login` works without an Origin).

const PUBLIC_URL = 'https://desk.example.org';
let s: TestServer;
let cookie: string;
beforeAll(async () => {
  s = await startServer({ PUBLIC_URL });
  cookie = await signIn(s, ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await s.close();
});

const tokens = () => rawCount(s, 'api_tokens');
const EVIL = 'https://evil.example';

/** POST /tokens as JSON with the session cookie and the given extra headers. */
const jsonPost = (headers: Record<string, string>, name = 'csrf-json') =>
  s.api('POST', '/tokens', { token: null, body: { name }, headers: { cookie, ...headers } });

describe('cookie-authenticated JSON requests', () => {
  it('a cross-site JSON POST with the session cookie → 403, nothing created', async () => {
    const before = await tokens();
    expectError(await jsonPost({ origin: EVIL }), 403, 'forbidden');
    expect(await tokens()).toBe(before);
  });

  it('with no Origin and no Sec-Fetch-Site → 403', async () => {
    const before = await tokens();
    expectError(await jsonPost({}), 403, 'forbidden');
    expect(await tokens()).toBe(before);
  });

  it('a foreign Origin is refused even beside Sec-Fetch-Site: same-origin', async () => {
    expectError(await jsonPost({ origin: EVIL, 'sec-fetch-site': 'same-origin' }), 403, 'forbidden');
  });

  it.each(['cross-site', 'same-site', 'none'])('Origin: null with Sec-Fetch-Site: %s → 403', async (site) => {
    expectError(await jsonPost({ origin: 'null', 'sec-fetch-site': site }), 403, 'forbidden');
  });

  it("the server's own origin → 201", async () => {
    const res = await jsonPost({ origin: s.url }, 'own-origin');
    expect(res.status, res.text).toBe(201);
  });

  it("PUBLIC_URL's origin → 201 (behind a proxy)", async () => {
    const res = await jsonPost({ origin: PUBLIC_URL }, 'public-url');
    expect(res.status, res.text).toBe(201);
  });

  it('no usable Origin but Sec-Fetch-Site: same-origin (what browsers send under a strict Referrer-Policy) → 201', async () => {
    expect((await jsonPost({ 'sec-fetch-site': 'same-origin' }, 'sfs-only')).status).toBe(201);
    expect((await jsonPost({ origin: 'null', 'sec-fetch-site': 'same-origin' }, 'sfs-null')).status).toBe(201);
  });

  it('PATCH and DELETE with JSON or no body are checked as well', async () => {
    const team = await s.api('POST', '/teams', { body: { name: 'CSRF target' } });
    const patch = await s.api('PATCH', `/teams/${team.body.id}`, {
      token: null,
      body: { name: 'Renamed by evil' },
      headers: { cookie, origin: EVIL },
    });
    expectError(patch, 403, 'forbidden');
    const del = await s.api('DELETE', `/teams/${team.body.id}`, { token: null, headers: { cookie, origin: EVIL } });
    expectError(del, 403, 'forbidden');
    const put = await s.api('PUT', `/teams/${team.body.id}`, {
      token: null,
      body: '<x/>',
      headers: { cookie, origin: EVIL, 'content-type': 'application/xml' },
    });
    expectError(put, 403, 'forbidden');
    expect((await s.api('GET', `/teams/${team.body.id}`)).body.name).toBe('CSRF target');
  });

  it('POST /logout with the cookie from another site does not sign the user out', async () => {
    expectError(await s.api('POST', '/logout', { token: null, headers: { cookie, origin: EVIL } }), 403, 'forbidden');
    expect((await s.api('GET', '/me', { token: null, headers: { cookie } })).status).toBe(200);
  });

  it('safe methods are never checked', async () => {
    expect((await s.api('GET', '/me', { token: null, headers: { cookie, origin: EVIL } })).status).toBe(200);
  });
});

describe('what stays exempt', () => {
  it('a bearer-token JSON POST from a foreign origin → 201', async () => {
    const res = await s.api('POST', '/tokens', { body: { name: 'bearer' }, headers: { origin: EVIL } });
    expect(res.status).toBe(201);
  });

  it('a signed-out JSON sign-in without Origin (curl) → 200', async () => {
    const res = await s.api('POST', '/login', { token: null, body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(res.status).toBe(200);
  });

  it('a signed-out cross-site form sign-in is still refused (login CSRF)', async () => {
    const res = await s.api('POST', '/login', {
      token: null,
      form: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      headers: { origin: EVIL },
    });
    expectError(res, 403, 'forbidden');
  });

  it('/mailgate takes mail without Origin, with a stray session cookie too', async () => {
    const raw =
      'From: a@example.com\r\nTo: b@example.com\r\nSubject: csrf exempt\r\nMessage-ID: <csrf-exempt@example.com>\r\n\r\nhello\r\n';
    const res = await s.api('POST', '/mailgate', {
      token: null,
      body: raw,
      headers: { cookie, origin: EVIL, 'content-type': 'message/rfc822' },
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe('pages tell browsers to send their real Origin', () => {
  it('Referrer-Policy is same-origin (no-referrer makes same-origin form posts say Origin: null)', async () => {
    const res = await s.api('GET', '/login', { token: null, headers: { accept: 'text/html' } });
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
  });
});
