import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedPath } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';
import { openSse, type SseStream } from './helpers/sse.js';

// SPEC C5, the ticket page's and the portal page's live parts over real HTTP, on both stores:
// GET /tickets/:id/live?after= (JSON for API clients, the out-of-band fragment for the page),
// the portal's …/live and …/events for a signed-in customer and for a signed link — public
// entries only, with the portal's headers, refused to anyone else.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };
let stranger: { id: number; email: string; token: string };
const open: SseStream[] = [];
const HTMX = { 'hx-request': 'true' };

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  customer = await s.user('requester');
  stranger = await s.user('requester');
});
afterAll(async () => {
  for (const o of open) o.close();
  await s?.close();
});

let seq = 0;
async function ticket() {
  const res = await s.api('POST', '/tickets', {
    body: { queue_id: 1, subject: `Live page ${++seq}`, description: 'It broke', requester_id: customer.id },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id as number;
}
async function reply(id: number, body: string, internal: boolean) {
  const res = await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body, internal } });
  expect(res.status, res.text).toBe(201);
  return res.body.transaction.id as number;
}
async function stream(url: string, headers: Record<string, string> = {}) {
  const st = await openSse(s.url + url, headers);
  open.push(st);
  if (st.status === 200) await st.next((m) => m.event === 'hello');
  return st;
}

describe('GET /tickets/:id/live', () => {
  it('answers JSON clients the entries after `after` and the ticket as it is now', async () => {
    const id = await ticket();
    const all = await s.api('GET', `/tickets/${id}/live`, { token: agent.token });
    expect(all.status, all.text).toBe(200);
    expect(all.body.ticket.id).toBe(id);
    expect(all.body.transactions.map((t: { type: string }) => t.type)).toEqual(['Create']);
    const last = all.body.transactions[0].id as number;
    const note = await reply(id, 'Checked the cable', true);
    expect((await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { status: 'open' } })).status).toBe(200);
    const after = await s.api('GET', `/tickets/${id}/live?after=${last}`, { token: agent.token });
    expect(after.body.transactions.map((t: { type: string }) => t.type)).toEqual(['Comment', 'Status']);
    expect(after.body.transactions[0].id).toBe(note);
    expect(after.body.ticket.status).toBe('open');
    // Nothing after the newest: an empty list, the ticket still there.
    const newest = after.body.transactions[1].id as number;
    const none = await s.api('GET', `/tickets/${id}/live?after=${newest}`, { token: agent.token });
    expect(none.body.transactions).toEqual([]);
    expect(none.body.ticket.status).toBe('open');
    // The requester (API) sees no internal note, as in the history.
    const theirs = await s.api('GET', `/tickets/${id}/live?after=${last}`, { token: customer.token });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.transactions.map((t: { type: string }) => t.type)).not.toContain('Comment');
  });

  it('answers the page the new entries for the end of #history and its other parts out of band, never the reply box', async () => {
    const id = await ticket();
    const first = (await s.api('GET', `/tickets/${id}/live`, { token: agent.token })).body.transactions[0].id as number;
    const txn = await reply(id, 'We ordered a new <toner>', false);
    const res = await s.api('GET', `/tickets/${id}/live?after=${first}`, { token: agent.token, headers: HTMX });
    expect(res.status, res.text).toBe(200);
    const html = res.text;
    expect(html).toContain('hx-swap-oob="beforeend:#history"');
    expect(html).toContain(`id="txn-${txn}"`);
    expect(html).not.toContain(`id="txn-${first}"`);
    expect(html).toContain('We ordered a new &lt;toner&gt;');
    for (const part of ['properties', 'ticket-head', 'people', 'reply-recipients'])
      expect(html).toMatch(new RegExp(`id="${part}"[^>]*hx-swap-oob="true"|hx-swap-oob="true"[^>]*id="${part}"`));
    expect(html).not.toContain('reply-body');
    expect(html).not.toContain('id="reply-form"');
  });

  it('refuses bad input and tickets the reader may not see', async () => {
    const id = await ticket();
    expect((await s.api('GET', `/tickets/${id}/live?after=x`, { token: agent.token })).status).toBe(422);
    expect((await s.api('GET', `/tickets/${id}/live?after=-1`, { token: agent.token })).status).toBe(422);
    expect((await s.api('GET', `/tickets/${id}/live?since=1`, { token: agent.token })).status).toBe(422);
    expect((await s.api('GET', `/tickets/${id}/live`, { token: stranger.token })).status).toBe(404);
    expect((await s.api('GET', `/tickets/${id}/live`, { token: null })).status).toBe(401);
  });
});

