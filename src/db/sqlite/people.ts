import { and, asc, sql } from 'drizzle-orm';
import { containsPattern } from '../shared/like.js';
import { PEOPLE_SEARCH_WINDOW, peopleSearchReads } from '../shared/peopleSearch.js';
import { users } from './schema.js';
import type { QueryBuilder } from '../port.js';

export { PEOPLE_SEARCH_WINDOW };

/** The text just past every text starting with `prefix` (binary order, as users_email_uq compares). */
const afterPrefix = (prefix: string) => `${prefix}\u{10FFFF}`;

/**
 * The people search's reads on SQLite (src/db/shared/peopleSearch.ts), exported for their plan
 * check: LIKE … ESCAPE '\' (which folds ASCII letters only; a name with other letters, "émile",
 * is matched by hx_contains, which folds as JavaScript does — slower, a call per row, so only
 * when needed), and a prefix as a range of users_email_uq.
 */
export function peopleSearchQueries(db: Pick<QueryBuilder, 'select'>, needle: string, n: number) {
  const pattern = containsPattern(needle);
  const name = /[^\x00-\x7f]/.test(needle)
    ? sql`hx_contains(${users.name}, ${needle})`
    : sql`${users.name} LIKE ${pattern} ESCAPE '\\'`;
  return peopleSearchReads(db, n, {
    contains: sql`(${name} OR ${users.email} LIKE ${pattern} ESCAPE '\\')`,
    prefix: {
      where: and(sql`${users.email} >= ${needle}`, sql`${users.email} < ${afterPrefix(needle)}`)!,
      order: asc(users.email),
    },
  });
}

/** Built on the port's handle (the store's reader or a unit of work's), whose queries are awaited. */
export async function searchPeople(db: Pick<QueryBuilder, 'select'>, needle: string, n: number) {
  const { byAddress, staff, recent } = peopleSearchQueries(db, needle, n);
  return [...(await byAddress), ...(await staff), ...(await recent)];
}
