import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D3 lifecycles over real HTTP on both stores (decision 073): admin CRUD with 422s naming
// the fault, 409 for a lifecycle in use, queues taking a lifecycle, statuses per lifecycle with
// transitions binding people (422 with `allowed`) and not automatic moves, the queue-move
// mapping, status_category, and the rules that go by category (SLA pause, on_customer_reply,
// snooze, resolved_at). A queue without a lifecycle keeps RT's default, as before.

let s: TestServer;
let agent: { id: number; token: string };
let customer: { id: number; email: string; token: string };
let hardware: number; // queue with the Hardware lifecycle
let billing: number; // queue with the Billing lifecycle
let plain: number; // queue without a lifecycle
let hw: Record<string, any>;

const HARDWARE = {
  name: 'Hardware',
  statuses: [
    { name: 'reported', category: 'initial', color: '#1d4ed8' },
    { name: 'diagnosing', category: 'active', color: '#15803d' },
    { name: 'waiting_on_parts', category: 'waiting', color: '#b45309' },
    { name: 'repaired', category: 'inactive', color: '#4b5563' },
    { name: 'deleted', category: 'inactive', color: '#991b1b' },
  ],
  transitions: {
    reported: ['diagnosing', 'deleted'],
    diagnosing: ['waiting_on_parts', 'repaired'],
    waiting_on_parts: ['diagnosing'],
    repaired: ['diagnosing'],
    deleted: [],
  },
};
const BILLING = {
  name: 'Billing',
  statuses: [
    { name: 'new', category: 'initial', color: '#1d4ed8' },
    { name: 'working', category: 'active', color: '#15803d' },
    { name: 'open', category: 'active', color: '#16a34a' },
    { name: 'waiting_on_customer', category: 'waiting', color: '#b45309' },
    { name: 'paid', category: 'inactive', color: '#4b5563' },
  ],
  on_customer_reply: 'open',
};

const T0 = Date.parse('2026-12-21T08:00:00.000Z');
let clock = T0;
const setClock = async (ms: number) => {
  clock = ms;
  const r = await s.api('POST', '/test/clock', { body: { now: new Date(ms).toISOString() } });
  expect(r.status, r.text).toBe(200);
};

