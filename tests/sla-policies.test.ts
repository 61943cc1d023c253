import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/port.js';
import { businessCalendarFor, policiesInOrder } from '../src/domain/time/slaPolicies.js';
import { expectError } from './helpers/expect.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D2 SLA policies over real HTTP (decision 068): admin CRUD with errors naming the field,
// the matching order `policiesInOrder` hands the clocks, and a calendar in use kept from deletion.

let s: TestServer;
let agent: { id: number; token: string };
let requester: { id: number; token: string };
let support: number;
let sales: number;
let calendar: number;

const KEYS = [
  'calendar_id',
  'created_at',
  'first_response_minutes',
  'id',
  'match',
  'name',
  'next_response_minutes',
  'position',
  'resolution_minutes',
  'updated_at',
  'warn_before_minutes',
];

async function create(body: Record<string, unknown>) {
  const res = await s.api('POST', '/sla-policies', { body });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  requester = await s.user('requester');
  support = (await s.api('POST', '/queues', { body: { name: 'SLA Support' } })).body.id;
  sales = (await s.api('POST', '/queues', { body: { name: 'SLA Sales' } })).body.id;
  calendar = (
    await s.api('POST', '/calendars', {
      body: { name: 'Office', time_zone: 'Europe/Berlin', hours: { mon: [['09:00', '17:00']] } },
    })
  ).body.id;
  await s.api('POST', '/custom-fields', {
    body: { key: 'plan', name: 'Plan', type: 'select', options: ['gold', 'basic'] },
  });
  await s.api('POST', '/custom-fields', { body: { key: 'seats', name: 'Seats', type: 'number' } });
});
afterAll(async () => {
  await s?.close();
});

