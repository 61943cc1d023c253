import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';
import { openSse } from './helpers/sse.js';
import { waitUntil } from './helpers/wait.js';

// SPEC D3 links and split (decision 075), through HTTP on the store under test: both tickets'
// JSON and history after each change, the reverse names, removal by either name, refused
// links (itself, missing, cycles), the resolve check and force (PATCH, bulk, a form), split with
// a file, and scrips (a webhook) seeing AddLink on both tickets.

let s: TestServer;
let receiver: http.Server;
const hooked: { ticket: number; type: string; field: string | null; new_value: string | null }[] = [];
let hookScrip: number;
let agent: { id: number; token: string };

type Links = Record<string, number[]>;
const none: Links = {
  depends_on: [],
  depended_on_by: [],
  refers_to: [],
  referred_to_by: [],
  parent_of: [],
  child_of: [],
};
const links = (more: Links) => ({ ...none, ...more });

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const p = JSON.parse(body);
      hooked.push({
        ticket: p.ticket.id,
        type: p.transaction.type,
        field: p.transaction.field,
        new_value: p.transaction.new_value,
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  s = await startServer({ OUTBOX_POLL_MS: '50' });
  agent = await s.user('agent');
  const res = await s.api('POST', '/scrips', {
    body: {
      key: 'links_hook',
      condition: 'on_transaction',
      action: 'notify_webhook',
      config: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` },
      sort_order: 100,
    },
  });
  expect(res.status, res.text).toBe(201);
  hookScrip = res.body.id;
});
afterAll(async () => {
  await s?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

async function newTicket(body: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: uniq('Links'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket as { id: number; subject: string; status: string; requester_id: number };
}
const link = (id: number, type: string, other: number | string, token?: string) =>
  s.api('POST', `/tickets/${id}/links`, { body: { type, ticket_id: other }, token });
const linkEntries = async (id: number) =>
  (await transactionsOf(s, id))
    .filter((t) => t.type === 'AddLink' || t.type === 'DelLink')
    .map((t) => ({ type: t.type, field: t.field, old_value: t.old_value, new_value: t.new_value, by: t.creator_id }));

describe('links', () => {
  it('POST makes the link on both sides: 201, both JSONs, AddLink on both with the reverse name, scrips on each', async () => {
    const a = await newTicket();
    const b = await newTicket();
    const res = await link(a.id, 'depends_on', b.id, agent.token);
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket.id).toBe(a.id);
    expect(res.body.ticket.links).toEqual(links({ depends_on: [b.id] }));
    expect((await ticketOf(s, b.id)).links).toEqual(links({ depended_on_by: [a.id] }));
    expect(await linkEntries(a.id)).toEqual([
      { type: 'AddLink', field: 'depends_on', old_value: null, new_value: String(b.id), by: agent.id },
    ]);
    expect(await linkEntries(b.id)).toEqual([
      { type: 'AddLink', field: 'depended_on_by', old_value: null, new_value: String(a.id), by: agent.id },
    ]);
    // The webhook scrip ran on each entry: in the answer, stored on both entries, and delivered.
    expect(res.body.scrip_results.filter((r: { scrip_id: number }) => r.scrip_id === hookScrip)).toHaveLength(2);
    for (const id of [a.id, b.id]) {
      const entry = (await transactionsOf(s, id)).find((t) => t.type === 'AddLink');
      expect(entry.scrip_results.map((r: { scrip_id: number }) => r.scrip_id)).toContain(hookScrip);
    }
    await waitUntil(
      'both AddLink webhooks',
      () => hooked.filter((h) => h.type === 'AddLink' && [a.id, b.id].includes(h.ticket)).length,
      (n) => n === 2,
    );
    expect(hooked.filter((h) => h.type === 'AddLink' && [a.id, b.id].includes(h.ticket))).toEqual(
      expect.arrayContaining([
        { ticket: a.id, type: 'AddLink', field: 'depends_on', new_value: String(b.id) },
        { ticket: b.id, type: 'AddLink', field: 'depended_on_by', new_value: String(a.id) },
      ]),
    );
  });

  it("reaches the other ticket's open page live: its event, then its new entry and Links panel out of band", async () => {
    const a = await newTicket();
    const b = await newTicket();
    const last = (await transactionsOf(s, b.id)).at(-1).id as number;
    const st = await openSse(`${s.url}/events?ticket=${b.id}`, { authorization: `Bearer ${s.adminToken}` });
    try {
      expect(st.status).toBe(200);
      await st.next((m) => m.event === 'hello');
      const from = st.messages.length;
      expect((await link(a.id, 'parent_of', b.id)).status).toBe(201);
      await st.next((m) => m.event === `ticket-${b.id}`, { from });
    } finally {
      st.close();
    }
    const live = await s.api('GET', `/tickets/${b.id}/live?after=${last}`, { headers: { 'hx-request': 'true' } });
    expect(live.status).toBe(200);
    expect(live.text).toContain(`Child of #${a.id} (linked by`);
    expect(live.text).toMatch(/id="links"[^>]*hx-swap-oob="true"|hx-swap-oob="true"[^>]*id="links"/);
    expect(live.text).toContain(`Child of (1)`);
  });

  it('every kind and its reverse; ids sorted; a reverse name links the other way round', async () => {
    const [a, b, c, d] = [await newTicket(), await newTicket(), await newTicket(), await newTicket()];
    expect((await link(a.id, 'refers_to', c.id)).status).toBe(201);
    expect((await link(a.id, 'refers_to', b.id)).status).toBe(201);
    expect((await link(a.id, 'parent_of', d.id)).status).toBe(201);
    // "a is child_of b" is stored as b parent_of a.
    expect((await link(a.id, 'child_of', b.id)).status).toBe(201);
    expect((await ticketOf(s, a.id)).links).toEqual(
      links({ refers_to: [b.id, c.id], parent_of: [d.id], child_of: [b.id] }),
    );
    expect((await ticketOf(s, b.id)).links).toEqual(links({ referred_to_by: [a.id], parent_of: [a.id] }));
    expect((await ticketOf(s, d.id)).links).toEqual(links({ child_of: [a.id] }));
    expect((await linkEntries(b.id)).map((e) => e.field)).toEqual(['referred_to_by', 'parent_of']);
    // The list carries links too.
    const list = await s.api('GET', `/tickets?q=${encodeURIComponent(`#${a.id}`)}`);
    expect(list.body.tickets.find((t: { id: number }) => t.id === a.id).links.refers_to).toEqual([b.id, c.id]);
  });

  it('a duplicate is 200 with the ticket and writes nothing', async () => {
    const a = await newTicket();
    const b = await newTicket();
    expect((await link(a.id, 'refers_to', b.id)).status).toBe(201);
    const again = await link(a.id, 'refers_to', b.id);
    expect(again.status, again.text).toBe(200);
    expect(again.body.ticket.links.refers_to).toEqual([b.id]);
    expect(again.body.scrip_results).toEqual([]);
    // The same link named from the other side is the same link.
    expect((await link(b.id, 'referred_to_by', a.id)).status).toBe(200);
    expect(await linkEntries(a.id)).toHaveLength(1);
    expect(await linkEntries(b.id)).toHaveLength(1);
  });

  it('refused: itself, a missing ticket, a bad type, a missing ticket in the path, a requester', async () => {
    const a = await newTicket();
    const self = await link(a.id, 'depends_on', a.id);
    expectError(self, 422, 'validation_failed', ['ticket_id']);
    expect(self.body.error.message).toBe(`Ticket #${a.id} cannot be linked to itself`);
    const missing = await link(a.id, 'depends_on', 99999999);
    expectError(missing, 422, 'validation_failed', ['ticket_id']);
    expect(missing.body.error.message).toBe('Ticket #99999999 does not exist');
    expectError(await link(a.id, 'blocks', a.id + 1), 422, 'validation_failed', ['type']);
    const noTicket = await link(99999999, 'depends_on', a.id);
    expectError(noTicket, 404, 'not_found');
    const customer = await s.user('requester');
    expectError(await link(a.id, 'refers_to', 1, customer.token), 403, 'forbidden');
    expect(await linkEntries(a.id)).toEqual([]);
    expect((await ticketOf(s, a.id)).links).toEqual(none);
  });

  it('a cycle of depends_on or of parent_of is 422 naming it, and nothing is written', async () => {
    const [a, b, c] = [await newTicket(), await newTicket(), await newTicket()];
    expect((await link(a.id, 'depends_on', b.id)).status).toBe(201);
    expect((await link(b.id, 'depends_on', c.id)).status).toBe(201);
    const cycle = await link(c.id, 'depends_on', a.id);
    expectError(cycle, 422, 'validation_failed', ['ticket_id']);
    expect(cycle.body.error.message).toBe(
      `That would make a cycle of depends_on links: #${c.id} depends on #${a.id}, #${a.id} depends on #${b.id}, #${b.id} depends on #${c.id}`,
    );
    // Named from the other side, the same cycle.
    expectError(await link(a.id, 'depended_on_by', c.id), 422, 'validation_failed', ['ticket_id']);
    expect((await ticketOf(s, c.id)).links).toEqual(links({ depended_on_by: [b.id] }));
    expect(await linkEntries(c.id)).toHaveLength(1);
    // parent_of: a parent cannot be its own grandchild.
    expect((await link(a.id, 'parent_of', b.id)).status).toBe(201);
    const family = await link(b.id, 'parent_of', a.id);
    expectError(family, 422, 'validation_failed', ['ticket_id']);
    expect(family.body.error.message).toBe(
      `That would make a cycle of parent_of links: #${b.id} is parent of #${a.id}, #${a.id} is parent of #${b.id}`,
    );
    // refers_to has no direction that matters: both ways are fine.
    expect((await link(a.id, 'refers_to', b.id)).status).toBe(201);
    expect((await link(b.id, 'refers_to', a.id)).status).toBe(201);
  });

  it('two opposite depends_on links at once: one is made, the other is the cycle (both tickets locked)', async () => {
    for (let i = 0; i < 5; i++) {
      const a = await newTicket();
      const b = await newTicket();
      const both = await Promise.all([link(a.id, 'depends_on', b.id), link(b.id, 'depends_on', a.id)]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 422]);
      const made = both[0].status === 201 ? 'a' : 'b';
      expect((await ticketOf(s, a.id)).links).toEqual(
        made === 'a' ? links({ depends_on: [b.id] }) : links({ depended_on_by: [b.id] }),
      );
      expect(await linkEntries(a.id)).toHaveLength(1);
      expect(await linkEntries(b.id)).toHaveLength(1);
    }
  });

  it('DELETE by either name: DelLink on both; an absent link is 404', async () => {
    const a = await newTicket();
    const b = await newTicket();
    const c = await newTicket();
    expect((await link(a.id, 'depends_on', b.id)).status).toBe(201);
    expect((await link(a.id, 'parent_of', c.id)).status).toBe(201);
    const del = await s.api('DELETE', `/tickets/${a.id}/links/depends_on/${b.id}`, { token: agent.token });
    expect(del.status, del.text).toBe(200);
    expect(del.body.ticket.links).toEqual(links({ parent_of: [c.id] }));
    expect((await ticketOf(s, b.id)).links).toEqual(none);
    // By the reverse name, from the other ticket.
    const rev = await s.api('DELETE', `/tickets/${c.id}/links/child_of/${a.id}`);
    expect(rev.status, rev.text).toBe(200);
    expect(rev.body.ticket.links).toEqual(none);
    expect((await ticketOf(s, a.id)).links).toEqual(none);
    expect((await linkEntries(a.id)).slice(2)).toEqual([
      { type: 'DelLink', field: 'depends_on', old_value: String(b.id), new_value: null, by: agent.id },
      { type: 'DelLink', field: 'parent_of', old_value: String(c.id), new_value: null, by: 1 },
    ]);
    expect((await linkEntries(b.id)).slice(1)).toEqual([
      { type: 'DelLink', field: 'depended_on_by', old_value: String(a.id), new_value: null, by: agent.id },
    ]);
    expect((await linkEntries(c.id)).slice(1)).toEqual([
      { type: 'DelLink', field: 'child_of', old_value: String(a.id), new_value: null, by: 1 },
    ]);
    const gone = await s.api('DELETE', `/tickets/${a.id}/links/depends_on/${b.id}`);
    expectError(gone, 404, 'not_found');
    expect(gone.body.error.message).toBe(`Ticket #${a.id} has no link depends_on #${b.id}`);
    expectError(await s.api('DELETE', `/tickets/${a.id}/links/blocks/${b.id}`), 422, 'validation_failed', ['type']);
  });
});

describe('the resolve check', () => {
  it('a move to an inactive status while depending on tickets not done is 409 listing them, unless force', async () => {
    const a = await newTicket();
    const b = await newTicket();
    const c = await newTicket();
    const done = await newTicket();
    for (const x of [b, c, done]) expect((await link(a.id, 'depends_on', x.id)).status).toBe(201);
    expect((await s.api('PATCH', `/tickets/${done.id}`, { body: { status: 'rejected' } })).status).toBe(200);
    expect((await s.api('PATCH', `/tickets/${c.id}`, { body: { status: 'stalled' } })).status).toBe(200);
    for (const status of ['resolved', 'rejected', 'deleted']) {
      const res = await s.api('PATCH', `/tickets/${a.id}`, { body: { status } });
      expectError(res, 409, 'conflict', ['depends_on', 'depends_on']);
      expect(res.body.error.message).toBe(
        `Ticket #${a.id} depends on 2 tickets that are not done: #${b.id}, #${c.id}. Nothing was changed: finish them first, or send the change again with force: true`,
      );
      expect(res.body.error.details.map((d: { message: string }) => d.message)).toEqual([
        `#${b.id} “${b.subject}” is new`,
        `#${c.id} “${c.subject}” is stalled`,
      ]);
      expect(res.body.error.open_dependencies).toEqual([
        { id: b.id, subject: b.subject, status: 'new' },
        { id: c.id, subject: c.subject, status: 'stalled' },
      ]);
    }
    expect((await ticketOf(s, a.id)).status).toBe('new');
    // Not inactive: no check.
    expect((await s.api('PATCH', `/tickets/${a.id}`, { body: { status: 'open' } })).status).toBe(200);
    // Bulk: the ticket's own result; with force it goes.
    const bulk = await s.api('PATCH', '/tickets', { body: { ids: [a.id, b.id], changes: { status: 'resolved' } } });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.results.map((r: { id: number; ok: boolean }) => [r.id, r.ok])).toEqual([
      [a.id, false],
      [b.id, true],
    ]);
    expect(bulk.body.results[0].error).toContain(`depends on 2 tickets that are not done: #${b.id}, #${c.id}`);
    const forced = await s.api('PATCH', '/tickets', {
      body: { ids: [a.id], changes: { status: 'resolved' }, force: true },
    });
    expect(forced.body.results[0].ok).toBe(true);
    expect((await ticketOf(s, a.id)).status).toBe('resolved');
  });

  it('PATCH with force moves it; the plain status form asks with a page and its Resolve anyway button', async () => {
    const a = await newTicket();
    const b = await newTicket();
    expect((await link(a.id, 'depends_on', b.id)).status).toBe(201);
    const page = await s.api('POST', `/tickets/${a.id}`, {
      form: { _method: 'PATCH', status: 'resolved' },
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(409);
    expect(page.text).toContain('Resolved anyway');
    expect(page.text).toContain(`#${b.id}</a> ${b.subject}`);
    expect(page.text).toContain('name="force" value="true"');
    expect((await ticketOf(s, a.id)).status).toBe('new');
    const form = await s.api('POST', `/tickets/${a.id}`, {
      form: { _method: 'PATCH', status: 'resolved', force: 'true' },
      headers: { accept: 'text/html' },
    });
    expect(form.status).toBe(303);
    expect((await ticketOf(s, a.id)).status).toBe('resolved');
    // JSON with force.
    const c = await newTicket();
    expect((await link(c.id, 'depends_on', b.id)).status).toBe(201);
    const res = await s.api('PATCH', `/tickets/${c.id}`, { body: { status: 'resolved', force: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.ticket.status).toBe('resolved');
    // A ticket depending only on done tickets resolves without asking.
    const d = await newTicket();
    expect((await link(d.id, 'depends_on', a.id)).status).toBe(201);
    expect((await s.api('PATCH', `/tickets/${d.id}`, { body: { status: 'resolved' } })).status).toBe(200);
  });
});

describe('the resolve check binds people, not the system', () => {
  it("a scrip's set_status resolves a ticket whose dependency is open (automatic moves are not checked)", async () => {
    const a = await newTicket();
    const b = await newTicket();
    expect((await link(a.id, 'depends_on', b.id)).status).toBe(201);
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: uniq('resolve_on_note'),
        condition: 'on_comment',
        action: 'set_status',
        config: { status: 'resolved' },
      },
    });
    expect(scrip.status, scrip.text).toBe(201);
    try {
      const note = await s.api('POST', `/tickets/${a.id}/comment`, { body: { body: 'Done here', internal: true } });
      expect(note.status, note.text).toBe(201);
      expect((await ticketOf(s, a.id)).status).toBe('resolved');
    } finally {
      expect((await s.api('PATCH', `/scrips/${scrip.body.id}`, { body: { enabled: false } })).status).toBe(200);
    }
  });

  it("a reply's set_status is a person's change: 409 and nothing sent, unless force", async () => {
    const a = await newTicket();
    const b = await newTicket();
    expect((await link(a.id, 'depends_on', b.id)).status).toBe(201);
    const before = (await transactionsOf(s, a.id)).length;
    const refused = await s.api('POST', `/tickets/${a.id}/comment`, {
      body: { body: 'Fixed, closing', internal: false, set_status: 'resolved' },
    });
    expectError(refused, 409, 'conflict', ['depends_on']);
    expect((await transactionsOf(s, a.id)).length).toBe(before);
    const forced = await s.api('POST', `/tickets/${a.id}/comment`, {
      body: { body: 'Fixed, closing', internal: false, set_status: 'resolved', force: true },
    });
    expect(forced.status, forced.text).toBe(201);
    expect((await ticketOf(s, a.id)).status).toBe('resolved');
  });
});

describe('the Links form without JavaScript and with htmx', () => {
  it('a plain form post links and is sent back to the ticket; htmx gets the panel and the history', async () => {
    const a = await newTicket();
    const b = await newTicket();
    const c = await newTicket();
    const plain = await s.api('POST', `/tickets/${a.id}/links`, {
      form: { type: 'depends_on', ticket_id: `#${b.id}` },
      headers: { accept: 'text/html' },
    });
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe(`/tickets/${a.id}`);
    const hx = await s.api('POST', `/tickets/${a.id}/links`, {
      form: { type: 'child_of', ticket_id: String(c.id) },
      headers: { 'hx-request': 'true' },
    });
    expect(hx.status).toBe(201);
    expect(hx.text).toContain('id="links"');
    expect(hx.text).toContain(`Child of #${c.id} (linked by`);
    const removed = await s.api('POST', `/tickets/${a.id}/links/depends_on/${b.id}`, {
      form: { _method: 'DELETE' },
      headers: { accept: 'text/html' },
    });
    expect(removed.status).toBe(303);
    expect((await ticketOf(s, a.id)).links).toEqual(links({ child_of: [c.id] }));
    // The suggestions: by number or by words of the subject, never the ticket itself.
    const found = await s.api('GET', `/tickets/${a.id}/link-search?q=${encodeURIComponent(b.subject)}`);
    expect(found.status, found.text).toBe(200);
    expect(found.body.tickets).toEqual([{ id: b.id, subject: b.subject, status: 'new' }]);
    const byNumber = await s.api('GET', `/tickets/${a.id}/link-search?q=${encodeURIComponent(`#${b.id}`)}`);
    expect(byNumber.body.tickets[0]).toEqual({ id: b.id, subject: b.subject, status: 'new' });
    const itself = await s.api('GET', `/tickets/${a.id}/link-search?q=${encodeURIComponent(`#${a.id}`)}`);
    expect(itself.body.tickets.map((t: { id: number }) => t.id)).not.toContain(a.id);
  });
});

describe('split', () => {
  it("a customer's message with a file: new ticket, same queue, their text and file, them as requester, refers_to the old", async () => {
    const customer = await s.user('requester');
    const old = await newTicket({ requester_id: customer.id, priority: 7 });
    const queue = 1;
    const bytes = Buffer.from('%PDF-1.4 second problem\n');
    const msg = await s.api('POST', `/tickets/${old.id}/comment`, {
      token: customer.token,
      body: {
        body: 'Also, the printer on floor 2 is broken.',
        attachments: [
          { filename: 'printer.pdf', content_type: 'application/pdf', content_base64: bytes.toString('base64') },
        ],
      },
    });
    expect(msg.status, msg.text).toBe(201);
    const txn = msg.body.transaction;
    const plan = await s.api('GET', `/tickets/${old.id}/split?transaction_id=${txn.id}`);
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body).toMatchObject({
      requester_id: customer.id,
      queue_id: queue,
      subject: old.subject,
      files: [{ filename: 'printer.pdf', content_type: 'application/pdf', size: bytes.length }],
    });
    const res = await s.api('POST', `/tickets/${old.id}/split`, {
      body: { transaction_id: txn.id, subject: 'Printer on floor 2' },
      token: agent.token,
    });
    expect(res.status, res.text).toBe(201);
    const t = res.body.ticket;
    expect(t).toMatchObject({
      queue_id: queue,
      subject: 'Printer on floor 2',
      description: 'Also, the printer on floor 2 is broken.',
      requester_id: customer.id,
      requesters: [customer.id],
      links: links({ refers_to: [old.id] }),
    });
    expect(t.id).toBeGreaterThan(old.id);
    expect((await ticketOf(s, old.id)).links).toEqual(links({ referred_to_by: [t.id] }));
    const created = (await transactionsOf(s, t.id)).find((x) => x.type === 'Create');
    expect(created.body).toBe('Also, the printer on floor 2 is broken.');
    expect(created.attachments).toEqual([
      { id: expect.any(Number), filename: 'printer.pdf', content_type: 'application/pdf', size: bytes.length },
    ]);
    expect(created.attachments[0].id).not.toBe(txn.attachments[0].id);
    const file = await fetch(`${s.url}/attachments/${created.attachments[0].id}`, {
      headers: { authorization: `Bearer ${s.adminToken}` },
    });
    expect(Buffer.from(await file.arrayBuffer())).toEqual(bytes);
    // The new ticket's requester reads the copy; the message stays where it was.
    const own = await s.api('GET', `/tickets/${t.id}`, { token: customer.token });
    expect(own.status).toBe(200);
    expect((await transactionsOf(s, old.id)).some((x) => x.id === txn.id)).toBe(true);
    expect(await linkEntries(t.id)).toEqual([
      { type: 'AddLink', field: 'refers_to', old_value: String(txn.id), new_value: String(old.id), by: agent.id },
    ]);
    expect(await linkEntries(old.id)).toEqual([
      { type: 'AddLink', field: 'referred_to_by', old_value: String(txn.id), new_value: String(t.id), by: agent.id },
    ]);
    // The history says so.
    const page = await s.api('GET', `/tickets/${old.id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain(`Split into #${t.id}`);
  });

  it("staff's message: the old ticket's requester; only messages; another ticket's entry; requesters may not", async () => {
    const customer = await s.user('requester');
    const old = await newTicket({ requester_id: customer.id });
    const note = await s.api('POST', `/tickets/${old.id}/comment`, {
      token: agent.token,
      body: { body: 'Internal: this is really two problems', internal: true },
    });
    const res = await s.api('POST', `/tickets/${old.id}/split`, { body: { transaction_id: note.body.transaction.id } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket.requester_id).toBe(customer.id);
    expect(res.body.ticket.subject).toBe(old.subject);
    const status = await s.api('PATCH', `/tickets/${old.id}`, { body: { status: 'open' } });
    const statusTxn = (await transactionsOf(s, old.id)).find((x) => x.type === 'Status');
    expect(status.status).toBe(200);
    const refused = await s.api('POST', `/tickets/${old.id}/split`, { body: { transaction_id: statusTxn.id } });
    expectError(refused, 422, 'validation_failed', ['transaction_id']);
    expect(refused.body.error.message).toBe(
      `Entry #${statusTxn.id} is Status: only a message (Create, Correspond or Comment) can be split off`,
    );
    const other = await newTicket();
    const elsewhere = (await transactionsOf(s, other.id))[0];
    const wrong = await s.api('POST', `/tickets/${old.id}/split`, { body: { transaction_id: elsewhere.id } });
    expectError(wrong, 422, 'validation_failed', ['transaction_id']);
    expect(wrong.body.error.message).toBe(`Ticket #${old.id} has no history entry #${elsewhere.id}`);
    expectError(
      await s.api('POST', `/tickets/${old.id}/split`, {
        body: { transaction_id: note.body.transaction.id },
        token: customer.token,
      }),
      403,
      'forbidden',
    );
    expectError(await s.api('POST', '/tickets/99999999/split', { body: { transaction_id: 1 } }), 404, 'not_found');
  });
});
