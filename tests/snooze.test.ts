import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { outboxOf } from './helpers/notify.js';
import { releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { until } from './helpers/wait.js';
import { snoozePresets } from '../src/views/tickets/snoozePresets.js';

// SPEC D2 snooze (decision 071), on the test clock (HXDESK_TEST_CLOCK=1): PATCH snoozed_until
// makes a ticket stalled and snoozed; at that time it wakes (open, an Unsnooze entry by nobody,
// the default on_unsnooze scrip tells the owner); a customer's message wakes it at once, or —
// with unsnooze_on_reply false — leaves it asleep with replied_while_snoozed (no other scrip
// reopens it); staff wake it by hand; another status ends the snooze. Lists filter snoozed=.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };
const T0 = Date.parse('2026-12-21T08:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
let clock = T0;

const setClock = async (iso: string) => {
  const r = await s.api('POST', '/test/clock', { body: { now: iso } });
  expect(r.status, r.text).toBe(200);
  expect(r.body).toEqual({ now: iso });
  clock = Date.parse(iso);
};
/** The clock `minutes` past where it is. */
const later = (minutes: number) => new Date(clock + minutes * 60_000).toISOString();

beforeAll(async () => {
  s = await startServer({ HXDESK_TEST_CLOCK: '1' });
  agent = await s.user('agent');
  customer = await s.user('requester');
  await setClock(at(0));
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

const newTicket = async () => {
  const r = await s.api('POST', '/tickets', {
    token: customer.token,
    body: { queue_id: 1, subject: 'VPN drops', description: 'Every hour' },
  });
  expect(r.status, r.text).toBe(201);
  const id = r.body.ticket.id as number;
  expect((await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { owner_id: agent.id } })).status).toBe(
    200,
  );
  return id;
};
const snooze = async (id: number, body: Record<string, unknown>) => {
  const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body });
  expect(r.status, r.text).toBe(200);
  return r.body.ticket;
};
const entries = async (id: number, ...types: string[]) =>
  (await transactionsOf(s, id))
    .filter((t) => types.includes(t.type))
    .map((t) => `${t.type} ${t.field}: ${t.old_value} → ${t.new_value} by ${t.creator_id}`);
const customerWrites = async (id: number) => {
  const r = await s.api('POST', `/tickets/${id}/comment`, { token: customer.token, body: { body: 'Still broken' } });
  expect(r.status, r.text).toBe(201);
};
const listed = async (query: string, token = agent.token) => {
  const r = await s.api('GET', `/tickets?${query}&limit=500`, { token });
  expect(r.status, r.text).toBe(200);
  return (r.body.tickets as { id: number }[]).map((t) => t.id);
};

