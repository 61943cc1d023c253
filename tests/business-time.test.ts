import { describe, expect, it } from 'vitest';
import {
  addBusinessMs,
  businessMsBetween,
  businessTimeline,
  type CalendarSpec,
} from '../src/domain/time/businessTime.js';

// Business-time arithmetic against instants computed by hand (SPEC D2, decision 068). Each
// expected instant is written in UTC, with the local reading beside it.

const MIN = 60_000;
const HOUR = 60 * MIN;
const ms = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();

const nineToFive = (
  time_zone: string,
  holidays: string[] = [],
  day: [string, string][] = [['09:00', '17:00']],
): CalendarSpec => ({
  time_zone,
  hours: { mon: day, tue: day, wed: day, thu: day, fri: day },
  holidays,
});
const allDay: [string, string][] = [['00:00', '24:00']];
const everyDay = (time_zone: string): CalendarSpec => ({
  time_zone,
  hours: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
  holidays: [],
});

function due(cal: CalendarSpec | null, start: string, minutes: number) {
  const r = addBusinessMs(cal, ms(start), minutes * MIN);
  return {
    due: iso(r.dueMs),
    segments: r.segments.map((s) => [iso(s.start), iso(s.end)]),
  };
}

describe('addBusinessMs: the two instants of issue 29', () => {
  it('240 minutes from 16:00 Berlin on Wed 2026-12-23, 24–26 December off: Mon 28th 12:00 CET = 11:00Z', () => {
    const cal = nineToFive('Europe/Berlin', ['2026-12-24', '--12-25', '--12-26']);
    expect(due(cal, '2026-12-23T15:00:00Z', 240)).toEqual({
      due: '2026-12-28T11:00:00.000Z',
      segments: [
        ['2026-12-23T15:00:00.000Z', '2026-12-23T16:00:00.000Z'], // 16:00–17:00 CET
        ['2026-12-28T08:00:00.000Z', '2026-12-28T11:00:00.000Z'], // Mon 09:00–12:00 CET
      ],
    });
  });

  it('120 minutes from Fri 16:00 New York on 2026-03-06 (EST): Mon 10:00 EDT = 14:00Z, after the clocks change', () => {
    const cal = nineToFive('America/New_York');
    expect(due(cal, '2026-03-06T21:00:00Z', 120)).toEqual({
      due: '2026-03-09T14:00:00.000Z',
      segments: [
        ['2026-03-06T21:00:00.000Z', '2026-03-06T22:00:00.000Z'], // Fri 16:00–17:00 EST (−5)
        ['2026-03-09T13:00:00.000Z', '2026-03-09T14:00:00.000Z'], // Mon 09:00–10:00 EDT (−4)
      ],
    });
  });
});

