import { and, asc, desc, eq, getTableColumns, type Placeholder, sql } from 'drizzle-orm';
import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';
import { containsPattern } from '../shared/like.js';
import { PEOPLE_SEARCH_WINDOW, indexedNeedle, peopleSearchReads } from '../shared/peopleSearch.js';
import { users } from './schema.js';
import type { QueryBuilder } from '../port.js';
import type { Db } from './handle.js';
import { fastPrepared, type SyncPrepared } from './rows.js';
import { perConnection } from './textHold.js';

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

/** What a people search's statements take: the needle and the texts made of it, or placeholders for them. */
interface Needle<T> {
  needle: T;
  /** `%needle%`, LIKE's own characters escaped. */
  pattern: T;
  /** Just past every text starting with the needle. */
  after: T;
  /** The needle as one FTS5 phrase. */
  phrase: T;
}
const needleOf = (needle: string): Needle<string> => ({
  needle,
  pattern: containsPattern(needle),
  after: afterPrefix(needle),
  phrase: phrase(needle),
});
/** The statements' shape: whether the name is matched by hx_contains (letters LIKE does not fold), whether users_people answers. */
const shapeOf = (needle: string) => ({ folds: /[^\x00-\x7f]/.test(needle), indexed: indexedNeedle(needle) });

function reads(
  db: Pick<QueryBuilder, 'select'>,
  shape: { folds: boolean; indexed: boolean },
  p: Needle<string | Placeholder>,
  n: number | Placeholder,
) {
  const name = shape.folds
    ? sql`hx_contains(${users.name}, ${p.needle})`
    : sql`${users.name} LIKE ${p.pattern} ESCAPE '\\'`;
  const all = peopleSearchReads(db, n, {
    contains: sql`(${name} OR ${users.email} LIKE ${p.pattern} ESCAPE '\\')`,
    prefix: {
      where: and(sql`${users.email} >= ${p.needle}`, sql`${users.email} < ${p.after}`)!,
      order: asc(users.email),
    },
  });
  if (!shape.indexed) return all;
  const recent = db
    .select(getTableColumns(users))
    .from(usersPeople)
    .innerJoin(users, eq(users.id, usersPeople.rowid))
    .where(and(sql`${usersPeople} MATCH ${p.phrase}`, eq(users.disabled, false)))
    .orderBy(desc(usersPeople.rowid))
    .limit(n);
  return { ...all, recent };
}

/**
 * The people search's reads on SQLite (src/db/shared/peopleSearch.ts), exported for their plan
 * check: LIKE … ESCAPE '\' (which folds ASCII letters only; a name with other letters, "émile",
 * is matched by hx_contains, which folds as JavaScript does — slower, a call per row, so only
 * when needed), and a prefix as a range of users_email_uq. A needle of three or more characters
 * finds names and addresses through users_people, read newest first (rowid order, descending)
 * and joined to users by its primary key: the cost follows the people read, not the table.
 */
export function peopleSearchQueries(db: Pick<QueryBuilder, 'select'>, needle: string, n: number) {
  return reads(db, shapeOf(needle), needleOf(needle), n);
}

/**
 * The same reads compiled once per connection and shape (decision 108): a staff `q` runs them
 * on every search, and building their three statements cost more than running them.
 */
const compiled = new Map<string, (db: Db) => SyncPrepared[]>();
function compiledReads(shape: { folds: boolean; indexed: boolean }): (db: Db) => SyncPrepared[] {
  const key = `${shape.folds}/${shape.indexed}`;
  let q = compiled.get(key);
  if (!q) {
    const p = {
      needle: sql.placeholder('needle'),
      pattern: sql.placeholder('pattern'),
      after: sql.placeholder('after'),
      phrase: sql.placeholder('phrase'),
    };
    q = perConnection((db) => {
      // The port's builder type is the stores' common (async) one; this connection's is synchronous.
      const { byAddress, staff, recent } = reads(
        db as unknown as Pick<QueryBuilder, 'select'>,
        shape,
        p,
        sql.placeholder('n'),
      );
      return [byAddress, staff, recent].map((r) =>
        fastPrepared(r.prepare() as unknown as Parameters<typeof fastPrepared>[0]),
      );
    });
    compiled.set(key, q);
  }
  return q;
}

/** The people a needle finds, at most `n` by each read, on a connection of the store (the reader or a unit of work's). */
export function searchPeople(db: Db, needle: string, n: number): (typeof users.$inferSelect)[] {
  const params = { ...needleOf(needle), n };
  return compiledReads(shapeOf(needle))(db).flatMap((r) => r.all(params) as (typeof users.$inferSelect)[]);
}
