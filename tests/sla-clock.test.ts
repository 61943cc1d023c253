// SPEC D2 ticket clocks (decision 070) as pure functions: what meets a response clock, the next
// response never replacing a pending first response, resolution pausing in stalled and going on
// from its time spent after a reopen, a new policy counting from the creation, and the policy
// that applies. No server, no store.
import { describe, expect, it } from 'vitest';
import {
  AROUND_THE_CLOCK,
  applySlaEvent,
  type BusinessHours,
  breachClock,
  nextDue,
  replaySla,
  type SlaEvent,
  type SlaState,
  type SlaTerms,
  startSla,
} from '../src/domain/time/slaClock.js';
import { matchPolicy, type MatchablePolicy, slaEventOf } from '../src/domain/time/slaMatch.js';

const H = 3_600_000;
const ms = (iso: string) => Date.parse(iso);
const iso = (n: number) => new Date(n).toISOString();

/** 09:00–17:00 UTC every day: enough to see business time counted, not the calendar arithmetic (h-cal's tests). */
const OFFICE: BusinessHours = {
  between(from, to) {
    let n = 0;
    for (let day = Math.floor(from / (24 * H)) * 24 * H; day < to; day += 24 * H) {
      const a = Math.max(from, day + 9 * H);
      const b = Math.min(to, day + 17 * H);
      if (b > a) n += b - a;
    }
    return n;
  },
  add(start, need) {
    let at = start;
    let left = need;
    for (;;) {
      const day = Math.floor(at / (24 * H)) * 24 * H;
      const open = Math.max(at, day + 9 * H);
      const close = day + 17 * H;
      if (open < close) {
        if (open + left <= close) return open + left;
        left -= close - open;
      }
      at = day + 24 * H;
    }
  },
};

const terms: SlaTerms = {
  policy_id: 1,
  calendar_id: null,
  first_response_minutes: 60,
  next_response_minutes: 30,
  resolution_minutes: 8 * 60,
  warn_before_minutes: 15,
};
const T0 = '2026-12-01T10:00:00.000Z';
const plus = (min: number) => iso(ms(T0) + min * 60_000);
const run = (events: SlaEvent[], t = terms, hours = AROUND_THE_CLOCK, status = 'new'): SlaState =>
  events.reduce((s, e) => applySlaEvent(s, e, hours), startSla(t, T0, status, hours));
const staff = (min: number): SlaEvent => ({ kind: 'staff_reply', at: plus(min) });
const customer = (min: number): SlaEvent => ({ kind: 'customer_message', at: plus(min) });
const status = (min: number, to: string): SlaEvent => ({ kind: 'status', at: plus(min), to });

describe('starting the clocks', () => {
  it('first response and resolution run from the creation; no next response yet', () => {
    const s = startSla(terms, T0, 'new', AROUND_THE_CLOCK);
    expect(s.first_response).toMatchObject({ due_at: plus(60), met_at: null, breached_at: null, warn_at: plus(45) });
    expect(s.resolution).toMatchObject({ due_at: plus(480), warn_at: plus(465) });
    expect(s.next_response).toBeNull();
    expect(s.paused).toBe(false);
    expect(nextDue(s)).toEqual({ due: plus(60), warn: plus(45) });
  });
  it('counts business time only (a ticket at 16:30 with one hour to go is due 09:30 the next day)', () => {
    const s = startSla(terms, '2026-12-01T16:30:00.000Z', 'new', OFFICE);
    expect(s.first_response?.due_at).toBe('2026-12-02T09:30:00.000Z');
  });
  it('a target left empty has no clock; no warning window without warn_before_minutes', () => {
    const s = startSla({ ...terms, first_response_minutes: null, warn_before_minutes: 0 }, T0, 'new', AROUND_THE_CLOCK);
    expect(s.first_response).toBeNull();
    expect(s.resolution?.warn_at).toBeNull();
    expect(nextDue(s)).toEqual({ due: plus(480), warn: null });
  });
  it('a ticket created stalled has its resolution paused; created resolved, met at once', () => {
    const stalled = startSla(terms, T0, 'stalled', AROUND_THE_CLOCK);
    expect(stalled.paused).toBe(true);
    expect(stalled.resolution?.due_at).toBeNull();
    expect(stalled.first_response?.due_at).toBe(plus(60));
    const resolved = startSla(terms, T0, 'resolved', AROUND_THE_CLOCK);
    expect(resolved.resolution?.met_at).toBe(T0);
    expect(resolved.first_response?.due_at).toBeNull();
    expect(nextDue(resolved).due).toBeNull();
  });
});

