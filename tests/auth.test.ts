import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { rawCount, rawGet, rawRun } from './helpers/db.js';
import { signIn } from './helpers/session.js';

/** Where staff land after signing in (SPEC C4, decision 035): My open tickets. */
const LANDING = '/tickets?owner_id=me&status_category=initial,active,waiting&snoozed=false';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

const PASSWORD = 'correct-horse-battery';
let seq = 0;

/** Creates a user with a password through the API (as the bootstrap admin). */
async function userWithPassword(
  srv: TestServer,
  role: 'admin' | 'agent' | 'requester' = 'agent',
  extra: Record<string, unknown> = {},
) {
  const email = `signin${++seq}@example.com`;
  const res = await srv.api('POST', '/users', {
    body: { email, name: `Sign In ${seq}`, role, password: PASSWORD, ...extra },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id as number, email };
}

function jsonLogin(srv: TestServer, email: string, password: string) {
  return srv.api('POST', '/login', { token: null, body: { email, password } });
}

function sessionSetCookie(res: ApiResponse): string {
  const line = res.headers.getSetCookie().find((c) => c.startsWith('hxdesk_session='));
  expect(line, 'a session cookie is set').toBeDefined();
  return line!;
}
/** The `name=value` pair a browser would send back. */
const cookiePair = (setCookie: string) => setCookie.split(';')[0];

describe('POST /login', () => {
  it('signs in with JSON: 200, the user, and an HttpOnly SameSite=Lax cookie (not Secure outside production)', async () => {
    const u = await userWithPassword(s);
    const res = await jsonLogin(s, u.email, PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: u.id, email: u.email, role: 'agent', disabled: false });
    expect(res.body).not.toHaveProperty('password');
    expect(res.body).not.toHaveProperty('password_hash');
    const cookie = sessionSetCookie(res);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);
    expect(cookie).not.toMatch(/;\s*Secure/i);
  });

  it('matches the e-mail address case-insensitively', async () => {
    const u = await userWithPassword(s);
    const res = await jsonLogin(s, u.email.toUpperCase(), PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(u.id);
  });

  it('signs in with a form post and redirects (303) to My open tickets (SPEC C4)', async () => {
    const u = await userWithPassword(s);
    const res = await s.api('POST', '/login', {
      token: null,
      form: { email: u.email, password: PASSWORD },
      headers: { accept: 'text/html', origin: s.url },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(LANDING);
    const cookie = cookiePair(sessionSetCookie(res));
    const me = await s.api('GET', '/me', { token: null, headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(u.id);
  });

  it('follows a safe same-site `next` after a form sign-in', async () => {
    const u = await userWithPassword(s);
    const res = await s.api('POST', '/login', {
      token: null,
      form: { email: u.email, password: PASSWORD, next: '/tickets/7?tab=history' },
      headers: { accept: 'text/html', origin: s.url },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/tickets/7?tab=history');
  });

  it.each([
    '//evil.example',
    '//evil.example/tickets',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    // Browsers drop tabs and newlines inside URLs, so these would become //evil.example.
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r\n/evil.example',
    '/tickets\r\nSet-Cookie: injected=1',
  ])('never redirects off-site: next=%j lands on My open tickets', async (next) => {
    const u = await userWithPassword(s);
    const res = await s.api('POST', '/login', {
      token: null,
      form: { email: u.email, password: PASSWORD, next },
      headers: { accept: 'text/html', origin: s.url },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(LANDING);
  });

  it('a signed-in browser visiting /login is sent on to a safe `next` only', async () => {
    const cookie = await signIn(s, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = { cookie, accept: 'text/html' };
    const safe = await s.api('GET', `/login?next=${encodeURIComponent('/queues?x=1')}`, { token: null, headers: html });
    expect(safe.status).toBe(303);
    expect(safe.headers.get('location')).toBe('/queues?x=1');
    for (const next of ['//evil.example', '/\t/evil.example', '/\n/evil.example']) {
      const res = await s.api('GET', `/login?next=${encodeURIComponent(next)}`, { token: null, headers: html });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(LANDING);
    }
  });

  it('refuses a wrong password with 401 unauthenticated and no cookie', async () => {
    const u = await userWithPassword(s);
    const res = await jsonLogin(s, u.email, 'not-the-password');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('hxdesk_session='))).toBe(false);
  });

  it('gives an unknown account the same 401 as a wrong password', async () => {
    const res = await jsonLogin(s, 'nobody-here@example.com', PASSWORD);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
  });

  it('re-renders the sign-in page with 401 for a failed browser form sign-in', async () => {
    const u = await userWithPassword(s);
    const res = await s.api('POST', '/login', {
      token: null,
      form: { email: u.email, password: 'wrong-password!' },
      headers: { accept: 'text/html', origin: s.url },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('Invalid email or password');
  });

  it('validates the body: missing password is 422 naming `password`', async () => {
    const res = await s.api('POST', '/login', { token: null, body: { email: ADMIN_EMAIL } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain('password');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await s.api('POST', '/login', {
      token: null,
      body: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('does not let a disabled user sign in', async () => {
    const u = await userWithPassword(s, 'agent', { disabled: true });
    const res = await jsonLogin(s, u.email, PASSWORD);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
  });

  it('does not let a requester without a password sign in, but does once an admin gives one', async () => {
    const email = `requester-login${++seq}@example.com`;
    const created = await s.api('POST', '/users', { body: { email, name: 'Mail Requester', role: 'requester' } });
    expect(created.status).toBe(201);
    for (const password of ['', 'anything-at-all-12']) {
      const res = await jsonLogin(s, email, password);
      expect(res.status).toBe(password === '' ? 422 : 401);
      expect(res.body.error.code).toBe(password === '' ? 'validation_failed' : 'unauthenticated');
    }
    const patched = await s.api('PATCH', `/users/${created.body.id}`, { body: { password: PASSWORD } });
    expect(patched.status).toBe(200);
    const ok = await jsonLogin(s, email, PASSWORD);
    expect(ok.status).toBe(200);
    expect(ok.body.role).toBe('requester');
  });

  it('refuses a cross-site form sign-in (login CSRF)', async () => {
    const u = await userWithPassword(s);
    const res = await s.api('POST', '/login', {
      token: null,
      form: { email: u.email, password: PASSWORD },
      headers: { origin: 'http://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('sessions: GET /me and POST /logout', () => {
  it('the session cookie identifies the user on GET /me', async () => {
    const u = await userWithPassword(s);
    const cookie = await signIn(s, u.email, PASSWORD);
    const me = await s.api('GET', '/me', { token: null, headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: u.id, email: u.email, role: 'agent' });
  });

  it('a made-up session cookie is not a session', async () => {
    const me = await s.api('GET', '/me', { token: null, headers: { cookie: 'hxdesk_session=not-a-real-session' } });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('unauthenticated');
  });

  it('POST /logout ends the session: the old cookie no longer works', async () => {
    const u = await userWithPassword(s);
    const cookie = await signIn(s, u.email, PASSWORD);
    const out = await s.api('POST', '/logout', { token: null, headers: { cookie, origin: s.url } });
    expect(out.status).toBe(204);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('hxdesk_session='));
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    const me = await s.api('GET', '/me', { token: null, headers: { cookie } });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('unauthenticated');
  });

  it('disabling a user ends their sessions and their API tokens stop working', async () => {
    const u = await userWithPassword(s);
    const cookie = await signIn(s, u.email, PASSWORD);
    const made = await s.api('POST', '/tokens', {
      token: null,
      body: { name: 'cli' },
      headers: { cookie, origin: s.url },
    });
    expect(made.status).toBe(201);
    const patched = await s.api('PATCH', `/users/${u.id}`, { body: { disabled: true } });
    expect(patched.status).toBe(200);
    const byCookie = await s.api('GET', '/me', { token: null, headers: { cookie } });
    expect(byCookie.status).toBe(401);
    expect(byCookie.body.error.code).toBe('unauthenticated');
    const byToken = await s.api('GET', '/me', { token: made.body.token });
    expect(byToken.status).toBe(401);
    expect(byToken.body.error.code).toBe('unauthenticated');
  });

  it('disabling is for good: re-enabling the user brings back none of their API tokens or sessions', async () => {
    const u = await userWithPassword(s);
    const cookie = await signIn(s, u.email, PASSWORD);
    const made = await s.api('POST', '/tokens', {
      token: null,
      body: { name: 'cli' },
      headers: { cookie, origin: s.url },
    });
    expect(made.status).toBe(201);
    expect((await s.api('GET', '/me', { token: made.body.token })).status).toBe(200);
    expect((await s.api('PATCH', `/users/${u.id}`, { body: { disabled: true } })).status).toBe(200);
    expect((await s.api('PATCH', `/users/${u.id}`, { body: { disabled: false } })).body.disabled).toBe(false);
    for (const old of [{ token: made.body.token }, { token: null, headers: { cookie } }]) {
      const me = await s.api('GET', '/me', old);
      expect(me.status).toBe(401);
      expect(me.body.error).toMatchObject({ code: 'unauthenticated' });
    }
    expect(await rawCount(s, 'api_tokens', 'user_id = ?', [u.id])).toBe(0);
    // What the user does after being enabled again works: a new sign-in, a new token.
    const again = await signIn(s, u.email, PASSWORD);
    const fresh = await s.api('POST', '/tokens', {
      token: null,
      body: { name: 'cli' },
      headers: { cookie: again, origin: s.url },
    });
    expect((await s.api('GET', '/me', { token: fresh.body.token })).status).toBe(200);
  });

  it('changing a password ends existing sessions and the old password stops working', async () => {
    const u = await userWithPassword(s);
    const cookie = await signIn(s, u.email, PASSWORD);
    const patched = await s.api('PATCH', `/users/${u.id}`, { body: { password: 'a-brand-new-password' } });
    expect(patched.status).toBe(200);
    expect((await s.api('GET', '/me', { token: null, headers: { cookie } })).status).toBe(401);
    const old = await jsonLogin(s, u.email, PASSWORD);
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('unauthenticated');
    expect((await jsonLogin(s, u.email, 'a-brand-new-password')).status).toBe(200);
  });
});

describe('routes need a signed-in user or a token', () => {
  const PROTECTED: [string, string][] = [
    ['GET', '/'],
    ['GET', '/me'],
    ['GET', '/tokens'],
    ['POST', '/tokens'],
    ['DELETE', '/tokens/1'],
    ['GET', '/users'],
    ['POST', '/users'],
    ['GET', '/users/1'],
    ['PATCH', '/users/1'],
    ['DELETE', '/users/1'],
    ['GET', '/teams'],
    ['POST', '/teams'],
    ['PATCH', '/teams/1'],
    ['DELETE', '/teams/1'],
    ['POST', '/teams/1/members'],
    ['GET', '/queues'],
    ['POST', '/queues'],
    ['DELETE', '/queues/1'],
    ['GET', '/tickets'],
    ['POST', '/tickets'],
    ['GET', '/tickets/1'],
    ['GET', '/custom-fields'],
    ['GET', '/saved-views'],
    ['GET', '/dashboards'],
    ['GET', '/no-such-route'],
  ];

  it.each(PROTECTED)('%s %s without credentials → 401 unauthenticated (JSON)', async (method, path) => {
    const res = await s.api(method, path, {
      token: null,
      ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toMatchObject({ error: { code: 'unauthenticated' } });
    expect(typeof res.body.error.message).toBe('string');
  });

  it.each(['/tickets', '/users', '/teams', '/queues', '/me'])(
    'GET %s in a browser without a session → 303 to /login?next=…',
    async (path) => {
      const res = await s.api('GET', path, { token: null, headers: { accept: 'text/html,application/xhtml+xml' } });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    },
  );

  it('keeps the query string in `next`', async () => {
    const res = await s.api('GET', '/tickets?status=open&limit=5', { token: null, headers: { accept: 'text/html' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/tickets?status=open&limit=5')}`);
  });

  it('an htmx request without a session gets 401 and HX-Redirect to the sign-in page', async () => {
    const res = await s.api('GET', '/tickets', { token: null, headers: { 'hx-request': 'true' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('hx-redirect')).toBe(`/login?next=${encodeURIComponent('/tickets')}`);
  });

  it.each(['Bearer hxd_not-a-real-token', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'hxd_bare'])(
    'a bad Authorization header (%s) → 401 unauthenticated',
    async (authorization) => {
      const res = await s.api('GET', '/me', { token: null, headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    },
  );

  it('a bad bearer token is refused even alongside a valid session cookie', async () => {
    const cookie = await signIn(s, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await s.api('GET', '/me', { token: 'hxd_forged', headers: { cookie } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
  });

  it('public routes answer without credentials', async () => {
    expect((await s.api('GET', '/healthz', { token: null })).status).toBe(200);
    const login = await s.api('GET', '/login', { token: null });
    expect(login.status).toBe(200);
    const page = await s.api('GET', '/login', { token: null, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});

describe('API tokens', () => {
  it('POST /tokens → 201 { id, name, token }; the token works as a Bearer credential', async () => {
    const agent = await s.user('agent');
    const res = await s.api('POST', '/tokens', { token: agent.token, body: { name: 'my laptop' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(Number), name: 'my laptop', token: expect.any(String) });
    expect(res.body.token.length).toBeGreaterThanOrEqual(32);
    const me = await s.api('GET', '/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(agent.id);
  });

  it("GET /tokens lists the caller's tokens without the secret", async () => {
    const agent = await s.user('agent');
    const made = await s.api('POST', '/tokens', { token: agent.token, body: { name: 'listed' } });
    expect(made.status).toBe(201);
    const res = await s.api('GET', '/tokens', { token: agent.token });
    expect(res.status).toBe(200);
    const listed = res.body.tokens.find((t: { id: number }) => t.id === made.body.id);
    expect(listed).toMatchObject({ id: made.body.id, name: 'listed', created_at: expect.any(String) });
    for (const t of res.body.tokens) {
      expect(t).not.toHaveProperty('token');
      expect(t).not.toHaveProperty('token_hash');
    }
    expect(res.text).not.toContain(made.body.token);
    // Only this agent's tokens: the admin's harness token is not among them.
    const adminTokens = await s.api('GET', '/tokens');
    expect(adminTokens.body.tokens.some((t: { id: number }) => t.id === made.body.id)).toBe(false);
  });

  it('stores only a hash of the token', async () => {
    const made = await s.api('POST', '/tokens', { body: { name: 'hashed' } });
    expect(made.status).toBe(201);
    const row = (await rawGet<{ token_hash: string }>(s, 'SELECT token_hash FROM api_tokens WHERE id = ?', [
      made.body.id,
    ]))!;
    expect(row.token_hash).toBeTruthy();
    expect(row.token_hash).not.toBe(made.body.token);
    expect(row.token_hash).not.toContain(made.body.token);
    expect(await rawCount(s, 'api_tokens', 'token_hash = ? OR name = ?', [made.body.token, made.body.token])).toBe(0);
  });

  it('DELETE /tokens/:id → 204 and the token stops working; a second delete is 404', async () => {
    const agent = await s.user('agent');
    const made = await s.api('POST', '/tokens', { token: agent.token, body: { name: 'short-lived' } });
    expect((await s.api('GET', '/me', { token: made.body.token })).status).toBe(200);
    const del = await s.api('DELETE', `/tokens/${made.body.id}`, { token: agent.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const after = await s.api('GET', '/me', { token: made.body.token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthenticated');
    const again = await s.api('DELETE', `/tokens/${made.body.id}`, { token: agent.token });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it("an agent cannot revoke another agent's token: 404, and it keeps working", async () => {
    const a = await s.user('agent');
    const b = await s.user('agent');
    const made = await s.api('POST', '/tokens', { token: a.token, body: { name: 'mine' } });
    const del = await s.api('DELETE', `/tokens/${made.body.id}`, { token: b.token });
    expect(del.status).toBe(404);
    expect(del.body.error.code).toBe('not_found');
    expect((await s.api('GET', '/me', { token: made.body.token })).status).toBe(200);
  });

  it("an administrator may revoke another user's token", async () => {
    const a = await s.user('agent');
    const made = await s.api('POST', '/tokens', { token: a.token, body: { name: 'lost laptop' } });
    const del = await s.api('DELETE', `/tokens/${made.body.id}`);
    expect(del.status).toBe(204);
    const after = await s.api('GET', '/me', { token: made.body.token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthenticated');
  });

  it('an unknown or malformed token id is 404, never 500', async () => {
    for (const id of ['999999', 'abc', '0', '-1']) {
      const res = await s.api('DELETE', `/tokens/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('a token needs a name: 422 naming `name`', async () => {
    const res = await s.api('POST', '/tokens', { body: { name: '   ' } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'name' })]);
  });
});

describe('passwords are stored hashed', () => {
  it('users.password_hash is an scrypt hash that does not contain the password', async () => {
    const u = await userWithPassword(s);
    const row = (await rawGet<{ password_hash: string }>(s, 'SELECT password_hash FROM users WHERE id = ?', [u.id]))!;
    expect(row.password_hash.startsWith('scrypt$')).toBe(true);
    expect(row.password_hash).not.toContain(PASSWORD);
    const admin = (await rawGet<{ password_hash: string }>(s, 'SELECT password_hash FROM users WHERE email = ?', [
      ADMIN_EMAIL,
    ]))!;
    expect(admin.password_hash.startsWith('scrypt$')).toBe(true);
    expect(admin.password_hash).not.toContain(ADMIN_PASSWORD);
  });

  it('two users with the same password get different hashes (salted)', async () => {
    const a = await userWithPassword(s);
    const b = await userWithPassword(s);
    const get = async (id: number) =>
      (await rawGet<{ password_hash: string }>(s, 'SELECT password_hash FROM users WHERE id = ?', [id]))!.password_hash;
    expect(await get(a.id)).not.toBe(await get(b.id));
  });
});

describe('CSRF protection for cookie-authenticated requests', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signIn(s, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  it('a cross-site form post with the session cookie → 403 forbidden, nothing created', async () => {
    const before = await rawCount(s, 'api_tokens');
    const res = await s.api('POST', '/tokens', {
      token: null,
      form: { name: 'csrf' },
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    const after = await rawCount(s, 'api_tokens');
    expect(after).toBe(before);
  });

  it('a form post with the session cookie and no Origin at all → 403 forbidden', async () => {
    const res = await s.api('POST', '/tokens', { token: null, form: { name: 'no-origin' }, headers: { cookie } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('Sec-Fetch-Site: cross-site is refused too', async () => {
    const res = await s.api('POST', '/tokens', {
      token: null,
      form: { name: 'sfs' },
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it("the same form post from the server's own origin → 201", async () => {
    const res = await s.api('POST', '/tokens', {
      token: null,
      form: { name: 'same-origin' },
      headers: { cookie, origin: s.url },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'same-origin', token: expect.any(String) });
  });

  it('a cross-site DELETE with the session cookie is refused as well', async () => {
    const made = await s.api('POST', '/tokens', { body: { name: 'victim' } });
    const res = await s.api('DELETE', `/tokens/${made.body.id}`, {
      token: null,
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await s.api('GET', '/me', { token: made.body.token })).status).toBe(200);
  });

  it('a bearer-token form post without Origin is not blocked', async () => {
    const res = await s.api('POST', '/tokens', { form: { name: 'bearer-form' } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('bearer-form');
  });

  it('a bearer-token request from a foreign Origin is not blocked either (no ambient credential)', async () => {
    const res = await s.api('POST', '/tokens', {
      form: { name: 'bearer-foreign' },
      headers: { origin: 'http://evil.example' },
    });
    expect(res.status).toBe(201);
  });
});

describe('sign-in rate limit', () => {
  let r: TestServer;
  beforeAll(async () => {
    r = await startServer({ LOGIN_MAX_FAILURES: '3' });
  });
  afterAll(async () => {
    await r.close();
  });

  it('after 3 failures for an account the 4th attempt is 429 even with the right password; other accounts still sign in', async () => {
    const u = await userWithPassword(r);
    for (let i = 0; i < 3; i++) {
      const res = await jsonLogin(r, u.email, `wrong-password-${i}`);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
    const blocked = await jsonLogin(r, u.email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(blocked.headers.getSetCookie().some((c) => c.startsWith('hxdesk_session='))).toBe(false);
    // The limit is per account, case-insensitively: the same address in capitals is blocked too.
    const shouted = await jsonLogin(r, u.email.toUpperCase(), PASSWORD);
    expect(shouted.status).toBe(429);
    expect(shouted.body.error.code).toBe('rate_limited');

    const other = await jsonLogin(r, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(other.status).toBe(200);
    expect(other.body.email).toBe(ADMIN_EMAIL);
  });

  it('a successful sign-in resets the failure count', async () => {
    const u = await userWithPassword(r);
    for (let i = 0; i < 2; i++) expect((await jsonLogin(r, u.email, 'nope-nope-nope')).status).toBe(401);
    expect((await jsonLogin(r, u.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await jsonLogin(r, u.email, 'nope-nope-nope')).status).toBe(401);
    expect((await jsonLogin(r, u.email, PASSWORD)).status).toBe(200);
  });
});

describe('sign-in rate limit per client address', () => {
  let r: TestServer;
  beforeAll(async () => {
    r = await startServer({ LOGIN_MAX_ATTEMPTS_PER_IP: '3' });
  });
  afterAll(async () => {
    await r.close();
  });

  it('counts every attempt from one address, whatever the account; then 429', async () => {
    const a = await userWithPassword(r);
    const b = await userWithPassword(r);
    expect((await jsonLogin(r, a.email, PASSWORD)).status).toBe(200);
    expect((await jsonLogin(r, b.email, 'wrong-password!')).status).toBe(401);
    expect((await jsonLogin(r, b.email, PASSWORD)).status).toBe(200);
    const blocked = await jsonLogin(r, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    // Bearer-token API use is not affected by the sign-in limit.
    expect((await r.api('GET', '/me')).status).toBe(200);
  });
});

describe('production mode', () => {
  let p: TestServer;
  beforeAll(async () => {
    p = await startServer({ NODE_ENV: 'production' });
  });
  afterAll(async () => {
    await p.close();
  });

  it('the session cookie is Secure (and still HttpOnly, SameSite=Lax)', async () => {
    const res = await jsonLogin(p, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(res.status).toBe(200);
    const cookie = sessionSetCookie(res);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
  });

  it('an unknown route is a 404 JSON error', async () => {
    const res = await p.api('GET', '/definitely-not-a-route');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('an internal error is a bare 500 `internal` with no stack trace or SQL', async () => {
    await rawRun(p, 'ALTER TABLE teams RENAME TO teams_moved_away');
    try {
      const res = await p.api('GET', '/teams');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: { code: 'internal', message: `Internal server error (request ${res.headers.get('x-request-id')})` },
      });
      expect(res.text).not.toMatch(/stack|sqlite|teams|select|at .*\.ts/i);
      const html = await p.api('GET', '/teams', { headers: { accept: 'text/html' } });
      expect(html.status).toBe(500);
      expect(html.text).not.toMatch(/sqlite|no such table|relation|\.ts:\d+/i);
    } finally {
      await rawRun(p, 'ALTER TABLE teams_moved_away RENAME TO teams');
    }
  });

  it('client errors carry only code, message and details', async () => {
    const res = await p.api('POST', '/users', { body: { email: 'not-an-email', surprise: 1 } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message']);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.text).not.toMatch(/stack|\.ts:\d+/i);
  });
});
