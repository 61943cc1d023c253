import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';
import { containsPattern } from '../shared/like.js';
import { PEOPLE_SEARCH_WINDOW, indexedNeedle, peopleSearchReads } from '../shared/peopleSearch.js';
import { users } from './schema.js';
import type { QueryBuilder } from '../port.js';

export { PEOPLE_SEARCH_WINDOW };

/** The text just past every text starting with `prefix` (binary order, as users_email_uq compares). */
const afterPrefix = (prefix: string) => `${prefix}\u{10FFFF}`;

/**
 * The FTS5 trigram index of users' name and email (migration 0036, decision 090): contentless,
 * its rowid is users.id. Declared here, not in schema.ts: drizzle-kit does not make virtual tables.
 */
const usersPeople = sqliteTable('users_people', { rowid: integer('rowid').notNull() });

/** An FTS5 query of one phrase: the needle as a substring of a column (trigram), any case. */
const phrase = (needle: string) => `"${needle.replaceAll('"', '""')}"`;

/**
 * The people search's reads on SQLite (src/db/shared/peopleSearch.ts), exported for their plan
 * check: LIKE … ESCAPE '\' (which folds ASCII letters only; a name with other letters, "émile",
 * is matched by hx_contains, which folds as JavaScript does — slower, a call per row, so only
 * when needed), and a prefix as a range of users_email_uq. A needle of three or more characters
 * finds names and addresses through users_people, read newest first (rowid order, descending)
 * and joined to users by its primary key: the cost follows the people read, not the table.
 */
export function peopleSearchQueries(db: Pick<QueryBuilder, 'select'>, needle: string, n: number) {
  const pattern = containsPattern(needle);
  const name = /[^\x00-\x7f]/.test(needle)
    ? sql`hx_contains(${users.name}, ${needle})`
    : sql`${users.name} LIKE ${pattern} ESCAPE '\\'`;
  const reads = peopleSearchReads(db, n, {
    contains: sql`(${name} OR ${users.email} LIKE ${pattern} ESCAPE '\\')`,
    prefix: {
      where: and(sql`${users.email} >= ${needle}`, sql`${users.email} < ${afterPrefix(needle)}`)!,
      order: asc(users.email),
    },
  });
  if (!indexedNeedle(needle)) return reads;
  const recent = db
    .select(getTableColumns(users))
    .from(usersPeople)
    .innerJoin(users, eq(users.id, usersPeople.rowid))
    .where(and(sql`${usersPeople} MATCH ${phrase(needle)}`, eq(users.disabled, false)))
    .orderBy(desc(usersPeople.rowid))
    .limit(n);
  return { ...reads, recent };
}

/** Built on the port's handle (the store's reader or a unit of work's), whose queries are awaited. */
export async function searchPeople(db: Pick<QueryBuilder, 'select'>, needle: string, n: number) {
  const { byAddress, staff, recent } = peopleSearchQueries(db, needle, n);
  return [...(await byAddress), ...(await staff), ...(await recent)];
}