describe('the portal page live', () => {
  it("a signed link's stream and live route carry the ticket's public entries only, with the portal's headers", async () => {
    const id = await ticket();
    const link = await signedPath(s, { ticketId: id, userId: customer.id });
    const st = await stream(`${link}/events`);
    expect(st.status).toBe(200);
    const first = ((await (await fetch(`${s.url}${link}/live`)).json()) as { transactions: { id: number }[] })
      .transactions[0].id;
    const other = await ticket(); // the same customer's other ticket: not on this page's stream
    await reply(id, 'internal: check the invoice', true);
    await reply(other, 'About the other one', false);
    const pub = await reply(id, 'Your toner ships today', false);
    const ev = await st.next((m) => m.event === `ticket-${id}`);
    expect(JSON.parse(ev.data).types).toEqual(['Correspond']);
    expect(Number(ev.id)).toBe(pub);
    expect(st.messages.filter((m) => m.event.startsWith('ticket') && JSON.parse(m.data).ticket_id !== id)).toEqual([]);

    const json = await fetch(`${s.url}${link}/live?after=${first}`);
    expect(json.headers.get('referrer-policy')).toBe('no-referrer');
    expect(json.headers.get('cache-control')).toBe('no-store');
    const body = (await json.json()) as { transactions: { id: number; type: string }[] };
    expect(body.transactions.map((t: { id: number; type: string }) => [t.id, t.type])).toEqual([[pub, 'Correspond']]);
    const html = await (await fetch(`${s.url}${link}/live?after=${first}`, { headers: HTMX })).text();
    expect(html).toContain('hx-swap-oob="beforeend:#portal-history"');
    expect(html).toContain('Your toner ships today');
    expect(html).not.toContain('check the invoice');

    // The stream's own answer carries the portal's headers too.
    const raw = await fetch(`${s.url}${link}/events`, { headers: { accept: 'text/event-stream' } });
    expect(raw.headers.get('referrer-policy')).toBe('no-referrer');
    expect(raw.headers.get('cache-control')).toBe('no-store');
    await raw.body?.cancel();
  });

  it('a signed-in customer has the same for their own ticket; others and bad links are refused', async () => {
    const id = await ticket();
    const st = await stream(`/portal/tickets/${id}/events`, { authorization: `Bearer ${customer.token}` });
    expect(st.status).toBe(200);
    const pub = await reply(id, 'Signed-in customer sees this', false);
    await st.next((m) => m.event === `ticket-${id}` && Number(m.id) === pub);
    const live = await s.api('GET', `/portal/tickets/${id}/live?after=${pub - 1}`, { token: customer.token });
    expect(live.status, live.text).toBe(200);
    expect(live.body.transactions.map((t: { id: number }) => t.id)).toEqual([pub]);

    const refused = async (url: string, token: string | null) =>
      (await s.api('GET', url, { token, headers: { accept: 'text/event-stream' } })).status;
    expect(await refused(`/portal/tickets/${id}/events`, stranger.token)).toBe(404);
    expect(await refused(`/portal/tickets/${id}/live`, stranger.token)).toBe(404);
    expect(await refused(`/portal/tickets/${id}/events`, null)).toBe(401);
    const link = await signedPath(s, { ticketId: id, userId: customer.id });
    expect(await refused(`${link.slice(0, -3)}abc/events`, null)).toBe(403);
    expect(
      await refused(
        `${await signedPath(s, { ticketId: id, userId: customer.id, expires: Math.floor(Date.now() / 1000) - 60 })}/events`,
        null,
      ),
    ).toBe(403);
    expect(await refused(`${link}/live?after=no`, null)).toBe(422);
  });
});
