// SPEC D2 ticket clocks (decision 070), as pure functions: what a ticket's SLA state becomes
// when it starts, when something happens to the ticket, and when another policy applies. No
// store, no clock: business time comes in as `BusinessHours` (the policy's calendar), instants
// as ISO strings. ./sla.ts applies them in the ticket's unit of work and arms the timers.
//
// Each clock keeps the business time it has counted (`spent_ms`, up to `since`) and, while it
// runs, since when (`since`): its due time is `target − spent` business time after `since`.
// Paused (resolution in a waiting status) or halted (any clock of a resolved, rejected or
// deleted ticket) it has no due time and counts nothing; running again it goes on from the
// time it spent. A clock's `cycle` names one promise (the policy, the target, when it began):
// its warning and its breach fire once per cycle, and `breached_at` stays within a cycle.

import type { Category } from '../lifecycles/categories.js';
import type { SlaClock } from './slaJson.js';

export { SLA_CLOCKS, type SlaClock } from './slaJson.js';

/** Business time under one calendar (null calendar: around the clock). */
export interface BusinessHours {
  /** The instant `ms` business milliseconds after `startMs`. */
  add(startMs: number, ms: number): number;
  /** Business milliseconds between two instants (0 when toMs <= fromMs). */
  between(fromMs: number, toMs: number): number;
}

/** Around the clock: every millisecond counts. */
export const AROUND_THE_CLOCK: BusinessHours = {
  add: (start, ms) => start + ms,
  between: (from, to) => Math.max(0, to - from),
};

/** What a policy promises, as a ticket's state keeps it (a later edit of the policy applies at the next match). */
export interface SlaTerms {
  policy_id: number;
  calendar_id: number | null;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  warn_before_minutes: number;
}

export interface ClockState {
  due_at: string | null;
  met_at: string | null;
  breached_at: string | null;
  /** When the warning falls due (null: no warning window, or not running). */
  warn_at: string | null;
  /** When this promise began: the ticket's creation, or the customer's message a next response answers. */
  start: string;
  cycle: string;
  /** Business milliseconds counted up to `since` (or up to the pause). */
  spent_ms: number;
  /** Running since (null: paused, halted or met). */
  since: string | null;
  /** When this promise's warning was written (once per promise: its timer then waits for the breach). */
  warned_at?: string | null;
}

export interface SlaState {
  policy_id: number;
  terms: SlaTerms;
  first_response: ClockState | null;
  next_response: ClockState | null;
  resolution: ClockState | null;
  /** Resolution waits in a waiting status (`stalled`). */
  paused: boolean;
  /** A staff member has replied publicly: a customer's message now starts a next response. */
  staff_replied: boolean;
  /** The ticket's status as the clocks last saw it. */
  status: string;
}

/** What happens to a ticket, as far as its clocks care. */
export type SlaEvent =
  | { kind: 'staff_reply'; at: string }
  | { kind: 'customer_message'; at: string }
  | { kind: 'status'; at: string; to: string };

/**
 * What a status means to the clocks: its lifecycle's category (SPEC D3), handed in by the caller
 * (this module stays pure). Response clocks run in the initial, active and waiting categories;
 * resolution runs in initial and active, pauses in waiting, and is met in inactive — except in
 * `deleted` (decision 050's hidden status), where it halts unmet.
 */
export type StatusKinds = (status: string) => Category | undefined;
/** RT's default lifecycle (SPEC B3), for callers with no lifecycle at hand. */
export const DEFAULT_KINDS: StatusKinds = (status) =>
  ({
    new: 'initial',
    open: 'active',
    stalled: 'waiting',
    resolved: 'inactive',
    rejected: 'inactive',
    deleted: 'inactive',
  })[status] as Category | undefined;
const HALTED_UNMET = 'deleted';
const runningResponse = (k: StatusKinds, status: string) => {
  const c = k(status);
  return c === 'initial' || c === 'active' || c === 'waiting';
};
const runningResolution = (k: StatusKinds, status: string) => {
  const c = k(status);
  return c === 'initial' || c === 'active';
};
const metResolution = (k: StatusKinds, status: string) => k(status) === 'inactive' && status !== HALTED_UNMET;
/** Whether resolution waits in this status (SPEC D2's pause; the `waiting` category of D3). */
export const isWaiting = (k: StatusKinds, status: string) => k(status) === 'waiting';
const MINUTE = 60_000;
const ms = (iso: string) => Date.parse(iso);
const iso = (n: number) => new Date(n).toISOString();

