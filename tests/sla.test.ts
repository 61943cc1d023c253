import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { ticketTimers } from '../src/domain/time/timers.js';
import { expectError } from './helpers/expect.js';
import { postMail, rawMail } from './helpers/mail.js';
import { releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';

// SPEC D2 SLA clocks through the API (decision 070), on both stores: a policy matched at create,
// what meets a response clock and what does not, the next response, resolution paused in stalled
// and met at resolve, another policy after a change of priority counting from the creation; the
// warning and breach written once each by the timers as SLA entries, with the scrips (and their
// webhooks) on them narrowed by config.clock; sort=due and sla= on the list; the built-in list.

const T0 = '2026-12-01T10:00:00.000Z';
const clock = testClock(Date.parse(T0));
const at = (min: number) => new Date(Date.parse(T0) + min * 60_000).toISOString();
/** The clock to `min` minutes after T0, and every timer due by then fired. */
const moveTo = async (min: number) => {
  clock.set(Date.parse(at(min)));
  await s.workers.timers.runDue();
};

let s: TestServer;
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };
let queueId: number;
let policyId: number;
let urgentId: number;
let warnScrip: number;
let breachScrip: number;

beforeAll(async () => {
  s = await startServer({}, { clock });
  agent = await s.user('agent');
  customer = await s.user('requester');
  queueId = (await s.api('POST', '/queues', { body: { name: uniq('SLA queue'), portal_create: true } })).body.id;
  const policy = await s.api('POST', '/sla-policies', {
    body: {
      name: 'Standard',
      position: 10,
      match: { queue_ids: [queueId] },
      calendar_id: null,
      first_response_minutes: 60,
      next_response_minutes: 30,
      resolution_minutes: 480,
      warn_before_minutes: 15,
    },
  });
  expect(policy.status, policy.text).toBe(201);
  policyId = policy.body.id;
  const urgent = await s.api('POST', '/sla-policies', {
    body: {
      name: 'Urgent',
      position: 1,
      match: { queue_ids: [queueId], priority_min: 80 },
      calendar_id: null,
      first_response_minutes: 15,
      next_response_minutes: 10,
      resolution_minutes: 120,
      warn_before_minutes: 5,
    },
  });
  expect(urgent.status, urgent.text).toBe(201);
  urgentId = urgent.body.id;
  const hook = (key: string, condition: string, config: Record<string, unknown>) =>
    s.api('POST', '/scrips', {
      body: { key, condition, action: 'notify_webhook', config: { url: 'http://127.0.0.1:9/hook', ...config } },
    });
  const w = await hook(uniq('sla_warn'), 'on_sla_warning', {});
  expect(w.status, w.text).toBe(201);
  warnScrip = w.body.id;
  const b = await hook(uniq('sla_breach_next'), 'on_sla_breach', { clock: 'next_response' });
  expect(b.status, b.text).toBe(201);
  breachScrip = b.body.id;
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

/** A new ticket from the customer, at minute `min`. */
const newTicket = async (min: number, body: Record<string, unknown> = {}, token = customer.token) => {
  clock.set(Math.max(clock.now(), Date.parse(at(min))));
  const r = await s.api('POST', '/tickets', {
    token,
    body: { queue_id: queueId, subject: uniq('Printer'), description: 'Paper everywhere', ...body },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket as { id: number; sla: unknown; next_due_at: string | null };
};
const reply = async (id: number, token: string, internal = false) => {
  const r = await s.api('POST', `/tickets/${id}/comment`, { token, body: { body: 'A word', internal } });
  expect(r.status, r.text).toBe(201);
};
const patch = async (id: number, body: Record<string, unknown>) => {
  const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body });
  expect(r.status, r.text).toBe(200);
  return r.body.ticket;
};
const slaEntries = async (id: number) =>
  (await transactionsOf(s, id))
    .filter((t) => t.type === 'SLA')
    .map((t) => ({
      clock: t.field,
      what: t.new_value,
      creator: t.creator_id,
      scrips: (t.scrip_results as { scrip_id: number }[]).map((r) => r.scrip_id),
    }));

describe('the clocks of a ticket', () => {
  it('start at create under the first policy that fits, answered in the ticket JSON with its timers armed', async () => {
    // The answer to staff carries the clocks as written; a customer's has no staff fields.
    const t = await newTicket(0, {}, agent.token);
    expect((await newTicket(0)).sla).toBeUndefined();
    expect(t.sla).toEqual({
      policy_id: policyId,
      first_response: { due_at: at(60), met_at: null, breached_at: null },
      next_response: null,
      resolution: { due_at: at(480), met_at: null, breached_at: null },
      paused: false,
    });
    expect(t.next_due_at).toBe(at(60));
    const timers = (await ticketTimers(s.db, t.id)).map((x) => [x.key, x.due_at, x.fired_at]).sort();
    expect(timers).toEqual([
      // One timer per clock, due at its next step: the warning first (then the breach).
      ['first_response', at(45), null],
      ['resolution', at(465), null],
    ]);
    // Another queue: no policy fits, no clocks.
    const other = await s.api('POST', '/tickets', {
      token: agent.token,
      body: { queue_id: 1, subject: 'Elsewhere', description: 'x' },
    });
    expect(other.body.ticket).toMatchObject({ sla: null, next_due_at: null });
  });

  it("only a staff member's public reply meets the first response; the customer's next message starts the next response", async () => {
    const t = await newTicket(0);
    clock.set(Date.parse(at(5)));
    await reply(t.id, agent.token, true); // an internal note
    await patch(t.id, { owner_id: agent.id }); // a change of a field (it also opens the ticket)
    await reply(t.id, customer.token); // the customer's own message
    let now = await ticketOf(s, t.id);
    expect(now.sla.first_response).toEqual({ due_at: at(60), met_at: null, breached_at: null });
    expect(now.sla.next_response).toBeNull();
    clock.set(Date.parse(at(20)));
    await reply(t.id, agent.token);
    now = await ticketOf(s, t.id);
    expect(now.sla.first_response).toEqual({ due_at: at(60), met_at: at(20), breached_at: null });
    expect(now.next_due_at).toBe(at(480));
    clock.set(Date.parse(at(40)));
    await reply(t.id, customer.token);
    now = await ticketOf(s, t.id);
    expect(now.sla.next_response).toEqual({ due_at: at(70), met_at: null, breached_at: null });
    expect(now.next_due_at).toBe(at(70));
    // A second customer message leaves it counting from the first.
    clock.set(Date.parse(at(45)));
    await reply(t.id, customer.token);
    expect((await ticketOf(s, t.id)).sla.next_response.due_at).toBe(at(70));
    clock.set(Date.parse(at(50)));
    await reply(t.id, agent.token);
    expect((await ticketOf(s, t.id)).sla.next_response).toEqual({ due_at: at(70), met_at: at(50), breached_at: null });
  });

  it('a pending first response is never replaced by a next response', async () => {
    const t = await newTicket(100);
    clock.set(Date.parse(at(110)));
    await reply(t.id, customer.token);
    await reply(t.id, customer.token);
    const now = await ticketOf(s, t.id);
    expect(now.sla.first_response).toEqual({ due_at: at(160), met_at: null, breached_at: null });
    expect(now.sla.next_response).toBeNull();
  });

  it('resolution pauses in stalled, resumes from the time spent, is met at resolve and runs again on reopen', async () => {
    const t = await newTicket(200);
    clock.set(Date.parse(at(260)));
    let now = await patch(t.id, { status: 'stalled' });
    expect(now.sla.paused).toBe(true);
    expect(now.sla.resolution).toEqual({ due_at: null, met_at: null, breached_at: null });
    clock.set(Date.parse(at(400)));
    now = await patch(t.id, { status: 'open' });
    expect(now.sla.paused).toBe(false);
    // 60 minutes spent: 420 to go from minute 400
    expect(now.sla.resolution.due_at).toBe(at(820));
    clock.set(Date.parse(at(430)));
    now = await patch(t.id, { status: 'resolved' });
    expect(now.sla.resolution).toEqual({ due_at: at(820), met_at: at(430), breached_at: null });
    clock.set(Date.parse(at(500)));
    now = await patch(t.id, { status: 'open' });
    // 90 minutes spent: 390 to go from minute 500
    expect(now.sla.resolution).toEqual({ due_at: at(890), met_at: null, breached_at: null });
  });

  it('another policy after a change of priority counts from the creation, the time spent carried over', async () => {
    const t = await newTicket(1000);
    clock.set(Date.parse(at(1005)));
    const now = await patch(t.id, { priority: 90 });
    expect(now.sla.policy_id).toBe(urgentId);
    expect(now.sla.first_response.due_at).toBe(at(1015));
    expect(now.sla.resolution.due_at).toBe(at(1120));
    // Back: the standard promise again, from the creation.
    clock.set(Date.parse(at(1010)));
    const back = await patch(t.id, { priority: 10 });
    expect(back.sla.policy_id).toBe(policyId);
    expect(back.sla.first_response.due_at).toBe(at(1060));
    // Into a queue no policy covers: no clocks, no timers.
    const gone = await patch(t.id, { queue_id: 1 });
    expect(gone).toMatchObject({ sla: null, next_due_at: null });
    expect(await ticketTimers(s.db, t.id)).toEqual([]);
  });

  it('by mail: an autoreply never meets or starts a clock; a staff reply by mail meets, a customer mail starts the next', async () => {
    const t = await newTicket(1500);
    const mail = async (from: string, auto: boolean) => {
      const headers: Record<string, string> = auto ? { 'Auto-Submitted': 'auto-replied' } : {};
      const r = await postMail(
        s,
        rawMail({ from, subject: `Re: [hxdesk #${t.id}] Printer`, headers }, 'A word by mail'),
      );
      expect(r.status, r.text).toBe(200);
      expect(r.body.ticket_id).toBe(t.id);
    };
    clock.set(Date.parse(at(1505)));
    await mail(agent.email, true); // an agent's out-of-office answer
    expect((await ticketOf(s, t.id)).sla.first_response.met_at).toBeNull();
    clock.set(Date.parse(at(1510)));
    await mail(agent.email, false);
    expect((await ticketOf(s, t.id)).sla.first_response.met_at).toBe(at(1510));
    clock.set(Date.parse(at(1520)));
    await mail(customer.email, true); // the customer's out-of-office answer
    expect((await ticketOf(s, t.id)).sla.next_response).toBeNull();
    clock.set(Date.parse(at(1530)));
    await mail(customer.email, false);
    expect((await ticketOf(s, t.id)).sla.next_response).toEqual({ due_at: at(1560), met_at: null, breached_at: null });
  });
});

describe('warnings and breaches', () => {
  it('each is written once, as an SLA entry by nobody, with the scrips narrowed by config.clock', async () => {
    const t = await newTicket(2000);
    clock.set(Date.parse(at(2010)));
    await reply(t.id, agent.token);
    clock.set(Date.parse(at(2020)));
    await reply(t.id, customer.token); // next response due at 2050, warning at 2035
    await moveTo(2034);
    expect(await slaEntries(t.id)).toEqual([]);
    await moveTo(2035);
    await expect
      .poll(() => slaEntries(t.id))
      .toEqual([{ clock: 'next_response', what: 'warning', creator: null, scrips: [warnScrip] }]);
    await moveTo(2049);
    await moveTo(2050);
    await expect.poll(async () => (await slaEntries(t.id)).length).toBe(2);
    expect((await slaEntries(t.id))[1]).toEqual({
      clock: 'next_response',
      what: 'breached',
      creator: null,
      scrips: [breachScrip],
    });
    const now = await ticketOf(s, t.id);
    expect(now.sla.next_response).toEqual({ due_at: at(2050), met_at: null, breached_at: at(2050) });
    // Nothing more, however often the timers look.
    await moveTo(2051);
    await s.workers.timers.runDue();
    expect((await slaEntries(t.id)).length).toBe(2);
    // Each webhook queued once, for its SLA entry.
    const outbox = await s.api('GET', `/outbox?ticket_id=${t.id}&limit=100`);
    const hooks = (outbox.body.outbox as { kind: string; scrip_id: number }[]).filter((o) => o.kind === 'webhook');
    expect(hooks.map((h) => h.scrip_id).sort()).toEqual([warnScrip, breachScrip].sort());
    // Met late, then: the breach stays.
    await reply(t.id, agent.token);
    expect((await ticketOf(s, t.id)).sla.next_response).toEqual({
      due_at: at(2050),
      met_at: at(2051),
      breached_at: at(2050),
    });
  });

  it('a clock met before its warning writes nothing', async () => {
    const t = await newTicket(3000);
    clock.set(Date.parse(at(3010)));
    await reply(t.id, agent.token);
    await moveTo(3100);
    expect((await slaEntries(t.id)).filter((e) => e.clock === 'first_response')).toEqual([]);
  });

  it('config.clock must name a clock', async () => {
    const r = await s.api('POST', '/scrips', {
      body: {
        key: uniq('bad_clock'),
        condition: 'on_sla_breach',
        action: 'notify_webhook',
        config: { url: 'http://127.0.0.1:9/', clock: 'lunch' },
      },
    });
    expectError(r, 422, 'validation_failed', 'config.clock');
    expect(r.body.error.details[0].message).toContain('first_response, next_response, resolution');
  });
});

describe('lists', () => {
  it('sort=due and -due put tickets without a due time last; sla= finds the breached and the due soon', async () => {
    clock.set(Date.parse(at(5000)));
    const late = await newTicket(5000); // first response due 5060
    clock.set(Date.parse(at(5001)));
    const soon = await newTicket(5001); // due 5061
    const later = await newTicket(5001);
    clock.set(Date.parse(at(5002)));
    const none = await newTicket(5002, { status: 'resolved' }, agent.token);
    clock.set(Date.parse(at(5030)));
    await reply(later.id, agent.token); // its next due: resolution at 5481
    await moveTo(5047); // inside soon's and late's warning windows (5045, 5046)
    const ids = [late.id, soon.id, later.id, none.id];
    const list = async (q: string) =>
      ((await s.api('GET', `/tickets?queue_id=${queueId}&limit=500&${q}`)).body.tickets as { id: number }[])
        .map((t) => t.id)
        .filter((id) => ids.includes(id));
    expect(await list('sort=due')).toEqual([late.id, soon.id, later.id, none.id]);
    expect(await list('sort=-due')).toEqual([later.id, soon.id, late.id, none.id]);
    expect(await list('sla=due_soon')).toEqual(expect.arrayContaining([late.id, soon.id]));
    expect(await list('sla=due_soon')).toHaveLength(2);
    expect(await list('sla=breached')).toEqual([]);
    await moveTo(5060);
    expect(await list('sla=breached')).toEqual([late.id]);
    expect(await list('sla=due_soon')).toEqual([soon.id]);
    expect(await list('sla=breached,due_soon&sort=due')).toEqual([late.id, soon.id]);
    expectError(await s.api('GET', '/tickets?sla=late'), 422, 'validation_failed', 'sla.0');
    expectError(await s.api('GET', '/tickets?sla=breached', { token: customer.token }), 403, 'forbidden');
    expectError(await s.api('GET', '/tickets?sort=due', { token: customer.token }), 403, 'forbidden');
  });

  it('the built-in list "Breached and due soon" is offered, soonest due first', async () => {
    const r = await s.api('GET', '/tickets', { token: agent.token, headers: { accept: 'text/html' } });
    expect(r.text).toContain('href="/tickets?sla=breached,due_soon&amp;sort=due"');
    expect(r.text).toContain('Breached and due soon');
  });
});

describe('business hours', () => {
  it("count under the policy's calendar: 240 minutes from 16:00 Berlin on 23 December, 24–26 off, due 11:00Z on the 28th", async () => {
    const cal = await s.api('POST', '/calendars', {
      body: {
        name: uniq('Berlin office'),
        time_zone: 'Europe/Berlin',
        hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:00']]])),
        holidays: ['--12-24', '--12-25', '--12-26'],
      },
    });
    expect(cal.status, cal.text).toBe(201);
    const queue = (await s.api('POST', '/queues', { body: { name: uniq('Berlin queue') } })).body.id;
    const policy = await s.api('POST', '/sla-policies', {
      body: {
        name: uniq('Berlin hours'),
        position: 5,
        match: { queue_ids: [queue] },
        calendar_id: cal.body.id,
        first_response_minutes: 240,
        resolution_minutes: 600,
        warn_before_minutes: 30,
      },
    });
    expect(policy.status, policy.text).toBe(201);
    clock.set(Date.parse('2026-12-23T15:00:00.000Z'));
    const r = await s.api('POST', '/tickets', {
      token: agent.token,
      body: { queue_id: queue, subject: 'Before the holidays' },
    });
    expect(r.status, r.text).toBe(201);
    const t = r.body.ticket;
    expect(t.sla.first_response.due_at).toBe('2026-12-28T11:00:00.000Z');
    // 600 business minutes: 60 on the 23rd, 480 on Monday the 28th, 60 on the 29th (09:00–10:00 Berlin)
    expect(t.sla.resolution.due_at).toBe('2026-12-29T09:00:00.000Z');
    // The warning is 30 minutes (of the wall clock) before the due time.
    const timers = (await ticketTimers(s.db, t.id)).filter((x) => x.key === 'first_response');
    expect(timers.map((x) => x.due_at)).toEqual(['2026-12-28T10:30:00.000Z']);
    // Stalled over the holidays counts nothing; open again at 09:00 Berlin on the 28th, 3 hours to go.
    clock.set(Date.parse('2026-12-23T15:30:00.000Z'));
    await patch(t.id, { status: 'stalled' });
    clock.set(Date.parse('2026-12-28T08:00:00.000Z'));
    const open = await patch(t.id, { status: 'open' });
    // 30 minutes spent on the 23rd: 570 to go from 09:00 Berlin on the 28th (480 that day, 90 on the 29th)
    expect(open.sla.resolution.due_at).toBe('2026-12-29T09:30:00.000Z');
  });
});