describe('snooze', () => {
  it('PATCH snoozed_until: stalled and snoozed, out of My open tickets and into Snoozed', async () => {
    const id = await newTicket();
    const until = later(60);
    const t = await snooze(id, { snoozed_until: until });
    expect(t).toMatchObject({ status: 'stalled', snoozed_until: until, replied_while_snoozed: false });
    expect(await entries(id, 'Status', 'Snooze')).toEqual([
      'Status status: new → open by null',
      `Status status: open → stalled by ${agent.id}`,
      `Snooze snoozed_until: null → ${until} by ${agent.id}`,
    ]);
    expect(await listed('snoozed=true')).toContain(id);
    expect(await listed('snoozed=false')).not.toContain(id);
    // The built-in lists (SPEC D2): My open tickets leaves it out, Snoozed has it.
    expect(await listed('owner_id=me&status_category=initial,active,waiting&snoozed=false')).not.toContain(id);
    const page = await s.api('GET', '/tickets?snoozed=true', { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/aria-current="page">Snoozed</);
    expect(page.text).toContain('Snoozed until');
    const mine = await s.api('GET', '/', { token: agent.token, headers: { accept: 'text/html' } });
    expect(mine.headers.get('location')).toBe(
      '/tickets?owner_id=me&status_category=initial,active,waiting&snoozed=false',
    );
  });

  it('wakes at its time: open, an Unsnooze entry by nobody, and the owner is told', async () => {
    const id = await newTicket();
    const until = later(30);
    await snooze(id, { snoozed_until: until });
    await setClock(later(29));
    expect((await s.workers.timers.runDue()) >= 0).toBe(true);
    expect((await ticketOf(s, id)).status).toBe('stalled');
    await setClock(until);
    // Within 2 s of the call, by the worker on its own (no runDue).
    const woken = await until_(id);
    expect(woken).toMatchObject({ status: 'open', snoozed_until: null, replied_while_snoozed: false });
    expect(await entries(id, 'Unsnooze', 'Status')).toEqual([
      'Status status: new → open by null',
      `Status status: open → stalled by ${agent.id}`,
      `Unsnooze snoozed_until: ${until} → due by null`,
      'Status status: stalled → open by null',
    ]);
    const unsnooze = (await transactionsOf(s, id)).find((t) => t.type === 'Unsnooze');
    expect(unsnooze.created_at).toBe(until);
    const notices = (await outboxOf(s, id)).filter((o) => /Woke up: VPN drops/.test(o.subject));
    expect(notices.map((o) => o.recipient)).toEqual([agent.email]);
    expect(notices[0].body).toContain('its snooze ended');
    // Fired once: later passes find it fired.
    await setClock(later(120));
    await s.workers.timers.runDue();
    expect(await entries(id, 'Unsnooze')).toHaveLength(1);
  });

  it("a customer's message wakes it at once (unsnooze_on_reply, the default)", async () => {
    const id = await newTicket();
    await snooze(id, { snoozed_until: later(60) });
    await customerWrites(id);
    expect(await ticketOf(s, id)).toMatchObject({ status: 'open', snoozed_until: null });
    const u = await entries(id, 'Unsnooze');
    expect(u).toHaveLength(1);
    expect(u[0]).toMatch(/→ reply by null$/);
    // Its timer went with the snooze: the time passing does not wake it again.
    await setClock(later(61));
    await s.workers.timers.runDue();
    expect(await entries(id, 'Unsnooze')).toHaveLength(1);
  });

  it('unsnooze_on_reply false: it sleeps on, replied_while_snoozed, and no scrip reopens it', async () => {
    const id = await newTicket();
    const until = later(60);
    await snooze(id, { snoozed_until: until, unsnooze_on_reply: false });
    await customerWrites(id);
    expect(await ticketOf(s, id)).toMatchObject({
      status: 'stalled',
      snoozed_until: until,
      replied_while_snoozed: true,
    });
    expect(await entries(id, 'Unsnooze')).toEqual([]);
    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('Customer replied');
    const list = await s.api('GET', '/tickets?snoozed=true', { token: agent.token, headers: { accept: 'text/html' } });
    expect(list.text).toContain('Customer replied');
    await setClock(until);
    const woken = await until_(id);
    expect(woken).toMatchObject({ status: 'open', replied_while_snoozed: false });
  });

  it('staff wake it by hand (snoozed_until: null); another status ends the snooze', async () => {
    const a = await newTicket();
    await snooze(a, { snoozed_until: later(60) });
    const t = await snooze(a, { snoozed_until: null });
    expect(t).toMatchObject({ status: 'open', snoozed_until: null });
    expect((await entries(a, 'Unsnooze'))[0]).toMatch(new RegExp(`→ manual by ${agent.id}$`));

    const b = await newTicket();
    await snooze(b, { snoozed_until: later(60) });
    const resolved = await snooze(b, { status: 'resolved' });
    expect(resolved).toMatchObject({ status: 'resolved', snoozed_until: null });
    await setClock(later(61));
    await s.workers.timers.runDue();
    expect(await entries(b, 'Unsnooze')).toEqual([]);
    expect((await ticketOf(s, b)).status).toBe('resolved');
  });

  it('a form: a local date-time in the writer’s zone, and the presets on the page', async () => {
    const id = await newTicket();
    expect(
      (await s.api('PATCH', '/settings', { token: agent.token, body: { timezone: 'Europe/Berlin' } })).status,
    ).toBe(200);
    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    // The presets of the clock's now in Berlin time (tomorrow morning: 09:00 there, 08:00Z in winter).
    const presets = snoozePresets(clock, 'Europe/Berlin');
    expect(presets.find((p) => p.key === 'tomorrow_morning')?.at).toMatch(/T08:00:00\.000Z$/);
    for (const p of presets) {
      expect(page.text).toContain(`>${p.label}</button>`);
      expect(page.text).toContain(`name="snoozed_until" value="${p.at}"`);
    }
    const r = await s.api('POST', `/tickets/${id}`, {
      token: agent.token,
      form: { _method: 'PATCH', snoozed_until: ['2026-12-24T09:30', ''], unsnooze_on_reply: ['false'] },
    });
    expect(r.status, r.text).toBe(200);
    expect((await ticketOf(s, id)).snoozed_until).toBe('2026-12-24T08:30:00.000Z');
    expect((await entries(id, 'Snooze'))[0]).toContain('2026-12-24T08:30:00.000Z');
  });

  it('refuses what it cannot do, in words, changing nothing', async () => {
    const id = await newTicket();
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { snoozed_until: at(0) } }),
      422,
      'validation_failed',
      'snoozed_until',
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { snoozed_until: later(5), status: 'open' } }),
      422,
      'validation_failed',
      'status',
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { snoozed_until: 'tomorrow' } }),
      422,
      'validation_failed',
      'snoozed_until',
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { unsnooze_on_reply: false } }),
      422,
      'validation_failed',
      'unsnooze_on_reply',
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { token: customer.token, body: { snoozed_until: later(5) } }),
      403,
      'forbidden',
    );
    expectError(await s.api('GET', '/tickets?snoozed=true', { token: customer.token }), 403, 'forbidden');
    expect(await ticketOf(s, id)).toMatchObject({ status: 'open', snoozed_until: null });
  });
});