describe('what meets a response clock', () => {
  it("a staff member's public reply meets the first response", () => {
    const s = run([staff(20)]);
    expect(s.first_response).toMatchObject({ met_at: plus(20), due_at: null, breached_at: null });
    expect(nextDue(s).due).toBe(plus(480));
    // late: met, and breached at the due time it missed (its timer had not written it yet)
    expect(run([staff(61)]).first_response).toMatchObject({ met_at: plus(61), breached_at: plus(60) });
  });
  it('entries that are not a staff public reply mean nothing or start a next response', () => {
    const base = {
      created_at: plus(5),
      new_value: null,
      autoSubmitted: false,
      outsideSender: false,
    };
    expect(slaEventOf({ ...base, type: 'Correspond', role: 'agent' })).toEqual({ kind: 'staff_reply', at: plus(5) });
    expect(slaEventOf({ ...base, type: 'Correspond', role: 'admin' })?.kind).toBe('staff_reply');
    // an internal note, a field change, an autoreply (even from a staff address), nobody's entry
    expect(slaEventOf({ ...base, type: 'Comment', role: 'agent' })).toBeNull();
    expect(slaEventOf({ ...base, type: 'SetPriority', role: 'agent', new_value: '5' })).toBeNull();
    expect(slaEventOf({ ...base, type: 'SetOwner', role: 'agent', new_value: '3' })).toBeNull();
    expect(slaEventOf({ ...base, type: 'Correspond', role: 'agent', autoSubmitted: true })).toBeNull();
    expect(slaEventOf({ ...base, type: 'Correspond', role: 'requester', autoSubmitted: true })).toBeNull();
    expect(slaEventOf({ ...base, type: 'Correspond', role: undefined })).toBeNull();
    expect(slaEventOf({ ...base, type: 'Comment', role: 'requester', outsideSender: true })).toBeNull();
    expect(slaEventOf({ ...base, type: 'SLA', role: undefined, new_value: 'warning' })).toBeNull();
    // a requester's or Cc's message (both have the requester role)
    expect(slaEventOf({ ...base, type: 'Correspond', role: 'requester' })).toEqual({
      kind: 'customer_message',
      at: plus(5),
    });
    expect(slaEventOf({ ...base, type: 'Status', role: 'agent', new_value: 'open' })).toEqual({
      kind: 'status',
      at: plus(5),
      to: 'open',
    });
  });
  it("a customer's message never meets a clock, and before a staff reply starts nothing", () => {
    const s = run([customer(10), customer(20)]);
    expect(s.first_response).toMatchObject({ met_at: null, due_at: plus(60) });
    expect(s.next_response).toBeNull();
  });
  it("a customer's message after a staff reply starts the next response, met by the next staff reply", () => {
    const s1 = run([staff(20), customer(100)]);
    expect(s1.next_response).toMatchObject({ start: plus(100), due_at: plus(130), warn_at: plus(115), met_at: null });
    expect(nextDue(s1).due).toBe(plus(130));
    // a second customer message does not move it: it counts from the first unanswered one
    const s2 = applySlaEvent(s1, customer(110), AROUND_THE_CLOCK);
    expect(s2.next_response?.due_at).toBe(plus(130));
    const s3 = applySlaEvent(s2, staff(125), AROUND_THE_CLOCK);
    expect(s3.next_response).toMatchObject({ met_at: plus(125), due_at: null });
    // the next customer message is a new promise (another cycle)
    const s4 = applySlaEvent(s3, customer(200), AROUND_THE_CLOCK);
    expect(s4.next_response).toMatchObject({ start: plus(200), due_at: plus(230), met_at: null });
    expect(s4.next_response?.cycle).not.toBe(s1.next_response?.cycle);
  });
  it('a pending first response is never replaced by a next response', () => {
    // No staff reply yet: the customer writes again and again; the first response stays as it was.
    const s = run([customer(10), customer(50), customer(70)]);
    expect(s.first_response?.due_at).toBe(plus(60));
    expect(s.next_response).toBeNull();
    // The first response was met later: only then does a customer message start a next response.
    const later = applySlaEvent(applySlaEvent(s, staff(90), AROUND_THE_CLOCK), customer(95), AROUND_THE_CLOCK);
    expect(later.first_response?.met_at).toBe(plus(90));
    expect(later.next_response?.due_at).toBe(plus(125));
  });
  it('a policy without a first response target still starts next responses after a staff reply', () => {
    const s = run([customer(5), staff(30), customer(40)], { ...terms, first_response_minutes: null });
    expect(s.first_response).toBeNull();
    expect(s.next_response?.due_at).toBe(plus(70));
  });
});