describe('addBusinessMs', () => {
  const lunch = nineToFive(
    'Europe/Berlin',
    [],
    [
      ['09:00', '12:30'],
      ['13:30', '17:00'],
    ],
  );

  it('skips a lunch break: 120 minutes from Mon 11:30 CET end at 14:30 CET', () => {
    expect(due(lunch, '2026-01-05T10:30:00Z', 120)).toEqual({
      due: '2026-01-05T13:30:00.000Z',
      segments: [
        ['2026-01-05T10:30:00.000Z', '2026-01-05T11:30:00.000Z'], // 11:30–12:30
        ['2026-01-05T12:30:00.000Z', '2026-01-05T13:30:00.000Z'], // 13:30–14:30
      ],
    });
  });

  it('a start before the opening counts from the opening; one during lunch from 13:30', () => {
    expect(due(lunch, '2026-01-05T05:00:00Z', 30).segments).toEqual([
      ['2026-01-05T08:00:00.000Z', '2026-01-05T08:30:00.000Z'],
    ]);
    expect(due(lunch, '2026-01-05T11:45:00Z', 30).due).toBe('2026-01-05T13:00:00.000Z');
  });

  it('a start after closing, or on a weekend, counts from the next opening', () => {
    // Fri 2026-01-09 18:00 CET → Mon 2026-01-12 09:00 CET (08:00Z) + 60 minutes.
    expect(due(lunch, '2026-01-09T17:00:00Z', 60).due).toBe('2026-01-12T09:00:00.000Z');
    // Sat 2026-01-10 10:00 CET → the same.
    expect(due(lunch, '2026-01-10T09:00:00Z', 60).due).toBe('2026-01-12T09:00:00.000Z');
  });

  it('a target that ends exactly at closing is due at closing, not at the next opening', () => {
    expect(due(lunch, '2026-01-05T15:00:00Z', 60).due).toBe('2026-01-05T16:00:00.000Z');
  });

  it('skips yearly (--MM-DD) and one-off (YYYY-MM-DD) holidays', () => {
    // Thu 2026-12-31 16:30 CET + 90 minutes: 30 minutes that day; Fri 1 January is off every year.
    const yearly = nineToFive('Europe/Berlin', ['--01-01']);
    expect(due(yearly, '2026-12-31T15:30:00Z', 90).due).toBe('2027-01-04T09:00:00.000Z'); // Mon 10:00 CET
    const both = nineToFive('Europe/Berlin', ['--01-01', '2027-01-04']);
    expect(due(both, '2026-12-31T15:30:00Z', 90).due).toBe('2027-01-05T09:00:00.000Z'); // Tue 10:00 CET
    // A one-off holiday is that year only: 2026-01-05 being off does not close 2027-01-05.
    const oneOff = nineToFive('Europe/Berlin', ['2026-01-05']);
    expect(due(oneOff, '2027-01-05T08:00:00Z', 60).due).toBe('2027-01-05T09:00:00.000Z');
    expect(due(oneOff, '2026-01-05T08:00:00Z', 60).due).toBe('2026-01-06T09:00:00.000Z');
  });

  it('Berlin spring forward (Sun 2026-03-29): Monday opens at 09:00 CEST = 07:00Z', () => {
    const cal = nineToFive('Europe/Berlin');
    // Fri 16:00 CET (15:00Z) + 120 minutes: 60 on Friday, 09:00–10:00 CEST on Monday.
    expect(due(cal, '2026-03-27T15:00:00Z', 120).due).toBe('2026-03-30T08:00:00.000Z');
  });

  it('Berlin around the clock in wall time: the 23-hour Sunday counts 23 hours, in one stretch', () => {
    // Sat 12:00 CET (11:00Z) + 48 h: Sat 12 h, Sun 23 h, Mon 13 h → Mon 13:00 CEST = 11:00Z.
    expect(due(everyDay('Europe/Berlin'), '2026-03-28T11:00:00Z', 48 * 60)).toEqual({
      due: '2026-03-30T11:00:00.000Z',
      segments: [['2026-03-28T11:00:00.000Z', '2026-03-30T11:00:00.000Z']],
    });
  });

  it('New York fall back (Sun 2026-11-01): Monday opens at 09:00 EST = 14:00Z', () => {
    const cal = nineToFive('America/New_York');
    // Fri 2026-10-30 16:00 EDT (20:00Z) + 90 minutes: 60 on Friday, 09:00–09:30 EST on Monday.
    expect(due(cal, '2026-10-30T20:00:00Z', 90).due).toBe('2026-11-02T14:30:00.000Z');
  });

  it('Asia/Kolkata (+05:30): Fri 17:00 IST + 120 minutes is Mon 11:00 IST = 05:30Z', () => {
    const cal = nineToFive('Asia/Kolkata', [], [['10:00', '18:00']]);
    expect(due(cal, '2026-06-05T11:30:00Z', 120)).toEqual({
      due: '2026-06-08T05:30:00.000Z',
      segments: [
        ['2026-06-05T11:30:00.000Z', '2026-06-05T12:30:00.000Z'],
        ['2026-06-08T04:30:00.000Z', '2026-06-08T05:30:00.000Z'],
      ],
    });
  });

  it('Australia/Lord_Howe half-hour DST (starts Sun 2026-10-04): Monday 09:00 is +11:00', () => {
    const cal = nineToFive('Australia/Lord_Howe');
    // Fri 2026-10-02 16:00 +10:30 (05:30Z) + 120: 60 on Friday, Mon 09:00–10:00 +11:00.
    expect(due(cal, '2026-10-02T05:30:00Z', 120).due).toBe('2026-10-04T23:00:00.000Z');
  });

  it('zero minutes is due at the start itself, with no stretch counted (even outside hours)', () => {
    expect(due(lunch, '2026-01-10T09:00:00Z', 0)).toEqual({ due: '2026-01-10T09:00:00.000Z', segments: [] });
  });

  it('no calendar: around the clock', () => {
    expect(due(null, '2026-03-06T21:00:00Z', 120)).toEqual({
      due: '2026-03-06T23:00:00.000Z',
      segments: [['2026-03-06T21:00:00.000Z', '2026-03-06T23:00:00.000Z']],
    });
  });

  it('a calendar that never opens is an error, not an endless loop', () => {
    const closed: CalendarSpec = { time_zone: 'UTC', hours: {}, holidays: [] };
    expect(() => addBusinessMs(closed, ms('2026-01-01T00:00:00Z'), MIN)).toThrow(/no business hours/);
  });
});

