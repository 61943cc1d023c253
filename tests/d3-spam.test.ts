import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { get, postMail, totals } from './helpers/mail.js';
import { releasePostgres } from './helpers/postgres.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D3 Spam (decision 077), through real HTTP on a real server (both stores): mail a filter
// marked as spam is kept in the intake log (verdict `spam`, raw kept) with no ticket, no user and
// nothing sent, and an admin's replay applies it as ordinary mail; the Spam action deletes a
// ticket and blocks its requester, whose mail is then answered 200 and logged `rejected`
// (reason `blocked`) with nothing sent back, until an admin unblocks them.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let admin2: { id: number; email: string; token: string };

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  admin2 = await s.user('admin');
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

let n = 0;
const message = (from: string, headers: Record<string, string> = {}, subject = `Cheap pills ${++n}`) =>
  [
    ...Object.entries({
      From: from,
      To: 'support@helpdesk.example',
      Subject: subject,
      'Message-ID': `<spam.${++n}.${Date.now().toString(36)}@sender.example>`,
      'MIME-Version': '1.0',
      'Content-Type': 'text/plain; charset=utf-8',
      ...headers,
    }).map(([k, v]) => `${k}: ${v}`),
    '',
    'Buy now',
    '',
  ].join('\r\n');
const outboxTotal = async () => (await get(s, '/outbox?limit=1')).total as number;

describe('spam verdict at intake', () => {
  it.each([
    ['X-Spam-Flag', 'YES', 'X-Spam-Flag: YES'],
    ['x-spam-flag', 'yes', 'X-Spam-Flag: yes'],
    ['X-Spam-Status', 'Yes, score=9.1 required=5.0 tests=BAYES_99', 'X-Spam-Status: Yes'],
    ['X-Spam', 'yes', 'X-Spam: yes'],
  ])('%s: %s is kept as spam: no ticket, no user, nothing sent', async (name, value, said) => {
    const before = { ...(await totals(s)), outbox: await outboxTotal() };
    const from = `spammer${++n}@sender.example`;
    const raw = message(from, { [name]: value });
    const r = await postMail(s, raw);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'spam',
      rule: `marked as spam (${said})`,
      ticket_id: null,
      transaction_id: null,
      created: false,
      user_created: false,
      duplicate: false,
    });
    expect({ ...(await totals(s)), outbox: await outboxTotal() }).toEqual({ ...before, intake: before.intake + 1 });
    const entry = await get(s, `/mail/intake/${r.body.intake_id}`);
    expect(entry).toMatchObject({ verdict: 'spam', sender: from, raw });
    // The same message again is the same entry.
    const again = await postMail(s, raw);
    expect(again.body).toMatchObject({ verdict: 'spam', intake_id: r.body.intake_id, duplicate: true });
  });

  it('a filter that said No (or only a score) is no verdict: a ticket, and its autoreply', async () => {
    const outbox = await outboxTotal();
    const said: Record<string, string>[] = [
      { 'X-Spam-Status': 'No, score=0.1' },
      { 'X-Spam-Flag': 'NO' },
      { 'X-Spam': 'no' },
    ];
    for (const h of said) {
      const r = await postMail(s, message(`ok${++n}@sender.example`, h));
      expect(r.status, r.text).toBe(201);
      expect(r.body.verdict).toBe('created');
    }
    expect(await outboxTotal()).toBeGreaterThanOrEqual(outbox + 3);
  });

  it("an admin's replay applies it as ordinary mail; the log lists spam by its verdict", async () => {
    const r = await postMail(s, message(`notspam${++n}@sender.example`, { 'X-Spam-Flag': 'YES' }, 'Real question'));
    expect(r.body.verdict).toBe('spam');
    const listed = await get(s, '/mail/intake?verdict=spam&limit=500');
    expect((listed.intake as { id: number }[]).map((e) => e.id)).toContain(r.body.intake_id);
    expectError(
      await s.api('POST', `/mail/intake/${r.body.intake_id}/replay`, { token: agent.token }),
      403,
      'forbidden',
    );
    const replay = await s.api('POST', `/mail/intake/${r.body.intake_id}/replay`);
    expect(replay.status, replay.text).toBe(201);
    expect(replay.body).toMatchObject({ verdict: 'created', created: true });
    expect((await get(s, `/tickets/${replay.body.ticket_id}`)).subject).toBe('Real question');
  });
});