const targetOf = (terms: SlaTerms, name: SlaClock): number | null => terms[`${name}_minutes`];
const runsIn = (k: StatusKinds, name: SlaClock, status: string) =>
  name === 'resolution' ? runningResolution(k, status) : runningResponse(k, status);

function newClock(terms: SlaTerms, name: SlaClock, start: string): ClockState | null {
  const target = targetOf(terms, name);
  if (target === null) return null;
  return {
    due_at: null,
    met_at: null,
    breached_at: null,
    warn_at: null,
    start,
    cycle: `${terms.policy_id}:${target}:${start}`,
    spent_ms: 0,
    since: null,
  };
}

/** Stops counting at `at` (paused, halted or met): the time spent is kept. */
function halt(c: ClockState, at: string, hours: BusinessHours): ClockState {
  if (c.since === null) return c;
  return {
    ...c,
    spent_ms: c.spent_ms + hours.between(ms(c.since), ms(at)),
    since: null,
    due_at: null,
    warn_at: null,
  };
}

/** The due and warning times of a running clock. */
function timed(c: ClockState, terms: SlaTerms, name: SlaClock, hours: BusinessHours): ClockState {
  if (c.since === null) return { ...c, due_at: null, warn_at: null };
  const remaining = (targetOf(terms, name) ?? 0) * MINUTE - c.spent_ms;
  // Over its target already when it (re)started: due then, or at the due time it missed.
  const due = remaining > 0 ? iso(hours.add(ms(c.since), remaining)) : (c.breached_at ?? c.since);
  const warn = terms.warn_before_minutes > 0 ? iso(ms(due) - terms.warn_before_minutes * MINUTE) : null;
  return { ...c, due_at: due, warn_at: warn };
}

/** Starts counting at `at` (no change when it runs or is met). */
function run(c: ClockState, at: string, terms: SlaTerms, name: SlaClock, hours: BusinessHours): ClockState {
  if (c.since !== null || c.met_at !== null) return c;
  return timed({ ...c, since: at }, terms, name, hours);
}

/** Runs or halts one clock for the ticket's status. */
function follow(
  c: ClockState | null,
  name: SlaClock,
  status: string,
  at: string,
  terms: SlaTerms,
  hours: BusinessHours,
  k: StatusKinds,
): ClockState | null {
  if (c === null || c.met_at !== null) return c;
  return runsIn(k, name, status) ? run(c, at, terms, name, hours) : halt(c, at, hours);
}

function withStatus(s: SlaState, status: string, at: string, hours: BusinessHours, k: StatusKinds): SlaState {
  let resolution = s.resolution;
  if (resolution) {
    if (metResolution(k, status)) {
      // Met: its due time stays, so a reader sees whether it was met in time.
      if (resolution.met_at === null)
        resolution = { ...halt(resolution, at, hours), due_at: resolution.due_at, met_at: at };
    } else if (resolution.met_at !== null && runningResponse(k, status)) {
      // Reopened: not resolved any more; it goes on from the time it spent (a due time anew).
      resolution = { ...resolution, met_at: null, due_at: null, warn_at: null };
    }
  }
  const next: SlaState = {
    ...s,
    status,
    first_response: follow(s.first_response, 'first_response', status, at, s.terms, hours, k),
    next_response: follow(s.next_response, 'next_response', status, at, s.terms, hours, k),
    resolution: follow(resolution, 'resolution', status, at, s.terms, hours, k),
  };
  next.paused = next.resolution !== null && next.resolution.met_at === null && isWaiting(k, status);
  return next;
}

/** The clocks of a ticket a policy applies to from its creation (`created`), in `status`. */
export function startSla(
  terms: SlaTerms,
  created: string,
  status: string,
  hours: BusinessHours,
  k: StatusKinds = DEFAULT_KINDS,
): SlaState {
  const s: SlaState = {
    policy_id: terms.policy_id,
    terms,
    first_response: newClock(terms, 'first_response', created),
    next_response: null,
    resolution: newClock(terms, 'resolution', created),
    paused: false,
    staff_replied: false,
    status,
  };
  return withStatus(s, status, created, hours, k);
}

