/** Minimal structured logging: JSON lines in production, readable lines in development. */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export interface Logger { (level: Level, msg: string, fields?: Record<string, unknown>): void }

export function createLogger(opts: { json: boolean; silent?: boolean }): Logger {
  return (level, msg, fields = {}) => {
    if (opts.silent && level !== 'error') return;
    const out = level === 'error' || level === 'warn' ? process.stderr : process.stdout;
    if (opts.json) out.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    else out.write(`${level.toUpperCase().padEnd(5)} ${msg}${Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : ''}\n`);
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

export function throttled(log: (level: LineLevel, msg: string, fields?: Record<string, unknown>) => void, opts: { windowMs?: number; now?: () => number } = {}): Throttled {
  const windowMs = opts.windowMs ?? LOG_WINDOW_MS;
  const now = opts.now ?? Date.now;
  const said = new Map<string, { at: number; held: number }>();
  const say = ((key, level, msg, fields = {}) => {
    const t = now();
    const last = said.get(key);
    if (last && t - last.at < windowMs) { last.held++; return; }
    said.set(key, { at: t, held: 0 });
    log(level, msg, last?.held ? { ...fields, repeated: last.held } : fields);
  }) as Throttled;
  say.clear = (prefix) => { for (const k of said.keys()) if (k.startsWith(prefix)) said.delete(k); };
  return say;
}