describe('resolution', () => {
  it('pauses in stalled (no due time, paused) and resumes from the time spent', () => {
    const s1 = run([status(1, 'open'), status(60, 'stalled')]);
    expect(s1.paused).toBe(true);
    expect(s1.resolution).toMatchObject({ due_at: null, warn_at: null, spent_ms: 60 * 60_000, since: null });
    expect(nextDue(s1).due).toBe(plus(60)); // the first response still runs
    const s2 = applySlaEvent(s1, status(300, 'open'), AROUND_THE_CLOCK);
    expect(s2.paused).toBe(false);
    // 60 minutes spent, 420 to go from minute 300
    expect(s2.resolution?.due_at).toBe(plus(720));
  });
  it('is met at resolved or rejected, and a reopen goes on from the time spent (met_at cleared)', () => {
    const s1 = run([staff(10), status(120, 'resolved')]);
    expect(s1.resolution).toMatchObject({ met_at: plus(120), due_at: null });
    expect(nextDue(s1).due).toBeNull();
    const s2 = applySlaEvent(s1, status(1000, 'open'), AROUND_THE_CLOCK);
    expect(s2.resolution).toMatchObject({ met_at: null, due_at: plus(1000 + 360) });
    // the same promise: its cycle is the one it had
    expect(s2.resolution?.cycle).toBe(s1.resolution?.cycle);
    const s3 = applySlaEvent(s2, status(1100, 'rejected'), AROUND_THE_CLOCK);
    expect(s3.resolution?.met_at).toBe(plus(1100));
  });
  it('a reopen by a customer message: the next response starts and runs once the ticket is open', () => {
    const s1 = run([staff(10), status(20, 'resolved'), customer(500)]);
    expect(s1.next_response).toMatchObject({ start: plus(500), due_at: null });
    const s2 = applySlaEvent(s1, status(500, 'open'), AROUND_THE_CLOCK);
    expect(s2.next_response?.due_at).toBe(plus(530));
    expect(nextDue(s2).due).toBe(plus(530));
  });
  it('a pending first response halts while the ticket is resolved, and resumes when reopened', () => {
    const s = run([status(30, 'resolved'), status(200, 'open')]);
    expect(s.first_response).toMatchObject({ met_at: null, due_at: plus(230) });
  });
  it('over its target when it resumes: due at the resumption, or at the due time it missed', () => {
    const t = { ...terms, resolution_minutes: 60 };
    const s1 = run([status(0, 'open'), status(90, 'stalled')], t);
    expect(s1.resolution?.spent_ms).toBe(90 * 60_000);
    expect(applySlaEvent(s1, status(100, 'open'), AROUND_THE_CLOCK).resolution?.due_at).toBe(plus(100));
    const breached = run([status(0, 'open')], t);
    const b = breachClock(breached, 'resolution');
    expect(b.resolution?.breached_at).toBe(plus(60));
    const b2 = applySlaEvent(
      applySlaEvent(b, status(90, 'stalled'), AROUND_THE_CLOCK),
      status(100, 'open'),
      AROUND_THE_CLOCK,
    );
    expect(b2.resolution).toMatchObject({ due_at: plus(60), breached_at: plus(60) });
  });
  it('the paused time is counted in business hours', () => {
    // created 10:00, stalled 16:00 (6 business hours), open again at 10:00 the next day: 2 h left
    const s = run([status(6 * 60, 'stalled'), status(24 * 60, 'open')], terms, OFFICE);
    expect(s.resolution?.due_at).toBe('2026-12-02T12:00:00.000Z');
  });
});

