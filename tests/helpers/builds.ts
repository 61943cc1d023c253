import { SQLiteSelectBase } from 'drizzle-orm/sqlite-core';
import type Database from 'better-sqlite3';

/**
 * Counts the SQLite queries drizzle builds (its select builder's private `_prepare`) while `run`
 * runs: what a statement kept or compiled once does not do again (issue 32). Gives `run`'s answer
 * and the count; drizzle is put back whatever happens.
 */
export async function countingBuilds<T>(run: () => Promise<T> | T): Promise<{ answer: T; builds: number }> {
  const proto = SQLiteSelectBase.prototype as unknown as { _prepare: (...a: unknown[]) => unknown };
  const build = proto._prepare;
  let builds = 0;
  proto._prepare = function (this: unknown, ...a: unknown[]) {
    builds++;
    return build.apply(this, a);
  };
  try {
    return { answer: await run(), builds };
  } finally {
    proto._prepare = build;
  }
}

/**
 * Counts the runs of SQLite statements on `db` whose SQL matches `sql` while `run` runs (better-
 * sqlite3's statements, whichever code prepared them): work a list does not repeat (issue 32).
 * Gives `run`'s answer and the count; the statements' methods are put back whatever happens.
 */
export async function countingRuns<T>(
  db: Database.Database,
  sql: RegExp,
  run: () => Promise<T> | T,
): Promise<{ answer: T; runs: number }> {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<'get' | 'all' | 'run' | 'iterate', Method>;
  const kept = { get: proto.get, all: proto.all, run: proto.run, iterate: proto.iterate };
  let runs = 0;
  for (const m of ['get', 'all', 'run', 'iterate'] as const)
    proto[m] = function (this: { source: string }, ...a: unknown[]) {
      if (sql.test(this.source)) runs++;
      return kept[m].apply(this, a);
    };
  try {
    return { answer: await run(), runs };
  } finally {
    Object.assign(proto, kept);
  }
}
type Method = (this: { source: string }, ...a: unknown[]) => unknown;
