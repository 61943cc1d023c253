import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawQuery } from './helpers/db.js';
import { postMail, rawMail } from './helpers/mail.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';

// SPEC D6, docs/decisions/050, over real HTTP on both stores: a signed-in customer opens a new
// request from the portal (mail-equivalent: autoreply, staff notice, their mail reply threads
// into it), braked with their replies; the portal lists all their requests, newest first, paged,
// without deleted ones, which are not found and take no reply; their settings page.

const PER_HOUR = 4;
const PASSWORD = 'customer-password-123';
let s: TestServer;
let seq = 0;

beforeAll(async () => {
  s = await startServer({ MAIL_SENDER_MAX_PER_HOUR: String(PER_HOUR) });
});
afterAll(async () => {
  await s?.close();
});

async function customer() {
  const email = `req${++seq}@customer.example`;
  const made = await s.api('POST', '/users', {
    body: { email, name: `Customer ${seq}`, role: 'requester', password: PASSWORD },
  });
  expect(made.status, made.text).toBe(201);
  return { id: made.body.id as number, email, cookie: await signIn(s, email, PASSWORD) };
}

/** A signed-in customer's browser request (our origin, their cookie). */
function browse(cookie: string, method: string, path: string, body?: FormData | URLSearchParams) {
  return fetch(`${s.url}${path}`, {
    method,
    headers: { cookie, accept: 'text/html', origin: s.url },
    body,
    redirect: 'manual',
  });
}

describe('a new request from the portal', () => {
  it('opens in the one portal queue, with files, and is mail-equivalent: autoreply, staff notice, threading', async () => {
    const c = await customer();
    const page = await browse(c.cookie, 'GET', '/portal/new');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/portal/requests"');
    expect(html).not.toContain('name="queue_id"'); // one queue takes requests: nothing to choose
    const form = new FormData();
    form.set('subject', 'Cannot print invoices');
    form.set('body', 'The printer says PC LOAD LETTER.');
    form.append('attachments', new Blob([Buffer.from('%PDF-1.4 test')], { type: 'application/pdf' }), 'scan.pdf');
    const res = await browse(c.cookie, 'POST', '/portal/requests', form);
    expect(res.status, await res.clone().text()).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/portal\/tickets\/\d+$/);
    const id = Number(location.split('/').pop());
    const ticket = (await s.api('GET', `/tickets/${id}`)).body;
    expect(ticket).toMatchObject({ subject: 'Cannot print invoices', requester_id: c.id, queue_id: 1, status: 'new' });
    const [create] = await transactionsOf<{ type: string; creator_id: number; attachments: { filename: string }[] }>(
      s,
      id,
    );
    expect(create).toMatchObject({ type: 'Create', creator_id: c.id, attachments: [{ filename: 'scan.pdf' }] });
    // The autoreply to them and the notice to staff (General's AdminCc: the admin) are queued, as for mail.
    const mail = await rawQuery<{ recipient: string; audience: string; message_id: string }>(
      s,
      'SELECT recipient, audience, message_id FROM outbox WHERE ticket_id = ? ORDER BY id',
      [id],
    );
    expect(mail.filter((m) => m.audience === 'customer').map((m) => m.recipient)).toEqual([c.email]);
    expect(mail.some((m) => m.audience === 'staff')).toBe(true);
    // Their mail reply to the autoreply threads into the request.
    const autoreply = mail.find((m) => m.audience === 'customer')!;
    const reply = await postMail(
      s,
      rawMail({ from: c.email, subject: 'Re: your request', inReplyTo: autoreply.message_id }, 'Any news?'),
    );
    expect(reply.body).toMatchObject({ ticket_id: id, verdict: 'appended' });
    // Their page shows it, and their list has it.
    const shown = await (await browse(c.cookie, 'GET', location)).text();
    expect(shown).toContain('PC LOAD LETTER');
    expect(shown).toContain('Any news?');
    expect(await (await browse(c.cookie, 'GET', '/portal')).text()).toContain('Cannot print invoices');
  });

  it('offers a choice when several queues take requests, says so next to the field, and refuses other queues', async () => {
    const q = await s.api('POST', '/queues', { body: { name: 'Billing', portal_create: true } });
    const staffOnly = await s.api('POST', '/queues', { body: { name: 'Back office' } });
    const c = await customer();
    const json = await s.api('GET', '/portal/new', { token: null, headers: { cookie: c.cookie } });
    expect(json.body.queues.map((x: { name: string }) => x.name)).toEqual(['Billing', 'General']);
    const html = await (await browse(c.cookie, 'GET', '/portal/new')).text();
    expect(html).toContain('name="queue_id"');
    expect(html).not.toContain('Back office');
    const missing = await browse(
      c.cookie,
      'POST',
      '/portal/requests',
      new URLSearchParams({ subject: 'Refund', body: 'Please' }),
    );
    expect(missing.status).toBe(422);
    const again = await missing.text();
    expect(again).toContain('Choose what your request is about');
    expect(again).toContain('value="Refund"'); // what they typed is kept
    const other = await s.api('POST', '/portal/requests', {
      token: null,
      headers: { cookie: c.cookie, origin: s.url },
      body: { queue_id: staffOnly.body.id, subject: 'Sneak', body: 'x' },
    });
    expect(other.status).toBe(422);
    const made = await s.api('POST', '/portal/requests', {
      token: null,
      headers: { cookie: c.cookie, origin: s.url },
      body: { queue_id: q.body.id, subject: 'Refund', body: 'Please' },
    });
    expect(made.status, made.text).toBe(201);
    expect(Object.keys(made.body.ticket).sort()).toEqual(['created_at', 'id', 'status', 'subject', 'updated_at']);
    expect((await s.api('GET', `/tickets/${made.body.ticket.id}`)).body.queue_id).toBe(q.body.id);
    await s.api('PATCH', `/queues/${q.body.id}`, { body: { portal_create: false } });
  });

  it('is braked with their replies (429 in words) and says "by e-mail" when no queue takes requests', async () => {
    const c = await customer();
    const post = (subject: string) =>
      s.api('POST', '/portal/requests', {
        token: null,
        headers: { cookie: c.cookie, origin: s.url },
        body: { subject, body: 'x' },
      });
    for (let i = 0; i < PER_HOUR; i++) expect((await post(`Burst ${i}`)).status).toBe(201);
    const braked = await post('One too many');
    expect(braked.status).toBe(429);
    expect(braked.body.error.message).toContain(`You have sent ${PER_HOUR} messages within the hour`);
    const other = await customer();
    await s.api('PATCH', '/queues/1', { body: { portal_create: false } });
    try {
      const page = await (await browse(other.cookie, 'GET', '/portal/new')).text();
      expect(page).toContain('New requests are opened by e-mail');
      expect(page).not.toContain('<form method="post" action="/portal/requests"');
      const refused = await s.api('POST', '/portal/requests', {
        token: null,
        headers: { cookie: other.cookie, origin: s.url },
        body: { subject: 'x', body: 'y' },
      });
      expect(refused.status).toBe(403);
    } finally {
      await s.api('PATCH', '/queues/1', { body: { portal_create: true } });
    }
  });
});