describe('another policy', () => {
  const events = [status(1, 'open'), staff(30), status(60, 'stalled'), status(120, 'open')];
  it('counts its targets from the creation, the time spent and paused carried over', () => {
    const before = run(events);
    const stricter = { ...terms, policy_id: 2, first_response_minutes: 15, resolution_minutes: 120 };
    const s = replaySla(stricter, T0, 'new', events, AROUND_THE_CLOCK, before);
    expect(s.policy_id).toBe(2);
    // met at minute 30, late for a target of 15 minutes: breached at the due time it missed
    expect(s.first_response).toMatchObject({ met_at: plus(30), breached_at: plus(15), due_at: null });
    // 60 minutes spent before the pause, running again since 120: due at 180
    expect(s.resolution?.due_at).toBe(plus(180));
    expect(s.resolution?.cycle).not.toBe(before.resolution?.cycle);
  });
  it('the same promise keeps its breach', () => {
    const before = breachClock(run([status(1, 'open')]), 'first_response');
    const s = replaySla({ ...terms, warn_before_minutes: 5 }, T0, 'new', [status(1, 'open')], AROUND_THE_CLOCK, before);
    expect(s.first_response).toMatchObject({ breached_at: plus(60), due_at: plus(60), warn_at: plus(55) });
  });
});

describe('matching a policy', () => {
  const p = (id: number, match: MatchablePolicy['match']): MatchablePolicy => ({
    id,
    name: `Policy ${id}`,
    match,
    calendar_id: null,
    first_response_minutes: 60,
    next_response_minutes: null,
    resolution_minutes: null,
    warn_before_minutes: 0,
  });
  const policies = [
    p(1, { queue_ids: [2], priority_min: 50 }),
    p(2, { cf: { tier: 'gold' } }),
    p(3, { cf: { seats: 10 }, priority_max: 20 }),
    p(4, {}),
  ];
  const t = { queue_id: 1, priority: 0, cf: {} };
  it('takes the first that fits, in order; empty fits every ticket', () => {
    expect(matchPolicy(policies, t)?.id).toBe(4);
    expect(matchPolicy(policies, { ...t, queue_id: 2, priority: 50 })?.id).toBe(1);
    expect(matchPolicy(policies, { ...t, queue_id: 2, priority: 49 })?.id).toBe(4);
    expect(matchPolicy(policies, { ...t, queue_id: 2, priority: 70, cf: { tier: 'gold' } })?.id).toBe(1);
    expect(matchPolicy(policies, { ...t, cf: { tier: 'gold' } })?.id).toBe(2);
    expect(matchPolicy(policies, { ...t, cf: { tier: 'silver' } })?.id).toBe(4);
    expect(matchPolicy(policies, { ...t, cf: { seats: '10' } })?.id).toBe(3);
    expect(matchPolicy(policies, { ...t, priority: 21, cf: { seats: '10' } })?.id).toBe(4);
    expect(matchPolicy(policies.slice(0, 3), t)).toBeNull();
  });
  it('tags are ignored until D3', () => {
    expect(matchPolicy([p(9, { tags: ['vip'] })], t)?.id).toBe(9);
  });
});
