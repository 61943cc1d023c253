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