describe('businessMsBetween', () => {
  it('counts only open hours, across a weekend and the issue-29 holidays', () => {
    const cal = nineToFive('Europe/Berlin', ['2026-12-24', '--12-25', '--12-26']);
    expect(businessMsBetween(cal, ms('2026-12-23T15:00:00Z'), ms('2026-12-28T11:00:00Z'))).toBe(4 * HOUR);
    expect(businessMsBetween(cal, ms('2026-12-23T16:00:00Z'), ms('2026-12-28T08:00:00Z'))).toBe(0);
  });

  it('is 0 when the end is not after the start; the plain difference with no calendar', () => {
    const cal = nineToFive('Europe/Berlin');
    expect(businessMsBetween(cal, ms('2026-01-05T12:00:00Z'), ms('2026-01-05T10:00:00Z'))).toBe(0);
    expect(businessMsBetween(null, ms('2026-01-05T10:00:00Z'), ms('2026-01-05T12:30:00Z'))).toBe(2.5 * HOUR);
  });

  it('a day of 23 or 25 hours when the clocks change (Berlin) and 23.5 (Lord Howe)', () => {
    const spring = businessMsBetween(everyDay('Europe/Berlin'), ms('2026-03-28T23:00:00Z'), ms('2026-03-29T22:00:00Z'));
    expect(spring).toBe(23 * HOUR);
    const fall = businessMsBetween(everyDay('Europe/Berlin'), ms('2026-10-24T22:00:00Z'), ms('2026-10-25T23:00:00Z'));
    expect(fall).toBe(25 * HOUR);
    const sundays: CalendarSpec = { time_zone: 'Australia/Lord_Howe', hours: { sun: allDay }, holidays: [] };
    expect(businessMsBetween(sundays, ms('2026-10-01T00:00:00Z'), ms('2026-10-07T00:00:00Z'))).toBe(23.5 * HOUR);
  });

  it('opening hours the clocks skip or repeat: 02:00–04:00 is 1 h in spring and 3 h in autumn', () => {
    const sunNight: CalendarSpec = {
      time_zone: 'America/New_York',
      hours: { sun: [['02:00', '04:00']] },
      holidays: [],
    };
    // 2026-03-08: 02:00 does not exist (it is 03:00 EDT, 07:00Z); 04:00 EDT = 08:00Z.
    expect(businessMsBetween(sunNight, ms('2026-03-07T00:00:00Z'), ms('2026-03-09T00:00:00Z'))).toBe(1 * HOUR);
    // 2026-11-01: 02:00 EST = 07:00Z and 04:00 EST = 09:00Z: 2 h (the repeated hour is 01:00–02:00).
    expect(businessMsBetween(sunNight, ms('2026-10-31T00:00:00Z'), ms('2026-11-02T00:00:00Z'))).toBe(2 * HOUR);
    // A stretch starting in the repeated hour starts at its first occurrence (01:30 EDT = 05:30Z).
    const repeated: CalendarSpec = { ...sunNight, hours: { sun: [['01:30', '03:00']] } };
    const r = addBusinessMs(repeated, ms('2026-11-01T00:00:00Z'), 30 * MIN);
    expect(iso(r.dueMs)).toBe('2026-11-01T06:00:00.000Z');
    expect(businessMsBetween(repeated, ms('2026-10-31T00:00:00Z'), ms('2026-11-02T00:00:00Z'))).toBe(2.5 * HOUR);
  });

  it('agrees with addBusinessMs: the business time up to a due time is the target', () => {
    const cal = nineToFive(
      'America/New_York',
      ['--07-04'],
      [
        ['08:30', '12:00'],
        ['13:00', '17:30'],
      ],
    );
    let start = ms('2026-02-27T03:17:00Z');
    for (let i = 0; i < 60; i++) {
      const target = ((i * 7919) % 5000) * MIN + 13_000;
      const { dueMs, segments } = addBusinessMs(cal, start, target);
      expect(businessMsBetween(cal, start, dueMs)).toBe(target);
      expect(segments.reduce((n, s) => n + s.end - s.start, 0)).toBe(target);
      start += 3 * 86_400_000 + 4_321_000;
    }
  });

  it('the same spec asked again answers the same (its days are worked out once and reused)', () => {
    const cal = nineToFive('Europe/Berlin', ['2026-12-24', '--12-25', '--12-26']);
    const first = addBusinessMs(cal, ms('2026-12-23T15:00:00Z'), 240 * MIN);
    for (let i = 0; i < 3; i++) {
      expect(addBusinessMs(cal, ms('2026-12-23T15:00:00Z'), 240 * MIN)).toEqual(first);
      expect(businessMsBetween(cal, ms('2026-12-23T15:00:00Z'), first.dueMs)).toBe(240 * MIN);
    }
    // Stretches handed out are the caller's: changing them changes nothing for the next call.
    first.segments[0].end = 0;
    expect(addBusinessMs(cal, ms('2026-12-23T15:00:00Z'), 240 * MIN).segments[0].end).toBe(ms('2026-12-23T16:00:00Z'));
  });
});

