import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock, type TestClock } from '../src/domain/clock.js';
import { expectError } from './helpers/expect.js';
import { mailsTo, mailTo } from './helpers/notify.js';
import { startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';
import { uniqueAddress } from './helpers/unique.js';

// Forgot password (SPEC D6, docs/decisions/056) over real HTTP, with the mail delivered through the
// outbox to a real SMTP sink: the same answer for every address, a signed link valid one hour that
// works once and dies when the password changes, and the brakes per address and per client.

const MAIL_FROM = 'desk@hxdesk.example';
const PUBLIC_URL = 'https://help.example.com';
const OLD = 'the old password 1';
const NEW = 'a brand new password 2';
const PER_ADDRESS = 3;

let sink: SmtpSink;
let s: TestServer;
let clock: TestClock;

beforeAll(async () => {
  sink = await startSmtpSink();
  clock = testClock('2026-03-02T09:00:00.000Z');
  s = await startServer(
    {
      SMTP_URL: sink.url,
      OUTBOX_POLL_MS: '50',
      MAIL_FROM,
      PUBLIC_URL,
      PASSWORD_RESET_MAX_PER_ADDRESS: String(PER_ADDRESS),
      PASSWORD_RESET_MAX_PER_CLIENT: '10000',
    },
    { clock },
  );
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

async function person(role: 'agent' | 'requester' | 'admin', password: string | null = OLD) {
  const email = uniqueAddress(`reset ${role}`);
  const res = await s.api('POST', '/users', {
    body: { email, name: `Reset ${role}`, role, ...(password ? { password } : {}) },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as number, email };
}

/** Asks for a link as JSON (no session, no token): the answer. */
const ask = (email: string) => s.api('POST', '/password-reset', { token: null, body: { email } });

/** A browser's request: our own Origin (CSRF), optionally a cookie, a form, HTML wanted. */
function browser(method: string, path: string, init: { form?: Record<string, string>; cookie?: string } = {}) {
  const headers: Record<string, string> = { accept: 'text/html', origin: s.url };
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  return fetch(s.url + path, { method, headers, body, redirect: 'manual' });
}

/** The reset mails the sink has for `email`. */
const resetMails = (email: string) => mailsTo(sink, email).filter((m) => /password/i.test(m.parsed.subject ?? ''));

/** Asks for a link and waits for its mail (the n-th reset mail to that address); returns the link's path. */
async function linkFor(email: string): Promise<string> {
  const before = resetMails(email).length;
  expect((await ask(email)).status).toBe(200);
  const mail = await mailTo(sink, email, (m) => resetMails(email).indexOf(m) === before);
  return pathOf(mail);
}

function pathOf(mail: ReceivedMail): string {
  const m = new RegExp(`${PUBLIC_URL}(/password-reset/[A-Za-z0-9._-]+)`).exec(mail.parsed.text ?? '');
  expect(m, mail.parsed.text).not.toBeNull();
  return m![1];
}

/** The rows the outbox holds for an address (written with the request, so exact right after it). */
async function outboxRowsTo(email: string): Promise<any[]> {
  const res = await s.api('GET', '/outbox?limit=500');
  expect(res.status, res.text).toBe(200);
  return res.body.outbox.filter((r: { recipient: string }) => r.recipient === email);
}

const login = (email: string, password: string) => s.api('POST', '/login', { token: null, body: { email, password } });

describe('asking for a link', () => {
  it('the sign-in page offers it; the form asks for the address', async () => {
    const page = await (await browser('GET', '/login')).text();
    expect(page).toContain('href="/password-reset"');
    expect(page).toContain('Forgot password?');
    const res = await browser('GET', '/password-reset');
    expect(res.status).toBe(200);
    const form = await res.text();
    expect(form).toMatch(/<form method="post" action="\/password-reset"/);
    expect(form).toMatch(/<input type="email" name="email"/);
  });

  it('answers the same for an account, an unknown address and a disabled account; only the account is mailed', async () => {
    const known = await person('agent');
    const disabled = await person('agent');
    expect((await s.api('PATCH', `/users/${disabled.id}`, { body: { disabled: true } })).status).toBe(200);
    const unknown = uniqueAddress('nobody');
    const answers = [await ask(known.email), await ask(unknown), await ask(disabled.email)];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toEqual(answers[0].body);
    }
    expect(answers[0].body.message).toMatch(/If that address belongs to an account/);
    // The browser's form: the same redirect for each.
    const forms = await Promise.all(
      [known.email, unknown, disabled.email].map((email) => browser('POST', '/password-reset', { form: { email } })),
    );
    for (const f of forms) {
      expect(f.status).toBe(303);
      expect(f.headers.get('location')).toBe('/password-reset?sent');
    }
    const sent = await (await browser('GET', '/password-reset?sent')).text();
    expect(sent).toContain('If that address belongs to an account');
    // Rows are written with the request: exactly two for the account, none for the others.
    expect(await outboxRowsTo(known.email)).toHaveLength(2);
    expect(await outboxRowsTo(unknown)).toHaveLength(0);
    expect(await outboxRowsTo(disabled.email)).toHaveLength(0);
  });

  it('the mail comes from MAIL_FROM through the outbox, with a link to PUBLIC_URL/password-reset/<token>', async () => {
    const agent = await person('agent');
    expect((await ask(agent.email.toUpperCase())).status).toBe(200); // any case of the address
    const mail = await mailTo(sink, agent.email);
    expect(mail.envelope.to).toEqual([agent.email]);
    expect(mail.parsed.from?.value[0].address).toBe(MAIL_FROM);
    expect(mail.parsed.subject).toBe('Reset your hxdesk password');
    expect(String(mail.parsed.headers.get('auto-submitted'))).toBe('auto-generated');
    expect(mail.parsed.text).toContain('within an hour');
    expect(pathOf(mail)).toMatch(/^\/password-reset\/\d+\.\d+\.[A-Za-z0-9_-]{43}$/);
    // The mail may arrive before the worker has recorded it as sent (its next statement).
    await expect
      .poll(async () => (await outboxRowsTo(agent.email))[0], { timeout: 10_000, interval: 50 })
      .toMatchObject({ kind: 'email', ticket_id: null, status: 'sent' });
  });

  it('refuses something that is not an address: 422 naming email, in words on the form', async () => {
    expectError(await ask('not an address'), 422, 'validation_failed', 'email');
    const res = await browser('POST', '/password-reset', { form: { email: 'not an address' } });
    expect(res.status).toBe(422);
    const page = await res.text();
    expect(page).toContain('Enter an e-mail address');
    expect(page).toContain('value="not an address"');
  });
});

describe('using the link', () => {
  it('shows a form for the new password, never cached nor sent on as a Referer', async () => {
    const agent = await person('agent');
    const link = await linkFor(agent.email);
    const json = await s.api('GET', link, { token: null });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual({ email: agent.email, expires_at: '2026-03-02T10:00:00.000Z' });
    const res = await browser('GET', link);
    expect(res.status).toBe(200);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await res.text();
    expect(page).toContain(`action="${link}"`);
    expect(page).toContain('autocomplete="new-password"');
    expect(page).toContain(agent.email);
    // Opening it (a mail scanner's GET and HEAD too) uses nothing up: the form's POST still works.
    expect((await fetch(s.url + link, { method: 'HEAD' })).status).toBe(200);
    expect((await s.api('POST', link, { token: null, body: { password: NEW } })).status).toBe(200);
  });

  it('sets the password, signs in (staff land on the tickets), signs every other session out; then the link is used up', async () => {
    const agent = await person('agent');
    const elsewhere = await signIn(s, agent.email, OLD);
    const token = (
      await s.api('POST', '/tokens', {
        token: null,
        headers: { cookie: elsewhere, origin: s.url },
        body: { name: 'ci' },
      })
    ).body.token as string;
    const link = await linkFor(agent.email);
    const res = await browser('POST', link, { form: { password: NEW, password_confirm: NEW, username: agent.email } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/tickets(\?|$)/); // the staff landing list
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('hxdesk_session='))!
      .split(';')[0];
    const me = await s.api('GET', '/me', { token: null, headers: { cookie } });
    expect(me.status, me.text).toBe(200);
    expect(me.body.email).toBe(agent.email);
    expectError(await s.api('GET', '/me', { token: null, headers: { cookie: elsewhere } }), 401, 'unauthenticated');
    expect((await s.api('GET', '/me', { token })).status).toBe(200); // API tokens stay, as with a change in settings
    expectError(await login(agent.email, OLD), 401, 'unauthenticated');
    expect((await login(agent.email, NEW)).status).toBe(200);
    // Once: the same link again is refused, as a page saying so with a way to ask again.
    const again = await browser('GET', link);
    expect(again.status).toBe(404);
    const page = await again.text();
    expect(page).toContain('This link is no longer valid');
    expect(page).toContain('href="/password-reset"');
    expectError(
      await s.api('POST', link, { token: null, body: { password: 'yet another password 3' } }),
      404,
      'not_found',
    );
    expect((await login(agent.email, NEW)).status).toBe(200);
  });

  it('of two uses of one link at once, one sets the password', async () => {
    const agent = await person('agent');
    const link = await linkFor(agent.email);
    const [a, b] = await Promise.all(
      ['first password 123', 'second password 456'].map((password) =>
        s.api('POST', link, { token: null, body: { password } }),
      ),
    );
    expect([a.status, b.status].sort()).toEqual([200, 404]);
    const winner = a.status === 200 ? 'first password 123' : 'second password 456';
    expect((await login(agent.email, winner)).status).toBe(200);
  });

  it('a requester who only had portal links may set a password this way, and lands in the portal', async () => {
    const requester = await person('requester', null);
    expect((await ask(requester.email)).status).toBe(200);
    const mail = await mailTo(sink, requester.email);
    expect(mail.parsed.subject).toBe('Set your hxdesk password');
    const res = await browser('POST', pathOf(mail), { form: { password: NEW, password_confirm: NEW } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/portal');
    expect((await login(requester.email, NEW)).status).toBe(200);
  });

  it('the same password rules as elsewhere: 422 naming the field, the link still good; the form says it next to the field', async () => {
    const agent = await person('agent');
    const link = await linkFor(agent.email);
    expectError(await s.api('POST', link, { token: null, body: { password: 'short' } }), 422, 'validation_failed', [
      'password',
    ]);
    expectError(
      await s.api('POST', link, { token: null, body: { password: NEW, password_confirm: 'something else 1' } }),
      422,
      'validation_failed',
      ['password_confirm'],
    );
    const res = await browser('POST', link, { form: { password: 'short', password_confirm: 'short' } });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('Password: at least 12 characters');
    expect((await s.api('GET', link, { token: null })).status).toBe(200);
    expect((await login(agent.email, OLD)).status).toBe(200);
  });

  it('lifts the sign-in lockout of the account', async () => {
    const agent = await person('agent');
    for (let i = 0; i < 10; i++) await login(agent.email, 'a wrong guess here');
    expectError(await login(agent.email, OLD), 429, 'rate_limited');
    const link = await linkFor(agent.email);
    expect((await s.api('POST', link, { token: null, body: { password: NEW } })).status).toBe(200);
    expect((await login(agent.email, NEW)).status).toBe(200);
  });
});

describe('links that no longer work', () => {
  it('expires after one hour by the server clock: valid at 59 minutes, a page saying so after 60', async () => {
    const agent = await person('agent');
    const link = await linkFor(agent.email);
    clock.advance(59 * 60 * 1000);
    expect((await s.api('GET', link, { token: null })).status).toBe(200);
    clock.advance(60 * 1000);
    expectError(await s.api('GET', link, { token: null }), 404, 'not_found');
    const res = await browser('GET', link);
    expect(res.status).toBe(404);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const page = await res.text();
    expect(page).toContain('This link has expired');
    expect(page).toContain('href="/password-reset"');
    expectError(await s.api('POST', link, { token: null, body: { password: NEW } }), 404, 'not_found');
    expect((await login(agent.email, OLD)).status).toBe(200);
  });

  it('dies when the password is changed in settings', async () => {
    const agent = await person('agent');
    const link = await linkFor(agent.email);
    const cookie = await signIn(s, agent.email, OLD);
    const changed = await s.api('PATCH', '/settings', {
      token: null,
      headers: { cookie, origin: s.url },
      body: { current_password: OLD, password: NEW },
    });
    expect(changed.status, changed.text).toBe(200);
    expectError(await s.api('POST', link, { token: null, body: { password: 'someone else 12345' } }), 404, 'not_found');
    expect((await login(agent.email, NEW)).status).toBe(200);
  });

  it('dies when the account is disabled or its address changes', async () => {
    const disabled = await person('agent');
    const link1 = await linkFor(disabled.email);
    expect((await s.api('PATCH', `/users/${disabled.id}`, { body: { disabled: true } })).status).toBe(200);
    expectError(await s.api('GET', link1, { token: null }), 404, 'not_found');
    const moved = await person('agent');
    const link2 = await linkFor(moved.email);
    const res = await s.api('PATCH', `/users/${moved.id}`, { body: { email: uniqueAddress('moved') } });
    expect(res.status, res.text).toBe(200);
    expectError(await s.api('GET', link2, { token: null }), 404, 'not_found');
  });

  it('a tampered or forged link is 404, never a 500', async () => {
    const agent = await person('agent');
    const other = await person('agent');
    const link = await linkFor(agent.email);
    const [, , token] = link.split('/');
    const [id, expires, mac] = token.split('.');
    const flip = (ch: string) => (ch === 'A' ? 'B' : 'A');
    const forged = [
      `${id}.${expires}.${flip(mac[0])}${mac.slice(1)}`,
      `${id}.${Number(expires) + 3600}.${mac}`,
      `${other.id}.${expires}.${mac}`,
      `${id}.${expires}`,
      `${id}.${expires}.${mac}x`,
      `999999999.1.${'A'.repeat(43)}`,
      'garbage',
      encodeURIComponent('1.2.<script>'),
    ];
    for (const t of forged) {
      expectError(await s.api('GET', `/password-reset/${t}`, { token: null }), 404, 'not_found');
      expectError(
        await s.api('POST', `/password-reset/${t}`, { token: null, body: { password: NEW } }),
        404,
        'not_found',
      );
      const page = await browser('GET', `/password-reset/${t}`);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain('Ask for a new link');
    }
    expect((await login(agent.email, OLD)).status).toBe(200);
    expect((await login(other.email, OLD)).status).toBe(200);
  });
});

describe('brakes', () => {
  it(`per address: ${PER_ADDRESS} mails an hour, then the same answer and no mail; an hour later, mail again`, async () => {
    const agent = await person('agent');
    const unknown = uniqueAddress('nobody');
    const answers = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++) answers.push(await ask(agent.email), await ask(unknown));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toEqual(answers[0].body);
    }
    expect(await outboxRowsTo(agent.email)).toHaveLength(PER_ADDRESS);
    clock.advance(60 * 60 * 1000);
    expect((await ask(agent.email)).status).toBe(200);
    expect(await outboxRowsTo(agent.email)).toHaveLength(PER_ADDRESS + 1);
  });

  it('per client: past the limit a 429 with Retry-After, whatever the address (it says nothing about accounts)', async () => {
    const t = await startServer({ PASSWORD_RESET_MAX_PER_CLIENT: '3', PASSWORD_RESET_MAX_PER_ADDRESS: '100' });
    try {
      const known = (await t.api('POST', '/users', { body: { email: uniqueAddress('c'), name: 'C', role: 'agent' } }))
        .body.email as string;
      for (let i = 0; i < 3; i++)
        expect((await t.api('POST', '/password-reset', { token: null, body: { email: known } })).status).toBe(200);
      for (const email of [known, uniqueAddress('nobody')]) {
        const res = await t.api('POST', '/password-reset', { token: null, body: { email } });
        expectError(res, 429, 'rate_limited');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3000);
      }
      const form = await fetch(`${t.url}/password-reset`, {
        method: 'POST',
        headers: { accept: 'text/html', origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: known }).toString(),
        redirect: 'manual',
      });
      expect(form.status).toBe(429);
      expect(form.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await form.text()).toContain('Too many password-reset requests');
    } finally {
      await t.close();
    }
  });
});
