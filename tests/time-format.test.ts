// Times on pages (src/views/format.ts): relative words against a given "now", the exact minute in
// the reader's zone with the zone's name, across a DST change. Pure functions: no server.
import { describe, expect, it } from 'vitest';
import { exactTime, relativeTime, When, when } from '../src/views/format.js';

const at = (iso: string) => new Date(iso).getTime();

describe('relativeTime', () => {
  const now = at('2026-11-23T14:05:00Z');
  it('says just now, minutes and hours', () => {
    expect(relativeTime('2026-11-23T14:05:00Z', now, 'UTC')).toBe('just now');
    expect(relativeTime('2026-11-23T14:04:01Z', now, 'UTC')).toBe('just now');
    expect(relativeTime('2026-11-23T14:04:00Z', now, 'UTC')).toBe('1 min ago');
    expect(relativeTime('2026-11-23T14:00:00Z', now, 'UTC')).toBe('5 min ago');
    expect(relativeTime('2026-11-23T13:05:01Z', now, 'UTC')).toBe('59 min ago');
    expect(relativeTime('2026-11-23T13:05:00Z', now, 'UTC')).toBe('1 h ago');
    expect(relativeTime('2026-11-23T11:00:00Z', now, 'UTC')).toBe('3 h ago');
    expect(relativeTime('2026-11-23T00:10:00Z', now, 'UTC')).toBe('13 h ago'); // earlier the same day
  });
  it("says yesterday and days ago by calendar days in the reader's zone, then the date there", () => {
    expect(relativeTime('2026-11-22T20:00:00Z', now, 'UTC')).toBe('yesterday');
    expect(relativeTime('2026-11-21T20:00:00Z', now, 'UTC')).toBe('2 days ago');
    expect(relativeTime('2026-11-17T09:00:00Z', now, 'UTC')).toBe('6 days ago');
    expect(relativeTime('2026-11-16T09:00:00Z', now, 'UTC')).toBe('2026-11-16');
    // 23:30 in New York on the 22nd is 04:30 UTC on the 23rd: the same calendar day in UTC,
    // yesterday in New York (now is 09:05 there).
    expect(relativeTime('2026-11-23T04:30:00Z', now, 'UTC')).toBe('9 h ago');
    expect(relativeTime('2026-11-23T04:30:00Z', at('2026-11-23T19:00:00Z'), 'UTC')).toBe('14 h ago');
    expect(relativeTime('2026-11-23T04:30:00Z', at('2026-11-23T19:00:00Z'), 'America/New_York')).toBe('yesterday');
    // The date beyond a week is the reader's date: 02:00 UTC on the 10th is still the 9th in New York.
    expect(relativeTime('2026-11-10T02:00:00Z', now, 'America/New_York')).toBe('2026-11-09');
    expect(relativeTime('2026-11-10T02:00:00Z', now, 'Asia/Tokyo')).toBe('2026-11-10');
  });
  it('a time a little ahead of now (clocks differ) is just now; far ahead, the date and time', () => {
    expect(relativeTime('2026-11-23T14:05:30Z', now, 'UTC')).toBe('just now');
    expect(relativeTime('2026-11-24T10:00:00Z', now, 'UTC')).toBe('2026-11-24 10:00');
  });
});

describe('exactTime', () => {
  it("gives the minute in the reader's zone with the zone's name", () => {
    expect(exactTime('2026-11-23T14:05:00Z', 'UTC')).toBe('2026-11-23 14:05 UTC');
    expect(exactTime('2026-11-23T14:05:00Z', 'America/New_York')).toBe('2026-11-23 09:05 EST');
    expect(exactTime('2026-07-01T14:05:00Z', 'America/New_York')).toBe('2026-07-01 10:05 EDT');
    expect(exactTime('2026-11-23T14:05:00Z', 'Asia/Kolkata')).toBe('2026-11-23 19:35 GMT+5:30');
  });
  it('follows the DST change: New York springs forward on 8 March 2026 at 02:00', () => {
    expect(exactTime('2026-03-08T06:59:00Z', 'America/New_York')).toBe('2026-03-08 01:59 EST');
    expect(exactTime('2026-03-08T07:00:00Z', 'America/New_York')).toBe('2026-03-08 03:00 EDT');
    // Berlin falls back on 25 October 2026: 02:30 happens twice, told apart by the offset's name.
    expect(exactTime('2026-10-25T00:30:00Z', 'Europe/Berlin')).toBe('2026-10-25 02:30 GMT+2');
    expect(exactTime('2026-10-25T01:30:00Z', 'Europe/Berlin')).toBe('2026-10-25 02:30 GMT+1');
  });
  it('falls back to UTC for a zone this Node does not know', () => {
    expect(exactTime('2026-11-23T14:05:00Z', 'Mars/Olympus_Mons')).toBe('2026-11-23 14:05 UTC');
    expect(when('2026-11-23T14:05:00Z', 'Mars/Olympus_Mons')).toBe('2026-11-23 14:05');
  });
  it('calendar days across the DST change count as days', () => {
    const after = at('2026-03-09T12:00:00Z');
    expect(relativeTime('2026-03-07T12:00:00Z', after, 'America/New_York')).toBe('2 days ago');
  });
});

describe('When', () => {
  it('renders <time datetime title>words</time>', async () => {
    const html = String(
      await When({ iso: '2026-11-23T11:05:00Z', zone: 'America/New_York', now: at('2026-11-23T14:05:00Z') }),
    );
    expect(html).toBe('<time datetime="2026-11-23T11:05:00Z" title="2026-11-23 06:05 EST">3 h ago</time>');
  });
});
