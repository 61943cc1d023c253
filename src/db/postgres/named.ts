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

/**
 * Texts whose best plan depends on a pattern's value (LIKE, ILIKE, a text search query) are sent
 * unnamed, so PostgreSQL plans each run with its values (decision 093). A generic plan cannot know
 * how many rows a pattern matches, and after five runs it kept one that walked every user in id
 * order for a people search no name matches (30–44 ms at 20,000 users, against 0.2 ms through the
 * trigram index its own value picks).
 */
const PLANNED_EACH_RUN = /\b(I?LIKE|to_tsquery)\b|\/\* planned each run \*\//i;

/**
 * Marks a statement to be planned with its values each run, as a pattern's (decision 102): one
 * whose best plan depends on how many ids an array holds. A generic plan takes `id = ANY($1)` for a
 * few ids: for 1,600 held tickets it probed the primary key for each and sorted them (1.9 ms)
 * where their own plan reads the sort's index until the page is full (0.3 ms).
 */
export const PLANNED_EACH_RUN_MARK = '/* planned each run */';

/** The name of each statement text, up to `max` of them (undefined past that, or for a pattern's: sent unnamed). */
export function statementNamer(max = MAX_NAMED): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    if (PLANNED_EACH_RUN.test(text)) return undefined;
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
