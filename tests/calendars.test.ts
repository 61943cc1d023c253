import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/port.js';
import { calendarSpec, defaultCalendarSpec } from '../src/domain/time/calendars.js';
import { expectError } from './helpers/expect.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D2 calendars over real HTTP (decision 068): admin CRUD with errors naming the field, the
// one default, agents reading, the explain answer, and the readers the clocks use.

let s: TestServer;
let agent: { id: number; token: string };
let requester: { id: number; token: string };

const WEEK = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
const nineToFive = {
  mon: [['09:00', '17:00']],
  tue: [['09:00', '17:00']],
  wed: [['09:00', '17:00']],
  thu: [['09:00', '17:00']],
  fri: [['09:00', '17:00']],
};

async function create(body: Record<string, unknown>) {
  const res = await s.api('POST', '/calendars', { body });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  requester = await s.user('requester');
});
afterAll(async () => {
  await s?.close();
});

describe('calendars: create, read, change, delete', () => {
  it('POST → 201 with every weekday, holidays sorted once, the zone as the database spells it', async () => {
    const cal = await create({
      name: 'Berlin office',
      time_zone: 'europe/berlin',
      hours: {
        mon: [
          ['09:00', '12:30'],
          ['13:30', '17:00'],
        ],
        fri: [['09:00', '15:00']],
      },
      holidays: ['--12-25', '2026-12-24', '--12-25'],
    });
    expect(Object.keys(cal).sort()).toEqual([
      'created_at',
      'default',
      'holidays',
      'hours',
      'id',
      'name',
      'time_zone',
      'updated_at',
    ]);
    expect(cal).toMatchObject({
      name: 'Berlin office',
      time_zone: 'Europe/Berlin',
      hours: {
        ...WEEK,
        mon: [
          ['09:00', '12:30'],
          ['13:30', '17:00'],
        ],
        fri: [['09:00', '15:00']],
      },
      holidays: ['--12-25', '2026-12-24'],
      default: false,
    });
    expect((await s.api('GET', `/calendars/${cal.id}`)).body).toEqual(cal);
  });

  it('agents read calendars; they may not write them; requesters see nothing', async () => {
    const cal = await create({ name: 'Read me', time_zone: 'UTC', hours: nineToFive });
    const list = await s.api('GET', '/calendars', { token: agent.token });
    expect(list.status).toBe(200);
    expect(list.body.calendars.map((c: any) => c.name)).toContain('Read me');
    expect((await s.api('GET', `/calendars/${cal.id}`, { token: agent.token })).status).toBe(200);
    expectError(
      await s.api('POST', '/calendars', {
        token: agent.token,
        body: { name: 'x', time_zone: 'UTC', hours: nineToFive },
      }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/calendars/${cal.id}`, { token: agent.token, body: { name: 'y' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/calendars/${cal.id}`, { token: agent.token }), 403, 'forbidden');
    expectError(await s.api('GET', '/calendars', { token: requester.token }), 403, 'forbidden');
    expectError(
      await s.api('GET', `/calendars/${cal.id}/explain?minutes=1`, { token: requester.token }),
      403,
      'forbidden',
    );
  });

  it('a form sends each day as text: "09:00-12:30, 13:30-17:00", holidays one per line', async () => {
    const res = await s.api('POST', '/calendars', {
      form: {
        name: 'Form made',
        time_zone: 'America/New_York',
        'hours.mon': '09:00-12:30, 13:30-17:00',
        'hours.sat': '',
        holidays: '--07-04\n2026-11-26',
        default: 'false',
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.hours).toEqual({
      ...WEEK,
      mon: [
        ['09:00', '12:30'],
        ['13:30', '17:00'],
      ],
    });
    expect(res.body.holidays).toEqual(['--07-04', '2026-11-26']);
  });

  it('PATCH changes what it is given; the hours given replace the week', async () => {
    const cal = await create({ name: 'Patch me', time_zone: 'UTC', hours: nineToFive, holidays: ['--01-01'] });
    const res = await s.api('PATCH', `/calendars/${cal.id}`, {
      body: { name: 'Patched', hours: { sat: [['10:00', '24:00']] } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Patched',
      time_zone: 'UTC',
      hours: { ...WEEK, sat: [['10:00', '24:00']] },
      holidays: ['--01-01'],
    });
    expectError(await s.api('PATCH', '/calendars/99999', { body: { name: 'x' } }), 404, 'not_found');
  });

  it('DELETE → 204, then 404', async () => {
    const cal = await create({ name: 'Delete me', time_zone: 'UTC', hours: nineToFive });
    expect((await s.api('DELETE', `/calendars/${cal.id}`)).status).toBe(204);
    expectError(await s.api('GET', `/calendars/${cal.id}`), 404, 'not_found');
  });
});

describe('calendars: refusals name the field, and change nothing', () => {
  const bad = async (body: Record<string, unknown>, path: string, message: RegExp) => {
    const res = await s.api('POST', '/calendars', {
      body: { name: 'Bad one', time_zone: 'UTC', hours: nineToFive, ...body },
    });
    expectError(res, 422, 'validation_failed', [path]);
    expect(res.body.error.message).toMatch(message);
  };

  it('time_zone must be an IANA zone', async () => {
    await bad(
      { time_zone: 'Mars/Olympus_Mons' },
      'time_zone',
      /Time zone "Mars\/Olympus_Mons" is not an IANA time zone name/,
    );
    await bad({ time_zone: '+02:00' }, 'time_zone', /not an IANA time zone name/);
  });

  it('each stretch is two times HH:MM, ending after it starts, in order', async () => {
    await bad(
      { hours: { mon: [['9:00', '12:00']] } },
      'hours.mon.0',
      /Monday's hours 1 \("9:00"–"12:00"\) must be two times HH:MM/,
    );
    await bad(
      { hours: { tue: [['12:00', '09:00']] } },
      'hours.tue.0',
      /Tuesday's hours 1 \("12:00"–"09:00"\) must end after they start/,
    );
    await bad(
      {
        hours: {
          mon: [
            ['13:30', '17:00'],
            ['09:00', '12:30'],
          ],
        },
      },
      'hours.mon.1',
      /Monday's hours 2 \("09:00"–"12:30"\) must start after the ones before them end/,
    );
    await bad({ hours: { wed: [['09:00', '24:30']] } }, 'hours.wed.0', /must be two times HH:MM/);
    await bad({ hours: {} }, 'hours', /^Hours must open on at least one day of the week$/);
    await bad({ hours: { monday: [['09:00', '17:00']] } }, 'hours.monday', /Unknown field/);
  });

  it('holidays are real dates YYYY-MM-DD or --MM-DD', async () => {
    await bad(
      { holidays: ['--12-25', '2026-02-30'] },
      'holidays.1',
      /Holiday 2 \("2026-02-30"\) must be a date YYYY-MM-DD, or --MM-DD/,
    );
    await bad({ holidays: ['--13-01'] }, 'holidays.0', /Holiday 1/);
    await bad({ holidays: ['26-12-24'] }, 'holidays.0', /Holiday 1/);
    // 29 February is a yearly holiday that falls in leap years.
    expect(
      (await create({ name: 'Leap', time_zone: 'UTC', hours: nineToFive, holidays: ['--02-29'] })).holidays,
    ).toEqual(['--02-29']);
  });

  it('a name is taken once, whatever its case (409 naming the name)', async () => {
    await create({ name: 'Unique cal', time_zone: 'UTC', hours: nineToFive });
    const res = await s.api('POST', '/calendars', {
      body: { name: 'UNIQUE CAL', time_zone: 'UTC', hours: nineToFive },
    });
    expectError(res, 409, 'conflict', ['name']);
    expect(res.body.error.message).toBe('A calendar with the name "UNIQUE CAL" already exists');
  });

  it('a refused change changes nothing', async () => {
    const cal = await create({ name: 'Keep me', time_zone: 'UTC', hours: nineToFive });
    expectError(
      await s.api('PATCH', `/calendars/${cal.id}`, { body: { name: 'Changed', time_zone: 'Nowhere/Land' } }),
      422,
      'validation_failed',
      ['time_zone'],
    );
    expect((await s.api('GET', `/calendars/${cal.id}`)).body).toEqual(cal);
  });
});

describe('the default calendar', () => {
  it('at most one: making one the default unsets the other; the readers follow', async () => {
    const a = await create({ name: 'Default A', time_zone: 'Europe/Berlin', hours: nineToFive, default: true });
    expect(a.default).toBe(true);
    const b = await create({ name: 'Default B', time_zone: 'Asia/Kolkata', hours: nineToFive, default: true });
    expect((await s.api('GET', `/calendars/${a.id}`)).body.default).toBe(false);
    expect(b.default).toBe(true);
    expect((await defaultCalendarSpec(s.db))?.time_zone).toBe('Asia/Kolkata');
    await s.api('PATCH', `/calendars/${a.id}`, { body: { default: true } });
    const defaults = (await s.api('GET', '/calendars')).body.calendars.filter((c: any) => c.default);
    expect(defaults.map((c: any) => c.id)).toEqual([a.id]);
    // Inside a unit of work (where the clocks read it) the spec is kept per configuration version: a change is seen at once.
    expect((await transaction(s.db, (tx) => defaultCalendarSpec(tx)))?.time_zone).toBe('Europe/Berlin');
    await s.api('PATCH', `/calendars/${a.id}`, { body: { time_zone: 'America/New_York' } });
    expect((await transaction(s.db, (tx) => defaultCalendarSpec(tx)))?.time_zone).toBe('America/New_York');
  });

  it('calendarSpec: the business-time view of one calendar; null id or a missing one is around the clock', async () => {
    const cal = await create({
      name: 'Spec',
      time_zone: 'Australia/Lord_Howe',
      hours: { sun: [['00:00', '24:00']] },
      holidays: ['--01-26'],
    });
    const read = () => transaction(s.db, (tx) => calendarSpec(tx, cal.id));
    expect(await read()).toEqual({
      time_zone: 'Australia/Lord_Howe',
      hours: { ...WEEK, sun: [['00:00', '24:00']] },
      holidays: ['--01-26'],
    });
    await s.api('PATCH', `/calendars/${cal.id}`, { body: { holidays: [] } });
    expect((await read())?.holidays).toEqual([]);
    expect(await calendarSpec(s.db, null)).toBeNull();
    expect(await calendarSpec(s.db, 987654)).toBeNull();
  });
});

describe('GET /calendars/:id/explain', () => {
  let berlin: number;
  beforeAll(async () => {
    berlin = (
      await create({
        name: 'Explain Berlin',
        time_zone: 'Europe/Berlin',
        hours: nineToFive,
        holidays: ['2026-12-24', '--12-25', '--12-26'],
      })
    ).id;
  });

  it('issue 29: 240 minutes from 16:00 Berlin on 2026-12-23 are due 11:00Z on the 28th, with the stretches counted', async () => {
    const res = await s.api('GET', `/calendars/${berlin}/explain?start=2026-12-23T15:00:00Z&minutes=240`, {
      token: agent.token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      time_zone: 'Europe/Berlin',
      start: '2026-12-23T15:00:00.000Z',
      minutes: 240,
      due_at: '2026-12-28T11:00:00.000Z',
      segments: [
        { start: '2026-12-23T15:00:00.000Z', end: '2026-12-23T16:00:00.000Z' },
        { start: '2026-12-28T08:00:00.000Z', end: '2026-12-28T11:00:00.000Z' },
      ],
    });
  });

  it("a start without an offset is a wall time in the calendar's zone; an offset is honoured", async () => {
    const local = await s.api('GET', `/calendars/${berlin}/explain?start=2026-12-23T16:00&minutes=240`);
    expect(local.body.due_at).toBe('2026-12-28T11:00:00.000Z');
    const offset = await s.api('GET', `/calendars/${berlin}/explain?start=2026-12-23T10:00:00-05:00&minutes=240`);
    expect(offset.body.due_at).toBe('2026-12-28T11:00:00.000Z');
  });

  it('refuses what it cannot read, naming the parameter; 404 for no such calendar', async () => {
    expectError(
      await s.api('GET', `/calendars/${berlin}/explain?start=2026-12-23T15:00:00Z`),
      422,
      'validation_failed',
      ['minutes'],
    );
    expectError(await s.api('GET', `/calendars/${berlin}/explain?start=tomorrow&minutes=5`), 422, 'validation_failed', [
      'start',
    ]);
    expectError(await s.api('GET', `/calendars/${berlin}/explain?minutes=-1`), 422, 'validation_failed', ['minutes']);
    expectError(await s.api('GET', '/calendars/99999/explain?minutes=5'), 404, 'not_found');
  });
});