/** Waits for the ticket to wake (the timer worker fires on its own within 2 s of the clock's move). */
function until_(id: number) {
  return until(`ticket ${id} to wake`, async () => {
    const t = await ticketOf(s, id);
    return t.snoozed_until === null && t;
  });
}

describe('snooze presets, in the reader’s zone', () => {
  it('later today (on the hour, three hours on, while the day lasts), tomorrow morning, next Monday', () => {
    const at = (now: string, zone: string) => snoozePresets(Date.parse(now), zone).map((p) => `${p.key} ${p.at}`);
    // Friday 08:45 in Berlin (CET, +1).
    expect(at('2026-11-27T07:45:00Z', 'Europe/Berlin')).toEqual([
      'later_today 2026-11-27T11:00:00.000Z',
      'tomorrow_morning 2026-11-28T08:00:00.000Z',
      'next_week 2026-11-30T08:00:00.000Z',
    ]);
    // Friday 21:45 in Berlin: too late for later today.
    expect(at('2026-11-27T20:45:00Z', 'Europe/Berlin').map((x) => x.split(' ')[0])).toEqual([
      'tomorrow_morning',
      'next_week',
    ]);
    // Saturday before the clocks change in New York: Sunday and Monday mornings are 09:00 EDT (13:00Z).
    expect(at('2026-03-07T10:00:00Z', 'America/New_York')).toEqual([
      'later_today 2026-03-07T13:00:00.000Z',
      'tomorrow_morning 2026-03-08T13:00:00.000Z',
      'next_week 2026-03-09T13:00:00.000Z',
    ]);
    // A Sunday: next week is tomorrow morning, offered once; Kolkata is +05:30.
    expect(at('2026-11-29T04:00:00Z', 'Asia/Kolkata')).toEqual([
      'later_today 2026-11-29T07:30:00.000Z',
      'tomorrow_morning 2026-11-30T03:30:00.000Z',
    ]);
  });
});
