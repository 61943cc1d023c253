import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C4: canned responses (decision 034) over real HTTP, on both stores: who sees and manages
// which (own, shared, others'), names unique per owner scope, Liquid checked on save and rendered
// for a ticket as templates are, the queue filter, and the status a reply sets with it.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let other: { id: number; email: string; token: string };
let requester: { id: number; email: string; token: string };
let queue2: number;

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  other = await s.user('agent');
  requester = await s.user('requester');
  const q = await s.api('POST', '/queues', { body: { name: 'Billing' } });
  expect(q.status, q.text).toBe(201);
  queue2 = q.body.id;
});
afterAll(async () => {
  await s?.close();
});

let seq = 0;
const as = (token: string) => ({
  get: (p: string) => s.api('GET', p, { token }),
  post: (p: string, body: unknown) => s.api('POST', p, { token, body }),
  patch: (p: string, body: unknown) => s.api('PATCH', p, { token, body }),
  del: (p: string) => s.api('DELETE', p, { token }),
});
const name = (what: string) => `${what} ${++seq}`;

async function ticket(queueId = 1, extra: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/tickets', {
    body: {
      queue_id: queueId,
      subject: `Printer ${++seq}`,
      description: 'It smokes.',
      requester_id: requester.id,
      ...extra,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket as { id: number; status: string; subject: string };
}

describe('canned responses: who manages which', () => {
  it('an agent creates, reads, edits and deletes their own; another agent does not see it', async () => {
    const a = as(agent.token);
    const created = await a.post('/responses', { name: name('Thanks'), body: 'Thanks, {{ ticket.requester.name }}!' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      owner_id: agent.id,
      queue_id: null,
      set_status: null,
      body: 'Thanks, {{ ticket.requester.name }}!',
    });
    const id = created.body.id;
    expect((await a.get(`/responses/${id}`)).body.name).toBe(created.body.name);
    const edited = await a.patch(`/responses/${id}`, { body: 'Thank you!', set_status: 'resolved' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ body: 'Thank you!', set_status: 'resolved', owner_id: agent.id });
    // Another agent's own responses are not theirs to see or change: not found.
    const o = as(other.token);
    expect((await o.get(`/responses/${id}`)).status).toBe(404);
    expect((await o.patch(`/responses/${id}`, { name: 'Mine now' })).status).toBe(404);
    expect((await o.del(`/responses/${id}`)).status).toBe(404);
    expect((await o.get('/responses')).body.responses.map((r: any) => r.id)).not.toContain(id);
    expect((await a.del(`/responses/${id}`)).status).toBe(204);
    expect((await a.get(`/responses/${id}`)).status).toBe(404);
  });

  it('shared responses: administrators manage them, every agent uses them, an agent cannot create or change one (403)', async () => {
    const a = as(agent.token);
    const refused = await a.post('/responses', { name: name('Shared'), body: 'x', shared: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Only administrators can create shared canned responses');
    const shared = await s.api('POST', '/responses', {
      body: { name: name('Shared'), body: 'Hello from the team', shared: true },
    });
    expect(shared.status, shared.text).toBe(201);
    expect(shared.body.owner_id).toBeNull();
    expect((await a.get('/responses')).body.responses.map((r: any) => r.id)).toContain(shared.body.id);
    expect((await a.get(`/responses/${shared.body.id}`)).status).toBe(200);
    const edit = await a.patch(`/responses/${shared.body.id}`, { body: 'changed' });
    expect(edit.status).toBe(403);
    expect(edit.body.error.message).toBe('Only administrators can change shared canned responses');
    expect((await a.del(`/responses/${shared.body.id}`)).status).toBe(403);
    expect((await a.get(`/responses/${shared.body.id}`)).body.body).toBe('Hello from the team');
    // An agent cannot share their own either; an administrator may also keep their own.
    const own = await a.post('/responses', { name: name('Own'), body: 'x' });
    expect((await a.patch(`/responses/${own.body.id}`, { shared: true })).status).toBe(403);
    const adminOwn = await s.api('POST', '/responses', { body: { name: name('Admin own'), body: 'x' } });
    expect(adminOwn.body.owner_id).not.toBeNull();
    expect((await a.get(`/responses/${adminOwn.body.id}`)).status).toBe(404);
    expect(
      (await s.api('PATCH', `/responses/${shared.body.id}`, { body: { body: 'Edited by admin' } })).body.body,
    ).toBe('Edited by admin');
    expect((await s.api('DELETE', `/responses/${shared.body.id}`)).status).toBe(204);
  });

  it("owner_id, the field every response carries, is accepted back: null = shared (administrators), one's own id = one's own", async () => {
    const a = as(agent.token);
    // What a client read, sent back unchanged.
    const own = await a.post('/responses', { name: name('Round trip'), body: 'x', owner_id: agent.id });
    expect(own.status, own.text).toBe(201);
    expect(own.body.owner_id).toBe(agent.id);
    const { id, created_at: _c, updated_at: _u, ...read } = (await a.get(`/responses/${own.body.id}`)).body;
    const back = await a.patch(`/responses/${id}`, { ...read, body: 'edited' });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ owner_id: agent.id, body: 'edited' });
    const shared = await s.api('POST', '/responses', {
      body: { name: name('Shared by id'), body: 'x', owner_id: null },
    });
    expect(shared.status, shared.text).toBe(201);
    expect(shared.body.owner_id).toBeNull();
    const { id: sid, created_at: _c2, updated_at: _u2, ...sharedRead } = shared.body;
    expect(
      (await s.api('PATCH', `/responses/${sid}`, { body: { ...sharedRead, name: `${sharedRead.name} (edited)` } }))
        .status,
    ).toBe(200);
    // An administrator makes a shared one their own, and shares it again.
    const adminId = (await s.api('GET', '/me')).body.id as number;
    expect((await s.api('PATCH', `/responses/${sid}`, { body: { owner_id: adminId } })).body.owner_id).toBe(adminId);
    expect((await s.api('PATCH', `/responses/${sid}`, { body: { owner_id: null } })).body.owner_id).toBeNull();
    // Refused, changing nothing: an agent sharing (403), anyone's else id or a contradiction (422).
    expect((await a.post('/responses', { name: name('Not mine'), body: 'x', owner_id: null })).status).toBe(403);
    expect((await a.patch(`/responses/${id}`, { owner_id: null })).status).toBe(403);
    for (const body of [
      { name: name('Theirs'), body: 'x', owner_id: other.id },
      { name: name('Both'), body: 'x', owner_id: agent.id, shared: true },
      { name: name('Bad'), body: 'x', owner_id: 'me' },
    ]) {
      const res = await a.post('/responses', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details.map((d: any) => d.path)).toEqual(['owner_id']);
    }
    expect((await a.patch(`/responses/${id}`, { owner_id: other.id })).status).toBe(422);
    expect((await a.get(`/responses/${id}`)).body).toMatchObject({ owner_id: agent.id, body: 'edited' });
  });

  it('requesters have no canned responses at all (403)', async () => {
    const shared = await s.api('POST', '/responses', { body: { name: name('Shared'), body: 'x', shared: true } });
    const r = as(requester.token);
    for (const res of [
      await r.get('/responses'),
      await r.post('/responses', { name: 'x', body: 'y' }),
      await r.get(`/responses/${shared.body.id}`),
      await r.patch(`/responses/${shared.body.id}`, { body: 'y' }),
      await r.del(`/responses/${shared.body.id}`),
    ]) {
      expect(res.status).toBe(403);
    }
    const t = await ticket();
    expect((await r.get(`/responses/${shared.body.id}/render?ticket_id=${t.id}`)).status).toBe(403);
  });
});

describe('canned responses: what is accepted', () => {
  it('a name is unique per owner (any case): 409 naming the field; the same name in another scope is fine', async () => {
    const n = name('Duplicate');
    expect((await as(agent.token).post('/responses', { name: n, body: 'a' })).status).toBe(201);
    const dup = await as(agent.token).post('/responses', { name: n.toUpperCase(), body: 'b' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'conflict', details: [{ path: 'name' }] });
    expect(dup.body.error.message).toContain('already exists');
    expect((await as(other.token).post('/responses', { name: n, body: 'c' })).status).toBe(201);
    expect((await s.api('POST', '/responses', { body: { name: n, body: 'd', shared: true } })).status).toBe(201);
    expect((await s.api('POST', '/responses', { body: { name: n, body: 'e', shared: true } })).status).toBe(409);
    // Renaming onto a taken name is refused too.
    const second = await as(agent.token).post('/responses', { name: name('Second'), body: 'f' });
    expect((await as(agent.token).patch(`/responses/${second.body.id}`, { name: n })).status).toBe(409);
  });

  it('refuses bad fields with 422 naming them, and writes nothing', async () => {
    const a = as(agent.token);
    const before = (await a.get('/responses')).body.responses.length;
    const cases: [unknown, string][] = [
      [{ name: '', body: 'x' }, 'name'],
      [{ name: 'x'.repeat(201), body: 'x' }, 'name'],
      [{ name: name('Bad'), body: '   ' }, 'body'],
      [{ name: name('Bad'), body: 'x', set_status: 'closed' }, 'set_status'],
      [{ name: name('Bad'), body: 'x', queue_id: 99999 }, 'queue_id'],
      [{ name: name('Bad'), body: 'Hello {% if %}' }, 'body'],
      [{ name: name('Bad'), body: 'Hello {{ ticket.nonsense }}' }, 'body'],
    ];
    for (const [body, path] of cases) {
      const res = await a.post('/responses', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        res.body.error.details.map((d: any) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const liquid = await a.post('/responses', { name: name('Bad'), body: 'Hello {% if %}' });
    expect(liquid.body.error.details[0].message).toMatch(/^Liquid error: /);
    expect((await a.get('/responses')).body.responses.length).toBe(before);
    const own = await a.post('/responses', { name: name('Good'), body: 'ok' });
    expect((await a.patch(`/responses/${own.body.id}`, { body: '{{ unclosed' })).status).toBe(422);
    expect((await a.get(`/responses/${own.body.id}`)).body.body).toBe('ok');
  });

  it('lists by queue (that queue and all queues) and by name', async () => {
    const a = as(agent.token);
    const tag = `q${++seq}`;
    const all = await a.post('/responses', { name: `${tag} everywhere`, body: 'x' });
    const one = await a.post('/responses', { name: `${tag} general`, body: 'x', queue_id: 1 });
    const billing = await a.post('/responses', { name: `${tag} billing`, body: 'x', queue_id: queue2 });
    const ids = async (q: string) => (await a.get(`/responses?${q}`)).body.responses.map((r: any) => r.id);
    expect(await ids(`q=${tag}&queue_id=1`)).toEqual([all.body.id, one.body.id]);
    expect(await ids(`q=${tag}&queue_id=${queue2}`)).toEqual([billing.body.id, all.body.id]);
    expect(await ids(`q=${tag.toUpperCase()}%20BILL`)).toEqual([billing.body.id]);
    expect((await a.get('/responses?queue_id=abc')).status).toBe(422);
  });
});

describe('GET /responses/:id/render', () => {
  it('renders the body for a ticket with the template variables', async () => {
    const t = await ticket();
    const r = await as(agent.token).post('/responses', {
      name: name('Render'),
      set_status: 'resolved',
      body: 'Hello {{ ticket.requester.name }}, about #{{ ticket.id }} "{{ ticket.subject }}" in {{ ticket.queue.name }} ({{ ticket.status }}).',
    });
    const res = await as(agent.token).get(`/responses/${r.body.id}/render?ticket_id=${t.id}`);
    expect(res.status, res.text).toBe(200);
    const person = (await s.api('GET', `/users/${requester.id}`)).body;
    expect(res.body).toEqual({
      id: r.body.id,
      name: r.body.name,
      set_status: 'resolved',
      body: `Hello ${person.name}, about #${t.id} "${t.subject}" in General (new).`,
    });
  });

  it('transaction is the newest entry the customer saw (Create or Correspond), never an internal note', async () => {
    // SPEC D0 (decision 040): the text goes into a public reply; a note quoted there would reach the customer.
    const t = await ticket();
    const r = await as(agent.token).post('/responses', {
      name: name('Quote'),
      body: 'You wrote ({{ transaction.type }}): {{ transaction.body }}',
    });
    expect(r.status, r.text).toBe(201);
    const render = async () =>
      (await as(agent.token).get(`/responses/${r.body.id}/render?ticket_id=${t.id}`)).body.body;
    const write = async (token: string, body: string, internal: boolean) =>
      expect((await s.api('POST', `/tickets/${t.id}/comment`, { token, body: { body, internal } })).status).toBe(201);
    await write(agent.token, 'Secret: the customer is difficult', true);
    expect(await render()).toBe('You wrote (Create): It smokes.');
    await write(requester.token, 'Any news?', false);
    await write(agent.token, 'Secret: escalate to Bob', true);
    await as(agent.token).patch(`/tickets/${t.id}`, { priority: 50 });
    expect(await render()).toBe('You wrote (Correspond): Any news?');
    await write(agent.token, 'We are on it.', false);
    await write(agent.token, 'Secret: waiting for the vendor', true);
    expect(await render()).toBe('You wrote (Correspond): We are on it.');
    // A template preview still shows the newest entry of any kind (a staff notice about a note renders the note).
    const preview = await s.api('POST', '/templates/preview', {
      body: { subject: 'x', body: '{{ transaction.body }}', ticket_id: t.id },
    });
    expect(preview.body.body).toBe('Secret: waiting for the vendor');
  });

  it('a ticket the actor cannot see, a response of another queue, a missing ticket_id: clear 4xx', async () => {
    const t = await ticket();
    const billing = await as(agent.token).post('/responses', {
      name: name('Billing only'),
      body: 'x',
      queue_id: queue2,
    });
    const wrongQueue = await as(agent.token).get(`/responses/${billing.body.id}/render?ticket_id=${t.id}`);
    expect(wrongQueue.status).toBe(422);
    expect(wrongQueue.body.error.details[0].path).toBe('ticket_id');
    expect((await as(agent.token).get(`/responses/${billing.body.id}/render?ticket_id=99999`)).status).toBe(404);
    expect((await as(agent.token).get(`/responses/${billing.body.id}/render`)).status).toBe(422);
  });

  it('a runtime Liquid failure on a real ticket (render time limit) is 422 with the reason, never 500', async () => {
    // Passes the save-time check (the sample ticket has priority 10: 10^3 rounds) but not a
    // ticket of priority 100 (10^6 rounds exceed the render limit).
    const loop =
      '{% for a in (1..ticket.priority) %}{% for b in (1..ticket.priority) %}{% for c in (1..ticket.priority) %}.{% endfor %}{% endfor %}{% endfor %}';
    const r = await as(agent.token).post('/responses', { name: name('Slow'), body: loop });
    expect(r.status, r.text).toBe(201);
    const t = await ticket(1, { priority: 100 });
    const res = await as(agent.token).get(`/responses/${r.body.id}/render?ticket_id=${t.id}`);
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toMatchObject({
      path: 'body',
      message: expect.stringMatching(/^Liquid error: .*limit/i),
    });
  });
});

describe('a reply that sets a status', () => {
  it('set_status is applied with the reply in one unit of work (JSON and form)', async () => {
    const t = await ticket();
    const res = await as(agent.token).post(`/tickets/${t.id}/comment`, {
      body: 'Fixed, closing.',
      internal: false,
      set_status: 'resolved',
    });
    expect(res.status, res.text).toBe(201);
    expect((await s.api('GET', `/tickets/${t.id}`)).body.status).toBe('resolved');
    const txns = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions;
    // The reply took the new ticket up (new → open, SPEC D6), then the response's status.
    expect(txns.slice(-3).map((x: any) => [x.type, x.creator_id, x.new_value])).toEqual([
      ['Correspond', agent.id, null],
      ['Status', null, 'open'],
      ['Status', agent.id, 'resolved'],
    ]);
    const form = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      form: { body: 'Waiting on you', internal: 'false', set_status: 'stalled' },
    });
    expect(form.status, form.text).toBe(201);
    expect((await s.api('GET', `/tickets/${t.id}`)).body.status).toBe('stalled');
    // An empty choice changes nothing.
    await s.api('POST', `/tickets/${t.id}/comment`, { token: agent.token, form: { body: 'Note', set_status: '' } });
    expect((await s.api('GET', `/tickets/${t.id}`)).body.status).toBe('stalled');
  });

  it('an invalid set_status is 422 and nothing is written; requesters cannot set one (403)', async () => {
    const t = await ticket();
    const before = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions.length;
    const bad = await as(agent.token).post(`/tickets/${t.id}/comment`, {
      body: 'x',
      internal: false,
      set_status: 'closed',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toBe('set_status');
    const theirs = await as(requester.token).post(`/tickets/${t.id}/comment`, {
      body: 'please close',
      set_status: 'resolved',
    });
    expect(theirs.status).toBe(403);
    expect((await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions.length).toBe(before);
    expect((await s.api('GET', `/tickets/${t.id}`)).body.status).toBe(t.status);
  });
});

describe('the /responses page', () => {
  it('is a page with one h1, labelled fields, and "Saved" after a plain form post', async () => {
    const html = async (p: string) =>
      (await fetch(s.url + p, { headers: { authorization: `Bearer ${agent.token}`, accept: 'text/html' } })).text();
    const page = await html('/responses');
    expect(page.match(/<h1/g)).toHaveLength(1);
    expect(page).toContain('<a href="/responses">Responses</a>');
    expect(page).toMatch(/<label>Name\s*<input name="name"/);
    expect(page).not.toContain('Shared with all agents'); // agents cannot share
    const n = name('From the page');
    const post = await fetch(`${s.url}/responses`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${agent.token}`,
        accept: 'text/html',
        origin: s.url,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ name: n, body: 'Hi {{ ticket.id }}', queue_id: '', set_status: '' }),
    });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toBe('/responses?saved');
    const after = await html('/responses?saved');
    expect(after).toContain('Saved.');
    expect(after).toContain(n);
    const admin = await (
      await fetch(`${s.url}/responses`, { headers: { authorization: `Bearer ${s.adminToken}`, accept: 'text/html' } })
    ).text();
    expect(admin).toContain('Shared with all agents');
  });
});
