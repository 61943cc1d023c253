import { asc, sql } from 'drizzle-orm';
import { containsPattern, prefixPattern } from '../shared/like.js';
import { PEOPLE_SEARCH_WINDOW, indexedNeedle, peopleSearchReads } from '../shared/peopleSearch.js';
import { users } from '../tables.js';
import type { PgDb } from './ticketList.js';

export { PEOPLE_SEARCH_WINDOW };

/**
 * The people search's reads on PostgreSQL (src/db/shared/peopleSearch.ts): ILIKE (which folds
 * every letter by the database's ctype, where SQLite needs hx_contains for non-ASCII ones), a
 * prefix as LIKE in the address index's own order (COLLATE "C"), and staff in id order. A needle
 * of three or more characters is answered for every user by the pg_trgm GIN indexes on name and
 * email (migration 0024, decision 090), which serve ILIKE on the columns themselves.
 */
export function peopleSearchQueries(db: PgDb, needle: string, n: number) {
  const pattern = containsPattern(needle);
  return peopleSearchReads(db, n, {
    contains: sql`(${users.name} ILIKE ${pattern} OR ${users.email} ILIKE ${pattern})`,
    prefix: { where: sql`${users.email} LIKE ${prefixPattern(needle)}`, order: sql`${users.email} COLLATE "C"` },
    staffOrder: asc(users.id),
    everyone: indexedNeedle(needle),
  });
}

export async function searchPeople(db: PgDb, needle: string, n: number) {
  const { byAddress, staff, recent } = peopleSearchQueries(db, needle, n);
  // Side by side, each on a connection of its own: one round trip, not three (a staff q runs it).
  const [a, b, c] = await Promise.all([byAddress, staff, recent]);
  return [...a, ...b, ...c] as (typeof users.$inferSelect)[];
}