const ticketIn = async (queue_id: number, extra: Record<string, unknown> = {}) => {
  const r = await s.api('POST', '/tickets', {
    token: customer.token,
    body: { queue_id, subject: 'Broken', description: 'It broke', ...extra },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket as Record<string, any>;
};
const patch = (id: number, body: Record<string, unknown>, token = agent.token) =>
  s.api('PATCH', `/tickets/${id}`, { token, body });
const ok = async (id: number, body: Record<string, unknown>) => {
  const r = await patch(id, body);
  expect(r.status, r.text).toBe(200);
  return r.body.ticket as Record<string, any>;
};
const listed = async (query: string) => {
  const r = await s.api('GET', `/tickets?${query}&limit=500`, { token: agent.token });
  expect(r.status, r.text).toBe(200);
  return (r.body.tickets as { id: number }[]).map((t) => t.id).sort((a, b) => a - b);
};

beforeAll(async () => {
  s = await startServer({ HXDESK_TEST_CLOCK: '1' });
  await setClock(T0);
  agent = await s.user('agent');
  customer = await s.user('requester');
  hardware = (await s.api('POST', '/queues', { body: { name: 'Hardware desk', portal_create: true } })).body.id;
  billing = (await s.api('POST', '/queues', { body: { name: 'Billing desk', portal_create: true } })).body.id;
  plain = (await s.api('POST', '/queues', { body: { name: 'Plain desk', portal_create: true } })).body.id;
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

describe('lifecycles: CRUD', () => {
  it('POST → 201 with the shape; agents read, only admins write; GET /lifecycles lists it', async () => {
    const r = await s.api('POST', '/lifecycles', { body: HARDWARE });
    expect(r.status, r.text).toBe(201);
    hw = r.body;
    expect(Object.keys(hw).sort()).toEqual([
      'created_at',
      'id',
      'name',
      'on_customer_reply',
      'queue_ids',
      'statuses',
      'transitions',
      'updated_at',
    ]);
    expect(hw).toMatchObject({ name: 'Hardware', statuses: HARDWARE.statuses, on_customer_reply: null, queue_ids: [] });
    expect(hw.transitions.reported).toEqual(['diagnosing', 'deleted']);
    const read = await s.api('GET', `/lifecycles/${hw.id}`, { token: agent.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(hw);
    const list = await s.api('GET', '/lifecycles', { token: agent.token });
    expect(list.body.lifecycles.map((l: any) => l.name)).toContain('Hardware');
    expectError(
      await s.api('POST', '/lifecycles', { token: agent.token, body: { ...HARDWARE, name: 'X' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('GET', '/lifecycles', { token: customer.token }), 403, 'forbidden');
    expectError(await s.api('POST', '/lifecycles', { body: HARDWARE }), 409, 'conflict', 'name');
    const b = await s.api('POST', '/lifecycles', { body: BILLING });
    expect(b.status, b.text).toBe(201);
    expect(b.body.transitions).toBeNull();
    for (const [q, l] of [
      [hardware, hw.id],
      [billing, b.body.id],
    ]) {
      const p = await s.api('PATCH', `/queues/${q}`, { body: { lifecycle_id: l } });
      expect(p.status, p.text).toBe(200);
      expect(p.body.lifecycle_id).toBe(l);
    }
    expect((await s.api('GET', `/queues/${plain}`)).body.lifecycle_id).toBeNull();
    expectError(await s.api('PATCH', `/queues/${plain}`, { body: { lifecycle_id: 9999 } }), 422, 'validation_failed', [
      'lifecycle_id',
    ]);
  });

  it('an invalid lifecycle is 422 naming the fault', async () => {
    const st = HARDWARE.statuses;
    const bad = async (body: Record<string, unknown>, path: string, message: RegExp) => {
      const r = await s.api('POST', '/lifecycles', { body: { name: 'Bad', ...body } });
      expectError(r, 422, 'validation_failed', path);
      expect(r.body.error.message).toMatch(message);
    };
    await bad(
      { statuses: st.filter((x) => x.category !== 'initial') },
      'statuses',
      /exactly one initial status; it has none/,
    );
    await bad(
      { statuses: [...st, { name: 'triage', category: 'initial', color: '#000000' }] },
      'statuses',
      /exactly one initial status; it has 2: "reported", "triage"/,
    );
    await bad({ statuses: [...st, { ...st[1] }] }, 'statuses.5.name', /Status "diagnosing" is named twice/);
    await bad(
      { statuses: [...st, { name: 'x', category: 'paused', color: '#000000' }] },
      'statuses.5.category',
      /initial, active, waiting, inactive/,
    );
    await bad({ statuses: [...st, { name: 'x', category: 'active', color: 'red' }] }, 'statuses.5.color', /#rrggbb/);
    await bad(
      { statuses: st, transitions: { reported: ['fixed'] } },
      'transitions.reported.0',
      /to unknown status "fixed"/,
    );
    await bad({ statuses: st, transitions: { gone: ['reported'] } }, 'transitions.gone', /from unknown status "gone"/);
    await bad({ statuses: st, on_customer_reply: 'nope' }, 'on_customer_reply', /unknown status "nope"/);
    await bad(
      { statuses: st, on_customer_reply: 'repaired' },
      'on_customer_reply',
      /must be an active status; "repaired" is inactive/,
    );
    await bad(
      { statuses: [{ name: 'Bad Name', category: 'initial', color: '#000000' }] },
      'statuses.0.name',
      /lower-case/,
    );
  });

  it('deleting a lifecycle a queue uses is 409 naming the queue; unused: 204', async () => {
    const r = await s.api('DELETE', `/lifecycles/${hw.id}`);
    expectError(r, 409, 'conflict');
    expect(r.body.error.message).toContain('Hardware desk');
    const spare = (await s.api('POST', '/lifecycles', { body: { ...BILLING, name: 'Spare' } })).body.id;
    expect((await s.api('PATCH', `/lifecycles/${spare}`, { body: { name: 'Spare 2' } })).body.name).toBe('Spare 2');
    expect((await s.api('DELETE', `/lifecycles/${spare}`)).status).toBe(204);
    expectError(await s.api('GET', `/lifecycles/${spare}`), 404, 'not_found');
  });
});

describe('statuses per lifecycle', () => {
  it('a queue without a lifecycle behaves as before: new, any move, the old 422', async () => {
    const t = await ticketIn(plain);
    expect(t.status).toBe('new');
    expect((await ok(t.id, { status: 'stalled' })).status).toBe('stalled');
    expect((await ok(t.id, { status: 'resolved' })).resolved_at).not.toBeNull();
    const r = await patch(t.id, { status: 'diagnosing' });
    expectError(r, 422, 'validation_failed', ['status']);
    expect(r.body.error.message).toBe('Status must be one of: new, open, stalled, resolved, rejected, deleted');
  });

  it('a new ticket starts in the initial status; a status of another lifecycle is 422', async () => {
    const t = await ticketIn(hardware);
    expect(t.status).toBe('reported');
    const r = await patch(t.id, { status: 'open' });
    expectError(r, 422, 'validation_failed', ['status']);
    expect(r.body.error.message).toMatch(/lifecycle Hardware has no status "open"/);
    const created = await s.api('POST', '/tickets', {
      token: agent.token,
      body: { queue_id: hardware, subject: 'x', status: 'stalled' },
    });
    expectError(created, 422, 'validation_failed', ['status']);
  });

  it("transitions bind people's changes: 422 with details[{path, message, allowed}], single and bulk", async () => {
    const t = await ticketIn(hardware);
    const r = await patch(t.id, { status: 'repaired' });
    expectError(r, 422, 'validation_failed', ['status']);
    expect(r.body.error.details).toEqual([
      {
        path: 'status',
        message: 'A ticket cannot move from reported to repaired in lifecycle Hardware: allowed: diagnosing, deleted',
        allowed: ['diagnosing', 'deleted'],
      },
    ]);
    expect((await ok(t.id, { status: 'diagnosing' })).status).toBe('diagnosing');
    expect((await ok(t.id, { status: 'repaired' })).resolved_at).toBe(new Date(clock).toISOString());
    const bulk = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [t.id], changes: { status: 'waiting_on_parts' } },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.results[0]).toMatchObject({ id: t.id, ok: false });
    expect(bulk.body.results[0].error).toMatch(/cannot move from repaired to waiting_on_parts.*allowed: diagnosing/);
    const reopened = await ok(t.id, { status: 'diagnosing' });
    expect(reopened.resolved_at).toBeNull();
  });

  it('a queue move keeps a same-named status, else the first of the same category (one Status entry)', async () => {
    const b = await ticketIn(billing);
    expect(b.status).toBe('new');
    await ok(b.id, { status: 'open' });
    // open → the default lifecycle's open (same name).
    expect((await ok(b.id, { queue_id: plain })).status).toBe('open');
    // open (active) → Hardware: no "open", first active = diagnosing.
    const moved = await ok(b.id, { queue_id: hardware });
    expect(moved).toMatchObject({ queue_id: hardware, status: 'diagnosing' });
    const log = (await transactionsOf(s, b.id)).filter((x) => x.type === 'Status' || x.type === 'SetQueue').slice(-2);
    expect(log.map((x) => `${x.type} ${x.old_value}→${x.new_value}`)).toEqual([
      `SetQueue ${plain}→${hardware}`,
      'Status open→diagnosing',
    ]);
    // waiting → Billing's first waiting; a status named with the move must be the new lifecycle's.
    await ok(b.id, { status: 'waiting_on_parts' });
    expect((await ok(b.id, { queue_id: billing })).status).toBe('waiting_on_customer');
    expectError(await patch(b.id, { queue_id: hardware, status: 'paid' }), 422, 'validation_failed', ['status']);
    expect((await ok(b.id, { queue_id: hardware, status: 'repaired' })).status).toBe('repaired');
  });

  it('GET /tickets?status_category= and any status of any lifecycle; unknown → 422 naming it', async () => {
    const h = await ticketIn(hardware);
    await ok(h.id, { status: 'diagnosing' });
    await ok(h.id, { status: 'waiting_on_parts' });
    const p = await ticketIn(plain);
    await ok(p.id, { status: 'stalled' });
    const done = await ticketIn(billing);
    await ok(done.id, { status: 'paid' });
    const waiting = await listed('status_category=waiting');
    expect(waiting).toEqual(expect.arrayContaining([h.id, p.id]));
    expect(waiting).not.toContain(done.id);
    const notDone = await listed('status_category=initial,active,waiting');
    expect(notDone).toEqual(expect.arrayContaining([h.id, p.id]));
    expect(notDone).not.toContain(done.id);
    expect(await listed('status_category=inactive')).toContain(done.id);
    expect(await listed('status=waiting_on_parts,stalled')).toEqual(expect.arrayContaining([h.id, p.id]));
    const r = await s.api('GET', '/tickets?status=open,on_fire', { token: agent.token });
    expectError(r, 422, 'validation_failed', ['status.1']);
    expect(r.body.error.message).toMatch(/Unknown status "on_fire"/);
    expectError(await s.api('GET', '/tickets?status_category=done', { token: agent.token }), 422, 'validation_failed', [
      'status_category.0',
    ]);
    // "My open tickets" goes by category.
    await ok(h.id, { owner_id: agent.id });
    const mine = await s.api('GET', '/tickets?owner_id=me&status_category=initial,active,waiting&snoozed=false', {
      token: agent.token,
    });
    expect(mine.body.tickets.map((t: any) => t.id)).toContain(h.id);
  });
});

describe("a reply's set_status and scrips", () => {
  it("a reply's set_status is a status of the ticket's lifecycle, bound by transitions", async () => {
    const t = await ticketIn(hardware);
    await ok(t.id, { status: 'diagnosing' });
    const reply = (body: Record<string, unknown>) =>
      s.api('POST', `/tickets/${t.id}/comment`, { token: agent.token, body: { body: 'x', internal: true, ...body } });
    const other = await reply({ set_status: 'open' });
    expectError(other, 422, 'validation_failed', ['set_status']);
    expect((await ticketOf(s, t.id)).status).toBe('diagnosing');
    expect((await reply({ set_status: 'waiting_on_parts' })).status).toBe(201);
    expect((await ticketOf(s, t.id)).status).toBe('waiting_on_parts');
    const refused = await reply({ set_status: 'repaired' });
    expectError(refused, 422, 'validation_failed', ['status']);
    expect(refused.body.error.details[0].allowed).toEqual(['diagnosing']);
  });

  it("a scrip's set_status takes its queue's statuses and is not bound by transitions", async () => {
    const bad = await s.api('POST', '/scrips', {
      body: {
        key: 'hw_bad',
        queue_id: hardware,
        condition: 'on_create',
        action: 'set_status',
        config: { status: 'open' },
      },
    });
    expectError(bad, 422, 'validation_failed', ['config.status']);
    expect(bad.body.error.message).toContain('reported, diagnosing, waiting_on_parts, repaired, deleted');
    const sc = await s.api('POST', '/scrips', {
      body: {
        key: 'hw_park',
        queue_id: hardware,
        condition: 'on_create',
        action: 'set_status',
        config: { status: 'waiting_on_parts' },
      },
    });
    expect(sc.status, sc.text).toBe(201);
    // reported → waiting_on_parts is no transition people may make; a scrip's move is automatic.
    const t = await ticketIn(hardware);
    expect((await ticketOf(s, t.id)).status).toBe('waiting_on_parts');
    await s.api('DELETE', `/scrips/${sc.body.id}`);
  });
});

describe('rules by category', () => {
  it("a requester's reply moves a waiting or inactive ticket to on_customer_reply (Billing: open), not bound by transitions", async () => {
    const t = await ticketIn(billing);
    await ok(t.id, { status: 'waiting_on_customer' });
    const c = await s.api('POST', `/tickets/${t.id}/comment`, { token: customer.token, body: { body: 'Here it is' } });
    expect(c.status, c.text).toBe(201);
    expect((await ticketOf(s, t.id)).status).toBe('open');
    // Hardware: no on_customer_reply → the first active status, though repaired → diagnosing only by transition.
    const h = await ticketIn(hardware);
    await ok(h.id, { status: 'diagnosing' });
    await ok(h.id, { status: 'repaired' });
    await s.api('POST', `/tickets/${h.id}/comment`, { token: customer.token, body: { body: 'Broken again' } });
    expect((await ticketOf(s, h.id)).status).toBe('diagnosing');
  });

  it('snooze moves to the first waiting status and wakes to the first active one', async () => {
    const t = await ticketIn(hardware);
    await ok(t.id, { status: 'diagnosing' });
    const until = new Date(clock + 3_600_000).toISOString();
    expect(await ok(t.id, { snoozed_until: until })).toMatchObject({
      status: 'waiting_on_parts',
      snoozed_until: until,
    });
    const woke = await ok(t.id, { snoozed_until: null });
    expect(woke).toMatchObject({ status: 'diagnosing', snoozed_until: null });
  });

  it('the SLA resolution clock pauses in a custom waiting status', async () => {
    const p = await s.api('POST', '/sla-policies', {
      body: { name: 'Hardware SLA', match: { queue_ids: [hardware] }, resolution_minutes: 600 },
    });
    expect(p.status, p.text).toBe(201);
    const t = await ticketIn(hardware);
    expect((await ticketOf(s, t.id)).sla.paused).toBe(false);
    await ok(t.id, { status: 'diagnosing' });
    const waiting = await ok(t.id, { status: 'waiting_on_parts' });
    expect(waiting.sla.paused).toBe(true);
    expect(waiting.sla.resolution.due_at).toBeNull();
    await setClock(clock + 2 * 3_600_000);
    const back = await ok(t.id, { status: 'diagnosing' });
    expect(back.sla.paused).toBe(false);
    // Two hours waited do not count: due 10 h after it started counting again, less what ran before.
    expect(back.sla.resolution.due_at).toBe(new Date(clock + 600 * 60_000).toISOString());
    const done = await ok(t.id, { status: 'repaired' });
    expect(done.sla.resolution.met_at).toBe(new Date(clock).toISOString());
    await s.api('DELETE', `/sla-policies/${p.body.id}`);
  });

  it('a status a ticket holds cannot be taken out of its lifecycle (409)', async () => {
    const t = await ticketIn(billing);
    await ok(t.id, { status: 'working' });
    const r = await s.api('PATCH', `/lifecycles/${(await s.api('GET', `/queues/${billing}`)).body.lifecycle_id}`, {
      body: { statuses: BILLING.statuses.filter((x) => x.name !== 'working') },
    });
    expectError(r, 409, 'conflict');
    expect(r.body.error.message).toMatch(/"working"/);
  });
});
