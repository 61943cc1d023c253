import { and, desc, eq, inArray, type Placeholder, sql, type SQL } from 'drizzle-orm';
import type { QueryBuilder } from '../port.js';
import { users } from '../tables.js';

// The people search's three bounded reads (decision 023), written once for both stores:
// addresses by prefix through users_email_uq (every user), staff through users_role_idx (a small
// set), and a substring search of name and address, newest first. A needle of three or more
// characters is looked up in a trigram index over every user (decision 090: FTS5 users_people on
// SQLite, pg_trgm GIN on PostgreSQL); a shorter one, which trigrams cannot answer, is tested
// against the newest PEOPLE_SEARCH_WINDOW users only (an id range, read in id order). Each reads
// at most `n` matches. What differs between the stores is how a text is matched in any case, how
// the index is asked and how a prefix is read off the address index.

/** How many of the newest users a search by a needle of one or two characters reads, at most. */
export const PEOPLE_SEARCH_WINDOW = 20_000;

/** The shortest needle the trigram index answers (in characters, as the tokenizer counts them). */
export const PEOPLE_SEARCH_INDEXED_MIN = 3;

/** Whether the trigram index answers `needle` (else the window's scan does). */
export const indexedNeedle = (needle: string) => [...needle].length >= PEOPLE_SEARCH_INDEXED_MIN;

export interface PeopleSearchDialect {
  /** The name or the address contains the needle, in any case (each store folds case its own way). */
  contains: SQL;
  /** The address starts with the needle, and the order users_email_uq reads it in. */
  prefix: { where: SQL; order: SQL };
  /** The order staff are read in, if any. */
  staffOrder?: SQL;
  /** `contains` is answered by an index over every user: the recent read has no window. */
  everyone?: boolean;
}

/** The three reads of a people search for at most `n` people each (exported by each store for its plan check). */
export function peopleSearchReads(db: Pick<QueryBuilder, 'select'>, n: number | Placeholder, d: PeopleSearchDialect) {
  const active = eq(users.disabled, false);
  return {
    byAddress: db.select().from(users).where(and(d.prefix.where, active)).orderBy(d.prefix.order).limit(n),
    staff: db
      .select()
      .from(users)
      .where(and(inArray(users.role, ['admin', 'agent']), active, d.contains))
      .orderBy(...(d.staffOrder ? [d.staffOrder] : []))
      .limit(n),
    recent: db
      .select()
      .from(users)
      .where(
        and(
          d.everyone
            ? undefined
            : sql`${users.id} > (SELECT coalesce(max(id), 0) FROM users) - ${PEOPLE_SEARCH_WINDOW}`,
          active,
          d.contains,
        ),
      )
      .orderBy(desc(users.id))
      .limit(n),
  };
}
