import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';
import { message } from './helpers/mailgate.js';

// SPEC C5, docs/decisions/038: nobody answers the same mail blind. A reply or note sent with the
// id of the newest history entry its writer had loaded (`seen_transaction_id`) is refused with
// 409 `stale` and the newer entries when someone else wrote on the ticket since; nothing is
// written. `force: true` sends anyway; without a marker nothing changes for API clients.

let s: TestServer;
type U = { id: number; email: string; token: string };
let a: U;
let b: U;
let customer: U;

beforeAll(async () => {
  s = await startServer();
  a = await s.user('agent');
  b = await s.user('agent');
  customer = await s.user('requester');
});
afterAll(async () => {
  await s?.close();
});

let seq = 0;
async function ticket() {
  const res = await s.api('POST', '/tickets', {
    body: {
      queue_id: 1,
      subject: `Collision ${++seq}`,
      description: 'The printer is on fire',
      requester_id: customer.id,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id as number;
}
const history = async (id: number, token = s.adminToken) =>
  (await s.api('GET', `/tickets/${id}/transactions`, { token })).body.transactions as {
    id: number;
    type: string;
    body: string | null;
  }[];
/** What a page would carry: the newest entry the reader sees now. */
const newest = async (id: number, token?: string) => (await history(id, token)).at(-1)!.id;
const send = (id: number, token: string, body: Record<string, unknown>) =>
  s.api('POST', `/tickets/${id}/comment`, { token, body });
const outboxTotal = async () => (await s.api('GET', '/outbox')).body.total as number;

describe('POST /tickets/:id/comment with seen_transaction_id', () => {
  it('answers 409 stale with the new entries when someone else replied, and writes nothing; force sends it', async () => {
    const id = await ticket();
    const seen = await newest(id, a.token);
    expect((await send(id, b.token, { body: 'B answered already', internal: false })).status).toBe(201);
    await s.api('PATCH', `/tickets/${id}`, { token: b.token, body: { priority: 40 } }); // an entry that is no mail: shown, does not count
    const before = await history(id);
    const mails = await outboxTotal();

    const res = await send(id, a.token, { body: 'A answers too', internal: false, seen_transaction_id: seen });
    expect(res.status, res.text).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(Object.keys(res.body.error)).toEqual(['code', 'message', 'transactions']);
    expect(res.body.error.code).toBe('stale');
    expect(res.body.error.message).toMatch(new RegExp(`A new message arrived on ticket #${id}.*force: true`));
    // Every entry after the marker, exactly as the history shows them to A.
    expect(res.body.error.transactions).toEqual((await history(id, a.token)).filter((t) => t.id > seen));
    expect(res.body.error.transactions.map((t: { type: string; body: string }) => [t.type, t.body])).toEqual([
      ['Correspond', expect.stringContaining('B answered already')],
      ['Status', null], // B's reply took the new ticket up: new → open (SPEC D6)
      ['SetPriority', null],
    ]);
    expect(await history(id)).toEqual(before);
    expect(await outboxTotal()).toBe(mails);

    const forced = await send(id, a.token, {
      body: 'A answers too',
      internal: false,
      seen_transaction_id: seen,
      force: true,
    });
    expect(forced.status, forced.text).toBe(201);
    const after = await history(id);
    expect(after.filter((t) => t.body?.startsWith('A answers too'))).toHaveLength(1);
    expect(await outboxTotal()).toBeGreaterThan(mails);
    // force: false is no force; a marker at the newest entry goes straight through.
    expect((await send(id, a.token, { body: 'x', seen_transaction_id: seen, force: false })).status).toBe(409);
    expect(
      (await send(id, a.token, { body: 'Next', internal: false, seen_transaction_id: after.at(-1)!.id })).status,
    ).toBe(201);
  });

  it('leaves clients that send no marker alone', async () => {
    const id = await ticket();
    expect((await send(id, b.token, { body: 'B first', internal: false })).status).toBe(201);
    const res = await send(id, a.token, { body: 'A without a marker', internal: false });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['transaction', 'scrip_results']);
  });

  it("counts neither the sender's own replies nor someone else's internal notes", async () => {
    const id = await ticket();
    const seen = await newest(id, a.token);
    expect((await send(id, a.token, { body: 'Mine, first', internal: false, seen_transaction_id: seen })).status).toBe(
      201,
    );
    expect((await send(id, a.token, { body: 'Mine, second', internal: true, seen_transaction_id: seen })).status).toBe(
      201,
    );
    expect((await send(id, b.token, { body: 'B notes something', internal: true })).status).toBe(201);
    const res = await send(id, a.token, { body: 'Mine, third', internal: false, seen_transaction_id: seen });
    expect(res.status, res.text).toBe(201);
    // A note is refused the same way as a reply when mail came in.
    expect((await send(id, b.token, { body: 'B again', internal: false })).status).toBe(201);
    expect((await send(id, a.token, { body: 'A note', internal: true, seen_transaction_id: seen })).status).toBe(409);
  });

  it('counts a customer mail that came in through /mailgate', async () => {
    const id = await ticket();
    const seen = await newest(id, a.token);
    const mail = message({
      from: `Customer <${customer.email}>`,
      subject: `Re: [hxdesk #${id}] Collision`,
      body: 'Any news? It is still burning.\n',
    });
    const gate = await s.api('POST', '/mailgate', {
      token: null,
      body: mail.raw,
      headers: { 'content-type': 'message/rfc822' },
    });
    expect(gate.status, gate.text).toBe(200);
    expect(gate.body).toMatchObject({ verdict: 'appended', ticket_id: id });
    const res = await send(id, a.token, { body: 'We are on our way', internal: false, seen_transaction_id: seen });
    expect(res.status, res.text).toBe(409);
    const mails = res.body.error.transactions.filter((t: { type: string }) => t.type === 'Correspond');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ creator_id: customer.id, body: expect.stringContaining('still burning') });
  });

  it('shows a customer only the entries their history shows', async () => {
    const id = await ticket();
    const seen = await newest(id, customer.token);
    expect((await send(id, b.token, { body: 'Internal: customer is difficult', internal: true })).status).toBe(201);
    expect((await send(id, b.token, { body: 'Dear customer, we are on it', internal: false })).status).toBe(201);
    const res = await send(id, customer.token, { body: 'Thanks!', seen_transaction_id: seen });
    expect(res.status, res.text).toBe(409);
    // The reply only: no note, and not its new → open (a customer's history has no staff lines, SPEC D6).
    expect(res.body.error.transactions.map((t: { type: string }) => t.type)).toEqual(['Correspond']);
    expect(res.body.error.transactions).toEqual((await history(id, customer.token)).filter((t) => t.id > seen));
  });

  it('takes a marker as a position in the change log: past the newest entry, or on another ticket, nothing is newer', async () => {
    const id = await ticket();
    expect((await send(id, b.token, { body: 'B replied', internal: false })).status).toBe(201);
    const later = await ticket(); // its Create entry is newer than everything on `id`
    const res = await send(id, a.token, { body: 'A', internal: false, seen_transaction_id: await newest(later) });
    expect(res.status, res.text).toBe(201);
    expect((await send(id, a.token, { body: 'A', internal: false, seen_transaction_id: 1_000_000_000 })).status).toBe(
      201,
    );
  });

  it('refuses bad markers and force values with 422, writing nothing', async () => {
    const id = await ticket();
    const before = await history(id);
    for (const bad of ['abc', 0, -3, 1.5, '', null, true]) {
      const res = await send(id, a.token, { body: 'x', seen_transaction_id: bad });
      expect(res.status, `${JSON.stringify(bad)}: ${res.text}`).toBe(422);
      expect(res.body.error.details[0].path).toBe('seen_transaction_id');
    }
    const form = await s.api('POST', `/tickets/${id}/comment`, {
      token: a.token,
      form: { body: 'x', seen_transaction_id: '12abc' },
    });
    expect(form.status).toBe(422);
    const force = await send(id, a.token, { body: 'x', seen_transaction_id: before.at(-1)!.id, force: 'maybe' });
    expect(force.status).toBe(422);
    expect(force.body.error.details[0].path).toBe('force');
    expect(await history(id)).toEqual(before);
  });

  it('answers a plain form post (no JavaScript) with the ticket page: the warning, the text kept, Send anyway', async () => {
    const id = await ticket();
    const seen = await newest(id, a.token);
    expect((await send(id, b.token, { body: 'B <was> here', internal: false })).status).toBe(201);
    const headers = { accept: 'text/html', origin: s.url };
    const form = { internal: 'true', body: "A's <note> & more", seen_transaction_id: String(seen), set_status: '' };
    const res = await s.api('POST', `/tickets/${id}/comment`, { token: a.token, form, headers });
    expect(res.status).toBe(409);
    expect(res.text).toContain('<!DOCTYPE html>');
    const warning = res.text.slice(res.text.indexOf('id="reply-stale"'), res.text.indexOf('id="reply-body"'));
    expect(warning).toContain('New on this ticket since you opened it');
    expect(warning).toContain('B &lt;was&gt; here');
    expect(warning).toMatch(/<button type="submit" name="force" value="true"[^>]*>Send anyway<\/button>/);
    expect(res.text).toMatch(/<textarea id="reply-body"[^>]*>\nA&#39;s &lt;note&gt; &amp; more<\/textarea>/);
    expect(res.text).toMatch(/<input type="radio" name="internal" value="true" checked=""/);
    // The marker moved past what the warning shows: sending again (or anyway) goes through.
    const marker = Number(/name="seen_transaction_id" value="(\d+)"/.exec(res.text)![1]);
    expect(marker).toBe(await newest(id, a.token));
    const again = await s.api('POST', `/tickets/${id}/comment`, {
      token: a.token,
      form: { ...form, seen_transaction_id: String(marker) },
      headers,
    });
    expect(again.status).toBe(303);
  });

  it('answers htmx with a line for the error place and the warning and marker out of band', async () => {
    const id = await ticket();
    const seen = await newest(id, a.token);
    expect((await send(id, b.token, { body: 'B was quicker', internal: false })).status).toBe(201);
    const headers = { 'hx-request': 'true', origin: s.url };
    const res = await s.api('POST', `/tickets/${id}/comment`, {
      token: a.token,
      form: { internal: 'false', body: 'A', seen_transaction_id: String(seen) },
      headers,
    });
    expect(res.status).toBe(409);
    expect(res.text).not.toContain('<html');
    expect(res.text).toMatch(/^<p class="stale-note">/);
    expect(res.text).toMatch(/<section id="reply-stale"[^>]*hx-swap-oob="true"/);
    expect(res.text).toContain('B was quicker');
    expect(res.text).toMatch(
      new RegExp(
        `<input type="hidden" id="reply-seen" name="seen_transaction_id" value="${await newest(id, a.token)}" hx-swap-oob="true"`,
      ),
    );
    // After a sent message: the warning's place emptied and the marker at the newest entry.
    const ok = await s.api('POST', `/tickets/${id}/comment`, {
      token: a.token,
      form: { internal: 'false', body: 'A', seen_transaction_id: String(seen), force: 'true' },
      headers,
    });
    expect(ok.status).toBe(201);
    expect(ok.text).toMatch(/<div id="reply-stale" class="reply-stale" hx-swap-oob="true"><\/div>/);
    expect(ok.text).toMatch(
      new RegExp(`id="reply-seen" name="seen_transaction_id" value="${await newest(id, a.token)}" hx-swap-oob="true"`),
    );
  });
});