/** Met at `at`; met after its due time (before its breach was written), breached at that due time. */
function meet(c: ClockState | null, at: string, hours: BusinessHours): ClockState | null {
  if (c === null || c.met_at !== null) return c;
  const breached = c.breached_at ?? (c.due_at !== null && c.due_at < at ? c.due_at : null);
  // Its due time stays, so a reader sees whether it was met in time.
  return { ...halt(c, at, hours), due_at: c.due_at, met_at: at, breached_at: breached };
}

/** The state after one event. */
export function applySlaEvent(
  s: SlaState,
  e: SlaEvent,
  hours: BusinessHours,
  k: StatusKinds = DEFAULT_KINDS,
): SlaState {
  switch (e.kind) {
    case 'status':
      return e.to === s.status ? s : withStatus(s, e.to, e.at, hours, k);
    case 'staff_reply':
      // Only this meets a response clock: the first response, or the next response running.
      return {
        ...s,
        staff_replied: true,
        first_response: meet(s.first_response, e.at, hours),
        next_response: meet(s.next_response, e.at, hours),
      };
    case 'customer_message': {
      // After a staff reply, a customer's message starts a next response — unless one is running
      // already (it counts from the first unanswered message), and never while the first
      // response is still pending (it is not replaced).
      if (!s.staff_replied) return s;
      if (s.first_response !== null && s.first_response.met_at === null) return s;
      if (s.next_response !== null && s.next_response.met_at === null) return s;
      const c = newClock(s.terms, 'next_response', e.at);
      if (c === null) return s;
      return { ...s, next_response: follow(c, 'next_response', s.status, e.at, s.terms, hours, k) };
    }
  }
}

/**
 * A ticket's clocks under another policy (or the same one edited): its history replayed from
 * creation, so the targets count from the creation and the time spent and paused carries over.
 * A clock of the same cycle as before keeps its breach.
 */
export function replaySla(
  terms: SlaTerms,
  created: string,
  initialStatus: string,
  events: SlaEvent[],
  hours: BusinessHours,
  before: SlaState | null,
  k: StatusKinds = DEFAULT_KINDS,
): SlaState {
  let s = startSla(terms, created, initialStatus, hours, k);
  for (const e of events) s = applySlaEvent(s, e, hours, k);
  if (!before) return s;
  const keep = (name: SlaClock): ClockState | null => {
    const now = s[name];
    const old = before[name];
    if (!now || !old || old.cycle !== now.cycle || old.breached_at === null) return now;
    return timed({ ...now, breached_at: old.breached_at }, terms, name, hours);
  };
  return {
    ...s,
    first_response: keep('first_response'),
    next_response: keep('next_response'),
    resolution: keep('resolution'),
  };
}

/** Whether two sets of terms promise the same. */
export const sameTerms = (a: SlaTerms, b: SlaTerms): boolean =>
  a.policy_id === b.policy_id &&
  a.calendar_id === b.calendar_id &&
  a.first_response_minutes === b.first_response_minutes &&
  a.next_response_minutes === b.next_response_minutes &&
  a.resolution_minutes === b.resolution_minutes &&
  a.warn_before_minutes === b.warn_before_minutes;

/** The earliest unmet due time of a running clock, and that clock's warning time (what sort=due and sla= read). */
export function nextDue(s: SlaState | null): { due: string | null; warn: string | null } {
  let best: ClockState | null = null;
  if (s)
    for (const c of [s.first_response, s.next_response, s.resolution])
      if (c && c.met_at === null && c.due_at !== null && (best === null || c.due_at < (best.due_at as string)))
        best = c;
  return { due: best?.due_at ?? null, warn: best?.warn_at ?? null };
}

/** A clock's breach, when its timer fires. */
export function breachClock(s: SlaState, name: SlaClock): SlaState {
  const c = s[name];
  if (!c || c.due_at === null || c.breached_at !== null) return s;
  return { ...s, [name]: { ...c, breached_at: c.due_at } };
}

/** The state once the warning of clock `name` was written at `at`. */
export function warnClock(s: SlaState, name: SlaClock, at: string): SlaState {
  const c = s[name];
  if (!c || c.warned_at) return s;
  return { ...s, [name]: { ...c, warned_at: at } };
}

/** Reads a stored state (null: none, or written by something else). */
export function parseSlaState(stored: string | null): SlaState | null {
  if (!stored) return null;
  try {
    const o = JSON.parse(stored) as SlaState;
    return o && typeof o.policy_id === 'number' && o.terms ? o : null;
  } catch {
    return null;
  }
}
