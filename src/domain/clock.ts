import type { Conn } from '../db/port.js';

// The one clock (ARCHITECTURE; docs/decisions/047): every business time — created and updated
// times, transaction times, session and link expiry, throttle windows, the time a screen shows
// "3 minutes ago" against — is read here, never from Date.now() or new Date().
//
// A clock belongs to a store: whoever opens the store may give it one (`useClock`), and every
// handle of that store (the reader, each unit of work's) reads it; a store given none reads the
// real time. So two servers in one process (tests; a copy-store) keep their own clocks, and the
// domain, the scrips and the events, which all run on a store handle, need no clock argument. The
// test clock of SPEC D2 (HXDESK_TEST_CLOCK, kept in the store so that every process of a
// database reads the same time) plugs in here.

export interface Clock {
  /** Now, in milliseconds since the epoch. */
  now(): number;
}

/** The real time. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until it is moved, and only forwards (SPEC D2's test clock). */
export interface TestClock extends Clock {
  /** Moves the clock to `at`; an earlier instant than the clock's is refused (the same one is fine). */
  set(at: string | number | Date): void;
  /** Moves the clock forwards by `ms`. */
  advance(ms: number): void;
}

export function testClock(start: string | number | Date = Date.now()): TestClock {
  const instant = (at: string | number | Date) => {
    const t = at instanceof Date ? at.getTime() : typeof at === 'string' ? Date.parse(at) : at;
    if (!Number.isFinite(t)) throw new RangeError(`Not an instant: ${String(at)}`);
    return t;
  };
  let t = instant(start);
  return {
    now: () => t,
    set(at) {
      const next = instant(at);
      if (next < t)
        throw new RangeError(
          `The test clock only moves forwards: it is ${new Date(t).toISOString()}, not ${new Date(next).toISOString()}`,
        );
      t = next;
    },
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`The test clock only moves forwards, not by ${ms} ms`);
      t += ms;
    },
  };
}

const clocks = new WeakMap<object, Clock>();

/** Gives the store of `conn` its clock (when it opens, before it serves). */
export function useClock(conn: Conn, clock: Clock): void {
  clocks.set(conn.store, clock);
}

/** The clock of the store `conn` belongs to (the real time unless it was given another). */
export function clockOf(conn: Conn): Clock {
  return clocks.get(conn.store) ?? systemClock;
}

/** Now by the store's clock, in milliseconds since the epoch. */
export const nowMs = (conn: Conn): number => clockOf(conn).now();

/** Now by the store's clock, as stored: ISO 8601 UTC with milliseconds. */
export const nowIso = (conn: Conn): string => new Date(clockOf(conn).now()).toISOString();
