import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { MAILGATE_TOKEN, postMail } from './helpers/mail.js';
import { mailsFor, settle } from './helpers/notify.js';
import { startServer, type TestServer } from './helpers/server.js';
import { signIn, tokenFor } from './helpers/session.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniq, uniqueAddress } from './helpers/unique.js';

// A user's own settings (SPEC C2) and signatures on public replies (SPEC C3), through the HTTP
// API and the HTML form, with mail delivered to a real SMTP sink.

let sink: SmtpSink;
let s: TestServer;
let generalId: number;
const PASSWORD = 'a long password 1';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A user with a password (so they can sign in) and an API token. */
async function member(role: 'admin' | 'agent' | 'requester', name = uniq(role)) {
  const email = uniqueAddress(role);
  const res = await s.api('POST', '/users', { body: { email, name, role, password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as number, email, name, token: await tokenFor(s.url, email, PASSWORD) };
}

/** A request riding on a session cookie, from our own origin (as a browser's would). */
function withCookie(
  cookie: string,
  method: string,
  path: string,
  init: { json?: unknown; form?: Record<string, string>; html?: boolean } = {},
) {
  const headers: Record<string, string> = { cookie, origin: s.url };
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  if (init.html) headers.accept = 'text/html';
  return fetch(s.url + path, { method, headers, body, redirect: 'manual' });
}

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50', MAILGATE_TOKEN });
  generalId = (await s.api('GET', '/queues')).body.queues.find((q: { name: string }) => q.name === 'General').id;
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

describe('GET and PATCH /settings', () => {
  it("answers the signed-in user's settings, never a password or its hash", async () => {
    const agent = await member('agent');
    const res = await s.api('GET', '/settings', { token: agent.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: agent.id,
      email: agent.email,
      role: 'agent',
      name: agent.name,
      timezone: 'UTC',
      signature: '',
      notify_new_tickets: true,
      notify_replies: true,
      notify_notes: true,
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.text).not.toMatch(/password|scrypt/);
  });

  it('changes name, time zone, signature and notification choices, each on its own', async () => {
    const agent = await member('agent');
    const body = {
      name: 'Ann Agent',
      timezone: 'Europe/Berlin',
      signature: 'Best,\n{{ user.name }}',
      notify_new_tickets: false,
      notify_replies: false,
      notify_notes: false,
    };
    const res = await s.api('PATCH', '/settings', { token: agent.token, body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject(body);
    expect((await s.api('GET', '/settings', { token: agent.token })).body).toMatchObject(body);
    const back = await s.api('PATCH', '/settings', {
      token: agent.token,
      body: { notify_replies: true, timezone: 'UTC' },
    });
    expect(back.body).toMatchObject({
      notify_new_tickets: false,
      notify_replies: true,
      notify_notes: false,
      timezone: 'UTC',
    });
  });

  it('refuses a time zone that is not an IANA zone: 422 naming timezone', async () => {
    const agent = await member('agent');
    for (const timezone of ['Mars/Olympus_Mons', 'CEST', 'EST', '+02:00', '', 'Europe/Berlin; DROP']) {
      expectError(
        await s.api('PATCH', '/settings', { token: agent.token, body: { timezone } }),
        422,
        'validation_failed',
        'timezone',
      );
    }
    expect((await s.api('GET', '/settings', { token: agent.token })).body.timezone).toBe('UTC');
    // Today's IANA names are taken even where the runtime lists an older one (Asia/Calcutta, Europe/Kiev).
    for (const timezone of ['Asia/Kolkata', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires', 'UTC']) {
      const ok = await s.api('PATCH', '/settings', { token: agent.token, body: { timezone } });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.timezone).toBe(timezone);
    }
  });

  it('refuses a signature that is not valid Liquid or uses an unknown variable: 422 naming signature', async () => {
    const agent = await member('agent');
    for (const signature of ['{% if %}', '{{ user.nmae }}', '{{ ticket.url }}', '{{ user.name | nosuchfilter }}']) {
      expectError(
        await s.api('PATCH', '/settings', { token: agent.token, body: { signature } }),
        422,
        'validation_failed',
        'signature',
      );
    }
    const ok = await s.api('PATCH', '/settings', {
      token: agent.token,
      body: {
        signature:
          '{{ user.name }} ({{ user.email }}), {{ queue.name }} {{ queue.mail_alias }} #{{ ticket.id }} {{ ticket.subject }}',
      },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('refuses unknown fields and malformed choices', async () => {
    const agent = await member('agent');
    expectError(
      await s.api('PATCH', '/settings', { token: agent.token, body: { role: 'admin' } }),
      422,
      'validation_failed',
      'role',
    );
    expectError(
      await s.api('PATCH', '/settings', { token: agent.token, body: { notify_notes: 'maybe' } }),
      422,
      'validation_failed',
      'notify_notes',
    );
    expect((await s.api('GET', '/settings', { token: agent.token })).body).toMatchObject({
      role: 'agent',
      notify_notes: true,
    });
  });

  it('needs a signed-in user', async () => {
    expectError(await s.api('GET', '/settings', { token: null }), 401, 'unauthenticated');
  });
});

describe('password', () => {
  it('a new password needs the current one: missing or wrong is 422 naming current_password, and nothing changes', async () => {
    const agent = await member('agent');
    expectError(
      await s.api('PATCH', '/settings', { token: agent.token, body: { password: 'another long password' } }),
      422,
      'validation_failed',
      'current_password',
    );
    expectError(
      await s.api('PATCH', '/settings', {
        token: agent.token,
        body: { password: 'another long password', current_password: 'wrong password!!' },
      }),
      422,
      'validation_failed',
      'current_password',
    );
    expectError(
      await s.api('PATCH', '/settings', {
        token: agent.token,
        body: { password: 'short', current_password: PASSWORD },
      }),
      422,
      'validation_failed',
      'password',
    );
    expectError(
      await s.api('PATCH', '/settings', {
        token: agent.token,
        body: { password: 'another long password', password_confirm: 'a different one!', current_password: PASSWORD },
      }),
      422,
      'validation_failed',
      'password_confirm',
    );
    await signIn(s, agent.email, PASSWORD); // still the old one
  });

  it('changing it keeps this session, signs out the others, and the new password signs in', async () => {
    const agent = await member('agent');
    const here = await signIn(s, agent.email, PASSWORD);
    const elsewhere = await signIn(s, agent.email, PASSWORD);
    const res = await withCookie(here, 'PATCH', '/settings', {
      json: { current_password: PASSWORD, password: 'a brand new password', password_confirm: 'a brand new password' },
    });
    expect(res.status, await res.text()).toBe(200);
    expect((await withCookie(here, 'GET', '/me')).status).toBe(200);
    expect((await withCookie(elsewhere, 'GET', '/me')).status).toBe(401);
    const old = await fetch(`${s.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: agent.email, password: PASSWORD }),
    });
    expect(old.status).toBe(401);
    await signIn(s, agent.email, 'a brand new password');
    // The API token stays: it is revoked on its own.
    expect((await s.api('GET', '/settings', { token: agent.token })).status).toBe(200);
  });
});

describe('requesters', () => {
  it('with a password change name, time zone and password; signature and notifications are not theirs (hidden, 403)', async () => {
    const r = await member('requester');
    const got = await s.api('GET', '/settings', { token: r.token });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(['email', 'id', 'name', 'role', 'timezone', 'updated_at']);
    const ok = await s.api('PATCH', '/settings', {
      token: r.token,
      body: { name: 'Rita R', timezone: 'America/New_York' },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ name: 'Rita R', timezone: 'America/New_York' });
    expectError(await s.api('PATCH', '/settings', { token: r.token, body: { signature: 'Rita' } }), 403, 'forbidden');
    expectError(
      await s.api('PATCH', '/settings', { token: r.token, body: { notify_replies: false } }),
      403,
      'forbidden',
    );
    // Their page is the portal's (decision 050).
    const staffPage = await s.api('GET', '/settings', { token: r.token, headers: { accept: 'text/html' } });
    expect(staffPage.status).toBe(303);
    expect(staffPage.headers.get('location')).toBe('/portal/settings');
    const page = await s.api('GET', '/portal/settings', { token: r.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('name="timezone"');
    expect(page.text).not.toContain('name="signature"');
    expect(page.text).not.toContain('name="notify_notes"');
  });
});

describe('the settings page', () => {
  it("is linked from every page's user menu and holds the form", async () => {
    const agent = await member('agent');
    const tickets = await s.api('GET', '/tickets', { token: agent.token, headers: { accept: 'text/html' } });
    expect(tickets.text).toContain('href="/settings"');
    const page = await s.api('GET', '/settings', { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    for (const field of [
      'name',
      'timezone',
      'signature',
      'notify_new_tickets',
      'notify_replies',
      'notify_notes',
      'current_password',
      'password',
      'password_confirm',
    ]) {
      expect(page.text).toContain(`name="${field}"`);
    }
    expect(page.text).toContain('<option value="Europe/Berlin">');
    expect(page.text).toContain('New tickets in my teams&#39; queues');
  });

  it('works as a plain form: POST with _method=PATCH or plain POST → 303 to the page, which says Saved', async () => {
    const agent = await member('agent');
    const cookie = await signIn(s, agent.email, PASSWORD);
    const viaPatch = await withCookie(cookie, 'POST', '/settings', {
      html: true,
      form: {
        _method: 'PATCH',
        name: 'Form Name',
        timezone: 'Asia/Tokyo',
        signature: 'Cheers',
        notify_notes: 'false',
        notify_replies: 'false',
      },
    });
    expect(viaPatch.status).toBe(303);
    expect(viaPatch.headers.get('location')).toBe('/settings?saved');
    const plain = await withCookie(cookie, 'POST', '/settings', { html: true, form: { notify_replies: 'true' } });
    expect(plain.status).toBe(303);
    expect((await s.api('GET', '/settings', { token: agent.token })).body).toMatchObject({
      name: 'Form Name',
      timezone: 'Asia/Tokyo',
      signature: 'Cheers',
      notify_notes: false,
      notify_replies: true,
      notify_new_tickets: true,
    });
    const page = await withCookie(cookie, 'GET', '/settings?saved', { html: true });
    expect(await page.text()).toContain('Saved.');
    // A form error names the field, and a cross-site form is refused.
    const bad = await withCookie(cookie, 'POST', '/settings', {
      html: true,
      form: { _method: 'PATCH', timezone: 'Nowhere/Land' },
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('timezone');
    const forged = await fetch(`${s.url}/settings`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Pwned',
    });
    expect(forged.status).toBe(403);
  });
});

describe('the time zone is honoured on screens; JSON stays UTC', () => {
  it("shows a ticket's times in the reader's zone", async () => {
    const agent = await member('agent');
    expect((await s.api('PATCH', '/settings', { token: agent.token, body: { timezone: 'Asia/Kolkata' } })).status).toBe(
      200,
    );
    const created = await s.api('POST', '/tickets', { body: { queue_id: generalId, subject: uniq('Zone check') } });
    expect(created.status, created.text).toBe(201);
    const iso: string = created.body.ticket.created_at;
    expect(iso).toMatch(ISO);
    const json = await s.api('GET', `/tickets/${created.body.ticket.id}`, { token: agent.token });
    expect(json.body.created_at).toBe(iso);
    const utc = `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
    // Kolkata is UTC+05:30, all year.
    const local = new Date(Date.parse(iso) + 330 * 60_000).toISOString();
    const kolkata = `${local.slice(0, 10)} ${local.slice(11, 16)}`;
    const page = await s.api('GET', `/tickets/${created.body.ticket.id}`, {
      token: agent.token,
      headers: { accept: 'text/html' },
    });
    expect(page.text).toContain(kolkata);
    expect(page.text).not.toContain(`>${utc}<`);
    const list = await s.api('GET', `/tickets?q=${encodeURIComponent('Zone check')}`, {
      token: agent.token,
      headers: { accept: 'text/html' },
    });
    expect(list.text).toContain(kolkata);
    // Another reader in UTC sees UTC; an htmx fragment of the list is in the reader's zone too.
    const admin = await s.api('GET', `/tickets/${created.body.ticket.id}`, { headers: { accept: 'text/html' } });
    expect(admin.text).toContain(utc);
    const fragment = await s.api('GET', `/tickets?q=${encodeURIComponent('Zone check')}`, {
      token: agent.token,
      headers: { 'hx-request': 'true' },
    });
    expect(fragment.text).toContain(kolkata);
  });
});

describe('signatures on public replies (SPEC C3)', () => {
  let queue: { id: number; name: string; mail_alias: string };
  let agent: Awaited<ReturnType<typeof member>>;
  const customer = uniqueAddress('cust', 'customer.example');

  beforeAll(async () => {
    const name = uniq('Billing');
    const res = await s.api('POST', '/queues', {
      body: {
        name,
        mail_alias: `${name.replace(/\W+/g, '-').toLowerCase()}@helpdesk.example`,
        signature: '{{ queue.name }} team · {{ queue.mail_alias }}',
        portal_create: true,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.signature).toBe('{{ queue.name }} team · {{ queue.mail_alias }}');
    queue = res.body;
    agent = await member('agent', 'Ann Agent');
    const set = await s.api('PATCH', '/settings', {
      token: agent.token,
      body: { signature: 'Best regards,\n{{ user.name }}\nTicket #{{ ticket.id }}: {{ ticket.subject }}' },
    });
    expect(set.status, set.text).toBe(200);
  });

  async function ticket(subject = uniq('Invoice wrong')) {
    const res = await s.api('POST', '/tickets', { body: { queue_id: queue.id, subject, requesters: [customer] } });
    expect(res.status, res.text).toBe(201);
    await settle(s, res.body.ticket.id);
    return res.body.ticket as { id: number; subject: string };
  }
  const reply = async (id: number, body: Record<string, unknown>, token = agent.token) => {
    const res = await s.api('POST', `/tickets/${id}/comment`, { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.transaction as { id: number; body: string };
  };
  const signed = (t: { id: number; subject: string }, text: string) =>
    `${text}\n\n-- \nBest regards,\nAnn Agent\nTicket #${t.id}: ${t.subject}\n\n${queue.name} team · ${queue.mail_alias}`;

  it("close a staff member's public reply: stored with the reply and delivered as sent", async () => {
    const t = await ticket();
    const txn = await reply(t.id, { body: 'Fixed the invoice.\n', internal: false });
    expect(txn.body).toBe(signed(t, 'Fixed the invoice.'));
    const history = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions as {
      id: number;
      body: string;
    }[];
    expect(history.find((x) => x.id === txn.id)!.body).toBe(signed(t, 'Fixed the invoice.'));
    await settle(s, t.id);
    const [mail] = mailsFor(sink, t.id, customer).filter((m) => m.parsed.text?.includes('Fixed the invoice.'));
    expect(mail, 'the customer got the reply').toBeDefined();
    expect(mail.parsed.text).toContain(signed(t, 'Fixed the invoice.'));
  });

  it("are not added to internal notes, to mail, to a requester's reply, nor twice", async () => {
    const t = await ticket();
    expect((await reply(t.id, { body: 'Note to self' })).body).toBe('Note to self');
    expect((await reply(t.id, { body: 'Internal', internal: true })).body).toBe('Internal');
    // Already signed (pasted, or the same text again): left as it is.
    const once = signed(t, 'Here you go.');
    expect((await reply(t.id, { body: once, internal: false })).body).toBe(once);
    // The staff member replying by mail keeps what their mail program wrote.
    const mail = await postMail(
      s,
      [
        `From: Ann Agent <${agent.email}>`,
        `To: ${queue.mail_alias}`,
        `Subject: Re: [hxdesk #${t.id}] ${t.subject}`,
        `Message-ID: <sig.${t.id}.${Date.now()}@example.com>`,
        '',
        'Answered from my phone.',
        '',
      ].join('\r\n'),
    );
    expect(mail.status, mail.text).toBe(200);
    const history = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions as {
      id: number;
      body: string;
    }[];
    expect(history.find((x) => x.id === mail.body.transaction_id)!.body.trim()).toBe('Answered from my phone.');
    // A requester's own reply is not signed with anything.
    const r = await member('requester');
    const rt = await s.api('POST', '/tickets', { body: { queue_id: queue.id, subject: uniq('Mine') }, token: r.token });
    expect((await reply(rt.body.ticket.id, { body: 'Thanks!', internal: false }, r.token)).body).toBe('Thanks!');
  });

  it('a queue signature alone, and no signature at all, are handled; a bad queue signature is 422', async () => {
    const other = await member('agent', 'Otto');
    const t = await ticket();
    expect((await reply(t.id, { body: 'Only the queue signs.', internal: false }, other.token)).body).toBe(
      `Only the queue signs.\n\n-- \n${queue.name} team · ${queue.mail_alias}`,
    );
    const plain = await s.api('POST', '/tickets', {
      body: { queue_id: generalId, subject: uniq('No sigs'), requesters: [customer] },
    });
    expect((await reply(plain.body.ticket.id, { body: 'Unsigned.', internal: false }, other.token)).body).toBe(
      'Unsigned.',
    );
    expectError(
      await s.api('PATCH', `/queues/${queue.id}`, { body: { signature: '{{ queue.nope }}' } }),
      422,
      'validation_failed',
      'signature',
    );
    expectError(
      await s.api('POST', '/queues', { body: { name: uniq('Q'), signature: '{% for %}' } }),
      422,
      'validation_failed',
      'signature',
    );
  });

  it("an administrator writing for another staff member signs with that member's signature", async () => {
    const t = await ticket();
    expect(
      (await reply(t.id, { body: "On Ann's behalf.", internal: false, creator_id: agent.id }, s.adminToken)).body,
    ).toBe(signed(t, "On Ann's behalf."));
  });
});