describe('the Spam action and blocked senders', () => {
  it('deletes the ticket, blocks its requester; their mail is 200, rejected (blocked), nothing sent; unblock takes it again', async () => {
    const from = `pest${++n}@sender.example`;
    const first = await postMail(s, message(from));
    expect(first.status, first.text).toBe(201);
    const id = first.body.ticket_id as number;
    const requesterId = (await get(s, `/tickets/${id}`)).requester_id as number;

    const r = await s.api('POST', `/tickets/${id}/spam`, { token: agent.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.ticket).toMatchObject({ id, status: 'deleted' });
    expect(r.body.blocked_user_id).toBe(requesterId);
    expect((await transactionsOf(s, id)).at(-1)).toMatchObject({
      type: 'Status',
      old_value: 'new',
      new_value: 'deleted',
      creator_id: agent.id,
    });
    expect(await get(s, `/users/${requesterId}`)).toMatchObject({ id: requesterId, blocked: true });
    const blockedList = (await get(s, '/users?limit=500')).users as { id: number; blocked: boolean }[];
    expect(blockedList.find((u) => u.id === requesterId)?.blocked).toBe(true);

    const outbox = await outboxTotal();
    for (const raw of [message(from), message(from, {}, `Re: [hxdesk #${id}] Cheap`)]) {
      const m = await postMail(s, raw);
      expect(m.status, m.text).toBe(200);
      expect(m.body).toMatchObject({
        verdict: 'rejected',
        rule: `blocked: sender ${from} is blocked (marked as a spammer)`,
        ticket_id: null,
        transaction_id: null,
      });
    }
    expect(await outboxTotal()).toBe(outbox);
    expect((await transactionsOf(s, id)).at(-1).type).toBe('Status');

    expectError(await s.api('POST', `/users/${requesterId}/unblock`, { token: agent.token }), 403, 'forbidden');
    const un = await s.api('POST', `/users/${requesterId}/unblock`, { token: admin2.token });
    expect(un.status, un.text).toBe(200);
    expect(un.body).toMatchObject({ id: requesterId, blocked: false });
    const back = await postMail(s, message(from));
    expect(back.status, back.text).toBe(201);
  });

  it('refuses what it cannot do, with errors that say why', async () => {
    const customer = await s.user('requester');
    const t = await s.api('POST', '/tickets', {
      token: customer.token,
      body: { queue_id: 1, subject: 'Mine', description: 'x' },
    });
    expect(t.status, t.text).toBe(201);
    expectError(await s.api('POST', `/tickets/${t.body.ticket.id}/spam`, { token: customer.token }), 403, 'forbidden');
    expectError(await s.api('POST', '/tickets/999999/spam', { token: agent.token }), 404, 'not_found');
    // Staff cannot be blocked: nothing changes.
    const own = await s.api('POST', '/tickets', { token: agent.token, body: { queue_id: 1, subject: 'Staff own' } });
    const staffSpam = await s.api('POST', `/tickets/${own.body.ticket.id}/spam`, { token: agent.token });
    expectError(staffSpam, 422, 'validation_failed', ['requester_id']);
    expect(staffSpam.body.error.message).toBe(
      `The requester of #${own.body.ticket.id}, ${agent.email}, is staff: staff cannot be blocked (change the requester, or delete the ticket)`,
    );
    expect((await get(s, `/tickets/${own.body.ticket.id}`)).status).toBe('new');
    expect((await get(s, `/users/${agent.id}`)).blocked).toBe(false);
    expectError(await s.api('POST', '/users/999999/unblock'), 404, 'not_found');
  });
});
