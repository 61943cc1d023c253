import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { users } from '../tables.js';
import { containsPattern } from './search.js';
import type { PgDb } from './ticketList.js';

/** How many of the newest users a name search reads, at most (as on SQLite, decision 023). */
export const PEOPLE_SEARCH_WINDOW = 20_000;

/**
 * A people search on PostgreSQL: the same three bounded reads as src/db/sqlite/people.ts
 * (addresses by prefix, staff, the newest users), with ILIKE (which folds every letter by the
 * database's ctype, where SQLite needs hx_contains for non-ASCII ones).
 */
export function peopleSearchQueries(db: PgDb, needle: string, n: number) {
  const pattern = containsPattern(needle);
  const prefix = `${needle.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const contains = sql`(${users.name} ILIKE ${pattern} OR ${users.email} ILIKE ${pattern})`;
  const active = eq(users.disabled, false);
  return {
    byAddress: db
      .select()
      .from(users)
      .where(and(sql`${users.email} LIKE ${prefix}`, active))
      .orderBy(sql`${users.email} COLLATE "C"`)
      .limit(n),
    staff: db
      .select()
      .from(users)
      .where(and(inArray(users.role, ['admin', 'agent']), active, contains))
      .orderBy(asc(users.id))
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

export async function searchPeople(db: PgDb, needle: string, n: number) {
  const { byAddress, staff, recent } = peopleSearchQueries(db, needle, n);
  return [...(await byAddress), ...(await staff), ...(await recent)] as (typeof users.$inferSelect)[];
}