describe('SLA policies: create, read, change, delete', () => {
  it('POST → 201 with the full shape; an empty match fits every ticket; no position: after the others', async () => {
    const a = await create({ name: 'Everyone', first_response_minutes: 240 });
    expect(Object.keys(a).sort()).toEqual(KEYS);
    expect(a).toMatchObject({
      name: 'Everyone',
      match: {},
      calendar_id: null,
      first_response_minutes: 240,
      next_response_minutes: null,
      resolution_minutes: null,
      warn_before_minutes: 0,
    });
    const b = await create({ name: 'After everyone', resolution_minutes: 2880 });
    expect(b.position).toBe(a.position + 1);
    expect((await s.api('GET', `/sla-policies/${a.id}`, { token: agent.token })).body).toEqual(a);
  });

  it('keeps a match of queues, a priority range and custom fields (as the ticket JSON shows them)', async () => {
    const p = await create({
      name: 'Gold support',
      position: -10,
      match: {
        queue_ids: [support, sales, support],
        priority_min: 50,
        priority_max: 100,
        cf: { plan: 'gold', seats: '25' },
      },
      calendar_id: calendar,
      first_response_minutes: 60,
      next_response_minutes: 120,
      resolution_minutes: 960,
      warn_before_minutes: 15,
    });
    expect(p).toMatchObject({
      position: -10,
      match: { queue_ids: [support, sales], priority_min: 50, priority_max: 100, cf: { plan: 'gold', seats: 25 } },
      calendar_id: calendar,
      warn_before_minutes: 15,
    });
  });

  it('a form sends the match as match.* fields; empty targets are no clock', async () => {
    const res = await s.api('POST', '/sla-policies', {
      form: {
        name: 'From a form',
        position: '',
        'match.queue_ids': ['', String(sales)],
        'match.priority_min': '',
        'match.priority_max': '30',
        'match.cf': '',
        calendar_id: '',
        first_response_minutes: '30',
        next_response_minutes: '',
        resolution_minutes: '',
        warn_before_minutes: '5',
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      match: { queue_ids: [sales], priority_max: 30 },
      calendar_id: null,
      first_response_minutes: 30,
      next_response_minutes: null,
      warn_before_minutes: 5,
    });
    expect(res.body.match).not.toHaveProperty('priority_min');
  });

  it('PATCH changes what it is given; a match given replaces the match', async () => {
    const p = await create({ name: 'Patch policy', match: { priority_min: 10 }, first_response_minutes: 30 });
    const res = await s.api('PATCH', `/sla-policies/${p.id}`, {
      body: { match: { queue_ids: [support] }, first_response_minutes: null, calendar_id: calendar },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Patch policy',
      match: { queue_ids: [support] },
      first_response_minutes: null,
      calendar_id: calendar,
    });
    expect(res.body.match).not.toHaveProperty('priority_min');
  });

  it('agents read; only admins write; requesters see nothing', async () => {
    const p = await create({ name: 'Roles', resolution_minutes: 60 });
    expect((await s.api('GET', '/sla-policies', { token: agent.token })).status).toBe(200);
    expectError(await s.api('POST', '/sla-policies', { token: agent.token, body: { name: 'x' } }), 403, 'forbidden');
    expectError(
      await s.api('PATCH', `/sla-policies/${p.id}`, { token: agent.token, body: { name: 'x' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/sla-policies/${p.id}`, { token: agent.token }), 403, 'forbidden');
    expectError(await s.api('GET', '/sla-policies', { token: requester.token }), 403, 'forbidden');
  });

  it('DELETE → 204, then 404', async () => {
    const p = await create({ name: 'Delete policy' });
    expect((await s.api('DELETE', `/sla-policies/${p.id}`)).status).toBe(204);
    expectError(await s.api('GET', `/sla-policies/${p.id}`), 404, 'not_found');
  });
});

describe('SLA policies: refusals name the field, and change nothing', () => {
  const bad = async (body: Record<string, unknown>, path: string, message: RegExp, status = 422) => {
    const res = await s.api('POST', '/sla-policies', { body: { name: 'Bad policy', ...body } });
    expectError(res, status, status === 422 ? 'validation_failed' : 'conflict', [path]);
    expect(res.body.error.message).toMatch(message);
  };

  it('targets are whole minutes from 1, or null', async () => {
    await bad({ first_response_minutes: 0 }, 'first_response_minutes', /^First response minutes must be/);
    await bad({ resolution_minutes: 1.5 }, 'resolution_minutes', /Resolution minutes/);
    await bad({ warn_before_minutes: -1 }, 'warn_before_minutes', /Warn before minutes must be/);
  });

  it('the match: existing queues and custom fields, valid values, a range in order, nothing unknown', async () => {
    await bad({ match: { queue_ids: [support, 99999] } }, 'match.queue_ids.1', /^Queue 99999 does not exist$/);
    await bad(
      { match: { priority_min: 60, priority_max: 40 } },
      'match.priority_max',
      /Highest priority \(40\) must not be below the lowest priority \(60\)/,
    );
    await bad({ match: { priority_max: 101 } }, 'match.priority_max', /Priority max must be/);
    await bad({ match: { cf: { colour: 'red' } } }, 'match.cf.colour', /^Custom field "colour" does not exist$/);
    await bad({ match: { cf: { plan: 'platinum' } } }, 'match.cf.plan', /Plan must be one of: gold, basic/);
    await bad({ match: { queues: [support] } }, 'match.queues', /Unknown field/);
  });

  it('the calendar must exist; the name is taken once', async () => {
    await bad({ calendar_id: 99999 }, 'calendar_id', /^Calendar 99999 does not exist$/);
    await create({ name: 'Taken policy' });
    await bad({ name: 'taken POLICY' }, 'name', /^An SLA policy named "taken POLICY" already exists$/, 409);
  });

  it('a refused change changes nothing', async () => {
    const p = await create({ name: 'Unchanged policy', first_response_minutes: 60 });
    const res = await s.api('PATCH', `/sla-policies/${p.id}`, {
      body: { first_response_minutes: 30, calendar_id: 424242 },
    });
    expectError(res, 422, 'validation_failed', ['calendar_id']);
    expect((await s.api('GET', `/sla-policies/${p.id}`)).body).toEqual(p);
  });
});

describe('policiesInOrder and calendars in use', () => {
  it('lists every policy by position, then the older first, as the list does; a change is seen at once', async () => {
    const listed = (await s.api('GET', '/sla-policies')).body.sla_policies;
    const read = () => transaction(s.db, (tx) => policiesInOrder(tx));
    const inOrder = await read();
    expect(inOrder).toEqual(listed);
    const positions = inOrder.map((p) => [p.position, p.id]);
    expect(positions).toEqual([...positions].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
    const gold = inOrder.find((p) => p.name === 'Gold support')!;
    expect(gold.match).toEqual({
      queue_ids: [support, sales],
      priority_min: 50,
      priority_max: 100,
      cf: { plan: 'gold', seats: 25 },
    });
    await s.api('PATCH', `/sla-policies/${gold.id}`, { body: { position: 1_000_000 } });
    expect((await read()).at(-1)?.id).toBe(gold.id);
  });

  it('deleting a calendar a policy counts in is 409 naming the policy; free again once the policy lets go', async () => {
    const cal = (
      await s.api('POST', '/calendars', {
        body: { name: 'In use', time_zone: 'UTC', hours: { tue: [['08:00', '16:00']] } },
      })
    ).body;
    const p = await create({ name: 'Uses a calendar', calendar_id: cal.id });
    const res = await s.api('DELETE', `/calendars/${cal.id}`);
    expectError(res, 409, 'conflict');
    expect(res.body.error.message).toBe(
      `Calendar "In use" is used by the SLA policy "Uses a calendar" (${p.id}): change that policy's calendar first`,
    );
    expect((await s.api('GET', `/calendars/${cal.id}`)).status).toBe(200);
    await s.api('PATCH', `/sla-policies/${p.id}`, { body: { calendar_id: null } });
    expect((await s.api('DELETE', `/calendars/${cal.id}`)).status).toBe(204);
  });

  it("businessCalendarFor: the policy's calendar, else the default calendar, else around the clock", async () => {
    const read = (id: number | null) => transaction(s.db, (tx) => businessCalendarFor(tx, id));
    const withCal = await create({ name: 'Counts in Office', calendar_id: calendar });
    const aroundTheClock = await create({ name: 'Counts always' });
    expect((await read(withCal.id))?.time_zone).toBe('Europe/Berlin');
    expect(await read(aroundTheClock.id)).toBeNull();
    expect(await read(null)).toBeNull();
    const fallback = (
      await s.api('POST', '/calendars', {
        body: { name: 'Fallback', time_zone: 'Asia/Kolkata', hours: { mon: [['10:00', '18:00']] }, default: true },
      })
    ).body;
    expect((await read(aroundTheClock.id))?.time_zone).toBe('Asia/Kolkata');
    expect((await read(null))?.time_zone).toBe('Asia/Kolkata');
    expect((await read(424242))?.time_zone).toBe('Asia/Kolkata'); // a policy deleted meanwhile
    expect((await read(withCal.id))?.time_zone).toBe('Europe/Berlin');
    await s.api('PATCH', `/calendars/${fallback.id}`, { body: { default: false } });
  });
});
