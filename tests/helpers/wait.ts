// The one way the tests wait for something to happen (a row delivered, a process up, a mail
// received): poll, and fail after a deadline naming what was awaited and the last value seen.
// (Sleeping a fixed time to let something happen is not waiting; moving business time is the
// test clock's job, src/domain/clock.ts.)

export interface WaitOptions {
  /** How long to wait before failing (default 20 s). */
  timeoutMs?: number;
  /** How long between two probes (default 25 ms). */
  intervalMs?: number;
  /** Whether a probe that throws is tried again until the deadline (default: the error fails the wait at once). */
  retryErrors?: boolean;
}

/** A real-time pause, for machinery that runs on real time (a background worker's turn); business time moves with the test clock, never by waiting. */
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until `done` says yes to its value, and returns that value. */
export async function waitUntil<T>(
  label: string,
  probe: () => Promise<T> | T,
  done: (v: T) => boolean,
  opts: WaitOptions | number = {},
): Promise<T> {
  const {
    timeoutMs = 20_000,
    intervalMs = 25,
    retryErrors = false,
  } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await probe();
      if (done(last)) return last;
    } catch (e) {
      if (!retryErrors || Date.now() > deadline) throw e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${label}; last value: ${JSON.stringify(last)?.slice(0, 500)}`,
      );
    await pause(intervalMs);
  }
}

/** Polls `check` until it returns something truthy, and returns that. */
export function until<T>(
  label: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  opts: WaitOptions | number = {},
): Promise<T> {
  return waitUntil(label, check, Boolean, opts) as Promise<T>;
}
