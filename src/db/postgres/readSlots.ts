import type pg from 'pg';
import { inWrite } from '../priority.js';

// Decision 066: reads (lists, pages, searches: every statement run on the pool outside a unit of
// work) may hold at most `max − reserve` of the pool's connections at once; the rest are kept
// for units of work. Without it a burst of reads takes every connection and a write queues
// behind all of them (the 128-connection mix: writes waited most of a second for a
// connection). Units of work take their connection from the pool as before and may use all of
// it while reads are idle; a read over its share waits here, in order, and never holds a
// connection while it waits. Statements of a request that changes something (src/db/priority.ts:
// its session, the settings, the answer) are not held back here.

/** How many reads may hold a connection at once, for a pool of `max` keeping `reserve` for units of work. */
export const readShare = (max: number, reserve: number) => Math.max(1, max - Math.min(reserve, max - 1));

/** Runs `fn` holding one of the reads' slots (what a read transaction does instead of `pool.query`). */
export type InReadSlot = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * Makes `pool.query` (promise form) wait for one of `slots` before it takes a connection; returns
 * the same wait for a read that takes a connection of its own (a read-only transaction).
 */
export function limitReads(pool: pg.Pool, slots: number): InReadSlot {
  let busy = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  const inSlot: InReadSlot = (fn) => {
    const run = async () => {
      try {
        return await fn();
      } finally {
        release();
      }
    };
    if (busy < slots) {
      busy++;
      return run();
    }
    return new Promise<void>((resolve) => waiting.push(resolve)).then(run);
  };
  // A write's statements outside its unit of work are not reads.
  const inReadSlot: InReadSlot = (fn) => (inWrite() ? fn() : inSlot(fn));
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const limited = (...args: unknown[]) =>
    // The callback form is not ours.
    typeof args[args.length - 1] === 'function' ? query(...args) : inReadSlot(() => query(...args) as Promise<unknown>);
  Object.defineProperty(pool, 'query', { value: limited, writable: true, configurable: true });
  return inReadSlot;
}
