import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { get, MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { outboxOf } from './helpers/notify.js';
import { userByEmail } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniq } from './helpers/unique.js';

// SPEC D6, our own addresses: the list admins keep (GET/PATCH /mail-settings) counts at once,
// in every process on the store, beside MAIL_FROM, MAIL_ADDRESSES and the queue aliases; a
// message handed over with an explicit queue takes the address it was delivered to as ours; the
// intake log says which recipients it took as ours (decision 051).

let sink: SmtpSink;
let s: TestServer;
let agent: { id: number; email: string; token: string };
let requester: { id: number; email: string; token: string };

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50', MAIL_ADDRESSES: 'desk@env.example' });
  agent = await s.user('agent');
  requester = await s.user('requester');
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

const settings = () => get(s, '/mail-settings');
const patch = (mail_addresses: unknown, token?: string) =>
  s.api('PATCH', '/mail-settings', { body: { mail_addresses }, token });

/** A message handed over as JSON, optionally with an explicit queue (as `hxdesk-mailgate --queue` does). */
async function mailJson(raw: Buffer, queue?: string) {
  const res = await fetch(`${s.url}/mailgate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MAILGATE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: raw.toString('utf8'), ...(queue ? { queue } : {}) }),
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(body.created ? 201 : 200);
  return body as { ticket_id: number; intake_id: number; verdict: string; created: boolean };
}

const exists = async (email: string) => (await userByEmail(s, email)) !== undefined;

describe('GET/PATCH /mail-settings', () => {
  it('shows our other addresses with where each comes from; staff read, only admins change', async () => {
    const alias = `${uniq('billing')}@queues.example`;
    expect((await s.api('POST', '/queues', { body: { name: uniq('Billing'), mail_alias: alias } })).status).toBe(201);
    const got = await settings();
    expect(got.mail_addresses).toEqual([]);
    expect(got.updated_at).toBeNull();
    expect(got.other_addresses).toEqual(
      expect.arrayContaining([
        { address: 'hxdesk@localhost', from: ['MAIL_FROM'] },
        { address: 'desk@env.example', from: ['MAIL_ADDRESSES'] },
        { address: alias, from: [expect.stringMatching(/^alias of queue Billing/)] },
      ]),
    );
    expect((await s.api('GET', '/mail-settings', { token: agent.token })).status).toBe(200);
    expectError(await s.api('GET', '/mail-settings', { token: requester.token }), 403, 'forbidden');
    expectError(await patch(['a@ours.example'], agent.token), 403, 'forbidden');
    // The page is the admin area's: agents read the JSON, not the screen.
    const page = await s.api('GET', '/mail-settings', { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.status).toBe(403);
    expect((await settings()).mail_addresses).toEqual([]);
  });

  it('refuses what is not a list of addresses, in words, on the field, and changes nothing', async () => {
    const bad = await patch(['help@ours.example', 'not an address', 'x@']);
    expectError(bad, 422, 'validation_failed', ['mail_addresses']);
    expect(bad.body.error.details[0].message).toBe('"not an address", "x@" are not e-mail addresses');
    const one = await patch(['help@ours.example', 'nope']);
    expect(one.body.error.details[0].message).toBe('"nope" is not an e-mail address');
    const many = await patch(Array.from({ length: 51 }, (_, i) => `a${i}@ours.example`));
    expectError(many, 422, 'validation_failed', ['mail_addresses']);
    expect(many.body.error.details[0].message).toBe('Mail addresses: at most 50 addresses (51 given)');
    expectError(await patch('help@ours.example'.repeat(2000)), 422, 'validation_failed', ['mail_addresses']);
    expectError(await patch(42), 422, 'validation_failed', ['mail_addresses']);
    expectError(
      await s.api('PATCH', '/mail-settings', { body: { mail_addresses: [], extra: 1 } }),
      422,
      'validation_failed',
      ['extra'],
    );
    // A staff member's address would never be mailed again.
    const staff = await patch(['help@ours.example', agent.email.toUpperCase()]);
    expectError(staff, 422, 'validation_failed', ['mail_addresses']);
    expect(staff.body.error.details[0].message).toMatch(new RegExp(`^${agent.email} \\(.+\\) is a staff member: `));
    expect((await settings()).mail_addresses).toEqual([]);
  });

  it('keeps the list lower-cased without repeats; a plain form post (one address a line) lands on the page', async () => {
    const res = await patch(['Help@Ours.example', ' help@ours.example ', 'team@ours.example']);
    expect(res.status, res.text).toBe(200);
    expect(res.body.mail_addresses).toEqual(['help@ours.example', 'team@ours.example']);
    expect(res.body.updated_at).toEqual(expect.any(String));
    const form = await s.api('POST', '/mail-settings', {
      form: { _method: 'PATCH', mail_addresses: 'help@ours.example\r\n\r\nTeam@ours.example, other@ours.example\r\n' },
      headers: { accept: 'text/html' },
    });
    expect(form.status, form.text).toBe(303);
    expect(form.headers.get('location')).toBe('/mail-settings?saved');
    expect((await settings()).mail_addresses).toEqual(['help@ours.example', 'team@ours.example', 'other@ours.example']);
    const page = await s.api('GET', '/mail-settings?saved', { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Saved.');
    expect(page.text).toContain('other@ours.example');
    expect((await patch([])).body.mail_addresses).toEqual([]);
  });
});

describe('the admins’ list counts at once', () => {
  it('mail to one of the listed addresses does not make it a Cc; mail from it is ours (no loop)', async () => {
    expect((await patch(['help@ours.example'])).status).toBe(200);
    const cc = `${uniq('pia')}@customer.example`;
    const r = await postMail(
      s,
      rawMail({ from: 'Olga <olga@customer.example>', to: 'help@ours.example', cc, subject: uniq('Listed') }, 'Hi.'),
    );
    expect(r.status, r.text).toBe(201);
    const t = await get(s, `/tickets/${r.body.ticket_id}`);
    expect(t.cc).toEqual([(await userByEmail(s, cc))!.id]);
    expect(await exists('help@ours.example')).toBe(false);
    const entry = await get(s, `/mail/intake/${r.body.intake_id}`);
    expect(entry.ours).toEqual(['help@ours.example']);
    expect(entry.rule).toContain('recipients taken as ours: help@ours.example');

    const loop = await postMail(s, rawMail({ from: 'help@ours.example', to: 'olga@customer.example' }, 'Auto.'));
    expect(loop.status, loop.text).toBe(200);
    expect(loop.body).toMatchObject({ verdict: 'ignored_auto', rule: 'sent from our own address help@ours.example' });
  });

  it('a listed address cannot be added as a requester or Cc; one added before is kept but never mailed, and the page warns', async () => {
    const later = `${uniq('later')}@ours.example`;
    const cust = `${uniq('cust')}@customer.example`;
    const created = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: uniq('Before it was ours'), description: 'x', requesters: [cust], cc: [later] },
      token: agent.token,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.ticket.id as number;
    const reply = (text: string) =>
      s.api('POST', `/tickets/${id}/comment`, { body: { body: text, internal: false }, token: agent.token });
    const first = await reply('First answer');
    expect(first.status, first.text).toBe(201);
    const mailedTo = async () =>
      (await outboxOf(s, id)).filter((o) => o.kind === 'email').map((o) => o.recipient as string);
    expect(await mailedTo()).toEqual(expect.arrayContaining([cust, later]));
    const before = (await mailedTo()).length;

    const saved = await patch(['help@ours.example', later]);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.tickets_with_our_addresses.total).toBeGreaterThanOrEqual(1);
    expect(saved.body.tickets_with_our_addresses.tickets).toContainEqual({
      ticket_id: id,
      subject: created.body.ticket.subject,
      address: later,
      role: 'cc',
    });
    const page = await s.api('GET', '/mail-settings', { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/\d+ tickets? names? one of our addresses as a person/);
    expect(page.text).toContain(`href="/tickets/${id}"`);

    expect((await reply('Second answer')).status).toBe(201);
    const after = (await mailedTo()).slice(before);
    expect(after).toContain(cust);
    expect(after).not.toContain(later);
    // The watcher row stays (staff remove it on the ticket); nobody can add a listed address again.
    expect((await get(s, `/tickets/${id}`)).cc).toEqual([(await userByEmail(s, later))!.id]);
    const again = await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc', email: 'HELP@ours.example' } });
    expectError(again, 422, 'validation_failed', 'email');
    expect(again.body.error.message).toContain("help@ours.example is one of hxdesk's own addresses");
    expectError(
      await s.api('POST', '/tickets', {
        body: { queue_id: 1, subject: 'x', description: 'x', requesters: ['help@ours.example'] },
      }),
      422,
      'validation_failed',
    );
  });

  it('another app on the same store sees a change at once (no cache to go stale)', async () => {
    const other = await startServer(s.env.DATABASE_URL ? { DATABASE_URL: s.env.DATABASE_URL } : { DATA_DIR: s.dir });
    try {
      const fresh = `${uniq('fresh')}@ours.example`;
      const add = () =>
        other.api('POST', '/tickets', {
          body: { queue_id: 1, subject: uniq('Other app'), description: 'x', cc: [fresh] },
        });
      expect(await other.api('GET', '/mail-settings').then((r) => r.body.mail_addresses)).toEqual(
        (await settings()).mail_addresses,
      );
      expect((await patch([...(await settings()).mail_addresses, fresh])).status).toBe(200);
      expectError(await add(), 422, 'validation_failed');
      expect((await other.api('GET', '/mail-settings')).body.mail_addresses).toContain(fresh);
    } finally {
      await other.close();
    }
  });
});

describe('a message handed over with an explicit queue', () => {
  it('takes the address it was delivered to (its only To) as ours: not a user, not a Cc; the intake log says so', async () => {
    const support = `${uniq('support')}@unlisted.example`;
    const pia = `${uniq('pia')}@customer.example`;
    const subject = uniq('Explicit queue');
    const r = await mailJson(
      rawMail({ from: 'Olga <olga@customer.example>', to: support, cc: pia, subject }, 'Help.'),
      'General',
    );
    expect(r.created).toBe(true);
    const t = await get(s, `/tickets/${r.ticket_id}`);
    expect(t.cc).toEqual([(await userByEmail(s, pia))!.id]);
    expect(t.requesters).toEqual([(await userByEmail(s, 'olga@customer.example'))!.id]);
    expect(await exists(support)).toBe(false);
    const entry = await get(s, `/mail/intake/${r.intake_id}`);
    expect(entry.ours).toEqual([support]);
    expect(entry.rule).toContain(`recipients taken as ours: ${support} (delivered here)`);
    const page = await s.api('GET', `/mail/intake/${r.intake_id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(new RegExp(`<dt>Taken as ours</dt><dd>${support}</dd>`));
    // A public reply goes to the requester and the Cc, never to the address the mail came in at.
    const reply = await s.api('POST', `/tickets/${r.ticket_id}/comment`, {
      body: { body: 'On it', internal: false },
      token: agent.token,
    });
    expect(reply.status).toBe(201);
    const recipients = (await outboxOf(s, r.ticket_id)).map((o) => o.recipient);
    expect(recipients).toEqual(expect.arrayContaining(['olga@customer.example', pia]));
    expect(recipients).not.toContain(support);
  });

  it('Delivered-To (or X-Original-To) names it when present; a To the sender wrote to themselves is not ours', async () => {
    const routed = `${uniq('routed')}@unlisted.example`;
    const friend = `${uniq('friend')}@customer.example`;
    const viaHeader = await mailJson(
      rawMail(
        {
          from: 'Olga <olga@customer.example>',
          to: friend,
          subject: uniq('Delivered'),
          headers: { 'X-Original-To': routed },
        },
        'Hi.',
      ),
      'General',
    );
    expect((await get(s, `/tickets/${viaHeader.ticket_id}`)).cc).toEqual([(await userByEmail(s, friend))!.id]);
    expect((await get(s, `/mail/intake/${viaHeader.intake_id}`)).ours).toEqual([routed]);

    // Sent To themselves, with us in Bcc: a request like any other, from them.
    const self = `${uniq('self')}@customer.example`;
    const bcc = await mailJson(rawMail({ from: self, to: self, subject: uniq('Bcc us') }, 'Hi.'), 'General');
    expect(bcc.verdict).toBe('created');
    expect((await get(s, `/tickets/${bcc.ticket_id}`)).requesters).toEqual([(await userByEmail(s, self))!.id]);
    expect((await get(s, `/mail/intake/${bcc.intake_id}`)).ours).toEqual([]);
  });
});