describe('the portal list and deleted requests', () => {
  it('lists every status, newest first, a page at a time; a deleted request is gone: not listed, 404, no reply', async () => {
    const c = await customer();
    const ids: number[] = [];
    for (let i = 0; i < 27; i++) {
      const t = await s.api('POST', '/tickets', {
        body: { queue_id: 1, subject: `Old matter ${i}`, requesters: [c.id], status: i === 0 ? 'resolved' : 'new' },
      });
      ids.push(t.body.ticket.id);
    }
    const gone = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Spam by mistake', requesters: [c.id] },
    });
    await s.api('PATCH', `/tickets/${gone.body.ticket.id}`, { body: { status: 'deleted' } });
    const first = await s.api('GET', '/portal', { token: null, headers: { cookie: c.cookie } });
    expect(first.body).toMatchObject({ total: 27, limit: 25, offset: 0 });
    expect(first.body.tickets.map((t: { id: number }) => t.id)).toEqual(ids.slice(2).reverse());
    const second = await s.api('GET', '/portal?offset=25', { token: null, headers: { cookie: c.cookie } });
    expect(second.body.tickets.map((t: { id: number }) => t.id)).toEqual([ids[1], ids[0]]);
    expect(second.body.tickets[1].status).toBe('resolved');
    const html = await (await browse(c.cookie, 'GET', '/portal')).text();
    expect(html).toContain('href="/portal?offset=25"');
    expect(html).not.toContain('Spam by mistake');
    const page = await browse(c.cookie, 'GET', `/portal/tickets/${gone.body.ticket.id}`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain('portal-reply');
    const reply = await s.api('POST', `/portal/tickets/${gone.body.ticket.id}/reply`, {
      token: null,
      headers: { cookie: c.cookie, origin: s.url },
      body: { body: 'Hello?' },
    });
    expect(reply.status).toBe(404);
    expect((await transactionsOf(s, gone.body.ticket.id)).filter((t: any) => t.type === 'Correspond')).toEqual([]);
    // Restored, it is theirs again.
    await s.api('PATCH', `/tickets/${gone.body.ticket.id}`, { body: { status: 'open' } });
    expect((await browse(c.cookie, 'GET', `/portal/tickets/${gone.body.ticket.id}`)).status).toBe(200);
  });
});

describe('the portal settings page', () => {
  it('changes name and time zone, and the password with the current one (said next to the field when wrong)', async () => {
    const c = await customer();
    const page = await (await browse(c.cookie, 'GET', '/portal/settings')).text();
    expect(page).toContain('name="timezone"');
    expect(page).not.toContain('signature');
    const saved = await browse(
      c.cookie,
      'POST',
      '/portal/settings',
      new URLSearchParams({ name: 'Rosa Renamed', timezone: 'Europe/Berlin' }),
    );
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/portal/settings?saved');
    const now = await s.api('GET', '/portal/settings', { token: null, headers: { cookie: c.cookie } });
    expect(now.body).toMatchObject({ name: 'Rosa Renamed', timezone: 'Europe/Berlin' });
    const wrong = await browse(
      c.cookie,
      'POST',
      '/portal/settings',
      new URLSearchParams({
        current_password: 'not-my-password',
        password: 'a-new-password-456',
        password_confirm: 'a-new-password-456',
      }),
    );
    expect(wrong.status).toBe(422);
    const text = await wrong.text();
    expect(text).toContain('id="settings-current-error"');
    expect(text.match(/That is not your current password/g)).toHaveLength(1);
    const changed = await browse(
      c.cookie,
      'POST',
      '/portal/settings',
      new URLSearchParams({
        current_password: PASSWORD,
        password: 'a-new-password-456',
        password_confirm: 'a-new-password-456',
      }),
    );
    expect(changed.status).toBe(303);
    await signIn(s, c.email, 'a-new-password-456');
  });
});
