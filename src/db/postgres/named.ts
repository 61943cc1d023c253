import { createHash } from 'node:crypto';

// Decision 088: every statement the store's connections send with the extended protocol (drizzle's
// queries: a config object with `text`) is sent under a name derived from its text, so each
// connection parses it once and keeps it (node-postgres sends only Bind/Execute the next time):
// 0.15–0.25 ms less per statement at 100k, for the 10 statements of a list and the 33 of a ticket
// page. PostgreSQL still plans each run with its parameters for the first five and keeps a generic
// plan only when it costs no more than theirs (plan_cache_mode auto), as for the statements
// the domain prepares itself (decision 078).

/** At most this many texts get a name per process: a connection keeps each (a few kB on the server). */
export const MAX_NAMED = 256;

/** The name of each statement text, up to `max` of them (undefined past that: sent unnamed, as before). */
export function statementNamer(max = MAX_NAMED): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name || names.size >= max) return name;
    name = `hxq_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
    return name;
  };
}

/**
 * The query arguments with a name added when the first is a config object without one (not a
 * submittable such as a cursor), and its text one the namer names; else the arguments as they are.
 */
export function withName(args: unknown[], nameOf: (text: string) => string | undefined): unknown[] {
  const config = args[0];
  if (typeof config !== 'object' || config === null) return args;
  const c = config as { text?: unknown; name?: unknown; submit?: unknown };
  if (typeof c.text !== 'string' || c.name !== undefined || typeof c.submit === 'function') return args;
  const name = nameOf(c.text);
  return name ? [{ ...c, name }, ...args.slice(1)] : args;
}