describe('businessTimeline (reports: many pairs on one calendar)', () => {
  it('equals businessMsBetween pair by pair: holidays, clock changes, skipped and repeated hours, years apart', () => {
    const cals: (CalendarSpec | null)[] = [
      null,
      nineToFive('Europe/Berlin', ['2026-12-24', '--12-25', '--12-26']),
      everyDay('Europe/Berlin'),
      { time_zone: 'Australia/Lord_Howe', hours: { sun: allDay }, holidays: [] },
      { time_zone: 'America/New_York', hours: { sun: [['01:30', '03:00']], wed: [['22:00', '24:00']] }, holidays: [] },
      nineToFive(
        'Asia/Tokyo',
        [],
        [
          ['09:00', '12:00'],
          ['13:00', '18:00'],
        ],
      ),
    ];
    // A fixed pseudo-random walk (no Math.random: the same pairs every run).
    let seed = 7;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const base = ms('2026-01-01T00:00:00Z');
    for (const cal of cals) {
      const between = businessTimeline(cal);
      for (let i = 0; i < 300; i++) {
        const a = base + Math.floor(next() * 730 * 24) * 15 * MIN * 4 + Math.floor(next() * 60) * MIN;
        const span = i % 10 === 0 ? next() * 600 * 24 * HOUR : next() * 9 * 24 * HOUR;
        const b = a + Math.floor(span / MIN) * MIN - (i % 7 === 0 ? 30 * 24 * HOUR : 0);
        expect(between(a, b), `${cal?.time_zone ?? 'none'} ${iso(a)} → ${iso(b)}`).toBe(businessMsBetween(cal, a, b));
      }
    }
  });
});
