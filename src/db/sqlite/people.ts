import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { users } from './schema.js';
import type { Db } from './handle.js';

/** How many of the newest users a name search reads, at most (an id range of the table). */
export const PEOPLE_SEARCH_WINDOW = 20_000;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
/** The text just past every text starting with `prefix` (binary order, as users_email_uq compares). */
const afterPrefix = (prefix: string) => `${prefix}\u{10FFFF}`;

/**
 * The three bounded reads behind a people search (decision 023), exported for their plan check:
 * addresses by prefix through users_email_uq (every user), staff through users_role_idx (a small
 * set), and a substring search of name and address among the newest PEOPLE_SEARCH_WINDOW users
 * only (an id range, read in id order). Each reads at most `n` matches.
 */
export function peopleSearchQueries(db: Db, needle: string, n: number) {
  const pattern = `%${likeEscape(needle)}%`;
  // LIKE folds ASCII letters only; a text with other letters ("émile") is matched by hx_contains,
  // which folds as JavaScript does (slower: a call per row, so only when needed).
  const name = /[^\x00-\x7f]/.test(needle)
    ? sql`hx_contains(${users.name}, ${needle})`
    : sql`${users.name} LIKE ${pattern} ESCAPE '\\'`;
  const contains = sql`(${name} OR ${users.email} LIKE ${pattern} ESCAPE '\\')`;
  const active = eq(users.disabled, false);
  return {
    byAddress: db
      .select()
      .from(users)
      .where(and(sql`${users.email} >= ${needle}`, sql`${users.email} < ${afterPrefix(needle)}`, active))
      .orderBy(asc(users.email))
      .limit(n),
    staff: db
      .select()
      .from(users)
      .where(and(inArray(users.role, ['admin', 'agent']), active, contains))
      .limit(n),
    recent: db
      .select()
      .from(users)
      .where(
        and(sql`${users.id} > (SELECT coalesce(max(id), 0) FROM users) - ${PEOPLE_SEARCH_WINDOW}`, active, contains),
      )
      .orderBy(desc(users.id))
      .limit(n),
  };
}

export function searchPeople(db: Db, needle: string, n: number) {
  const { byAddress, staff, recent } = peopleSearchQueries(db, needle, n);
  return [...byAddress.all(), ...staff.all(), ...recent.all()];
}
