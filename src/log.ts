import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';

/**
 * Structured logging: JSON lines in production (pino), readable lines in development. Lines at
 * `warn` and `error` go to stderr, the rest to stdout. Every line written while a request is
 * served carries its `request_id` (docs/decisions/044), whoever writes it.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export interface Logger {
  (level: Level, msg: string, fields?: Record<string, unknown>): void;
}

/** The request being served, for the lines written while serving it. */
const serving = new AsyncLocalStorage<{ id: string }>();

/** Runs `fn` (the rest of a request) with `id` on every line it logs. */
export const withRequestId = <T>(id: string, fn: () => T): T => serving.run({ id }, fn);
/** The id of the request being served, if any. */
export const currentRequestId = (): string | undefined => serving.getStore()?.id;
/**
 * Runs `fn` outside any request: for work a request only sets off (a worker's next turn, a
 * timer), whose lines belong to no request and must not carry the id of the one that woke it.
 */
export const outsideRequest = <T>(fn: () => T): T => serving.exit(fn);

const rank: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function createLogger(opts: { json: boolean; level?: Level; silent?: boolean }): Logger {
  const min: Level = opts.silent ? 'error' : (opts.level ?? 'info');
  if (opts.json) {
    const p = pino(
      {
        level: min,
        base: undefined,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        mixin: () => {
          const id = currentRequestId();
          return id === undefined ? {} : { request_id: id };
        },
      },
      pino.multistream(
        [
          { level: 'debug', stream: process.stdout },
          { level: 'warn', stream: process.stderr },
        ],
        { dedupe: true },
      ),
    );
    return (level, msg, fields) => {
      p[level](fields ?? {}, msg);
    };
  }
  return (level, msg, fields = {}) => {
    if (rank[level] < rank[min]) return;
    const id = currentRequestId();
    const all = id === undefined || 'request_id' in fields ? fields : { ...fields, request_id: id };
    const out = level === 'error' || level === 'warn' ? process.stderr : process.stdout;
    out.write(`${level.toUpperCase().padEnd(5)} ${msg}${Object.keys(all).length ? ` ${JSON.stringify(all)}` : ''}\n`);
  };
}

/**
 * A logger that says each cause at most once per window (docs/decisions/042: a worker that
 * fails on every turn, a full disk, must not write a line on every turn). `key` names the cause
 * (`outbox:disk_full`); a line held back is counted, and the next line of that key carries the
 * count as `repeated`. `now` is the clock of the window (tests give their own).
 */
type LineLevel = Exclude<Level, 'debug'>;
export interface Throttled {
  (key: string, level: LineLevel, msg: string, fields?: Record<string, unknown>): void;
  /** Forgets the keys starting with `prefix` (the cause is over: its next occurrence is said at once). */
  clear(prefix: string): void;
}

export const LOG_WINDOW_MS = 10_000;

export function throttled(
  log: (level: LineLevel, msg: string, fields?: Record<string, unknown>) => void,
  opts: { windowMs?: number; now?: () => number } = {},
): Throttled {
  const windowMs = opts.windowMs ?? LOG_WINDOW_MS;
  const now = opts.now ?? Date.now;
  const said = new Map<string, { at: number; held: number }>();
  const say = ((key, level, msg, fields = {}) => {
    const t = now();
    const last = said.get(key);
    if (last && t - last.at < windowMs) {
      last.held++;
      return;
    }
    said.set(key, { at: t, held: 0 });
    log(level, msg, last?.held ? { ...fields, repeated: last.held } : fields);
  }) as Throttled;
  say.clear = (prefix) => {
    for (const k of said.keys()) if (k.startsWith(prefix)) said.delete(k);
  };
  return say;
}
